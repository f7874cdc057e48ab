// A file whose kernels take many int sizes between them (convolutionFFT2D:
// 17). Each kernel's figures range over the sizes it reads; the others are
// bound. They were all ranged over, jointly where a kernel's sites could
// not be tied to any (an index through __ffs): 3^17 combinations, minutes
// and 24 GB before the lint was killed. (__ffs of a power of two is not
// followed: a note.)
#include <cuda_runtime.h>

__global__ void pad(float *dst, const float *src, int fftH, int fftW, int kernelH, int kernelW, int kernelY,
                    int kernelX) {
  const int y = blockDim.y * blockIdx.y + threadIdx.y;
  const int x = blockDim.x * blockIdx.x + threadIdx.x;
  if (y < kernelH && x < kernelW)
    // CHECK: warning: uncoalesced global store to 'dst': 7 sectors per request, 4 at best (7 128-byte lines; lanes stride 64 words) [bankwise-uncoalesced]
    dst[(x + kernelX) * fftW + y + kernelY] = src[y * kernelW + x];
}

__device__ void udivmod(unsigned &dividend, unsigned divisor, unsigned &rem) {
  rem = dividend & (divisor - 1);
  dividend >>= (__ffs(divisor) - 1);
}

__global__ void post(float2 *dst, const float2 *src, unsigned DY, unsigned DX, unsigned threadCount,
                     unsigned padding, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e) {
  const unsigned threadId = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadId >= threadCount) return;
  unsigned x, y, i = threadId;
  udivmod(i, DX / 2, x);
  udivmod(i, DY, y);
  const unsigned srcOffset = i * DY * DX;
  const unsigned dstOffset = i * DY * (DX + padding);
  // CHECK: note: access not analyzed: the index of 'dst' is not understood (a call to '__nv_ffs') [bankwise-unanalyzed]
  // CHECK: note: access not analyzed: the index of 'src' is not understood (a call to '__nv_ffs') [bankwise-unanalyzed]
  dst[dstOffset + y * (DX + padding) + x] = src[srcOffset + y * DX + x];
}

void launch(float *dst, const float *src, float2 *d2, const float2 *s2, int n) {
  pad<<<dim3(4, 4), dim3(32, 8)>>>(dst, src, n, n, 7, 7, 3, 3);
  post<<<n / 256, 256>>>(d2, s2, n, n, n * n / 2, 0, 1, 2, 3, 4, 5);
}
