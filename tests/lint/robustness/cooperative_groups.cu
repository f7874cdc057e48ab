// Cooperative groups: a thread block and a 32-thread tile as objects, the
// tile's shuffle-based reduction and the block's sync(). The library's
// member functions are inlined from the toolkit's headers; what the lint
// cannot follow there is noted at the kernel's own line that reached it
// (with the header's file name, not its installed path).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void tile_reduce(const float *in, float *out, int n) {
  __shared__ float partial[8];
  cg::thread_block block = cg::this_thread_block();
  // CHECK: note: access not analyzed: a pointer from a 'CXXThisExpr' expression (in cooperative_groups.h:1409, reached from here) [bankwise-unanalyzed]
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = warp.size() / 2; offset > 0; offset /= 2)
    // CHECK: note: 'GCCAsmStmt' statement not understood; its accesses are not analyzed (in helpers.h:545, reached from here) [bankwise-unanalyzed]
    v += warp.shfl_down(v, offset);
  // CHECK: note: condition not understood (a 'CXXTemporaryObjectExpr' expression): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (warp.thread_rank() == 0)
    partial[threadIdx.x / 32] = v;
  block.sync();
  if (threadIdx.x < 8)
    out[blockIdx.x * 8 + threadIdx.x] = partial[threadIdx.x];
}

void launch(const float *in, float *out, int n) { tile_reduce<<<(n + 255) / 256, 256>>>(in, out, n); }
