// A device function that writes through reference parameters
// (convolutionFFT2D's udivmod(i, DX, x): `rem = dividend & (divisor - 1);
// dividend >>= ...`). Inlined, its writes reach the caller's locals; they
// were dropped, so x stayed 0 and i the thread index, and the lint warned
// about a stride the program never has (and missed the one it has).
#include <cuda_runtime.h>

__device__ void divmod(unsigned &n, unsigned d, unsigned &r) {
  r = n % d;
  n /= d;
}

__device__ unsigned lane_of(const unsigned &t) { return t % 32; }

// x is the lane, i the warp: lanes 64 floats apart.
__global__ void scatter(float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, x = 0;
  divmod(i, 32, x);
  out[x * 64 + i] = 1.0f;  // CHECK: warning: uncoalesced global store to 'out': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 64 words) [bankwise-uncoalesced]
}

// Row-major again: coalesced, no warning (a const reference reads the local).
__global__ void gather(const float *in, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, x = 0;
  divmod(i, 32, x);
  out[i * 32 + lane_of(threadIdx.x)] = in[i * 32 + x];
}

void launch(const float *in, float *out) {
  scatter<<<4, 256>>>(out);
  gather<<<4, 256>>>(in, out);
}
