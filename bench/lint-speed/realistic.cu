// A realistic file for bench/lint-speed.sh (issue [13] item 4): the shapes
// public CUDA code has (a templated tiled transpose and matrix multiply, a
// block reduction templated on its block size, a cooperative-groups
// reduction and a histogram), each instantiated several times from host
// code the way samples dispatch on a runtime size. Written for this
// benchmark; the expected findings are in realistic.expect.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Transposes a width x height matrix through a shared tile; PAD 0 gives the
// classic 32-way conflicting column read, PAD 1 removes it.
template <typename T, int PAD>
__global__ void transposeTiled(T *odata, const T *idata, int width, int height) {
  __shared__ T tile[TILE_DIM][TILE_DIM + PAD];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// C = A * B for square n x n matrices, BS x BS tiles.
template <int BS>
__global__ void matrixMulTiled(float *C, const float *A, const float *B, int n) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  float acc = 0.0f;
  for (int t = 0; t < 8; ++t) {
    As[ty][tx] = A[(by * BS + ty) * n + t * BS + tx];
    Bs[ty][tx] = B[(t * BS + ty) * n + bx * BS + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BS; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[(by * BS + ty) * n + bx * BS + tx] = acc;
}

// Interleaved-addressing reduction (the textbook conflicting one when
// INTERLEAVED, sequential addressing otherwise), one partial sum per block.
template <unsigned int blockSize, bool INTERLEAVED>
__global__ void reduceBlock(const float *g_idata, float *g_odata) {
  __shared__ float sdata[blockSize];
  cg::thread_block cta = cg::this_thread_block();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize + threadIdx.x;
  sdata[tid] = g_idata[i];
  cg::sync(cta);
  if (INTERLEAVED) {
    for (unsigned int s = 1; s < blockSize; s *= 2) {
      unsigned int index = 2 * s * tid;
      if (index < blockSize)
        sdata[index] += sdata[index + s];
      cg::sync(cta);
    }
  } else {
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
      if (tid < s)
        sdata[tid] += sdata[tid + s];
      cg::sync(cta);
    }
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

// Strided column sums: each thread walks one column of a row-major matrix
// (the uncoalesced shape), COLS columns.
template <int COLS>
__global__ void columnSums(const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 64; ++r)
    acc += in[c * COLS + r];
  out[c] = acc;
}

// A shared-memory histogram of byte values, BINS bins, merged into global.
template <int BINS>
__global__ void histogramShared(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

template <typename T>
void launchTranspose(T *out, const T *in, int w, int h, bool padded) {
  dim3 grid(w / TILE_DIM, h / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  if (padded)
    transposeTiled<T, 1><<<grid, block>>>(out, in, w, h);
  else
    transposeTiled<T, 0><<<grid, block>>>(out, in, w, h);
}

template <int BS>
void launchMatrixMul(float *C, const float *A, const float *B, int n) {
  dim3 threads(BS, BS), grid(n / BS, n / BS);
  matrixMulTiled<BS><<<grid, threads>>>(C, A, B, n);
}

template <bool INTERLEAVED>
void launchReduce(const float *in, float *out, int n, int threads) {
  switch (threads) {
  case 512: reduceBlock<512, INTERLEAVED><<<n / 512, 512>>>(in, out); break;
  case 256: reduceBlock<256, INTERLEAVED><<<n / 256, 256>>>(in, out); break;
  case 128: reduceBlock<128, INTERLEAVED><<<n / 128, 128>>>(in, out); break;
  case 64: reduceBlock<64, INTERLEAVED><<<n / 64, 64>>>(in, out); break;
  }
}

int main() {
  const int n = 1024;
  float *a, *b, *c;
  double *d, *e;
  unsigned char *bytes;
  unsigned int *hist;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  cudaMalloc(&d, n * n * sizeof(double));
  cudaMalloc(&e, n * n * sizeof(double));
  cudaMalloc(&bytes, n * n);
  cudaMalloc(&hist, 256 * sizeof(unsigned int));
  launchTranspose<float>(b, a, n, n, false);
  launchTranspose<float>(b, a, n, n, true);
  launchTranspose<double>(e, d, n, n, false);
  launchTranspose<double>(e, d, n, n, true);
  launchMatrixMul<16>(c, a, b, n);
  launchMatrixMul<32>(c, a, b, n);
  for (int threads = 64; threads <= 512; threads *= 2) {
    launchReduce<true>(a, b, n * n, threads);
    launchReduce<false>(a, b, n * n, threads);
  }
  columnSums<64><<<n / 256, 256>>>(a, b);
  columnSums<128><<<n / 256, 256>>>(a, b);
  histogramShared<64><<<n * n / 256, 256>>>(bytes, hist, n * n);
  histogramShared<256><<<n * n / 256, 256>>>(bytes, hist, n * n);
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(d);
  cudaFree(e);
  cudaFree(bytes);
  cudaFree(hist);
  return 0;
}
