// A kernel that launches a kernel (dynamic parallelism): nvcc compiles it
// with -rdc=true (`nvcc -rdc=true -c` accepts this file); Clang has no
// device-side launch and refuses the reference. The lint makes that a note
// at the launch and analyzes both kernels' accesses (issue [13] item 3;
// the child's block is assumed: the device-side launch is not read):
// the parent's store is coalesced; the child's stride-2 read is not.
// NVCC-FLAGS: -rdc=true -lcudadevrt
#include <cstdio>

__global__ void child(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: warning: uncoalesced global load from 'in': 8 sectors per request, 4 at best (2 128-byte lines; lanes stride 2 words) [bankwise-uncoalesced]
  out[i] = in[2 * i];
}

// Its only launch is the device-side one Clang does not read:
// CHECK: note: template kernel 'child_t' is never instantiated in this file: nothing to analyze [bankwise-unanalyzed]
template <int Block> __global__ void child_t(const float *in, float *out) {
  out[blockIdx.x * Block + threadIdx.x] = in[blockIdx.x * Block + threadIdx.x];
}

__global__ void parent(const float *in, float *out, float *flags) {
  flags[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  if (threadIdx.x == 0)
    // CHECK: note: a launch from device code (dynamic parallelism, which nvcc compiles with -rdc=true and Clang does not read) is not analyzed: reference to __global__ function 'child' in __global__ function [bankwise-unanalyzed]
    child<<<4, 256>>>(in, out);
  if (threadIdx.x == 1) {
    // a launch on a stream of its own, of a template kernel
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    // CHECK: note: a launch from device code (dynamic parallelism, which nvcc compiles with -rdc=true and Clang does not read) is not analyzed: no matching function for call to 'child_t' [bankwise-unanalyzed]
    // CHECK: note: a launch from device code (dynamic parallelism, which nvcc compiles with -rdc=true and Clang does not read) is not analyzed: reference to __host__ function 'cudaConfigureCall' in __global__ function [bankwise-unanalyzed]
    child_t<128><<<2, 128, 0, s>>>(in, out);
  }
}

void launch_parent(const float *in, float *out, float *flags) {
  parent<<<1, 32>>>(in, out, flags);
  printf("launched\n");
}
