// Valid CUDA (`nvcc -c` accepts it) that Clang reads otherwise, each
// spelling from public code (issue [13] item 3): a launch whose chevrons an
// editor's formatter spaced apart (`k << <grid, block >> > (args)`), a
// `__shared__ alignas(...)` declaration (nvcc takes the GNU attribute
// first), a PTX register named with one `%` in inline asm, an asm operand
// list without its comma, a host `CLOCKS_PER_SEC` with no <time.h>
// (nvcc's cuda_runtime.h includes it), and an initialized variable-length
// array in host code (GCC's extension; a note, as host code is). The lint
// respells them as Clang reads them, columns kept, and goes on: no Clang
// error, the launch's block (32, 32) read, and the column read below a
// 32-way conflict at the column the file has it.
#include <cstdio>
#define TILE 32

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); // registers only: lowered, no note
  return t;
}

__device__ void release(unsigned char *flag, unsigned char v) {
  // CHECK: note: 'GCCAsmStmt' statement not understood; its accesses are not analyzed [bankwise-unanalyzed]
  asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"((unsigned)v) "l"(flag) : "memory");
}

__global__ void column_sum(const float *in, float *out, unsigned long long *stamp, unsigned char *flags) {
  __shared__ alignas(16) float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
  out[threadIdx.y * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    stamp[blockIdx.x] = now();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    release(flags + blockIdx.x, 1);
}

void launch_column_sum(const float *in, float *out, unsigned long long *stamp, unsigned char *flags) {
  dim3 block(TILE, TILE);
  clock_t start = clock();
  int planes = block.x / 16;
  // CHECK: note: host code not checked: variable-sized object may not be initialized in 'launch_column_sum' (GCC, nvcc's host compiler, accepts it as an extension; the kernels do not depend on host code) [bankwise-unanalyzed]
  int sizes[planes] = {0};
  column_sum << <1, block >> > (in, out, stamp, flags);
  column_sum <<< 1, block >>> (in, out, stamp, flags);
  printf("%d %f\n", 1 << 4 >> 2, (double)(clock() - start) / CLOCKS_PER_SEC + sizes[0]);
}
