// EXIT: 2
// A missing semicolon and a missing parenthesis in a kernel: Clang's
// errors, located; the kernel is not analyzed.
#include <cuda_runtime.h>

// CHECK: note: kernel 'broken' not analyzed: its body has errors (the first at line 9) [bankwise-unanalyzed]
__global__ void broken(float *out, int n) {
  // CHECK: error: expected ';' at end of declaration [clang-diagnostic-error]
  int i = blockIdx.x * blockDim.x + threadIdx.x
  if ((i < n)
    out[i] = 0.0f;
}
