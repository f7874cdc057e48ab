// CUDA's atomics are the IR's: two atomics of one element take turns (the
// histogram below is race-free), but an atomic is a write, and a plain read
// of its element before the next barrier races with it. (A warp's 32 adds of
// 1 to one shared word cost one wavefront: nvcc combines them, measured in
// bench/results/h100/atomic-aggregation.md.)
// EXIT: 1 (a race is an error)
#include <cuda_runtime.h>

__global__ void histogram(const unsigned *keys, unsigned *bins) {
  __shared__ unsigned hist[64];
  unsigned t = threadIdx.x;
  if (t < 64)
    hist[t] = 0;
  __syncthreads();
  atomicAdd(&hist[t % 64], 1u);
  atomicMax(&hist[(t * 7) % 64], t);
  __syncthreads();
  if (t < 64)
    atomicAdd(&bins[t], hist[t]);
}

__global__ void count_then_read(int *out) {
  __shared__ int count[1];
  if (threadIdx.x == 0)
    count[0] = 0;
  __syncthreads();
  // CHECK: error: data race on shared 'count': thread (0, 0, 0) writes count[0] atomically and thread (1, 0, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
  atomicAdd(&count[0], 1);
  out[blockIdx.x * 256 + threadIdx.x] = count[0];
}

void launch(const unsigned *keys, unsigned *bins, int *out) {
  histogram<<<16, 256>>>(keys, bins);
  count_then_read<<<4, 256>>>(out);
}
