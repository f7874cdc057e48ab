// Shared atomics as nvcc -O3 issues them on sm_90 (measured on H200 with
// bench/gpu-atomic-aggregation.sh: bench/results/h100/atomic-aggregation.md):
//   - at an address the same in every thread, a 32-bit add, min, max, and,
//     or, xor: the warp's values combined (REDUX, POPC), one atomic, one
//     wavefront;
//   - an add of 1 whose old value is dropped: ATOMS.POPC.INC, lanes on one
//     address merged, distinct addresses in one bank in turn (a read's
//     wavefronts);
//   - anything else lane by lane: 32 lanes on one word, 32 wavefronts.
#include <cuda_runtime.h>

__global__ void histograms(const int *keys, int *out, int p) {
  __shared__ int total;
  __shared__ int perWarp[8];
  __shared__ int grid[32][32];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  if (t == 0)
    total = 0;
  if (t < 8)
    perWarp[t] = 0;
  for (int i = t; i < 32 * 32; i += 256)
    grid[i / 32][i % 32] = 0;
  __syncthreads();
  const int v = keys[blockIdx.x * 256 + t];
  atomicAdd(&total, v);              // one atomic a warp
  atomicMax(&perWarp[p % 8], v);     // one atomic a warp: p is the same in every thread
  atomicAdd(&perWarp[warp], 1);      // counted per address: one wavefront
  atomicAdd(&grid[lane][0], 1);      // CHECK: warning: 32-way bank conflict on shared atomic on 'grid' (lanes stride 32 words) [bankwise-bank-conflict]
  atomicAdd(&perWarp[warp], v);      // CHECK: warning: 32-way bank conflict on shared atomic on 'perWarp' (lanes stride 0 words) [bankwise-bank-conflict]
  const int before = atomicAdd(&perWarp[warp], 1); // CHECK: warning: 32-way bank conflict on shared atomic on 'perWarp' (lanes stride 0 words) [bankwise-bank-conflict]
  __syncthreads();
  out[blockIdx.x * 256 + t] = before + total + perWarp[warp] + grid[warp][lane];
}

void launch(const int *keys, int *out, int p) { histograms<<<64, 256>>>(keys, out, p); }
