// A dim3 whose members the host code sets after its declaration (as in a
// public wavelet sample: `dim3 block_size(1); ... block_size.x = 512;`) is
// not the block its initializer says. Taking (1, 1, 1) from the initializer
// made the uninitialized-read check report s[1] as never written (thread 0
// alone writes s[0] and s[bdim]); the block is now unknown at the launch,
// assumed, and the checks that need the real block stay silent.
#include <cuda_runtime.h>

// CHECK: note: shared-race and uninitialized-shared-read checks not run on kernel 'pairs': its block is assumed (no launch gives a constant one); give --block for its real shape [bankwise-unanalyzed]
__global__ void pairs(const float *in, float *out, int bdim) {
  // CHECK: note: dynamic shared array 's' sized 49152 bytes (no launch gives its size) [bankwise-unanalyzed]
  extern __shared__ float s[];
  s[threadIdx.x] = in[blockIdx.x * 2 * bdim + threadIdx.x];
  s[threadIdx.x + bdim] = in[blockIdx.x * 2 * bdim + threadIdx.x + bdim];
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 's' (lanes stride 2 words) [bankwise-bank-conflict]
  // CHECK: warning: 2-way bank conflict on shared load from 's' (lanes stride 2 words) [bankwise-bank-conflict]
  out[blockIdx.x * bdim + threadIdx.x] = s[2 * threadIdx.x] + s[2 * threadIdx.x + 1];
}

void run(const float *in, float *out, int n) {
  dim3 grid(1), block(1);
  if (n <= 512) {
    block.x = n;
  } else {
    grid.x = n / 512;
    block.x = 512;
  }
  pairs<<<grid, block, 2 * block.x * sizeof(float)>>>(in, out, block.x);
}
