// A shared-memory histogram: the bin a thread updates depends on the
// data, so its bank conflicts cannot be known statically: a note, never a
// warning. The loads and the final merge are contiguous (clean).
#include <cuda_runtime.h>

__global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned hist[256];
  int t = threadIdx.x;
  hist[t] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + t;
  if (i < n)
    atomicAdd(&hist[data[i]], 1u);  // CHECK: note: shared atomic on 'hist' at an index that depends on data: its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
  __syncthreads();
  atomicAdd(&bins[t], hist[t]);
}

void launch(const unsigned char *data, unsigned *bins, int n) {
  histogram<<<(n + 255) / 256, 256>>>(data, bins, n);
}
