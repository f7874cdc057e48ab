// Valid CUDA (`nvcc -c` accepts it) whose host code calls max(float, float)
// and max(int, unsigned): nvcc's headers overload both for the host; under
// Clang, CUDA 13's do not. Host code does not change the kernels: a note,
// once per host function, and exit 0 (issue [13] item 3).
#include <cstdio>

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = max(x[i], 0.0f);
}

int pick(int a, unsigned b, float c, float d) {
  // CHECK: note: host code not checked: no matching function for call to 'max' in 'pick' (Clang's CUDA headers declare 'max' otherwise than nvcc's; the kernels do not depend on host code) [bankwise-unanalyzed]
  float m = max(c, d);
  return max(a, b) + (int)m;
}

int main() {
  float *x = nullptr;
  scale<<<4, 256>>>(x, 1024);
  std::printf("%d\n", pick(1, 2u, 3.0f, 4.0f));
  return 0;
}
