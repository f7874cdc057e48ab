// Work-efficient (Blelloch) scan of 512 floats by 256 threads, as in GPU
// Gems 3 ch. 39. Without offsets, level `offset` of the up-sweep has lanes
// 2 * offset words apart: 2-, 4- and 8-way at offsets 1, 2, 4; 16-way at
// offset 8 (32 lanes at stride 16: two banks) and 16 (16 lanes at stride
// 32: one bank); then 8, 4, 2, 1 lanes. The worst is 16-way, for each of
// the up-sweep's and down-sweep's accesses. With CONFLICT_FREE_OFFSET(i) =
// i >> 5 every level's lanes fall in distinct banks (each 32-word row of
// indices is shifted by one more bank), so that kernel is clean.
#include <cuda_runtime.h>
#define NE 512
#define CONFLICT_FREE_OFFSET(i) ((i) >> 5)

__global__ void scan_plain(const float *in, float *out) {
  __shared__ float temp[NE];
  int thid = threadIdx.x;
  int offset = 1;
  temp[thid] = in[blockIdx.x * NE + thid];
  temp[thid + NE / 2] = in[blockIdx.x * NE + thid + NE / 2];
  for (int d = NE >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared store to 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0)
    temp[NE - 1] = 0;
  for (int d = 1; d < NE; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 32 words) [bankwise-bank-conflict]
      float t = temp[ai];
      // CHECK: warning: 16-way bank conflict on shared store to 'temp' (lanes stride 32 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 32 words) [bankwise-bank-conflict]
      temp[ai] = temp[bi];
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 32 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared store to 'temp' (lanes stride 32 words) [bankwise-bank-conflict]
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[blockIdx.x * NE + thid] = temp[thid];
  out[blockIdx.x * NE + thid + NE / 2] = temp[thid + NE / 2];
}

__global__ void scan_offsets(const float *in, float *out) {
  __shared__ float temp[NE + NE / 32];
  int thid = threadIdx.x;
  int offset = 1;
  int a = thid, b = thid + NE / 2;
  temp[a + CONFLICT_FREE_OFFSET(a)] = in[blockIdx.x * NE + a];
  temp[b + CONFLICT_FREE_OFFSET(b)] = in[blockIdx.x * NE + b];
  for (int d = NE >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0)
    temp[NE - 1 + CONFLICT_FREE_OFFSET(NE - 1)] = 0;
  for (int d = 1; d < NE; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai);
      bi += CONFLICT_FREE_OFFSET(bi);
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  out[blockIdx.x * NE + a] = temp[a + CONFLICT_FREE_OFFSET(a)];
  out[blockIdx.x * NE + b] = temp[b + CONFLICT_FREE_OFFSET(b)];
}

void scan(const float *in, float *out) {
  scan_plain<<<64, NE / 2>>>(in, out);
  scan_offsets<<<64, NE / 2>>>(in, out);
}
