// Shared scalars (issue [13] item 1): `__shared__ float total;` and kin are
// shared arrays of one element, so every access to them is a site with
// figures. Every lane reading the one word is a broadcast (1 wavefront);
// every lane's add of 1 to it is one atomic of the warp (nvcc counts the
// lanes that add and issues one ATOMS.POPC.INC, 1 wavefront); a
// scalar's value used in an index or a condition is data the lint does
// not know, as an element read from any shared array. Before, each access
// here was an "access not analyzed: 'X' is a shared scalar" note.
#include <cuda_runtime.h>

#define BLOCK 256

// A block's sum kept in a shared scalar, then every thread divides by it.
__global__ void normalize(const float *in, float *out, int n) {
  __shared__ float total;
  __shared__ float partial[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    total = partial[0];
  __syncthreads();
  if (i < n)
    out[i] = in[i] / total;
}

// Counting matches: every thread that finds one adds to the block's count.
__global__ void count_matches(const int *keys, int key, unsigned *counts, int n) {
  __shared__ unsigned count;
  if (threadIdx.x == 0)
    count = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keys[i] == key)
    atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0)
    counts[blockIdx.x] = count;
}

// A flag one thread sets, every thread reads (a broadcast) and branches on;
// a shared offset every thread reads and indexes with.
__global__ void scale_if_flagged(float *data, const int *flags, const int *offsets, int n) {
  __shared__ int flag;
  __shared__ int base;
  __shared__ float window[BLOCK];
  if (threadIdx.x == 0) {
    flag = flags[blockIdx.x];
    base = offsets[blockIdx.x];
  }
  __syncthreads();
  int i = blockIdx.x * BLOCK + threadIdx.x;
  window[threadIdx.x] = i < n ? data[i] : 0.0f;
  __syncthreads();
  if (flag != 0 && i < n)
    // CHECK: note: shared load from 'window' at an index that depends on data: its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
    data[i] = window[(base + threadIdx.x) % BLOCK];
}

void launch(const float *in, float *out, const int *keys, unsigned *counts, const int *flags,
            const int *offsets, float *data, int n) {
  normalize<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n);
  count_matches<<<(n + 127) / 128, 128>>>(keys, 7, counts, n);
  scale_if_flagged<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(data, flags, offsets, n);
}
