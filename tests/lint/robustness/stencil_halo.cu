// A 2-D five-point stencil staged in a shared tile with a one-cell halo
// loaded by the border threads; the tile is 18 x 18 floats and a warp holds
// two 16-thread rows, so its two rows meet in a bank (2-way). Rows are
// misaligned when nx % 4 != 0. At the image's border the halo cells are
// never written and still read: a real bug, reported as uninitialized
// shared reads.
#include <cuda_runtime.h>

#define BX 16
#define BY 16

__global__ void stencil5(const float *__restrict__ in, float *__restrict__ out, int nx, int ny) {
  __shared__ float t[BY + 2][BX + 2];
  const int gx = blockIdx.x * BX + threadIdx.x, gy = blockIdx.y * BY + threadIdx.y;
  const int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
  // CHECK: warning: 2-way bank conflict on shared store to 't' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: uncoalesced global load from 'in': 6 sectors per request, 4 at best (4 128-byte lines; lanes stride 1 words) when nx % 4 != 0 [bankwise-uncoalesced]
  t[ly][lx] = in[gy * nx + gx];
  if (threadIdx.x == 0 && gx > 0)
    t[ly][0] = in[gy * nx + gx - 1];
  if (threadIdx.x == BX - 1 && gx + 1 < nx)
    t[ly][BX + 1] = in[gy * nx + gx + 1];
  if (threadIdx.y == 0 && gy > 0)
    t[0][lx] = in[(gy - 1) * nx + gx];
  if (threadIdx.y == BY - 1 && gy + 1 < ny)
    t[BY + 1][lx] = in[(gy + 1) * nx + gx];
  __syncthreads();
  // CHECK: warning: uncoalesced global store to 'out': 6 sectors per request, 4 at best (4 128-byte lines; lanes stride 1 words) when nx % 4 != 0 [bankwise-uncoalesced]
  // CHECK: warning: 2-way bank conflict on shared load from 't' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: thread (0, 0, 0) reads t[1][0] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  // CHECK: warning: 2-way bank conflict on shared load from 't' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: thread (15, 0, 0) reads t[1][17] before any thread of its block wrote it (block (3, 0, 0)) [bankwise-uninitialized-shared-read]
  // CHECK: warning: 2-way bank conflict on shared load from 't' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: thread (0, 0, 0) reads t[0][1] before any thread of its block wrote it (block (0, 0, 0)) [bankwise-uninitialized-shared-read]
  // CHECK: warning: 2-way bank conflict on shared load from 't' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: thread (0, 15, 0) reads t[17][1] before any thread of its block wrote it (block (0, 3, 0)) [bankwise-uninitialized-shared-read]
  // CHECK: warning: 2-way bank conflict on shared load from 't' (lanes stride 1 word) [bankwise-bank-conflict]
  out[gy * nx + gx] = 0.25f * (t[ly][lx - 1] + t[ly][lx + 1] + t[ly - 1][lx] + t[ly + 1][lx]) - t[ly][lx];
}

void launch(const float *in, float *out, int nx, int ny) {
  stencil5<<<dim3(nx / BX, ny / BY), dim3(BX, BY)>>>(in, out, nx, ny);
}
