// Valid CUDA (`nvcc -c -arch=sm_90` accepts it, with a warning) declaring
// a __shared__ cuda::barrier and initializing it with init(&bar,
// blockDim.x): nvcc does not run a __shared__ object's constructor, Clang
// refuses the declaration. A note, and the kernel is analyzed with
// arrive_and_wait as the block's barrier (issue [13] item 3).
#include <cuda/barrier>

__global__ void staged(float *out) {
  // CHECK: note: 'bar' is a __shared__ object whose constructor nvcc does not run (it warns; Clang refuses it): the lint goes on as nvcc does [bankwise-unanalyzed]
  // CHECK: note: shared variable 'bar' of type 'cuda::barrier<cuda::thread_scope_block>' is not modelled; its accesses are not analyzed [bankwise-unanalyzed]
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float s[32][32];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    init(&bar, blockDim.x * blockDim.y);
  __syncthreads();
  s[threadIdx.y][threadIdx.x] = out[threadIdx.y * 32 + threadIdx.x];
  bar.arrive_and_wait();
  // CHECK: warning: 32-way bank conflict on shared load from 's' (lanes stride 32 words) [bankwise-bank-conflict]
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x][threadIdx.y];
}

void launch(float *out) { staged<<<1, dim3(32, 32)>>>(out); }
