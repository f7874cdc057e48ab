// Dynamic shared memory with manual offsets: two arrays carved out of one
// extern buffer whose size the launch gives. The second is read with lanes
// 32 words apart: 32-way. The first is read contiguously: clean.
#include <cuda_runtime.h>

__global__ void carve(const float *in, float *out) {
  extern __shared__ float buf[];
  float *a = buf;
  float *b = buf + 1024;
  int t = threadIdx.x;
  a[t] = in[blockIdx.x * 256 + t];
  for (int k = 0; k < 4; ++k)
    b[k * 256 + t] = in[blockIdx.x * 256 + t] * k;
  __syncthreads();
  out[blockIdx.x * 256 + t] = a[t] + b[(t % 32) * 32 + t / 32];  // CHECK: warning: 32-way bank conflict on shared load from 'buf' (lanes stride 32 words) [bankwise-bank-conflict]
}

void launch_carve(const float *in, float *out) {
  carve<<<64, 256, 2048 * sizeof(float)>>>(in, out);
}
