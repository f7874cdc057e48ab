// EXIT: 2
// A file cut off in the middle of a kernel (an interrupted copy): no
// final newline, the body and the loop unclosed.
#include <cuda_runtime.h>

// CHECK: note: kernel 'truncated' not analyzed: its body has errors (the first at line 12) [bankwise-unanalyzed]
__global__ void truncated(const float *in, float *out, int n) {
  __shared__ float s[256];
  for (int i = threadIdx.x; i < n; i += 256) {
    // CHECK: error: expected ']' [clang-diagnostic-error]
    // CHECK: error: expected '}' [clang-diagnostic-error]
    s[threadIdx.x] = in[i