// EXIT: 2
// Identifiers that do not exist: a misspelled built-in, a size macro that
// was never defined. A second, correct kernel in the file is still
// analyzed.
#include <cuda_runtime.h>

// CHECK: note: kernel 'misspelled' not analyzed: its body has errors (the first at line 11) [bankwise-unanalyzed]
__global__ void misspelled(float *out) {
  // CHECK: error: use of undeclared identifier 'blockDimx'; did you mean 'blockDim'? [clang-diagnostic-error]
  // CHECK: error: use of undeclared identifier 'TILE_SIZE' [clang-diagnostic-error]
  out[threadIdx.x + blockIdx.x * blockDimx.x] = TILE_SIZE;
}

__global__ void fine(const float *in, float *out) {
  __shared__ float s[32][32];
  s[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 32 words) [bankwise-bank-conflict]
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x][threadIdx.y];
}

void launch(const float *in, float *out) { fine<<<1, dim3(32, 32)>>>(in, out); }
