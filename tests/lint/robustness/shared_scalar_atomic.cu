// An atomic on a __shared__ scalar crashed the lint (issue [13] item 1):
// the lint models shared arrays, so the atomic on the scalar is a note
// naming why; the array beside it is analyzed as usual.
__global__ void count_hits(const float *in, unsigned *out) {
  __shared__ unsigned hit;
  __shared__ float s[32][33];
  if (threadIdx.x == 0)
    hit = 0;  // CHECK: note: access not analyzed: 'hit' is a shared scalar; the lint models shared arrays [bankwise-unanalyzed]
  s[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // CHECK: note: condition not understood (a floating-point element): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (s[threadIdx.x][threadIdx.y] > 0.0f)
    // CHECK: note: access not analyzed: 'hit' is a shared scalar; the lint models shared arrays [bankwise-unanalyzed]
    atomicAdd(&hit, 1u);
  // CHECK: note: access not analyzed: 'hit' is a shared scalar; the lint models shared arrays [bankwise-unanalyzed]
  atomicAdd_block(&hit, 2u);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    out[blockIdx.x] = hit;  // CHECK: note: access not analyzed: 'hit' is a shared scalar; the lint models shared arrays [bankwise-unanalyzed]
}

void launch(const float *in, unsigned *out) { count_hits<<<4, dim3(32, 32)>>>(in, out); }
