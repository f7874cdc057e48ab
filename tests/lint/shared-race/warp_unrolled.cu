// The classic last-warp reduction without __syncwarp(): lanes of one warp
// read what other lanes write in the same step. Since Volta the lanes of a
// warp need not run in lockstep, so this is a race (CUDA's own samples add
// __syncwarp() between the steps). The tree above it, with a barrier per
// level, is fine.
// EXIT: 1 (a race or a divergent barrier is an error)
#include <cuda_runtime.h>

__global__ void reduce_unrolled(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned h = 128; h > 32; h >>= 1) {
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }
  if (t < 32) {
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 32];
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 16];
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 8];
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 4];
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 2];
    // CHECK: error: data race on shared 's': thread (16, 0, 0) writes s[16] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    s[t] += s[t + 1];
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

void reduce(const float *in, float *out) {
  reduce_unrolled<<<1024, 256>>>(in, out);
}
