// Tiled transposes of an n x n float matrix, 32 x 32 tiles, blocks of
// 32 x 8 threads (one warp = one tile row): the naive tile read walks a
// column (32 lanes 32 words apart: one bank, 32-way); padding the rows to
// 33 words, a diagonal layout and an XOR swizzle each put the 32 lanes in
// 32 banks.
#include <cuda_runtime.h>
#define TILE 32

__global__ void transpose_naive(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

__global__ void transpose_padded(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE + 1];
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

// Element (r, c) of the tile lives at column (r + c) % 32 of row r.
__global__ void transpose_diagonal(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    int r = threadIdx.y + j;
    tile[r][(threadIdx.x + r) % TILE] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    int c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[threadIdx.x][(c + threadIdx.x) % TILE];
  }
}

// Element (r, c) lives at column c ^ r of row r.
__global__ void transpose_swizzled(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    int r = threadIdx.y + j;
    tile[r][threadIdx.x ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) {
    int c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}

void transpose_all(const float *in, float *out, int n) {
  dim3 grid(n / TILE, n / TILE), block(TILE, 8);
  transpose_naive<<<grid, block>>>(in, out, n);
  transpose_padded<<<grid, block>>>(in, out, n);
  transpose_diagonal<<<grid, block>>>(in, out, n);
  transpose_swizzled<<<grid, block>>>(in, out, n);
}
