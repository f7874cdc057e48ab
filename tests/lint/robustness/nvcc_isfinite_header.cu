// Valid CUDA (`nvcc -c` accepts it) whose included header calls isfinite in
// host code, which Clang's host-side view of CUDA 13's headers rejects: a
// note at the #include that reads the header, the kernel analyzed (issue
// [13] item 3).
// CHECK: note: host code not checked: no matching function for call to 'isfinite' in 'all_finite' (Clang's CUDA headers declare 'isfinite' otherwise than nvcc's; the kernels do not depend on host code) (in finite_helpers.h:9, included here) [bankwise-unanalyzed]
#include "include/finite_helpers.h"

__global__ void clean(float *x) {
  __shared__ float s[32][32];
  s[threadIdx.y][threadIdx.x] = finite_or_zero(x[threadIdx.y * 32 + threadIdx.x]);
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 32 words) [bankwise-bank-conflict]
  x[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x][threadIdx.y];
}

void launch(float *x) { clean<<<1, dim3(32, 32)>>>(x); }
