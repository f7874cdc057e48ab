// Grid-stride loops over runtime sizes, the way most library code is
// written: __restrict__ and const pointers, a launch whose grid comes from
// the device's multiprocessor count. The loop's step, blockDim.x *
// gridDim.x, is counted (the IR's while): saxpy's accesses get figures;
// scale_rows divides by a runtime size too, beyond the analysis's budget.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  // Every lane's trips counted, for every n.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    // x and y: lanes one element apart, coalesced.
    // (The grid is the device's: assumed, per-request figures do not
    // depend on it.)
    y[i] = a * x[i] + y[i];
}
// CHECK: note: kernel 'scale_rows' not analyzed: kernel 'scale_rows' needs more than 58203 evaluation steps at cols = 1310, n = 1280, rows = 1310, its share of the analysis limit of 67108864 over 1153 sizes (it is evaluated warp by warp: division by 1310 of a value whose block or loop coefficient 256 it does not divide); give its sizes with -D [bankwise-unanalyzed]
__global__ void scale_rows(int rows, int cols, const float *__restrict__ in, float *__restrict__ out,
                           const float *__restrict__ factor) {
  const int stride = blockDim.x * gridDim.x;
  // i / cols with a runtime cols: evaluated warp by warp, too costly.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += stride) {
    const int r = i / cols;
    // Each lane's element of in and out: coalesced.
    // (Left unanalyzed with the whole kernel: see the note above.)
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
