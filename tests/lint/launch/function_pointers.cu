// Launches through function pointers (issue [13] item 2): `k<<<g, b>>>(...)`
// where `k` is a variable, an element of a table of kernels, or a parameter
// of the launching function. The block comes from the launch's dim3 when it
// is constant, whichever kernel the pointer holds, and the note says so.
#include <cuda_runtime.h>

typedef void (*TileKernel)(const float *, float *);

// A 32 x 32 tile read down its columns: 32-way with a 32-word row, none
// with 33. 4 blocks of 32 x 32 threads: 128 warps, one request each.
__global__ void transpose_naive(const float *in, float *out) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = in[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x];  // REQUESTS: 256
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 't' (lanes stride 32 words) [bankwise-bank-conflict]
  out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];  // REQUESTS: 256
}

__global__ void transpose_padded(const float *in, float *out) {
  __shared__ float t[32][33];
  t[threadIdx.y][threadIdx.x] = in[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x];  // REQUESTS: 256
  __syncthreads();
  out[(blockIdx.x * 32 + threadIdx.y) * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];  // REQUESTS: 256
}

void run_choice(const float *in, float *out) {
  for (int padded = 0; padded < 2; ++padded) {
    TileKernel k = padded ? transpose_padded : transpose_naive;
    k<<<4, dim3(32, 32)>>>(in, out);
  }
}

// Through a parameter of the launching function: 2 blocks of 16 x 16
// threads, 8 warps each (16 warps), a row of 16 words per half warp.
__global__ void scale_rows(const float *in, float *out) {
  const int i = (blockIdx.x * 16 + threadIdx.y) * 16 + threadIdx.x;
  out[i] = 2.0f * in[i];  // REQUESTS: 32
}

static void launch_with(void (*kernel)(const float *, float *), const float *in, float *out) {
  kernel<<<2, dim3(16, 16)>>>(in, out);
}

void run_param(const float *in, float *out) { launch_with(scale_rows, in, out); }

// A table of kernels, launched in a loop: 1 block of 64 threads each (2
// warps), every other word.
__global__ void copy_even(const float *in, float *out) {
  // CHECK: warning: uncoalesced global load from 'in': 8 sectors per request, 4 at best (2 128-byte lines; lanes stride 2 words) [bankwise-uncoalesced]
  out[threadIdx.x] = in[2 * threadIdx.x];  // REQUESTS: 4
}

__global__ void copy_odd(const float *in, float *out) {
  // CHECK: warning: uncoalesced global load from 'in': 8 sectors per request, 4 at best (2 128-byte lines; lanes stride 2 words) [bankwise-uncoalesced]
  out[threadIdx.x] = in[2 * threadIdx.x + 1];  // REQUESTS: 4
}

static TileKernel table[] = {copy_even, copy_odd};

void run_table(const float *in, float *out) {
  for (TileKernel k : table)
    k<<<1, 64>>>(in, out);
}
