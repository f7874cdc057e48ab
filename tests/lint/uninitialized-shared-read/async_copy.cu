// Issue [13] item 1: shared memory filled by an asynchronous copy, or by a
// store through a cast, is written: reading it after the barrier is no
// uninitialized read. The copies themselves are not figured (a note says
// so); the cast store is.
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

// One float per thread through the pipeline primitives.
__global__ void pipeline_reverse(const float *in, float *out) {
  __shared__ float s[256];
  const int i = blockIdx.x * 256 + threadIdx.x;
  // CHECK: note: '__pipeline_memcpy_async' into 's' not figured (an asynchronous copy); 's' counts as written for the checks [bankwise-unanalyzed]
  __pipeline_memcpy_async(&s[threadIdx.x], &in[i], sizeof(float));
  // The pipeline primitives' own bodies (inline asm, a switch) are not modelled:
  // CHECK: note: 'GCCAsmStmt' statement not understood; its accesses are not analyzed (in cuda_pipeline_helpers.h:225, reached from here) [bankwise-unanalyzed]
  __pipeline_commit();
  // CHECK: note: '__pipeline_wait_prior' returns from more than one place: its accesses are figured as if every lane ran all of it [bankwise-unanalyzed]
  // CHECK: note: 'SwitchStmt' statement not understood; its accesses are not analyzed (in cuda_pipeline_primitives.h:125, reached from here) [bankwise-unanalyzed]
  __pipeline_wait_prior(0);
  __syncthreads();
  out[i] = s[255 - threadIdx.x];
}

// The whole tile by the block, cooperative groups' way.
__global__ void group_reverse(const float *in, float *out) {
  __shared__ float s[256];
  cg::thread_block block = cg::this_thread_block();
  // CHECK: note: 'memcpy_async' into 's' not figured (an asynchronous copy); 's' counts as written for the checks [bankwise-unanalyzed]
  cg::memcpy_async(block, s, in + blockIdx.x * 256, sizeof(float) * 256);
  // CHECK: note: '__pipeline_wait_prior' returns from more than one place: its accesses are figured as if every lane ran all of it (in async.h:422, reached from here) [bankwise-unanalyzed]
  // CHECK: note: 'SwitchStmt' statement not understood; its accesses are not analyzed (in cuda_pipeline_primitives.h:125, reached from here) [bankwise-unanalyzed]
  cg::wait(block);
  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

// NVIDIA's histogram clears a byte array a word at a time through a cast.
__global__ void clear_bytes(const unsigned char *in, unsigned *out) {
  __shared__ unsigned char s_hist[64 * 64];
  for (int i = 0; i < 16; ++i)
    ((unsigned *)s_hist)[threadIdx.x + 64 * i] = 0;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s_hist[threadIdx.x * 64];  // CHECK: warning: 16-way bank conflict on shared load from 's_hist' (lanes stride 16 words) [bankwise-bank-conflict]
}

void run(const float *in, float *out, const unsigned char *bytes, unsigned *counts) {
  pipeline_reverse<<<4, 256>>>(in, out);
  group_reverse<<<4, 256>>>(in, out);
  clear_bytes<<<4, 64>>>(bytes, counts);
}
