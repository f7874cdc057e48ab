// Host code written with lambdas, std::function and algorithms around two
// launches; a generic lambda that launches a kernel template. The lint
// sees through none of the host logic but must parse it and find the
// launches' block shapes.
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

template <int SCALE>
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = SCALE * in[i];
}

__global__ void offsets(const int *sizes, int *starts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    starts[i] = i == 0 ? 0 : sizes[i - 1];
}

void pipeline(const float *in, float *out, const int *sizes, int *starts, int n) {
  auto blocks = [](int count, int per) { return (count + per - 1) / per; };
  std::vector<std::function<void()>> steps;
  steps.push_back([=] { scale<2><<<blocks(n, 128), 128>>>(in, out, n); });
  steps.push_back([=] { offsets<<<blocks(n, 128), 128>>>(sizes, starts, n); });
  auto launch_scaled = [&](auto tag) {
    constexpr int S = decltype(tag)::value;
    scale<S><<<blocks(n, 128), 128>>>(in, out, n);
  };
  launch_scaled(std::integral_constant<int, 3>{});
  std::for_each(steps.begin(), steps.end(), [](const std::function<void()> &f) { f(); });
  std::vector<int> host(16);
  std::iota(host.begin(), host.end(), 0);
  std::sort(host.begin(), host.end(), [](int a, int b) { return a > b; });
}
