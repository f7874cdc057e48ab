// Warp-level reductions with __shfl_down_sync and __shfl_xor_sync, one
// partial sum per warp through shared memory, and a vote with
// __ballot_sync. The shuffles move registers, not memory: only the shared
// and global accesses around them are analyzed.
#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__inline__ __device__ float warp_max(float v) {
  for (int mask = 16; mask > 0; mask >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
  return v;
}

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = i < n ? in[i] : 0.0f;
  v = warp_sum(v);
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}

__global__ void positives(const float *in, unsigned *ballots, float *maxima, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const unsigned bits = __ballot_sync(0xffffffffu, v > 0.0f);
  const float m = warp_max(v);
  if (threadIdx.x % 32 == 0) {
    ballots[i / 32] = bits;
    maxima[i / 32] = m;
  }
}

void launch(const float *in, float *out, unsigned *b, float *m, int n) {
  block_sum<<<(n + 1023) / 1024, 1024>>>(in, out, n);
  positives<<<(n + 255) / 256, 256>>>(in, b, m, n);
}
