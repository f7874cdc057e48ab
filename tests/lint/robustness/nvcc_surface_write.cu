// Valid CUDA (`nvcc -c` accepts it) writing a surface object with
// surf2Dwrite, which Clang 19's CUDA headers do not declare: surface memory
// is not modelled, the kernel's other accesses are (issue [13] item 3).
__global__ void fill_surface(cudaSurfaceObject_t surf, const float *in, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float v;
    surf2Dread(&v, surf, x * 4, y); // CHECK: note: texture fetch, not priced: 'surf2Dread' reads a texture or surface, not shared or global memory [bankwise-unanalyzed]
    surf2Dwrite(v + in[y * width + x], surf, x * (int)sizeof(float), y);
  }
}

void launch(cudaSurfaceObject_t surf, const float *in, int width, int height) {
  fill_surface<<<dim3((width + 31) / 32, (height + 7) / 8), dim3(32, 8)>>>(surf, in, width, height);
}
