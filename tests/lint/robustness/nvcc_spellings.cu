// Valid CUDA (`nvcc -c` accepts it) that Clang reads otherwise, each
// spelling from public code (issue [13] item 3): a launch whose chevrons an
// editor's formatter spaced apart (`k << <grid, block >> > (args)`), a
// `__shared__ alignas(...)` declaration (nvcc takes the GNU attribute
// first), and a PTX register named with one `%` in inline asm. The lint
// respells them as Clang reads them, columns kept, and goes on: no Clang
// error, the launch's block (32, 32) read, and the column read below a
// 32-way conflict at the column the file has it.
#include <cstdio>
#define TILE 32

__device__ unsigned long long now() {
  unsigned long long t;
  // CHECK: note: 'GCCAsmStmt' statement not understood; its accesses are not analyzed [bankwise-unanalyzed]
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void column_sum(const float *in, float *out, unsigned long long *stamp) {
  __shared__ alignas(16) float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
  out[threadIdx.y * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    stamp[blockIdx.x] = now();
}

void launch_column_sum(const float *in, float *out, unsigned long long *stamp) {
  dim3 block(TILE, TILE);
  column_sum << <1, block >> > (in, out, stamp);
  column_sum <<< 1, block >>> (in, out, stamp);
  printf("%d\n", 1 << 4 >> 2);
}
