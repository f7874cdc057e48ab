// Shared memory reached through helpers, the way sample and library code
// declares it: a SharedMemory<T> struct whose conversion operator returns an
// extern __shared__ array (one specialization for double, as the reduction
// samples write it), an extern buffer cast to T* in a __device__ function,
// a reinterpret_cast view of a static array, and one dynamic buffer carved
// at offsets into two arrays.
#include <cuda_runtime.h>

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
  __device__ inline operator const double *() const {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

// Interleaved addressing with a strided index: the active lanes of pass s
// are 2s elements apart, so 2-way at s = 1, 4-way at s = 2, 8-way from
// s = 4; a double's lanes are 64 bytes apart at s = 4 and 128 at s = 8, 16
// wavefronts where 2 would do.
template <class T>
__global__ void reduce1(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) {
      // CHECK: warning: 8-way bank conflict on shared load from '__smem' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared store to '__smem' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared load from '__smem' (lanes stride 8 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared load from '__smem_d' (16 wavefronts per request, 2 at best for 8-byte elements; lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared store to '__smem_d' (16 wavefronts per request, 2 at best for 8-byte elements; lanes stride 16 words) [bankwise-bank-conflict]
      // CHECK: warning: 8-way bank conflict on shared load from '__smem_d' (16 wavefronts per request, 2 at best for 8-byte elements; lanes stride 16 words) [bankwise-bank-conflict]
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing: contiguous lanes at every pass, conflict-free.
template <class T>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

// An extern buffer handed out by a __device__ function, cast to T*.
template <typename T>
__device__ T *shared_scratch() {
  extern __shared__ __align__(16) unsigned char scratch_raw[];
  return reinterpret_cast<T *>(scratch_raw);
}

// Columns of a 32 x 32 tile stored row by row: lanes 32 words apart.
__global__ void column_sums(const float *in, float *out) {
  float *tile = shared_scratch<float>();
  const int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty * 32 + tx] = in[(blockIdx.x * 32 + ty) * 32 + tx];
  __syncthreads();
  if (ty == 0) {
    float sum = 0.0f;
    for (int k = 0; k < 32; ++k)
      // CHECK: warning: 8-way bank conflict on shared load from 'scratch_raw' (32 wavefronts per request, 4 at best for 16-byte elements; lanes stride 32 words) [bankwise-bank-conflict]
      sum += tile[tx * 32 + k];  // CHECK: note: nvcc -O3 unrolls the loop over 'k' and merges its 32 consecutive 4-byte loads from 'scratch_raw' into 8 wider ones (16 bytes where aligned: LDS.128); the figures are per merged load (--as-written prices them as written) [bankwise-vector-merge]
    out[blockIdx.x * 32 + tx] = sum;
  }
}

// A static array read as float2 through reinterpret_cast: lanes 8 bytes
// apart, two wavefronts for 256 bytes, the ideal.
__global__ void pairs(const float *in, float *out) {
  __shared__ float buf[64];
  const int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 64 + t];
  buf[t + 32] = in[blockIdx.x * 64 + t + 32];
  __syncthreads();
  const float2 *v = reinterpret_cast<const float2 *>(buf);
  float2 p = v[t];
  out[blockIdx.x * 32 + t] = p.x + p.y;
}

// One dynamic buffer carved in two: a holds blockDim.x floats, b twice as
// many after it. b is read with a stride of 2 words (2-way), a contiguously.
__global__ void two_arrays(const float *x, const float *y, float *out) {
  extern __shared__ float smem[];
  const int n = blockDim.x;
  float *a = smem;
  float *b = smem + n;
  const int t = threadIdx.x;
  a[t] = x[blockIdx.x * n + t];
  b[t] = y[blockIdx.x * 2 * n + t];
  b[t + n] = y[blockIdx.x * 2 * n + t + n];
  __syncthreads();
  // CHECK: warning: 2-way bank conflict on shared load from 'smem' (lanes stride 2 words) [bankwise-bank-conflict]
  out[blockIdx.x * n + t] = a[t] * b[2 * t];
}

void launch(float *fin, float *fout, double *din, double *dout, unsigned int n) {
  reduce1<float><<<n / 256, 256, 256 * sizeof(float)>>>(fin, fout, n);
  reduce1<double><<<n / 256, 256, 256 * sizeof(double)>>>(din, dout, n);
  reduce3<float><<<n / 512, 256, 256 * sizeof(float)>>>(fin, fout, n);
  column_sums<<<n / 1024, dim3(32, 32), 32 * 32 * sizeof(float)>>>(fin, fout);
  pairs<<<n / 64, 32>>>(fin, fout);
  two_arrays<<<n / 64, 32, 3 * 32 * sizeof(float)>>>(fin, fin, fout);
}
