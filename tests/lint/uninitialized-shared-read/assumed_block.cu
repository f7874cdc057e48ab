// Issue [13] item 1: the uninitialized-read and race checks need the real
// block. NVIDIA's matrixMul pattern: the block is a dim3 built from a host
// function's parameter, so no launch gives a constant block.
#include <cuda_runtime.h>

// Tiles of 32 x 32 written by a 32 x 32 block. On the block the lint would
// assume (32 x 8) rows 8..31 look unwritten; the checks are not run on it,
// and a note says so.
// CHECK: note: shared-race and uninitialized-shared-read checks not run on kernel 'tiled': its block is assumed (no launch gives a constant one); give --block for its real shape [bankwise-unanalyzed]
__global__ void tiled(const float *in, float *out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

// The same launch shape under `if (block_size == 16)`: there the block is
// 16 x 16, and at that block rows 16..31 are read and never written, a real
// uninitialized read the check finds.
__global__ void guarded(const float *in, float *out) {
  __shared__ float tile[32][32];
  // A warp is two 16-wide rows of the 32-wide tile (the 16 x 16 block, not an assumed 32 x 8):
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];  // CHECK: warning: 2-way bank conflict on shared store to 'tile' (lanes stride 1 word) [bankwise-bank-conflict]
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 'tile' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: thread (0, 0, 0) reads tile[16][0] before any thread of its block wrote it [bankwise-uninitialized-shared-read]
  out[threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.y + 16][threadIdx.x];
}

void run(const float *in, float *out, int block_size) {
  dim3 threads(block_size, block_size);
  tiled<<<1, threads>>>(in, out);
  if (block_size == 16)
    guarded<<<1, threads>>>(in, out);
}
