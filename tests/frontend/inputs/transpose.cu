// A textbook tiled transpose: the shared tile has 32 columns, so the column
// read tile[threadIdx.x][threadIdx.y + k] is a 32-way bank conflict.
#include <cuda_runtime.h>

constexpr int Tile = 32;

__global__ void transposeNaive(const float *in, float *out, int n) {
  __shared__ float tile[Tile][Tile];
  int x = blockIdx.x * Tile + threadIdx.x;
  int y = blockIdx.y * Tile + threadIdx.y;
  for (int k = 0; k < Tile; k += 8)
    tile[threadIdx.y + k][threadIdx.x] = in[(y + k) * n + x];
  __syncthreads();
  x = blockIdx.y * Tile + threadIdx.x;
  y = blockIdx.x * Tile + threadIdx.y;
  for (int k = 0; k < Tile; k += 8)
    out[(y + k) * n + x] = tile[threadIdx.x][threadIdx.y + k];
}

__device__ float twice(float v) { return 2 * v; }

__global__ void scale(float *a) { a[threadIdx.x] = twice(a[threadIdx.x]); }
