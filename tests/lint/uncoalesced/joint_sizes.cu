// A worst case that needs two sizes together: a warp stores four rows of
// eight floats, rows H * W floats apart (four planes), and a row starts
// mid-sector unless its offset is a multiple of 8 floats. Seven sectors
// need H * W % 4 != 0. Each size alone reaches them at every residue but
// multiples of 4 (H = 3 with W = 1), yet not every pair of such residues
// does (H = 2 with W = 2: rows 4 floats apart cost 6). The condition says
// where the worst is reached, size by size, so the warning says "at some
// sizes where" for the pair, and "when" for one size, where it is all of
// them.
#include <cuda_runtime.h>

__global__ void planes(const float *in, float *out, int H, int W) {
  const int row = threadIdx.x / 8, col = threadIdx.x % 8;
  // CHECK: warning: uncoalesced global store to 'out': 7 sectors per request, 4 at best (7 128-byte lines; lanes stride 1 words) at some sizes where H % 4 != 0 and W % 4 != 0 (at the sizes tried, sampled; other sizes may cost more) [bankwise-uncoalesced]
  out[row * H * W + col] = in[threadIdx.x];
}

__global__ void rows(const float *in, float *out, int W) {
  const int row = threadIdx.x / 8, col = threadIdx.x % 8;
  // CHECK: warning: uncoalesced global store to 'out': 7 sectors per request, 4 at best (7 128-byte lines; lanes stride 1 words) when W % 4 != 0 [bankwise-uncoalesced]
  out[row * W + col] = in[threadIdx.x];
}

void launch(const float *in, float *out, int H, int W) {
  planes<<<1, 32>>>(in, out, H, W);
  rows<<<1, 32>>>(in, out, W);
}
