// Valid CUDA (`nvcc -c` accepts it: the host compiler has omp.h) including
// <omp.h>, which Clang does not find here (no OpenMP headers in its
// resource directory): the header is skipped with a note, the host code
// that needs it is a note, and the kernel is analyzed (issue [13] item 3).
// CHECK: note: header 'omp.h' not found: skipped; device code parses without it (host code that needs it is not checked) [bankwise-unanalyzed]
#include <omp.h>
// The same through a project header: located at the #include here.
// CHECK: note: header 'omp.h' not found: skipped; device code parses without it (host code that needs it is not checked) (in parallel_host.h:4, included here) [bankwise-unanalyzed]
// CHECK: note: host code not checked: use of undeclared identifier 'omp_get_max_threads' in 'host_thread_count' (header 'omp.h' was not found; the kernels do not depend on host code) (in parallel_host.h:6, included here) [bankwise-unanalyzed]
#include "include/parallel_host.h"

__global__ void bump(float *x) {
  __shared__ float s[64];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 's' (lanes stride 2 words) [bankwise-bank-conflict]
  x[threadIdx.x] = s[(2 * threadIdx.x) % 64];
}

int host_threads() {
  // CHECK: note: host code not checked: use of undeclared identifier 'omp_get_max_threads' in 'host_threads' (header 'omp.h' was not found; the kernels do not depend on host code) [bankwise-unanalyzed]
  int t = omp_get_max_threads();
#pragma omp parallel for
  for (int i = 0; i < t; ++i)
    t += omp_get_thread_num();
  return t;
}

void launch(float *x) { bump<<<1, 64>>>(x); }
