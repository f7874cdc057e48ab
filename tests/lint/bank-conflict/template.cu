// A templated kernel: one report per instantiation. s[t * STRIDE] with
// 32 lanes: stride 1 is clean, stride 2 puts two words in each of 16
// banks (2-way), stride 32 all 32 in one bank (32-way).
#include <cuda_runtime.h>

template <int STRIDE>
__global__ void strided(const float *in, float *out) {
  __shared__ float s[256 * STRIDE];
  int t = threadIdx.x;
  // CHECK: warning: 2-way bank conflict on shared store to 's' (lanes stride 2 words) [bankwise-bank-conflict]
  // CHECK: warning: 32-way bank conflict on shared store to 's' (lanes stride 32 words) [bankwise-bank-conflict]
  s[t * STRIDE] = in[blockIdx.x * 256 + t];
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 's' (lanes stride 2 words) [bankwise-bank-conflict]
  // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 32 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + t] = s[t * STRIDE];
}

void launch_strided(const float *in, float *out) {
  strided<1><<<64, 256>>>(in, out);
  strided<2><<<64, 256>>>(in, out);
  strided<32><<<64, 256>>>(in, out);
}
