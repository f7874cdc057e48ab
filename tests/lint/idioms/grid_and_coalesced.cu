// Cooperative groups beyond the block: the grid as a group (this_grid,
// grid.thread_rank(), grid.size(), grid.sync() in a cooperative launch's
// kernel) and coalesced_threads() taken where every lane of the warp is
// active, whose thread_rank is the lane. Under a branch, which lanes are
// active is not known, and the note says so.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// A grid-stride copy through the grid's own rank and size; the store
// spreads every other float.
__global__ void grid_scatter(const float *in, float *out, unsigned n) {
  cg::grid_group grid = cg::this_grid();
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size())
    // CHECK: warning: uncoalesced global store to 'out': 8 sectors per request, 4 at best (2 128-byte lines) [bankwise-uncoalesced]
    out[2 * i] = in[i];
  grid.sync();
}

// Each warp's lanes write a row of a per-warp table, two words apart.
__global__ void warp_rows(const int *in, int *out) {
  __shared__ int rows[8][64];
  cg::coalesced_group active = cg::coalesced_threads();
  const unsigned warp = threadIdx.x / 32;
  // CHECK: warning: 2-way bank conflict on shared store to 'rows' (lanes stride 2 words) [bankwise-bank-conflict]
  rows[warp][2 * active.thread_rank()] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 'rows' (lanes stride 2 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + threadIdx.x] = rows[warp][2 * (threadIdx.x % 32)];
}

// coalesced_threads() under a data-dependent branch: the active lanes are
// the ones whose key is positive.
__global__ void compact(const int *keys, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (keys[i] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    // CHECK: note: access not analyzed: the index of 'out' is not understood ('thread_rank' of a cooperative group made by coalesced_threads() under a branch or loop: which lanes are active is not known) [bankwise-unanalyzed]
    out[blockIdx.x * blockDim.x + active.thread_rank()] = keys[i];
  }
}

void launch(const float *in, float *out, const int *iin, int *iout, unsigned n) {
  void *args[] = {&in, &out, &n};
  cudaLaunchCooperativeKernel((void *)grid_scatter, dim3(132), dim3(256), args);
  grid_scatter<<<132, 256>>>(in, out, n);
  warp_rows<<<64, 256>>>(iin, iout);
  compact<<<64, 256>>>(iin, iout);
}
