// A whole program: includes, an error-checking macro, cudaMalloc and
// cudaMemcpy, a launch, a timing with events and a check on the host. Only
// the kernel is analyzed; the host code must parse and be left alone.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaEventRecord(stop);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hc.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  for (int i = 0; i < n; ++i)
    if (std::fabs(hc[i] - 3.0f) > 1e-6f) {
      std::printf("mismatch at %d\n", i);
      return 1;
    }
  std::printf("ok, %.3f ms\n", ms);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}
