// Kernels in nested namespaces, a matrix view class with __device__ member
// functions, and a host class that owns the launch. The view's at(r, c)
// reaches the tile through the struct's pointer member, which the lint
// does not follow: a note on the member function's line.
#include <cuda_runtime.h>

namespace app {
namespace detail {

template <typename T, int COLS>
struct MatrixView {
  T *data;
  // CHECK: note: access not analyzed: a pointer from a 'MemberExpr' expression [bankwise-unanalyzed]
  __device__ T &at(int r, int c) const { return data[r * COLS + c]; }
};

} // namespace detail

namespace kernels {

__global__ void column_sums(const float *in, float *out) {
  __shared__ float tile[32 * 32];
  detail::MatrixView<float, 32> view{tile};
  const int x = threadIdx.x, y = threadIdx.y;
  for (int r = y; r < 32; r += 8)
    view.at(r, x) = in[r * 32 + x];
  __syncthreads();
  if (y == 0) {
    float sum = 0;
    for (int c = 0; c < 32; ++c)
      sum += view.at(x, c);
    out[x] = sum;
  }
}

} // namespace kernels

class Reducer {
public:
  explicit Reducer(int n) : n_(n) {}
  void run(const float *in, float *out) const { kernels::column_sums<<<1, dim3(32, 8)>>>(in, out); }

private:
  int n_;
};

} // namespace app

void launch(const float *in, float *out) { app::Reducer(32).run(in, out); }
