// Atomics: a shared-memory histogram merged into global memory, a global
// counter claimed with atomicAdd, and a float maximum built on atomicCAS.
// The histogram's loops start at threadIdx.x and step by blockDim.x (their
// trips counted); the bin and the slot atomicAdd returns are data: notes.
#include <cuda_runtime.h>

constexpr int kBins = 64;

__global__ void histogram64(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[kBins];
  // Block-stride: one trip for a block of 64 or more threads.
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    // Lanes one word apart.
    local[b] = 0;
  __syncthreads();
  // Grid-stride: counted over every n.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    // The bin is data: the atomic's conflicts are from none to 32-way.
    // CHECK: note: shared atomic on 'local' at an index that depends on data: its bank conflicts cannot be known statically (from none to 32-way) [bankwise-bank-conflict]
    atomicAdd(&local[data[i] % kBins], 1u);
  __syncthreads();
  // Block-stride again: the merge's lanes are one word apart in both arrays.
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    // (The global atomic's sectors: one line of 64 words, as a plain
    // store would take.)
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
