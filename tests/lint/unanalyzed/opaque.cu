// What the lint cannot follow gives a located note and no warning: an
// index from a function without a body, and a loop whose trip count the
// lint cannot compute (its body is analyzed once; the index built from its
// changing variable is unknown).
#include <cuda_runtime.h>

__device__ int opaque_index(int);

__global__ void opaque(const float *in, float *out, int n) {
  __shared__ float s[1024];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[opaque_index(t)];  // CHECK: note: access not analyzed: the index of 's' is not understood (a call to 'opaque_index') [bankwise-unanalyzed]
  int k = t;
  while (k < n) {  // CHECK: note: a while loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 'out' is not understood ('k' changes in a while loop the lint cannot follow) [bankwise-unanalyzed]
    // CHECK: note: access not analyzed: the index of 's' is not understood ('k' changes in a while loop the lint cannot follow) [bankwise-unanalyzed]
    out[k] = s[k % 1024];
    k = k * 2 + opaque_index(k);
  }
}

void launch(const float *in, float *out, int n) { opaque<<<1, 256>>>(in, out, n); }
