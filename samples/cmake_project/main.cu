// Calls the bankwise transpose that CMake generated from
// ../transpose_any_shape.bw and checks it on the GPU: ./transpose_demo R C.
// Without a CUDA device it says so and exits 0 (built, not run).
#include "transpose_any_shape.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int Argc, char **Argv) {
  const long long R = Argc > 2 ? std::atoll(Argv[1]) : 4097, C = Argc > 2 ? std::atoll(Argv[2]) : 1000;
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices == 0) {
    std::printf("no CUDA device: built, not run\n");
    return 0;
  }
  const std::size_t N = static_cast<std::size_t>(R * C);
  std::vector<float> In(N), Out(N);
  for (std::size_t I = 0; I < N; ++I)
    In[I] = static_cast<float>(I % 65521);
  float *DIn = nullptr, *DOut = nullptr;
  if (cudaMalloc(&DIn, N * sizeof(float)) != cudaSuccess || cudaMalloc(&DOut, N * sizeof(float)) != cudaSuccess) {
    std::printf("cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(DIn, In.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  const cudaError_t E = transpose_any_shape::launch_transpose_f32(DIn, N, DOut, N, R, C);
  if (E != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("launch failed: %s\n", cudaGetErrorString(E));
    return 1;
  }
  cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost);
  for (long long Row = 0; Row < R; ++Row)
    for (long long Col = 0; Col < C; ++Col)
      if (Out[static_cast<std::size_t>(Col * R + Row)] != In[static_cast<std::size_t>(Row * C + Col)]) {
        std::printf("MISMATCH at out[%lld][%lld]\n", Col, Row);
        return 1;
      }
  std::printf("transpose_f32 %lld x %lld: correct\n", R, C);
  cudaFree(DIn);
  cudaFree(DOut);
  return 0;
}
