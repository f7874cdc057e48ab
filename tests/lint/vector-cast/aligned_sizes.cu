// A float4 load through a cast of a float pointer needs its address
// 16-byte aligned, or the load faults: `&A[row * K + 4 * col]` is aligned
// for every row only where K % 4 == 0. The lint ranges the size over those
// multiples only, and says why in the figures' note; sizes where the load
// faults get no figure (at K % 4 != 0 the access would have been priced at
// its address rounded down, for an execution that never happens).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

struct alignas(16) pack8 {
  __nv_bfloat16 v[8];
};

// Rows of 32 bytes, K floats apart: 16 sectors where K % 8 == 0, 24 where
// K % 8 == 4 (odd rows start mid-sector).
__global__ void rows_f4(const float *A, float *out, int K) {
  const int row = threadIdx.x / 2, col = threadIdx.x % 2;
  // CHECK: warning: uncoalesced global load from 'A': 24 sectors per request, 16 at best (18 128-byte lines; lanes stride 4 words) when K % 8 == 4 [bankwise-uncoalesced]
  const float4 v = reinterpret_cast<const float4 *>(&A[row * K + 4 * col])[0];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Rows 4 * K floats apart: aligned at every K, so every K is ranged over
// (24 sectors at odd K: 16 K bytes puts odd rows mid-sector).
__global__ void rows_f4_any(const float *A, float *out, int K) {
  A += blockIdx.x * 8 * K;
  const int row = threadIdx.x / 2, col = threadIdx.x % 2;
  // CHECK: warning: uncoalesced global load from 'A': 24 sectors per request, 16 at best (18 128-byte lines; lanes stride 4 words) when K is odd [bankwise-uncoalesced]
  const float4 v = reinterpret_cast<const float4 *>(&A[4 * row * K + 4 * col])[0];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// Eight bf16 per 16-byte pack (llm.c's Packed128), a row of OC per
// index: OC % 8 == 0, and 18 sectors where OC % 16 == 8 (rows alternate
// between 32-byte aligned and 16 bytes off).
__global__ void rows_bf16(const __nv_bfloat16 *dout, float *out, int OC) {
  const int oc = 8 * (threadIdx.x % 8), idx = threadIdx.x / 8;
  // CHECK: warning: uncoalesced global load from 'dout': 18 sectors per request, 16 at best (7 128-byte lines; lanes stride 4 words) when OC % 16 == 8 [bankwise-uncoalesced]
  const pack8 p = *reinterpret_cast<const pack8 *>(dout + oc + idx * OC);
  out[threadIdx.x] = __bfloat162float(p.v[0]);
}

void launch(const float *A, const __nv_bfloat16 *d, float *out, int K, int OC) {
  rows_f4<<<1, 32>>>(A, out, K);
  rows_f4_any<<<1, 32>>>(A, out, K);
  rows_bf16<<<1, 32>>>(d, out, OC);
}
