// Block reductions of 256 floats (blocks of 256 threads). Interleaved
// addressing, s[2*h*t] += s[2*h*t + h], puts lanes 2h words apart: 2-way at
// h = 1, 4-way at h = 2, 8-way at h = 4; from h = 8 on fewer lanes are
// active (16 lanes at stride 16: 8 per bank; 8 lanes at stride 32: 8 in
// one bank; then 4, 2, 1), so the worst is 8-way, at h = 4 (stride 8).
// Sequential addressing, s[t] += s[t + h], keeps lanes one word apart.
#include <cuda_runtime.h>

__global__ void reduce_interleaved(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned h = 1; h < blockDim.x; h *= 2) {
    int index = 2 * h * t;
    if (index < blockDim.x)
      // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared store to 's' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
      s[index] += s[index + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void reduce_sequential(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

void reduce_all(const float *in, float *out) {
  reduce_interleaved<<<1024, 256>>>(in, out);
  reduce_sequential<<<1024, 256>>>(in, out);
}
