// A header that is not on the machine next to launches whose grids come
// from template helpers crashed the lint (issue [13] item 1). The header is
// skipped with a note; the kernel parses without it. One grid comes from a
// helper of this file, the other from one the missing header would have
// declared: that host function's error is a note (host code does not
// change the kernel), and the kernel is analyzed with the launches' block.
// CHECK: note: header 'grid_helpers.cuh' not found: skipped; device code parses without it (host code that needs it is not checked) [bankwise-unanalyzed]
#include "grid_helpers.cuh"

template <typename T> T ceil_div(T a, T b) { return (a + b - 1) / b; }

__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 0.0f;
}

void run(float *p, int n) {
  const int bs = 256;
  dim3 grid(ceil_div(n, bs));
  fill<<<grid, bs>>>(p, n);
}

void run_with_header(float *p, int n) {
  const int bs = 256;
  // CHECK: note: host code not checked: use of undeclared identifier 'round_up_div' in 'run_with_header' (header 'grid_helpers.cuh' was not found; the kernels do not depend on host code) [bankwise-unanalyzed]
  dim3 grid(round_up_div(n, bs));
  fill<<<grid, bs>>>(p, n);
}
