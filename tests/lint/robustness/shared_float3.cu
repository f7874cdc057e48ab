// A __shared__ array of 12-byte elements (float3) crashed the lint with
// map::at (issue [13] item 1). The lint does not model a 12-byte element
// (nvcc moves one as three 4-byte accesses): the array and each access
// through it are notes saying so, and the other accesses are analyzed.
__global__ void particles(const float *pos, float *out) {
  // CHECK: note: shared variable 'v' of type 'float3[32]' is not modelled; its accesses are not analyzed [bankwise-unanalyzed]
  __shared__ float3 v[32];
  __shared__ float w[32];
  const int i = blockIdx.x * 96 + threadIdx.x;
  // CHECK: note: access not analyzed: shared variable 'v' is not modelled [bankwise-unanalyzed]
  v[threadIdx.x] = make_float3(pos[i], pos[i + 32], pos[i + 64]);
  w[threadIdx.x] = pos[i];
  __syncthreads();
  // CHECK: note: access not analyzed: shared variable 'v' is not modelled [bankwise-unanalyzed]
  out[blockIdx.x * 32 + threadIdx.x] = v[31 - threadIdx.x].y + w[31 - threadIdx.x];
}

void launch(const float *pos, float *out) { particles<<<8, 32>>>(pos, out); }
