// EXIT: 2
// Mistakes in kernel declarations and launches: a kernel returning a
// value, a launch with the wrong number of arguments, a launch of a host
// function.
#include <cuda_runtime.h>

// CHECK: error: kernel function type 'int (float *)' must have void return type [clang-diagnostic-error]
__global__ int returns_value(float *out) { return 1; }

__global__ void two_args(float *out, int n) { out[threadIdx.x] = n; }

void not_a_kernel(float *out) {}

void launch(float *out) {
  // CHECK: error: too few arguments to function call, expected 2, have 1 [clang-diagnostic-error]
  two_args<<<1, 32>>>(out);
  // CHECK: error: kernel call to non-global function 'not_a_kernel' [clang-diagnostic-error]
  not_a_kernel<<<1, 32>>>(out);
}
