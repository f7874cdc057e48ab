// Dynamic shared memory declared as raw bytes and carved into typed
// arrays, sized at the launch; a templated extern buffer returned by a
// helper the way CUB-style code declares it. The float part is read with
// lanes 33 words apart (conflict-free); the int part at (t * 16) % 32, two
// words every lane shares (a broadcast, conflict-free). The buffer the
// helper returns is followed into it: lanes one element apart, no conflict.
#include <cuda_runtime.h>

__global__ void carve_bytes(const float *in, float *out, int *counts) {
  extern __shared__ unsigned char smem[];
  float *vals = reinterpret_cast<float *>(smem);
  int *bins = reinterpret_cast<int *>(smem + 33 * 32 * sizeof(float));
  const int t = threadIdx.x;
  for (int k = 0; k < 33; ++k)
    vals[k * 32 + t] = in[blockIdx.x * 33 * 32 + k * 32 + t];
  bins[t] = 0;
  __syncthreads();
  out[blockIdx.x * 32 + t] = vals[t * 33];
  counts[blockIdx.x * 32 + t] = bins[(t * 16) % 32];
}

template <typename T>
__device__ T *shared_buffer() {
  extern __shared__ __align__(16) unsigned char raw[];
  return reinterpret_cast<T *>(raw);
}

template <typename T>
__global__ void reverse_block(T *data) {
  T *s = shared_buffer<T>();
  const int t = threadIdx.x;
  // The helper's buffer: shared_buffer<T>() inlined, its return followed.
  s[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  // Reversed: lane t reads element blockDim.x - 1 - t (stride -1).
  data[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

void launch(const float *in, float *out, int *counts, double *d, int n) {
  carve_bytes<<<n / 1056, 32, 33 * 32 * sizeof(float) + 32 * sizeof(int)>>>(in, out, counts);
  reverse_block<double><<<n / 128, 128, 128 * sizeof(double)>>>(d);
}
