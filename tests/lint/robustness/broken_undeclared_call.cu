// EXIT: 2
// A kernel calling a function declared nowhere (a missing #include of the
// project's device helpers), and one calling a host function from device
// code.
#include <cuda_runtime.h>

int host_only(int x) { return 2 * x; }

// CHECK: note: kernel 'calls_missing' not analyzed: its body has errors (the first at line 13) [bankwise-unanalyzed]
__global__ void calls_missing(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: error: use of undeclared identifier 'fast_sigmoid' [clang-diagnostic-error]
  out[i] = fast_sigmoid(in[i]);
}

// CHECK: note: kernel 'calls_host' not analyzed: its body has errors (the first at line 18) [bankwise-unanalyzed]
// CHECK: error: no matching function for call to 'host_only' [clang-diagnostic-error]
__global__ void calls_host(int *out) { out[threadIdx.x] = host_only(threadIdx.x); }
