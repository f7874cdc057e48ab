// Loops the lint cannot count cheaply: a constant trip count of a billion,
// a doubling loop, a data-dependent while loop and nested constant loops.
// The analysis must stay bounded in time and memory on every one.
#include <cuda_runtime.h>

__global__ void spin(const float *in, float *out) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  float acc = 0;
  // CHECK: note: kernel 'spin' not analyzed: loop runs 1000000000 times, more than the analysis limit 67108864 [bankwise-unanalyzed]
  for (long long k = 0; k < 1000000000LL; ++k)
    acc += s[(t + k) % 1024];
  for (int step = 1; step < (1 << 30); step *= 2)
    acc += s[(t * step) % 1024];
  int j = t;
  // CHECK: note: a while loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  // CHECK: note: access not analyzed: the index of 'in' is not understood ('j' changes in a while loop the lint cannot follow) [bankwise-unanalyzed]
  while (in[j] > 0.0f)
    j = (j * 7 + 1) % 1024;
  for (int a = 0; a < 64; ++a)
    for (int b = 0; b < 64; ++b)
      for (int c = 0; c < 64; ++c)
        acc += s[(a * 64 + b * 8 + c + t) % 1024];
  // CHECK: note: access not analyzed: the index of 's' is not understood ('j' changes in a while loop the lint cannot follow) [bankwise-unanalyzed]
  out[blockIdx.x * 1024 + t] = acc + s[j];
}

void launch(const float *in, float *out) { spin<<<1, 1024>>>(in, out); }
