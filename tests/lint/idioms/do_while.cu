// do { } while loops as the samples write them: a block-stride copy into
// shared memory, and a counted tail loop. The first trip runs before the
// test, the rest are a counted loop, so every access gets figures.
#include <cuda_runtime.h>

__global__ void stage_and_spread(float *data) {
  __shared__ float tile[512];
  int i = threadIdx.x;
  do {
    tile[i] = data[blockIdx.x * 512 + i];
    i += blockDim.x;
  } while (i < 512);
  __syncthreads();
  int k = 0;
  do {
    // CHECK: warning: uncoalesced global store to 'data': 32 sectors per request, 4 at best (32 128-byte lines) [bankwise-uncoalesced]
    data[k * 8192 + threadIdx.x * 32] = tile[threadIdx.x + k * 128];
    ++k;
  } while (k < 4);
}

// The same stride through shared memory: lanes 32 words apart.
__global__ void column_sum(const float *in, float *out) {
  __shared__ float block[32 * 33];
  int r = 0;
  float sum = 0.0f;
  do {
    block[r * 32 + threadIdx.x] = in[(blockIdx.x * 32 + r) * 32 + threadIdx.x];
    ++r;
  } while (r < 32);
  __syncthreads();
  r = 0;
  do {
    // CHECK: warning: 32-way bank conflict on shared load from 'block' [bankwise-bank-conflict]
    sum += block[threadIdx.x * 32 + r];
    ++r;
  } while (r < 32);
  out[blockIdx.x * 32 + threadIdx.x] = sum;
}

void launch(float *data, const float *in, float *out) {
  stage_and_spread<<<64, 128>>>(data);
  column_sum<<<64, 32>>>(in, out);
}
