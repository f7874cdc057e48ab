// A __shared__ array of 12-byte elements (float3) crashed the lint with
// map::at (issue [13] item 1). nvcc moves a 12-byte element (4-byte
// aligned) as three 4-byte accesses, and so does the lint: a whole element
// is three requests at its line, a component one. Lanes three words apart
// are conflict-free; six words apart, two lanes share each bank used.
// Structs of scalars of one size are split alike; others stay notes.
struct Pair {
  float a;
  int b;
};
struct Mixed {
  float a;
  double b;
};

__global__ void particles(const float *pos, float *out) {
  __shared__ float3 v[32];
  __shared__ float3 wide[64];
  __shared__ Pair pairs[64];
  // CHECK: note: shared variable 'mixed' of type 'Mixed[32]' is not modelled; its accesses are not analyzed [bankwise-unanalyzed]
  __shared__ Mixed mixed[32];
  const int i = blockIdx.x * 96 + threadIdx.x;
  v[threadIdx.x] = make_float3(pos[i], pos[i + 32], pos[i + 64]);
  // CHECK: warning: 2-way bank conflict on shared store to 'wide' (lanes stride 6 words) [bankwise-bank-conflict]
  wide[2 * threadIdx.x] = v[threadIdx.x];
  // CHECK: warning: 2-way bank conflict on shared store to 'wide' (lanes stride 6 words) [bankwise-bank-conflict]
  wide[2 * threadIdx.x + 1].y = 0.0f;
  // CHECK: warning: 4-way bank conflict on shared store to 'pairs' (lanes stride 4 words) [bankwise-bank-conflict]
  pairs[2 * threadIdx.x].b = i;
  // CHECK: note: access not analyzed: shared variable 'mixed' is not modelled [bankwise-unanalyzed]
  mixed[threadIdx.x].a = 1.0f;
  __syncthreads();
  // CHECK: warning: 4-way bank conflict on shared load from 'pairs' (lanes stride 4 words) [bankwise-bank-conflict]
  out[blockIdx.x * 32 + threadIdx.x] = v[31 - threadIdx.x].y + pairs[2 * threadIdx.x].b;
}

void launch(const float *pos, float *out) { particles<<<8, 32>>>(pos, out); }
