// The first kernels of the classic reduction tutorial: interleaved
// addressing with a modulo (divergent but conflict-free) and with a strided
// index (s[2 * s * t]), whose active lanes land 2s words apart: 8-way at
// worst, for s = 4 and beyond.
#include <cuda_runtime.h>

__global__ void reduce0(const int *g_idata, int *g_odata) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce1(const int *g_idata, int *g_odata) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      // CHECK: warning: 8-way bank conflict on shared load from 'sdata' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared store to 'sdata' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared load from 'sdata' (lanes stride 8 words) [bankwise-bank-conflict]
      sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

void launch(const int *in, int *out, int n) {
  reduce0<<<n / 256, 256, 256 * sizeof(int)>>>(in, out);
  reduce1<<<n / 256, 256, 256 * sizeof(int)>>>(in, out);
}
