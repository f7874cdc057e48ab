// __syncthreads() inside the bounds guard: in the last block the threads
// past n skip the barrier the others wait at.
// EXIT: 1 (a race or a divergent barrier is an error)
#include <cuda_runtime.h>

__global__ void reverse_blocks(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) {
    s[threadIdx.x] = in[i];
    // CHECK: error: '__syncthreads()' under a condition that differs between threads of a block in kernel 'reverse_blocks': threads that skip it never reach the barrier [bankwise-divergent-sync]
    __syncthreads();
    out[i] = s[255 - threadIdx.x];
  }
}

__global__ void reverse_blocks_fixed(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n)
    out[i] = s[255 - threadIdx.x];
}

void reverse(const float *in, float *out, int n) {
  reverse_blocks<<<(n + 255) / 256, 256>>>(in, out, n);
  reverse_blocks_fixed<<<(n + 255) / 256, 256>>>(in, out, n);
}
