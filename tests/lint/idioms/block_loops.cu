// Loops bounded by blockDim and gridDim, in the update forms library code
// uses: a tree halving from blockDim.x / 2 (s >>= 1), one doubling up to
// blockDim.x (s *= 2, s <<= 1), grid-stride for and while loops stepping
// by blockDim.x * gridDim.x, a block-stride loop over a kernel argument,
// and a for with two variables moving together.
#include <cuda_runtime.h>

// Sequential addressing, halving: contiguous lanes, conflict-free.
__global__ void tree_sum(const float *in, float *out) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// Up-sweep of a scan: lane t at 2 * d * (t + 1) - 1, lanes 2d words apart.
__global__ void upsweep(float *data) {
  __shared__ float temp[512];
  const int t = threadIdx.x;
  temp[t] = data[blockIdx.x * 512 + t];
  temp[t + 256] = data[blockIdx.x * 512 + t + 256];
  __syncthreads();
  for (int d = 1; d < blockDim.x * 2; d <<= 1) {
    const int ai = 2 * d * (t + 1) - 1;
    if (ai < 512)
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared store to 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 16-way bank conflict on shared load from 'temp' (lanes stride 16 words) [bankwise-bank-conflict]
      temp[ai] += temp[ai - d];
    __syncthreads();
  }
  data[blockIdx.x * 512 + t] = temp[t];
  data[blockIdx.x * 512 + t + 256] = temp[t + 256];
}

// Grid-stride loops: every element once, lanes one element apart.
__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, const float *in, float *out) {
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    out[i] = 2.0f * in[i];
    i += stride;
  }
}

// A grid-stride sum of every other element into one partial per thread,
// then a tree over the block: lanes 2 elements apart, 8 sectors where 4
// would do (sampled: its sizes' work is past the lint's --size-budget).
__global__ void even_sum(const float *in, float *out, int n) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; 2 * i < n; i += blockDim.x * gridDim.x)
    // CHECK: warning: uncoalesced global load from 'in': 8 sectors per request, 4 at best (2 128-byte lines) (at the sizes tried, sampled; other sizes may cost more) [bankwise-uncoalesced]
    sum += in[2 * i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

// A grid-stride loop over rows of 33 floats read down a column: lanes 33
// elements apart, in different sectors.
__global__ void column_gather(int rows, const float *in, float *out) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x)
    // CHECK: warning: uncoalesced global load from 'in': 32 sectors per request, 4 at best (32 128-byte lines) [bankwise-uncoalesced]
    out[r] = in[r * 33];
}

// A block-stride loop over a histogram of a size the kernel is given.
__global__ void clear_bins(unsigned *bins, int nbins) {
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    bins[blockIdx.x * nbins + b] = 0;
}

// Two variables moving together: a row pointer and its index.
__global__ void copy_rows(const float *in, float *out) {
  __shared__ float rows[8][32];
  const int t = threadIdx.x;
  for (int r = 0, off = 0; r < 8; ++r, off += 32)
    rows[r][t] = in[blockIdx.x * 256 + off + t];
  __syncthreads();
  // CHECK: warning: 8-way bank conflict on shared load from 'rows' [bankwise-bank-conflict]
  out[blockIdx.x * 256 + t] = rows[t % 8][t / 8];
}

// A counter advanced through a reference: the lint does not follow it, so
// the loop stays one it cannot count (a note), never an endless one.
__device__ void advance(int &i, int by) { i += by; }

__global__ void by_reference(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: note: a while loop not analyzable as a counted loop: its body is analyzed for one iteration [bankwise-unanalyzed]
  while (i < n) {
    data[i] = 0.0f; // its first trip's figures (coalesced)
    advance(i, blockDim.x * gridDim.x);
  }
}

void launch(const float *x, float *y, unsigned *bins, int n) {
  tree_sum<<<n / 256, 256, 256 * sizeof(float)>>>(x, y);
  upsweep<<<n / 512, 256>>>(y);
  saxpy<<<120, 256>>>(n, 2.0f, x, y);
  scale<<<120, 256>>>(n, x, y);
  even_sum<<<120, 256>>>(x, y, n);
  column_gather<<<32, 128>>>(n, x, y);
  clear_bins<<<n / 256, 256>>>(bins, 1000);
  copy_rows<<<n / 256, 32>>>(x, y);
  by_reference<<<120, 256>>>(y, n);
}
