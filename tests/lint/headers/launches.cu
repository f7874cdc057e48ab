// A file whose kernels live in a local header (kernels.cuh): the kernels it
// launches are analyzed, with their diagnostics located in the header.
#include <cuda_runtime.h>

#include "kernels.cuh"

void run(const float *in, float *out, float *p, int n) {
  header_transpose<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
  header_strided<32><<<n / 256, 256>>>(p);
}
