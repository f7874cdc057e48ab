// Atomics: a shared-memory histogram merged into global memory, a global
// counter claimed with atomicAdd, and a float maximum built on atomicCAS.
// The histogram's loops start at threadIdx.x and step by blockDim.x, which
// the lint does not follow, and the slot atomicAdd returns is data: notes.
#include <cuda_runtime.h>

constexpr int kBins = 64;

__global__ void histogram64(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[kBins];
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    // CHECK: note: access not analyzed: the index of 'local' is not understood ('b' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    local[b] = 0;
  __syncthreads();
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    // CHECK: note: access not analyzed: an index not understood (memory the lint does not model) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'data' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    atomicAdd(&local[data[i] % kBins], 1u);
  __syncthreads();
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    // CHECK: note: access not analyzed: an index not understood ('b' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'local' is not understood ('b' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    atomicAdd(&bins[b], local[b]);
}

__device__ float atomic_max_float(float *addr, float value) {
  int *as_int = reinterpret_cast<int *>(addr);
  int old = *as_int, assumed;
  do { // CHECK: note: a do loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
    assumed = old;
    old = atomicCAS(as_int, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void compact_positive(const float *in, float *out, unsigned *count, float *maximum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float v = in[i];
  // CHECK: note: condition not understood (a floating-point element): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (v > 0.0f) {
    const unsigned slot = atomicAdd(count, 1u);
    // CHECK: note: access not analyzed: the index of 'out' is not understood (the value of 'atomicAdd') [bankwise-unanalyzed]
    out[slot] = v;
  }
  atomic_max_float(maximum, v);
}

void launch(const unsigned char *data, unsigned *bins, const float *in, float *out, unsigned *count, float *mx,
            int n) {
  histogram64<<<64, 256>>>(data, bins, n);
  compact_positive<<<(n + 255) / 256, 256>>>(in, out, count, mx, n);
}
