// A worst case that the all-sizes analysis met at every size it tried, but
// sampled (five sizes: too many joint classes to enumerate). The message
// said "6 sectors per request" with no condition and no "sampled", as if
// every size gave 6; at a pitch that is a multiple of 32 the store moves 4
// (simpleD3D11Texture's texture_3d.cu, pitch 256: the hand check's false 13).
// A fourth hand check still read "6 sectors ... (at the sizes tried,
// sampled)" as every size: now the budget always tries the sizes that are
// all multiples of the period (pitch 256 is one), which give 4, and the
// message says the 6 needs some sizes.
#include <cuda_runtime.h>

__global__ void fill_volume(unsigned char *surface, int width, int height, int depth, size_t pitch,
                            size_t pitchSlice) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  for (int z = 0; z < depth; ++z) {
    unsigned char *pixel = surface + z * pitchSlice + y * pitch + 4 * x;
    pixel[3] = 255;  // CHECK: warning: uncoalesced global store to 'surface': 6 sectors per request, 1 at best (4 128-byte lines; lanes stride 1 words) at some sizes (at the sizes tried, sampled; other sizes may cost more) [bankwise-uncoalesced]
  }
}

void launch(unsigned char *s, int w, int h, int d, size_t pitch) {
  dim3 block(16, 16);
  fill_volume<<<dim3(4, 4), block>>>(s, w, h, d, pitch, pitch * h);
}
