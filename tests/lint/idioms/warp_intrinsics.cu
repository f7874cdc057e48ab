// Warp intrinsics moving indices between lanes: a row broadcast from lane
// 0 with __shfl_sync, a neighbour's index with __shfl_up_sync and
// __shfl_down_sync, a butterfly partner with __shfl_xor_sync, and a
// tile's shfl_xor. A shuffled index is a function of the lane, so the
// accesses it reaches get figures. Votes (__ballot_sync, __activemask,
// __popc of a ballot) are data, as are shuffles of part of a warp. A
// full-mask shuffle under a condition that splits the warp is an error.
// EXIT: 1
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// Lane 0 picks the row, every lane reads its column of it: one row of 32
// words, conflict-free; down the column it is 32-way. (The race check runs
// thread by thread, where another lane's value is not known: it says which
// accesses it left out.)
__global__ void broadcast_row(const int *in, int *out) {
  __shared__ int tile[32][32];
  const int lane = threadIdx.x;
  for (int r = 0; r < 32; ++r)
    tile[r][lane] = in[(blockIdx.x * 32 + r) * 32 + lane];
  __syncthreads();
  const int row = __shfl_sync(0xffffffffu, (lane * 7 + 3) % 32, 0);
  // CHECK: note: 1024 accesses of 'tile' not checked for races: the index takes the value of 'shfl' at 24:19, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  out[blockIdx.x * 64 + lane] = tile[row][lane];
  // CHECK: warning: 32-way bank conflict on shared load from 'tile' [bankwise-bank-conflict]
  // CHECK: note: 1024 accesses of 'tile' not checked for races: the index takes the value of 'shfl' at 24:19, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  out[blockIdx.x * 64 + 32 + lane] = tile[lane][row];
}

// Each lane reads its neighbours' slots: lane l gets slot l - 1 from below
// (lane 0 keeps its own) and l + 1 from above (lane 31 keeps its own).
// Slots 33 words apart: conflict-free.
__global__ void neighbours(const float *in, float *out) {
  __shared__ float slots[32 * 33];
  const int lane = threadIdx.x;
  const int mine = lane * 33;
  slots[mine] = in[blockIdx.x * 32 + lane];
  __syncthreads();
  const int below = __shfl_up_sync(0xffffffffu, mine, 1);
  const int above = __shfl_down_sync(0xffffffffu, mine, 1);
  // CHECK: note: 1024 accesses of 'slots' not checked for races: the index takes the value of 'shfl_up' at 41:21, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  // CHECK: note: 1024 accesses of 'slots' not checked for races: the index takes the value of 'shfl_down' at 42:21, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  out[blockIdx.x * 32 + lane] = slots[below] + slots[above];
}

// Butterfly partners: lane l reads the slot of lane l ^ 16, slots 32 words
// apart: 32-way (the cg tile's shfl_xor gives the same partner).
__global__ void butterfly(const float *in, float *out) {
  __shared__ float slots[32 * 32];
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  const int lane = tile.thread_rank();
  const int mine = lane * 32;
  // CHECK: warning: 32-way bank conflict on shared store to 'slots' (lanes stride 32 words) [bankwise-bank-conflict]
  slots[mine] = in[blockIdx.x * 32 + lane];
  tile.sync();
  const int partner = __shfl_xor_sync(0xffffffffu, mine, 16);
  // CHECK: warning: 32-way bank conflict on shared load from 'slots' [bankwise-bank-conflict]
  // CHECK: note: 1024 accesses of 'slots' not checked for races: the index takes the value of 'shfl_xor' at 58:23, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  float v = slots[partner];
  const int partner2 = tile.shfl_xor(mine, 16);
  // CHECK: warning: 32-way bank conflict on shared load from 'slots' [bankwise-bank-conflict]
  // CHECK: note: 1024 accesses of 'slots' not checked for races: the index takes the value of 'shfl_xor' at 62:24, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  v += slots[partner2];
  out[blockIdx.x * 32 + lane] = v;
}

// Votes are data: the count of set lanes, and a shuffle of half a warp.
__global__ void votes(const float *in, int *counts, float *out) {
  __shared__ float s[64];
  const int lane = threadIdx.x;
  s[lane] = in[blockIdx.x * 32 + lane];
  s[lane + 32] = 0.0f;
  __syncthreads();
  const unsigned ballot = __ballot_sync(__activemask(), s[lane] > 0.0f);
  // CHECK: note: shared load from 's' at an index that depends on data ('s'): its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
  // CHECK: note: 1024 accesses of 's' not checked for races: the index reads 's', whose values are unknown (declare it with 'holds' or give --data) [bankwise-shared-race]
  out[blockIdx.x * 32 + lane] = s[__popc(ballot)];
  const int half = __shfl_sync(0x0000ffffu, lane, 0, 16);
  if (lane < 16)
    // CHECK: note: access not analyzed: the index of 's' is not understood (the value of a shuffle (not of a whole warp)) [bankwise-unanalyzed]
    counts[blockIdx.x * 16 + lane] = (int)s[half];
}

// A full-mask shuffle that half the warp skips: undefined in CUDA, and an
// error (the check sees the integer shuffles the lint lowers).
__global__ void half_shuffle(const int *in, int *out) {
  __shared__ int s[64];
  const int lane = threadIdx.x;
  s[lane] = in[blockIdx.x * 32 + lane];
  s[lane + 32] = 0;
  __syncthreads();
  int v = lane;
  if (lane < 16)
    // CHECK: error: 'shfl_down(lane_ * 2, 1)' runs in 16 of the 32 lanes of warp 0 (block (0, 0, 0)): CUDA's full-mask shuffle needs every lane of the warp (lane 0 runs it, lane 16 does not) [bankwise-divergent-shuffle]
    v = __shfl_down_sync(0xffffffffu, lane * 2, 1);
  // CHECK: note: shared load from 's' at an index that depends on data (''shfl_down' from a lane that does not run it'): its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
  // CHECK: note: 512 accesses of 's' not checked for races: the index takes the value of 'shfl_down' at 97:9, another lane's, which a thread-by-thread run does not have [bankwise-shared-race]
  out[blockIdx.x * 32 + lane] = s[v];
}

void launch(const int *iin, int *iout, const float *in, float *out, int *counts, int n) {
  broadcast_row<<<n / 1024, 32>>>(iin, iout);
  neighbours<<<n / 32, 32>>>(in, out);
  butterfly<<<n / 32, 32>>>(in, out);
  votes<<<n / 32, 32>>>(in, counts, out);
  half_shuffle<<<n / 32, 32>>>(iin, iout);
}
