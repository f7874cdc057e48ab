// Several kernels in one file, 1-D, 2-D and 3-D: a naive matrix multiply
// (its 16-wide rows misaligned when n % 4 != 0), a copy through a 16 x 17
// tile (the padding meant for one row a warp costs 2-way when a warp holds
// two rows), a 3-D box blur, and a read 32 words apart. The blur's guard
// ties the three block indices together: at every size of nx and ny its
// figures would take hours, so the lint stops at its budget (a note) instead
// of hanging, which it once did.
#include <cuda_runtime.h>

__global__ void matmul_naive(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; ++k)
    acc += A[row * n + k] * B[k * n + col];
  // CHECK: warning: uncoalesced global store to 'C': 6 sectors per request, 4 at best (4 128-byte lines; lanes stride 1 words) when n % 4 != 0 [bankwise-uncoalesced]
  C[row * n + col] = acc;
}

__global__ void copy_padded(const float *in, float *out, int width) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  // CHECK: warning: 2-way bank conflict on shared store to 'tile' (lanes stride 1 word) [bankwise-bank-conflict]
  // CHECK: warning: uncoalesced global load from 'in': 6 sectors per request, 4 at best (4 128-byte lines; lanes stride 1 words) when width % 4 != 0 [bankwise-uncoalesced]
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  // CHECK: warning: uncoalesced global store to 'out': 6 sectors per request, 4 at best (4 128-byte lines; lanes stride 1 words) when width % 4 != 0 [bankwise-uncoalesced]
  // CHECK: warning: 2-way bank conflict on shared load from 'tile' (lanes stride 17 words) [bankwise-bank-conflict]
  out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

// CHECK: note: kernel 'blur3d' not analyzed: kernel 'blur3d' needs more than 59705 evaluation steps at nx = 1309, ny = 1310, its share of the analysis limit of 67108864 over 1124 sizes; give its sizes with -D [bankwise-unanalyzed]
__global__ void blur3d(const float *in, float *out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1)
    return;
  int i = (z * ny + y) * nx + x;
  out[i] = (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - nx * ny] + in[i + nx * ny]) / 6.0f;
}

__global__ void strided_shared(float *out) {
  __shared__ float s[32 * 32];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 32) % 1024];  // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 32 words) [bankwise-bank-conflict]
}

void launch_all(const float *a, const float *b, float *c, int n) {
  matmul_naive<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, c, n);
  copy_padded<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, c, n);
  blur3d<<<dim3(n / 32, n / 4, n / 4), dim3(32, 4, 4)>>>(a, c, n, n);
  strided_shared<<<1, 1024>>>(c);
}
