// Cooperative groups as the CUDA samples and libraries use them: the block
// as an object (this_thread_block, thread_rank, sync, cg::sync), 32-thread
// tiles from tiled_partition<32> and from tiled_partition(block, 32), a
// tile passed to a __device__ helper, shfl_down inside the tile, cg::reduce,
// and the tile's meta_group_rank. Conditions on ranks are understood, so the
// accesses under them get figures.
// EXIT: 1
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// A block-wide sum: each warp's tile sums with shuffles, lane 0 of each
// tile writes its partial, the first tile adds the partials.
__device__ float tile_sum(cg::thread_block_tile<32> tile, float v) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2)
    v += tile.shfl_down(v, offset);
  return v;
}

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[32];
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  const unsigned i = blockIdx.x * cta.size() + cta.thread_rank();
  float v = i < n ? in[i] : 0.0f;
  v = tile_sum(tile, v);
  if (tile.thread_rank() == 0)
    partial[tile.meta_group_rank()] = v;
  cg::sync(cta);
  if (cta.thread_rank() < 32) {
    v = cta.thread_rank() < tile.meta_group_size() ? partial[cta.thread_rank()] : 0.0f;
    v = tile_sum(tile, v);
    if (tile.thread_rank() == 0)
      out[blockIdx.x] = v;
  }
}

// The same with cg::reduce, and a transpose through shared memory whose
// rows are read by column: lane k of tile t reads tile[k][t], 32 words apart.
__global__ void reduce_and_transpose(const float *in, float *sums, float *out) {
  __shared__ float tile_buf[32][32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const unsigned row = warp.meta_group_rank(), col = warp.thread_rank();
  const float v = in[(blockIdx.x * 32 + row) * 32 + col];
  tile_buf[row][col] = v;
  warp.sync();
  const float total = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0)
    sums[blockIdx.x * 32 + row] = total;
  block.sync();
  // CHECK: warning: 32-way bank conflict on shared load from 'tile_buf' (lanes stride 32 words) [bankwise-bank-conflict]
  out[(blockIdx.x * 32 + row) * 32 + col] = tile_buf[col][row];
}

// A tile whose size is an argument (thread_group): 16 threads, each half
// warp one tile. Lane r of a tile reads row r of a 16 x 16 table at the
// warp's column: 16 words in two banks, 8 to a bank (the other half warp
// reads the same words).
__global__ void half_warps(const int *in, int *out) {
  __shared__ int table[16][16];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, 16);
  const unsigned t = block.thread_rank(), r = tile.thread_rank();
  table[t / 16][t % 16] = in[blockIdx.x * 256 + t];
  cg::sync(block);
  // CHECK: warning: 8-way bank conflict on shared load from 'table' (lanes stride 16 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + t] = table[r][t / 32];
}

// cg::sync of the block is __syncthreads(): under a condition that differs
// between the block's threads it is an error, as the barrier would be.
__global__ void early_sync(float *data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  if (warp.meta_group_rank() == 0) {
    data[blockIdx.x * 64 + warp.thread_rank()] = 0.0f;
    // CHECK: error: '__syncthreads()' under a condition that differs between threads of a block in kernel 'early_sync': threads that skip it never reach the barrier [bankwise-divergent-sync]
    cg::sync(block);
  }
}

void launch(const float *in, float *out, float *sums, const int *iin, int *iout, int n) {
  block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
  reduce_and_transpose<<<n / 1024, 1024>>>(in, sums, out);
  half_warps<<<n / 256, 256>>>(iin, iout);
  early_sync<<<n / 64, 64>>>(out);
}
