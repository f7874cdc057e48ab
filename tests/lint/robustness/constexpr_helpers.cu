// Index arithmetic in constexpr helpers and __device__ functions, inlined
// by the lint at their calls. The swizzled tile's loops start at the warp's
// index and step by the number of warps, a step the lint counts (the IR's
// while). pairs stores through a __forceinline__ helper at s[2 * i]
// (2-way) and then reads s[threadIdx.x]: odd elements no thread wrote, a
// real bug the lint finds.
#include <cuda_runtime.h>

constexpr int kWarp = 32;
constexpr int kTile = 32;

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

__host__ __device__ constexpr int swizzle(int row, int col) { return row * kTile + (col ^ (row % kTile)); }

__device__ __forceinline__ int lane_id() { return threadIdx.x % kWarp; }
__device__ __forceinline__ int warp_id() { return threadIdx.x / kWarp; }

// CHECK: warning: 2-way bank conflict on shared store to 's' (lanes stride 2 words) [bankwise-bank-conflict]
__device__ inline void store_strided(float *s, int i, float v) { s[2 * i] = v; }

__global__ void swizzled_columns(const float *in, float *out) {
  __shared__ float tile[kTile * kTile];
  const int lane = lane_id(), warp = warp_id();
  // A warp per row, stepping by the block's warps: trips counted.
  for (int r = warp; r < kTile; r += blockDim.x / kWarp)
    // The swizzle keeps each row's stores in 32 banks; the loads are rows,
    // one word a lane.
    tile[swizzle(r, lane)] = in[r * kTile + lane];
  __syncthreads();
  // A warp per column: the swizzle spreads the column over the banks.
  for (int c = warp; c < kTile; c += blockDim.x / kWarp)
    // Conflict-free: lane l reads column c of row l, swizzled into a
    // bank of its own.
    out[c * kTile + lane] = tile[swizzle(lane, c)];
}

__global__ void pairs(const float *in, float *out) {
  __shared__ float s[2 * 256];
  store_strided(s, threadIdx.x, in[blockIdx.x * 256 + threadIdx.x]);
  __syncthreads();
  // CHECK: warning: thread (1, 0, 0) reads s[1] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}

void launch(const float *in, float *out, int n) {
  swizzled_columns<<<1, 256>>>(in, out);
  pairs<<<ceil_div(n, 256), 256>>>(in, out);
}
