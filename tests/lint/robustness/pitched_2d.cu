// RUN-ARGS: -D pitch=4096
// Pitched 2-D memory from cudaMallocPitch: rows addressed through char
// pointers and the pitch in bytes, the idiom of the CUDA programming
// guide. The byte offset must be scaled back to floats: 4096 bytes are
// 1024 floats. add_one's warps each touch one contiguous row (clean);
// row_sums gives each lane a row of its own, 1024 words apart.
#include <cuda_runtime.h>

__global__ void add_one(float *base, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float *row = reinterpret_cast<float *>(reinterpret_cast<char *>(base) + y * pitch);
    row[x] += 1.0f;
  }
}

__global__ void row_sums(const float *base, size_t pitch, float *sums, int width) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const float *row = (const float *)((const char *)base + r * pitch);
  float s = 0.0f;
  for (int x = 0; x < 64; ++x)
    // CHECK: warning: uncoalesced global load from 'base': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 1024 words) [bankwise-uncoalesced]
    s += row[x];
  sums[r] = s;
}

void run(int width, int height) {
  float *d = nullptr, *sums = nullptr;
  size_t pitch = 0;
  cudaMallocPitch(reinterpret_cast<void **>(&d), &pitch, width * sizeof(float), height);
  cudaMalloc(&sums, height * sizeof(float));
  add_one<<<dim3((width + 31) / 32, (height + 7) / 8), dim3(32, 8)>>>(d, pitch, width, height);
  row_sums<<<height / 128, 128>>>(d, pitch, sums, width);
  cudaFree(d);
}
