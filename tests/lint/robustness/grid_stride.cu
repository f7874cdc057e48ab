// Grid-stride loops over runtime sizes, the way most library code is
// written: __restrict__ and const pointers, a launch whose grid comes from
// the device's multiprocessor count. The loop's step, blockDim.x *
// gridDim.x, is counted (the IR's while), so every access in the loops
// gets figures, scale_rows' i / cols at a runtime cols too.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  // Every lane's trips counted, for every n.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    // x and y: lanes one element apart, coalesced.
    // (The grid is the device's: assumed, per-request figures do not
    // depend on it.)
    y[i] = a * x[i] + y[i];
}

__global__ void scale_rows(int rows, int cols, const float *__restrict__ in, float *__restrict__ out,
                           const float *__restrict__ factor) {
  const int stride = blockDim.x * gridDim.x;
  // i / cols with a runtime cols: evaluated warp by warp.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += stride) {
    const int r = i / cols;
    // Each lane's element of in and out: coalesced.
    // (Every size of rows and cols: the all-sizes analysis.)
    // The row's factor: a broadcast where a row spans the warp.
    out[i] = in[i] * factor[r];
  }
}

void run_saxpy(int n, float a, const float *x, float *y) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  saxpy<<<sms * 4, 256>>>(n, a, x, y);
}

void run_scale(int rows, int cols, const float *in, float *out, const float *factor) {
  scale_rows<<<(rows * cols + 255) / 256, 256>>>(rows, cols, in, out, factor);
}
