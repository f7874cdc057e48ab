// A three-point stencil whose halo is never loaded: s[0] and s[257] are
// read by the first and last thread of each block, and nothing wrote them.
#include <cuda_runtime.h>

__global__ void blur(const float *in, float *out) {
  __shared__ float s[258];
  int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t + 1] = in[i];
  __syncthreads();
  // CHECK: warning: thread (0, 0, 0) reads s[0] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  // CHECK: warning: thread (255, 0, 0) reads s[257] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  out[i] = (s[t] + s[t + 1] + s[t + 2]) / 3.0f;
}

void run(const float *in, float *out) {
  blur<<<1024, 256>>>(in, out);
}
