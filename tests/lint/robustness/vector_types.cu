// float2 and float4 loads and stores, the vectorized copies of memcpy-like
// kernels: contiguous vectors are ideal (2 or 4 wavefronts, sectors that
// the bytes fill); make_float2 builds a value, .x/.y reads its fields.
#include <cuda_runtime.h>

__global__ void copy_f4(const float4 *__restrict__ in, float4 *__restrict__ out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = in[i];
}

__global__ void complex_mul(const float2 *a, const float2 *b, float2 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float2 x = a[i], y = b[i];
  c[i] = make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}

__global__ void stage_f2(const float2 *in, float2 *out) {
  __shared__ float2 s[256];
  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}

void launch(const float4 *a, float4 *b, const float2 *c, const float2 *d, float2 *e, int n) {
  copy_f4<<<(n / 4 + 255) / 256, 256>>>(a, b, n / 4);
  complex_mul<<<(n + 255) / 256, 256>>>(c, d, e, n);
  stage_f2<<<n / 256, 256>>>(c, e);
}
