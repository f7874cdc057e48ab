// Global accesses of a warp of 32 floats: contiguous is 4 sectors of 32
// bytes (ideal); two words apart spans 256 bytes, 8 sectors in 2 lines;
// a column of a row-major matrix with 64-float rows puts each lane in its
// own sector and line (32). A broadcast is one sector.
#include <cuda_runtime.h>

__global__ void column_read(const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 64; ++r)
    acc += in[c * 64 + r];  // CHECK: warning: uncoalesced global load from 'in': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 64 words) [bankwise-uncoalesced]
  out[c] = acc + in[blockIdx.x];
}

__global__ void stride_two(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[2 * i] = in[i];  // CHECK: warning: uncoalesced global store to 'out': 8 sectors per request, 4 at best (2 128-byte lines; lanes stride 2 words) [bankwise-uncoalesced]
}

void launch(const float *in, float *out, int n) {
  column_read<<<n / 256, 256>>>(in, out);
  stride_two<<<n / 256, 256>>>(in, out);
}
