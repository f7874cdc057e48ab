// EXIT: 2 (not valid CUDA). A kernel beside host code Clang cannot parse: the host error is reported
// and the kernel, whose body has no error, is still analyzed. No launch parses, so the block shape is the one the indices imply (32 x 8 for threadIdx.x and .y).
// On that assumed block the shared-race and uninitialized-read checks would judge a launch the
// program may never make (a 32 x 32 block writes every element of tile): they are not run, and a note says so.
#include <cuda_runtime.h>

// CHECK: note: shared-race and uninitialized-shared-read checks not run on kernel 'naive': its block is assumed (no launch gives a constant one); give --block for its real shape [bankwise-unanalyzed]
__global__ void naive(float *out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

int host_side(int x) {
  return x + undeclared_host_name;  // CHECK: error: use of undeclared identifier 'undeclared_host_name' [clang-diagnostic-error]
}
