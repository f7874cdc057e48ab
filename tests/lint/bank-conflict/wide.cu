// 8- and 16-byte elements. Hopper serves a warp's 8-byte accesses in two
// phases of 16 lanes and 16-byte ones in four of 8 lanes, so 2 and 4
// wavefronts are the best they can do. A column of a double[32][32] tile
// puts 16 lanes of a phase 64 words apart, in two banks as word pairs:
// 16 wavefronts a phase, 32 in all, 16 times the ideal 2; padding to 33
// doubles (66 words) makes it 2. float4 loads: contiguous, 4 wavefronts
// (ideal); 8 float4 apart (32 words), 8 lanes of a phase in the same four
// banks: 8 a phase, 32 in all, 8 times the ideal 4.
#include <cuda_runtime.h>

__global__ void column_f64(const double *in, double *out) {
  __shared__ double tile[32][32];
  __shared__ double padded[32][33];
  int x = threadIdx.x, y = threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    tile[y + j][x] = in[(y + j) * 32 + x];
    padded[y + j][x] = in[(y + j) * 32 + x];
  }
  __syncthreads();
  for (int j = 0; j < 32; j += 8) {
    // CHECK: warning: 16-way bank conflict on shared load from 'tile' (32 wavefronts per request, 2 at best for 8-byte elements; lanes stride 64 words) [bankwise-bank-conflict]
    out[(y + j) * 32 + x] = tile[x][y + j];
    out[(y + j) * 32 + x] += padded[x][y + j];
  }
}

__global__ void vector_f32x4(const float4 *in, float4 *out) {
  __shared__ float s[256 * 4 * 8];
  int t = threadIdx.x;
  float4 *sv = reinterpret_cast<float4 *>(s);
  sv[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  // CHECK: warning: 8-way bank conflict on shared load from 's' (32 wavefronts per request, 4 at best for 16-byte elements; lanes stride 32 words) [bankwise-bank-conflict]
  out[blockIdx.x * 256 + t] = sv[t * 8];  // CHECK: warning: thread (32, 0, 0) reads s[1024] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
}

void wide(const double *a, double *b, const float4 *c, float4 *d) {
  column_f64<<<1, dim3(32, 8)>>>(a, b);
  vector_f32x4<<<64, 256>>>(c, d);
}
