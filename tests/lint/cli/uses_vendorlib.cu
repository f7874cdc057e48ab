// Lint with -isystem tests/lint/cli/sysinclude (cli_checks.py).
#include <vendorlib.h>

__global__ void strided(float *out) {
  __shared__ float s[64];
  s[vendor_stride_index(threadIdx.x) % 64] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  float *d = nullptr;
  vendor_host_fill(d, 32);
  strided<<<1, 32>>>(d);
  return vendor_host_count();
}
