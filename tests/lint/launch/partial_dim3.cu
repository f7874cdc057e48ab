// A launch whose block is constant only in part: llm.c's
// matmul_backward_bias_kernel9 is launched with
// `dim3 block_dim = {4, 8, block_size / WARP_SIZE}`. The lint took the
// whole block as unknown and assumed (32, 8, 4): 32 rows a warp, 32
// sectors a request, a false warning (the hand check's 22 at 91c0bda).
// With x and y from the launch a warp is 4 rows of 128 contiguous bytes:
// 16 sectors, the best for 512 bytes, and nothing to report. The store
// (8 rows of 16 bytes a warp: 8 sectors, 4 at best) is a true one.
#include <cuda_runtime.h>

__global__ void bias_partial(const float *dout, float *dbias, int OC) {
  const int oc = blockIdx.x * 32 + threadIdx.y * 4;
  const int row = threadIdx.x + 4 * threadIdx.z;
  const float4 v = *reinterpret_cast<const float4 *>(dout + row * OC + oc);
  dbias[(blockIdx.x * 32 + threadIdx.y * 4) * 32 + threadIdx.x + 4 * threadIdx.z] = v.x + v.y + v.z + v.w;  // CHECK: warning: uncoalesced global store to 'dbias': 8 sectors per request, 4 at best (8 128-byte lines; lanes stride 1 words) [bankwise-uncoalesced]
}

void launch(const float *dout, float *dbias, int block_size) {
  dim3 block_dim = {4, 8, (unsigned)block_size / 32};
  bias_partial<<<24, block_dim>>>(dout, dbias, 768);
}
