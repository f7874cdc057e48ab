// A library's device helpers, seen as a system header (as CUDA's own and a
// library's headers on -isystem are): diagnostics of what they do are given
// at the kernel's line that calls them.
#pragma clang system_header
#pragma once

__device__ inline void stage_and_sync(float *s, const float *in, int i) {
  s[threadIdx.x] = in[i];
  __syncthreads();
}

__device__ inline float read_pairs(const float *s) { return s[2 * threadIdx.x]; }
