// 16-byte shared loads are served a quarter warp (8 lanes) at a time, and
// 8- and 16-byte loads whose lanes pair up are served as the pairs
// (docs/hardware.md, bench/results/h100/shared-rules.md, measured on an
// H100). A GEMM-style float4 read s4[4 * (l % 8) + l / 8] puts each
// quarter's 8 lanes in two groups of 4 banks, 4 lanes in each: 4 wavefronts
// a quarter, 16 in all, where the whole-warp rule would say 4. A column of
// a float4[32][8] tile (rows 32 words apart) puts a quarter's 8 lanes in
// one group of banks: 8 a quarter, 32 in all; padding the row to 9 float4
// or the XOR swizzle makes it 4. A broadcast float4 load pairs up: 2
// wavefronts, under the ideal 4 (clean).
#include <cuda_runtime.h>

__global__ void gemm_fragment(const float4 *in, float4 *out) {
  __shared__ float4 s4[32 * 8];
  int l = threadIdx.x % 32, w = threadIdx.x / 32;
  s4[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 4-way bank conflict on shared load from 's4' (16 wavefronts per request, 4 at best for 16-byte elements; lanes stride 16 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + threadIdx.x] = s4[32 * w + 4 * (l % 8) + l / 8];
}

__global__ void column_f32x4(const float4 *in, float4 *out) {
  __shared__ float4 tile[32][8];
  int x = threadIdx.x % 8, y = threadIdx.x / 8;
  tile[y][x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 8-way bank conflict on shared load from 'tile' (32 wavefronts per request, 4 at best for 16-byte elements; lanes stride 32 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x % 32][threadIdx.x / 32];
}

__global__ void broadcast_f32x4(const float4 *in, float4 *out) {
  __shared__ float4 b[8];
  if (threadIdx.x < 8)
    b[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = b[threadIdx.x / 32];
}

void quarter(const float4 *a, float4 *b) {
  gemm_fragment<<<64, 256>>>(a, b);
  column_f32x4<<<64, 256>>>(a, b);
  broadcast_f32x4<<<64, 256>>>(a, b);
}
