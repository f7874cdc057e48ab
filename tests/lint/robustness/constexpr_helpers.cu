// Index arithmetic in constexpr helpers and __device__ functions, inlined
// by the lint at their calls. The swizzled tile's loops start at the warp's
// index and step by the number of warps, which the lint does not follow
// (notes). pairs stores through a __forceinline__ helper at s[2 * i]
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
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int r = warp; r < kTile; r += blockDim.x / kWarp)
    // CHECK: note: access not analyzed: the index of 'tile' is not understood ('r' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'in' is not understood ('r' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    tile[swizzle(r, lane)] = in[r * kTile + lane];
  __syncthreads();
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int c = warp; c < kTile; c += blockDim.x / kWarp)
    // CHECK: note: access not analyzed: the index of 'out' is not understood ('c' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'tile' is not understood ('c' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
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
