// Issue [13] item 1: every diagnostic is located in the user's file. The
// barrier and the strided read happen inside a system header's inlined
// function; the error and the warning are given at the kernel's calls, the
// header's line in a note.
// EXIT: 1 (a divergent barrier is an error)
#include <cuda_runtime.h>

#include "library_sync.cuh"

__global__ void half_stage(const float *in, float *out) {
  __shared__ float s[512];
  if (threadIdx.x < 128)
    // CHECK: error: '__syncthreads()' under a condition that differs between threads of a block in kernel 'half_stage': threads that skip it never reach the barrier [bankwise-divergent-sync]
    stage_and_sync(s, in, blockIdx.x * 256 + threadIdx.x);
  out[blockIdx.x * 256 + threadIdx.x] = read_pairs(s);  // CHECK: warning: 2-way bank conflict on shared load from 's' (lanes stride 2 words) [bankwise-bank-conflict]
}

void run(const float *in, float *out) { half_stage<<<4, 256>>>(in, out); }
