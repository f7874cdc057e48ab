// Issue [13] items 1 and 7: a launch's constant arguments bind the kernel's
// integer parameters (as -D would), and loops bounded by them, by blockDim or
// by gridDim run their trip counts at the launch's own values, so the
// requests the JSON report counts over the launch are what Nsight Compute
// counts for that launch. Each REQUESTS figure is worked out by hand below.
#include <cuda_runtime.h>

// A stride argument: with stride = 4 from the launch the load is figured at
// that stride, not over every stride.
__global__ void strided(const float *in, float *out, int stride) {
  // CHECK: warning: uncoalesced global load from 'in': 16 sectors per request, 4 at best (4 128-byte lines; lanes stride 4 words) [bankwise-uncoalesced]
  out[blockIdx.x * 32 + threadIdx.x] = in[(blockIdx.x * 32 + threadIdx.x) * stride];  // REQUESTS: 16
}

// A tiled GEMM's tile loop bounded by the size argument: n / 32 = 8 tiles.
// 4 blocks of 32 x 32 threads = 128 warps, 8 trips each: 1024 requests.
__global__ void tile_sum(const float *a, float *out, int n) {
  __shared__ float t[32][33];
  float acc = 0.0f;
  for (int k = 0; k < n / 32; ++k) {
    // REQUESTS: 2048
    t[threadIdx.y][threadIdx.x] = a[(blockIdx.x * 32 + threadIdx.y) * n + k * 32 + threadIdx.x];
    __syncthreads();
    acc += t[threadIdx.x][threadIdx.y];  // REQUESTS: 1024
    __syncthreads();
  }
  out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = acc;  // REQUESTS: 128
}

// A scan's `offset < size` with size = 64: offsets 1, 2, 4, 8, 16, 32, six
// trips of 2 warps.
__global__ void scan(float *data, int size) {
  __shared__ float s[64];
  s[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  for (int offset = 1; offset < size; offset *= 2) {
    float v = s[(threadIdx.x + offset) % 64];  // REQUESTS: 12
    __syncthreads();
    s[threadIdx.x] += v;  // REQUESTS: 24
    __syncthreads();
  }
  data[threadIdx.x] = s[threadIdx.x];
}

// A softmax's halving from the block size argument (128): strides 64, 32,
// ..., 1; under `tid < stride` warps 0 and 1 run the first trip, warp 0 the
// six others: 8 warp executions per block, 2 blocks, 3 accesses on the line.
__global__ void softmax_max(float *x, int block_size) {
  __shared__ float s[128];
  const int tid = threadIdx.x;
  s[tid] = x[blockIdx.x * 128 + tid];
  __syncthreads();
  for (int stride = block_size / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      s[tid] = fmaxf(s[tid], s[tid + stride]);  // REQUESTS: 48
    __syncthreads();
  }
  if (tid == 0)
    x[blockIdx.x] = s[0];
}

// Loops bounded by gridDim and blockDim: 8 blocks of 64 threads (16 warps),
// 8 trips over the grid; 64 / 32 = 2 trips over the block.
__global__ void over_grid(const float *in, float *out) {
  float acc = 0.0f;
  for (int b = 0; b < gridDim.x; ++b)
    acc += in[b * blockDim.x + threadIdx.x];  // REQUESTS: 128
  for (int j = 0; j < blockDim.x / 32; ++j)
    out[(blockIdx.x * 2 + j) * 64 + threadIdx.x] = acc;  // REQUESTS: 32
}

void run(float *in, float *out, float *a) {
  strided<<<8, 32>>>(in, out, 4);
  tile_sum<<<4, dim3(32, 32)>>>(a, out, 256);
  scan<<<1, 64>>>(in, 64);
  softmax_max<<<2, 128>>>(in, 128);
  over_grid<<<8, 64>>>(in, out);
}
