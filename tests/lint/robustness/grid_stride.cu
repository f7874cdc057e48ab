// Grid-stride loops over runtime sizes, the way most library code is
// written: __restrict__ and const pointers, a launch whose grid comes from
// the device's multiprocessor count. The loop's step, blockDim.x *
// gridDim.x, is not a count the lint can follow, so each loop gives a note
// and its accesses are left out, not guessed.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    // CHECK: note: access not analyzed: the index of 'y' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'x' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'y' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    y[i] = a * x[i] + y[i];
}

__global__ void scale_rows(int rows, int cols, const float *__restrict__ in, float *__restrict__ out,
                           const float *__restrict__ factor) {
  const int stride = blockDim.x * gridDim.x;
  // CHECK: note: a for loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += stride) {
    const int r = i / cols;
    // CHECK: note: access not analyzed: the index of 'out' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'in' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'factor' is not understood ('i' changes in a for loop the lint cannot follow) [bankwise-unanalyzed]
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
