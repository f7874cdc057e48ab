// A tiled transpose that forgot its __syncthreads(): thread (1, 0, 0)
// writes tile[0][1] and thread (0, 1, 0), of another warp, reads it.
// EXIT: 1 (a race or a divergent barrier is an error)
#include <cuda_runtime.h>

__global__ void transpose_nosync(const float *in, float *out) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    // CHECK: error: data race on shared 'tile': thread (1, 0, 0) writes tile[0][1] and thread (0, 1, 0) reads it with no '__syncthreads()' between them (block (0, 0, 0)) [bankwise-shared-race]
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * 1024 + x];
  int ox = blockIdx.y * 32 + threadIdx.x, oy = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(oy + j) * 1024 + ox] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose(const float *in, float *out) {
  transpose_nosync<<<dim3(32, 32), dim3(32, 8)>>>(in, out);
}
