// EXIT: 2 (not valid CUDA). A kernel beside host code Clang cannot parse: the host error is reported
// and the kernel, whose body has no error, is still analyzed. No launch parses, so the block shape is the one the indices imply (32 x 8 for threadIdx.x and .y).
#include <cuda_runtime.h>

__global__ void naive(float *out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  // CHECK: warning: thread (8, 0, 0) reads tile[8][0] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

int host_side(int x) {
  return x + undeclared_host_name;  // CHECK: error: use of undeclared identifier 'undeclared_host_name' [clang-diagnostic-error]
}
