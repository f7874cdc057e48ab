// Accesses the lint cannot analyze are counted by the memory the source
// shows they go to (issue [13] item 6): a __shared__ array, a kernel's
// pointer parameter or a __device__ variable (global), __constant__ memory
// (other), and a pointer from a function the lint cannot see into
// (unknown: it may point anywhere). cli_checks.py checks the summary's
// counts: 1 shared, 2 global, 1 other, 1 unknown.
#include <cuda_runtime.h>

__device__ int opaque(int);
__device__ float *buffer_for(int);
__device__ float table[4096];
__constant__ float coeffs[64];

__global__ void spaces(const float *in, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  float a = s[opaque(t)];  // CHECK: note: access not analyzed: the index of 's' is not understood (a call to 'opaque') [bankwise-unanalyzed]
  float b = in[opaque(t)];  // CHECK: note: access not analyzed: the index of 'in' is not understood (a call to 'opaque') [bankwise-unanalyzed]
  float c = table[opaque(t)];  // CHECK: note: access not analyzed: 'table' is memory the lint does not model (constant or device globals) [bankwise-unanalyzed]
  float d = coeffs[opaque(t) % 64];  // CHECK: note: access not analyzed: 'coeffs' is memory the lint does not model (constant or device globals) [bankwise-unanalyzed]
  float e = buffer_for(t)[t];  // CHECK: note: access not analyzed: a pointer from a 'CallExpr' expression [bankwise-unanalyzed]
  out[t] = a + b + c + d + e;
}

void launch(const float *in, float *out) { spaces<<<1, 256>>>(in, out); }
