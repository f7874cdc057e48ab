// Launch shapes at the limits: the largest grid (2^31 - 1 by 65535 blocks
// of 1024 threads: too many to analyze, a note), a 3-D block with
// threadIdx.z read transposed (8-way), and a launch with a block of zero
// threads (a runtime error, not a shape the lint takes).
#include <cuda_runtime.h>

// CHECK: note: kernel 'wide' not analyzed: kernel 'wide' has 140735340806145 blocks of 1024 threads and needs thread-by-thread analysis (an index that leaves its array (checked thread by thread)); that path handles up to 33554432 warps of 32 [bankwise-unanalyzed]
__global__ void wide(const float *in, float *out) {
  const long long i = (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

__global__ void cube(float *vol) {
  __shared__ float s[8][8][8];
  s[threadIdx.z][threadIdx.y][threadIdx.x] = vol[threadIdx.x];
  __syncthreads();
  // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 64 words) [bankwise-bank-conflict]
  vol[(threadIdx.z * 8 + threadIdx.y) * 8 + threadIdx.x] = s[threadIdx.x][threadIdx.y][threadIdx.z];
}

__global__ void nothing(float *p) { p[threadIdx.x] = 0.0f; }

void launch(const float *in, float *out, float *vol) {
  wide<<<dim3(2147483647, 65535), 1024>>>(in, out);
  cube<<<1, dim3(8, 8, 8)>>>(vol);
  nothing<<<1, 0>>>(out);
}
