// Valid CUDA (`nvcc -c` accepts it) whose host code calls max(float, float)
// and max(int, unsigned): nvcc's headers overload both for the host; under
// Clang, CUDA 13's do not. It was a note ("host code not checked") and
// exit 0 (issue [13] item 3); but the launches after such a call were lost
// with its function, so the lint now declares nvcc's host overloads
// (frontend/cuda-compat/bankwise_device_compat.h) and the file is clean.
#include <cstdio>

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = max(x[i], 0.0f);
}

int pick(int a, unsigned b, float c, float d) {
  float m = max(c, d);
  return max(a, b) + (int)m;
}

int main() {
  float *x = nullptr;
  const int blocks = max(1, pick(1, 2u, 3.0f, 4.0f));
  scale<<<blocks, 256>>>(x, 1024);
  std::printf("%d\n", pick(1, 2u, 3.0f, 4.0f));
  return 0;
}
