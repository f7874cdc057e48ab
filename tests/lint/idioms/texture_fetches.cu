// Texture objects as the image-processing samples read them: tex2D<float>
// with normalized-free coordinates and tex1Dfetch of a linear buffer. A
// fetch goes through the texture path, neither a shared nor a plain global
// access: each gets a note saying it is not priced, and the summary counts
// them apart ("texture fetches, not priced"). The kernel's global store is
// priced as usual.
#include <cuda_runtime.h>

__global__ void sobel_x(cudaTextureObject_t img, float *out, int width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  // CHECK: note: texture fetch, not priced: 'tex2D' reads a texture or surface, not shared or global memory [bankwise-unanalyzed]
  const float left = tex2D<float>(img, x - 1 + 0.5f, y + 0.5f);
  // CHECK: note: texture fetch, not priced: 'tex2D' reads a texture or surface, not shared or global memory [bankwise-unanalyzed]
  const float right = tex2D<float>(img, x + 1 + 0.5f, y + 0.5f);
  out[y * width + x] = right - left;
}

__global__ void lookup(cudaTextureObject_t table, const int *keys, float *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: note: texture fetch, not priced: 'tex1Dfetch' reads a texture or surface, not shared or global memory [bankwise-unanalyzed]
  out[i] = tex1Dfetch<float>(table, keys[i]);
}

void launch(cudaTextureObject_t img, cudaTextureObject_t table, const int *keys, float *out, int width) {
  sobel_x<<<dim3(width / 128, 64), 128>>>(img, out, width);
  lookup<<<64, 256>>>(table, keys, out);
}
