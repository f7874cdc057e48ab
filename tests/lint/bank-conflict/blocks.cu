// 2-D and 3-D blocks. With a 16 x 16 block a warp is two rows of 16
// lanes; tile[tx][ty] puts lane tx at word 16 * tx + ty: banks ty and
// ty + 16 for one row, ty + 1 and ty + 17 for the other, 8 words in each
// (8-way). With an 8 x 4 x 4 block a warp is one z-slice; cube[tx][ty][tz]
// is word 16 * tx + 4 * ty + tz: 8 banks, 4 words in each (4-way);
// vol[tz][ty][tx] is 32 consecutive words (clean).
#include <cuda_runtime.h>

__global__ void block2d(float *out) {
  __shared__ float tile[16][16];
  tile[threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // CHECK: warning: 8-way bank conflict on shared load from 'tile' (lanes stride 16 words) [bankwise-bank-conflict]
}

__global__ void block3d(float *out) {
  __shared__ float cube[8][4][4];
  __shared__ float vol[4][4][8];
  vol[threadIdx.z][threadIdx.y][threadIdx.x] = threadIdx.x;
  __syncthreads();
  cube[threadIdx.x][threadIdx.y][threadIdx.z] = vol[threadIdx.z][threadIdx.y][threadIdx.x];  // CHECK: warning: 4-way bank conflict on shared store to 'cube' (lanes stride 16 words) [bankwise-bank-conflict]
}

void launch_blocks(float *out) {
  block2d<<<1, dim3(16, 16)>>>(out);
  block3d<<<1, dim3(8, 4, 4)>>>(out);
}
