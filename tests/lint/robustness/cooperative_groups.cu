// Cooperative groups: a thread block and a 32-thread tile as objects, the
// tile's shuffle-based reduction and the block's sync(). The lint models
// the groups itself (ranks, sizes, syncs) instead of inlining the toolkit's
// headers, whose inline asm and `this` it does not follow, so the condition
// on the tile's rank is understood and the store under it has figures.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void tile_reduce(const float *in, float *out, int n) {
  __shared__ float partial[8];
  cg::thread_block block = cg::this_thread_block();
  // A tile of 32: its rank is the block rank mod 32.
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = warp.size() / 2; offset > 0; offset /= 2)
    // A shuffle moves registers: no memory access.
    v += warp.shfl_down(v, offset);
  // Lane 0 of each warp: one store per warp.
  if (warp.thread_rank() == 0)
    partial[threadIdx.x / 32] = v;
  block.sync();
  if (threadIdx.x < 8)
    out[blockIdx.x * 8 + threadIdx.x] = partial[threadIdx.x];
}

void launch(const float *in, float *out, int n) { tile_reduce<<<(n + 255) / 256, 256>>>(in, out, n); }
