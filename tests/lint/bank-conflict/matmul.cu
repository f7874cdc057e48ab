// Tiled matrix multiply C = A * B of N x N floats with 16 x 16 tiles and
// blocks of 16 x 16 threads: a warp is two tile rows. As[ty][k] reads two
// words (one per row, 16 words apart: two banks, a broadcast in each),
// Bs[k][tx] 16 consecutive words read by both rows; the tile stores cover
// 32 consecutive words. Global rows of 16 floats start at multiples of 64
// bytes (N = 1024): 2 x 2 sectors per request. Clean.
#include <cuda_runtime.h>
#define N 1024
#define T 16

__global__ void matmul_tiled(const float *A, const float *B, float *C) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < N / T; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * N + t * T + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * T + threadIdx.y) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];  // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 16 consecutive 4-byte loads from 'As' into 4 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    __syncthreads();
  }
  C[row * N + col] = acc;
}

void matmul(const float *A, const float *B, float *C) {
  matmul_tiled<<<dim3(N / T, N / T), dim3(T, T)>>>(A, B, C);
}
