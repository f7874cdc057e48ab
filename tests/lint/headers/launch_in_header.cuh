// A kernel and the host function that launches it, both in a header (as
// llm.c's llmc/matmul.cuh launches reduce_add_sum_kernel): the lint read
// launches in the main file only, so the kernel was "not launched from
// this file" in every file (and a template one, instantiated, got an
// assumed block, (32, 8, 1): its columns 64 words apart made a 32-sector
// warning for a launch the program never makes). The header's launch,
// in a function the file calls, gives (2, 16): a warp reads 2 columns of
// 16 contiguous floats, 4 sectors, the best for 128 bytes; the strided
// store is uncoalesced under any block.
#pragma once

__global__ void column_pairs(const float *in, float *out) {
  const float v = 2.0f * in[threadIdx.x * 64 + threadIdx.y];
  out[(threadIdx.y * 2 + threadIdx.x) * 8] = v;  // CHECK: warning: uncoalesced global store to 'out': 32 sectors per request, 4 at best (8 128-byte lines; lanes stride 8 words) [bankwise-uncoalesced]
}

inline void run_column_pairs(const float *in, float *out) {
  const dim3 block(2, 16);
  column_pairs<<<1, block>>>(in, out);
}
