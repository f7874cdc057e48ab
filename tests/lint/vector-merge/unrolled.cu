// nvcc -O3 unrolls a loop of a constant trip count and merges the copies'
// shared loads (or stores) at consecutive addresses into 8- and 16-byte
// ones where it can prove the first address aligned: sixteen 4-byte loads
// of a row become four LDS.128, whose conflicts count per 16-byte request.
// The lint prices those merged accesses (a bankwise-vector-merge note says
// so; --as-written prices the source's) and leaves the rest as written.
// Each kernel's comment says what cuobjdump shows on sm_90 (CUDA 13).
#include <cuda_runtime.h>

// Four LDS.128 per thread: a warp is two rows of the tile, each row's 16
// lanes reading the same 16 bytes.
__global__ void tile_rows(const float *in, float *out) {
  __shared__ float t[16][16];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 16; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 16 consecutive 4-byte loads from 't' into 4 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // REQUESTS: 32 (four LDS.128 per thread, eight warps)
    acc += t[threadIdx.y][k];
  out[threadIdx.y * 16 + threadIdx.x] = acc;
}

// Dynamic shared memory starts 16-byte aligned: eight LDS.128, each lane
// 128 bytes from the next (eight lanes of a quarter in one bank group).
__global__ void extern_columns(const float *in, float *out) {
  extern __shared__ float s[];
  for (int r = 0; r < 32; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 32; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 32 consecutive 4-byte loads from 's' into 8 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 8-way bank conflict on shared load from 's' (32 wavefronts per request, 4 at best for 16-byte elements; lanes stride 32 words) [bankwise-bank-conflict]
    // REQUESTS: 8
    acc += s[threadIdx.x * 32 + k];
  out[threadIdx.x] = acc;
}

// 256 trips: unrolled in groups (eight LDS.128 per group), merged alike.
__global__ void long_rows(const float *in, float *out) {
  __shared__ float s[32 * 256];
  for (int r = 0; r < 256; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 256; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 256 consecutive 4-byte loads from 's' into 64 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 8-way bank conflict on shared load from 's' (32 wavefronts per request, 4 at best for 16-byte elements; lanes stride 256 words) [bankwise-bank-conflict]
    // REQUESTS: 64
    acc += s[threadIdx.x * 256 + k];
  out[threadIdx.x] = acc;
}

// Two 8-byte elements per LDS.128.
__global__ void double_rows(const double *in, double *out) {
  __shared__ double s[32 * 4];
  for (int r = 0; r < 4; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  double acc = 0.0;
  for (int k = 0; k < 4; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 4 consecutive 8-byte loads from 's' into 2 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 2-way bank conflict on shared load from 's' (8 wavefronts per request, 4 at best for 16-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 2
    acc += s[threadIdx.x * 4 + k];
  out[threadIdx.x] = acc;
}

// Six trips: one LDS.128 and one LDS.64.
__global__ void six_trips(const float *in, float *out) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 6; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 6 consecutive 4-byte loads from 's' into 2 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 2-way bank conflict on shared load from 's' (8 wavefronts per request, 4 at best for 16-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
    // CHECK: warning: 4-way bank conflict on shared load from 's' (8 wavefronts per request, 2 at best for 8-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 2 (an LDS.128 and an LDS.64)
    acc += s[threadIdx.x * 8 + k];
  out[threadIdx.x] = acc;
}

// A register tile of a blocked GEMM: two LDS.128 per row of regM, two
// per regN, each dot step.
__global__ void register_tile(const float *A, const float *B, float *C) {
  __shared__ float As[8 * 128];
  __shared__ float Bs[8 * 128];
  const int col = threadIdx.x % 16, row = threadIdx.x / 16;
  float regM[8], regN[8], res[64] = {0.0f};
  for (int i = threadIdx.x; i < 8 * 128; i += 256) {
    As[i] = A[i];
    Bs[i] = B[i];
  }
  __syncthreads();
  for (int d = 0; d < 8; ++d) {
    for (int i = 0; i < 8; ++i)
      // CHECK: note: nvcc -O3 unrolls the loop over 'i' and merges its 8 consecutive 4-byte loads from 'As' into 2 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
      // REQUESTS: 128
      regM[i] = As[d * 128 + row * 8 + i];
    for (int i = 0; i < 8; ++i)
      // CHECK: note: nvcc -O3 unrolls the loop over 'i' and merges its 8 consecutive 4-byte loads from 'Bs' into 2 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
      // CHECK: warning: 2-way bank conflict on shared load from 'Bs' (8 wavefronts per request, 4 at best for 16-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
      // REQUESTS: 128
      regN[i] = Bs[d * 128 + col * 8 + i];
    for (int m = 0; m < 8; ++m)
      for (int n = 0; n < 8; ++n)
        res[m * 8 + n] += regM[m] * regN[n];
  }
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n)
      // CHECK: warning: uncoalesced global store to 'C': 32 sectors per request, 4 at best (8 128-byte lines; lanes stride 8 words) [bankwise-uncoalesced]
      C[(row * 8 + m) * 128 + col * 8 + n] = res[m * 8 + n];
}

// Stores merge too: one STS.128 per thread.
__global__ void store_rows(const float *in, float *out) {
  __shared__ float s[32 * 4];
  const float v = in[threadIdx.x];
  for (int k = 0; k < 4; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 4 consecutive 4-byte stores to 's' into 1 wider ones (16 bytes where aligned: STS.128); the figures are per merged store (--as-written prices them as written) [bankwise-vector-merge]
    // REQUESTS: 1
    s[threadIdx.x * 4 + k] = v + k;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 5) % 128];
}

// Not merged: a stride nvcc cannot prove a multiple of 4 (a kernel
// argument), rows of 33 ints, a shared store between the loads, a branch in
// the body, `#pragma unroll 1`, and a body calling sinf (not unrolled).
__global__ void runtime_stride(const float *in, float *out, int K) {
  __shared__ float s[4096];
  for (int r = 0; r < 128; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 8; ++k)
    // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 64 words) at some sizes where K % 32 == 0 (at the sizes tried, sampled; other sizes may cost more) [bankwise-bank-conflict]
    acc += s[(threadIdx.x * K + k) % 4096];
  out[threadIdx.x] = acc;
}

__global__ void odd_rows(const int *in, int *out) {
  __shared__ int s[32][33];
  for (int r = 0; r < 32; ++r)
    s[r][threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  int acc = 0;
  for (int k = 0; k < 8; ++k)
    acc += s[threadIdx.x][k];
  out[threadIdx.x] = acc;
}

__global__ void store_between(const float *in, float *out) {
  __shared__ float s[32 * 8];
  __shared__ float t[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  for (int k = 0; k < 8; ++k)
    // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
    t[k * 32 + threadIdx.x] = s[threadIdx.x * 8 + k];
  __syncthreads();
  out[threadIdx.x] = t[threadIdx.x];
}

__global__ void guarded_body(const float *in, float *out, int n) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 8; ++k)
    if (k < n)
      // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
      acc += s[threadIdx.x * 8 + k];
  out[threadIdx.x] = acc;
}

__global__ void unroll_one(const float *in, float *out) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 8; ++k)
    // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 8
    acc += s[threadIdx.x * 8 + k];
  out[threadIdx.x] = acc;
}

__global__ void heavy_body(const float *in, float *out) {
  __shared__ float s[32 * 64];
  for (int r = 0; r < 64; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 64; ++k)
    // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 64 words) [bankwise-bank-conflict]
    // REQUESTS: 64
    acc += s[threadIdx.x * 64 + k] * sinf(acc * k);
  out[threadIdx.x] = acc;
}

// `#pragma unroll 2` and `4` below the trip count leave a loop whose
// counter ptxas does not know to be a multiple of 4: pairs, LDS.64.
__global__ void unroll_two(const float *in, float *out) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 2
  for (int k = 0; k < 8; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 8 consecutive 4-byte loads from 's' into 4 wider ones (8 bytes where aligned: LDS.64); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 4-way bank conflict on shared load from 's' (8 wavefronts per request, 2 at best for 8-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 4 (an LDS.64 per pair)
    acc += s[threadIdx.x * 8 + k];
  out[threadIdx.x] = acc;
}

__global__ void unroll_four(const float *in, float *out) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 4
  for (int k = 0; k < 8; ++k)
    // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 8 consecutive 4-byte loads from 's' into 4 wider ones (8 bytes where aligned: LDS.64); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    // CHECK: warning: 4-way bank conflict on shared load from 's' (8 wavefronts per request, 2 at best for 8-byte elements; lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 4
    acc += s[threadIdx.x * 8 + k];
  out[threadIdx.x] = acc;
}

// Under `#pragma unroll` as well, sinf's branches keep the copies' loads
// apart: eight 4-byte loads as written (the SASS: six LDS, one LDS.64).
__global__ void unroll_heavy(const float *in, float *out) {
  __shared__ float s[32 * 8];
  for (int r = 0; r < 8; ++r)
    s[r * 32 + threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k)
    // CHECK: warning: 8-way bank conflict on shared load from 's' (lanes stride 8 words) [bankwise-bank-conflict]
    // REQUESTS: 8
    acc += s[threadIdx.x * 8 + k] * sinf(acc * k);
  out[threadIdx.x] = acc;
}

void launch(const float *in, float *out, const double *din, double *dout, const int *iin, int *iout, int K, int n) {
  tile_rows<<<1, dim3(16, 16)>>>(in, out);
  extern_columns<<<1, 32, 32 * 32 * sizeof(float)>>>(in, out);
  long_rows<<<1, 32>>>(in, out);
  double_rows<<<1, 32>>>(din, dout);
  six_trips<<<1, 32>>>(in, out);
  register_tile<<<1, 256>>>(in, in, out);
  store_rows<<<1, 32>>>(in, out);
  runtime_stride<<<1, 32>>>(in, out, K);
  odd_rows<<<1, 32>>>(iin, iout);
  store_between<<<1, 32>>>(in, out);
  guarded_body<<<1, 32>>>(in, out, n);
  unroll_one<<<1, 32>>>(in, out);
  heavy_body<<<1, 32>>>(in, out);
  unroll_two<<<1, 32>>>(in, out);
  unroll_four<<<1, 32>>>(in, out);
  unroll_heavy<<<1, 32>>>(in, out);
}
