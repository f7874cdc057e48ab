// A shared float array written in float4s (reinterpret_cast, the usual
// vectorized staging) and read back as floats: the lint lowers the cast to
// a view of the array, so the checks see one memory. The float4 stores
// initialize the floats read after the barrier (no uninitialized read), a
// float read of another thread's float4 without the barrier is a race, and
// each access is priced at its width.
// EXIT: 1 (a race is an error)
#include <cuda_runtime.h>

__global__ void stage4(const float *in, float *out) {
  __shared__ float s[1024];
  reinterpret_cast<float4 *>(s)[threadIdx.x] = reinterpret_cast<const float4 *>(in)[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: uncoalesced global store to 'out': 16 sectors per request, 4 at best (4 128-byte lines; lanes stride 4 words) [bankwise-uncoalesced]
  // CHECK: warning: 4-way bank conflict on shared load from 's' (lanes stride 4 words) [bankwise-bank-conflict]
  out[blockIdx.x * 1024 + threadIdx.x * 4] = s[threadIdx.x * 4];
}

__global__ void stage4_nosync(const float *in, float *out) {
  __shared__ float s[1024];
  // CHECK: error: data race on shared 's': thread (1, 0, 0) writes s[4] and thread (0, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
  reinterpret_cast<float4 *>(s)[threadIdx.x] = reinterpret_cast<const float4 *>(in)[blockIdx.x * 256 + threadIdx.x];
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x + 4];
}

void launch(const float *in, float *out) {
  stage4<<<16, 256>>>(in, out);
  stage4_nosync<<<16, 256>>>(in, out);
}
