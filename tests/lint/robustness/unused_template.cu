// A template kernel no code instantiates (a header-only library's file on
// its own) beside a kernel calling a __device__ function defined in
// another translation unit (separate compilation, -rdc): both are valid
// CUDA; the lint has nothing to analyze in the first and cannot see into
// the second's callee, and says so.
#include <cuda_runtime.h>

template <typename T, int N>
// CHECK: note: template kernel 'fill' is never instantiated in this file: nothing to analyze [bankwise-unanalyzed]
__global__ void fill(T *out, T value) {
  out[blockIdx.x * N + threadIdx.x] = value;
}

extern __device__ int remote_hash(int key);

__global__ void hash_keys(const int *keys, int *slots, int n) {
  __shared__ int table[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  table[threadIdx.x] = -1;
  __syncthreads();
  if (i < n)
    // CHECK: note: shared store to 'table' at an index that depends on data: its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
    // CHECK: note: 64 accesses of 'table' not checked for races: the index reads 'keys', whose values are unknown (declare it with 'holds' or give --data) [bankwise-shared-race]
    table[remote_hash(keys[i]) % 256] = i;
  __syncthreads();
  slots[i] = table[threadIdx.x];
}

void launch(const int *keys, int *slots, int n) { hash_keys<<<(n + 255) / 256, 256>>>(keys, slots, n); }
