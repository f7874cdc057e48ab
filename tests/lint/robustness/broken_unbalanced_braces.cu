// EXIT: 2
// An opening brace too many: the kernel's body never closes, and the host
// function after it becomes a nested function definition.
#include <cuda_runtime.h>

// CHECK: note: kernel 'unbalanced' not analyzed: its body has errors (the first at line 16) [bankwise-unanalyzed]
__global__ void unbalanced(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
  {
}

// CHECK: error: function definition is not allowed here [clang-diagnostic-error]
// CHECK: error: expected '}' [clang-diagnostic-error]
void launch(const float *in, float *out, int n) { unbalanced<<<(n + 255) / 256, 256>>>(in, out, n); }
