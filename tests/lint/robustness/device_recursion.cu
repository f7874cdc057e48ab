// A recursive __device__ function (a bounded tree walk) and mutual
// recursion: the lint inlines __device__ functions at their calls and
// must stop at the recursion instead of inlining forever.
#include <cuda_runtime.h>

__device__ int tree_depth(const int *parent, int node) {
  return node <= 0 ? 0 : 1 + tree_depth(parent, parent[node]);  // REQUESTS: -1 (a site: the recursion's argument is read)
}

__device__ int is_odd(int n);
__device__ int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__device__ int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

__global__ void depths(const int *parent, int *depth, int *parity, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    depth[i] = tree_depth(parent, i);
    parity[i] = is_even(i % 8);
  }
}

void launch(const int *parent, int *depth, int *parity, int n) {
  depths<<<(n + 255) / 256, 256>>>(parent, depth, parity, n);
}
