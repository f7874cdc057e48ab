// An atomic on a __shared__ scalar crashed the lint (issue [13] item 1).
// The scalar is now a shared array of one element: every lane's atomic on
// it meets one address (32-way); the array beside it is analyzed as usual.
__global__ void count_hits(const float *in, unsigned *out) {
  __shared__ unsigned hit;
  __shared__ float s[32][33];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    hit = 0;
  s[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // CHECK: note: condition not understood (a floating-point element): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (s[threadIdx.x][threadIdx.y] > 0.0f)
    // CHECK: note: up to 32-way bank conflict on shared atomic on 'hit' (lanes stride 0 words) if every lane takes it (the lanes that do depend on a condition the lint cannot evaluate) [bankwise-bank-conflict]
    atomicAdd(&hit, 1u);
  atomicAdd_block(&hit, 2u);  // CHECK: warning: 32-way bank conflict on shared atomic on 'hit' (lanes stride 0 words) [bankwise-bank-conflict]
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    out[blockIdx.x] = hit;
}

void launch(const float *in, unsigned *out) { count_hits<<<4, dim3(32, 32)>>>(in, out); }
