// A shared buffer written through pointers the lint does not follow (kept
// in a local array of pointers, as NVIDIA's cdpQuadtree sample does): the
// writes are left out of the analysis, so a later read of the buffer must
// not be taken for a read of an element no thread wrote. After an access
// through a pointer of shared or unknown origin, every shared array counts
// as written somewhere; no uninitialized-read warning.
#include <cuda_runtime.h>

__global__ void counts(const int *in, int *out) {
  extern __shared__ int smem[];
  volatile int *rows[4];
  for (int r = 0; r < 4; ++r)
    rows[r] = &smem[r * 32];
  const int lane = threadIdx.x % 32;
  // CHECK: note: access not analyzed: a pointer from a 'ArraySubscriptExpr' expression [bankwise-unanalyzed]
  rows[threadIdx.x / 32][lane] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = threadIdx.x == 0 ? 0 : smem[threadIdx.x - 1];
}

void launch_counts(const int *in, int *out) { counts<<<4, 128, 128 * sizeof(int)>>>(in, out); }
