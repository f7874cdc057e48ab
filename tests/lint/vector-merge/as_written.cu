// RUN-ARGS: --as-written
// --as-written prices each shared access as the source writes it: the
// register tile's eight 4-byte loads of a row stay eight (4-way each, as
// `nvcc -Xcicc -O1 -Xptxas -O0` keeps them), where nvcc -O3 merges them into
// two LDS.128 (2-way per 16-byte request; unrolled.cu's register_tile).
#include <cuda_runtime.h>

__global__ void register_row(const float *B, float *C) {
  __shared__ float Bs[8 * 128];
  const int col = threadIdx.x % 16;
  float regN[8], acc = 0.0f;
  for (int i = threadIdx.x; i < 8 * 128; i += 256)
    Bs[i] = B[i];
  __syncthreads();
  for (int d = 0; d < 8; ++d) {
    for (int i = 0; i < 8; ++i)
      // CHECK: warning: 4-way bank conflict on shared load from 'Bs' (lanes stride 8 words) [bankwise-bank-conflict]
      // REQUESTS: 512 (eight loads a dot step, eight steps, eight warps)
      regN[i] = Bs[d * 128 + col * 8 + i];
    for (int n = 0; n < 8; ++n)
      acc += regN[n];
  }
  C[threadIdx.x] = acc;
}

void launch(const float *B, float *C) { register_row<<<1, 256>>>(B, C); }
