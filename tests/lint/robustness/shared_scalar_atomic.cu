// An atomic on a __shared__ scalar crashed the lint (issue [13] item 1).
// The scalar is now a shared array of one element, analyzed as usual. A
// warp's adds to it are combined by nvcc into one atomic (the address is the
// same in every thread: REDUX or POPC, then one ATOMS; measured in
// bench/results/h100/atomic-aggregation.md), so they cost one wavefront; an
// exchange is not combined, and its 32 lanes on one word take 32.
__global__ void count_hits(const float *in, unsigned *out) {
  __shared__ unsigned hit;
  __shared__ float s[32][33];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    hit = 0;
  s[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // CHECK: note: condition not understood (a floating-point element): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (s[threadIdx.x][threadIdx.y] > 0.0f)
    atomicAdd(&hit, 1u);
  atomicAdd_block(&hit, 2u);
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    out[blockIdx.x] = hit;
}

// The last thread to arrive: an exchange nvcc does not combine.
__global__ void last_writer(unsigned *out) {
  __shared__ unsigned last;
  if (threadIdx.x == 0)
    last = 0;
  __syncthreads();
  atomicExch(&last, threadIdx.x);  // CHECK: warning: 32-way bank conflict on shared atomic on 'last' (lanes stride 0 words) [bankwise-bank-conflict]
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = last;
}

void launch(const float *in, unsigned *out) {
  count_hits<<<4, dim3(32, 32)>>>(in, out);
  last_writer<<<4, 256>>>(out);
}
