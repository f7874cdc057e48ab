// A block reduction templated on the element type and the block size,
// instantiated for float, double and int at two sizes; a functor type
// parameter chooses the operation. The tree is sequentially addressed
// (s[t] += s[t + k]): clean for every instantiation.
#include <cuda_runtime.h>

struct Sum {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {
  template <typename T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <typename T, int BLOCK, typename Op>
__global__ void block_reduce(const T *in, T *out, Op op) {
  __shared__ T s[BLOCK];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (t < k)
      s[t] = op(s[t], s[t + k]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

template <typename T, int BLOCK, typename Op>
void reduce(const T *in, T *out, int n, Op op) {
  block_reduce<T, BLOCK, Op><<<n / BLOCK, BLOCK>>>(in, out, op);
}

void reduce_all(const float *f, float *fo, const double *d, double *dout, const int *i, int *io, int n) {
  reduce<float, 256>(f, fo, n, Sum{});
  reduce<double, 128>(d, dout, n, Max{});
  reduce<int, 512>(i, io, n, Sum{});
}
