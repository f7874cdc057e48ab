// Input of cli_checks.py's --fix test (copied before it is rewritten): a
// naive transpose whose tile's every access is understood, so padding its
// rows to 33 floats is provably safe and removes the 32-way conflict.
#include <cuda_runtime.h>

__global__ void transpose_literal(const float *in, float *out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

void launch(const float *in, float *out, int n) {
  transpose_literal<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(in, out, n);
}
