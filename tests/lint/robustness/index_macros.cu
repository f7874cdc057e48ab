// Sizes and indexing through macros, as older code bases do: a tiled
// transpose whose tile width, index helpers and block shape are all
// macros. The tile is read down a column without padding: 32-way.
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8
#define IDX2(row, col, ld) ((row) * (ld) + (col))
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

__global__ void transpose_macro(const float *idata, float *odata, int width) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[IDX2(y + j, x, width)];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
    odata[IDX2(y + j, x, width)] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_transpose(const float *in, float *out, int width) {
  dim3 grid(CEIL_DIV(width, TILE_DIM), CEIL_DIV(width, TILE_DIM));
  dim3 block(TILE_DIM, BLOCK_ROWS);
  transpose_macro<<<grid, block>>>(in, out, width);
}
