// A first kernel to fix (README, "Five minutes"): the classic tiled
// transpose of an n x n float matrix with 32 x 32 tiles and 32 x 8 blocks.
// Each warp writes a tile row and later reads a tile column: 32 lanes 32
// words apart, all in one bank. `bankwise lint` reports the 32-way
// conflict with its fixes; `bankwise lint --fix` pads the tile to 33 words
// per row, which puts the column's 32 lanes in 32 banks.
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transpose(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// n must be a multiple of 32.
void launch_transpose(const float *in, float *out, int n, cudaStream_t stream) {
  transpose<<<dim3(n / TILE, n / TILE), dim3(TILE, 8), 0, stream>>>(in, out, n);
}
