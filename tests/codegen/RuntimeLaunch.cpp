// The launch functions of runtime-sized kernels, run on the CPU through
// EmulationShim.h (tests/codegen/EmulateLaunch.cmake includes the generated
// .cu of samples/transpose_any_shape.bw and of
// tests/codegen/inputs/runtime_sizes.bw, its launches rewritten for the
// shim, above this file). One compiled module serves every shape: each
// transpose is checked element by element against out[c][r] == in[r][c]
// (not against the generated CPU reference) at shapes that are not multiples
// of the tile, and every check of a launch function (a `where` constraint, a
// dimension, a count, the grid limit) returns cudaErrorInvalidValue without
// launching. Exits 0 when all hold; prints what failed otherwise.
#include <cstdio>
#include <vector>

namespace {

int Failures = 0;

void expect(bool Ok, const char *What, long long A, long long B) {
  if (!Ok) {
    std::fprintf(stderr, "FAILED: %s (%lld, %lld)\n", What, A, B);
    ++Failures;
  }
}

/// Transposes an R x C matrix of T with the module's kernel Launch and
/// checks every element.
template <class T, class LaunchFn> void checkTranspose(LaunchFn Launch, long long R, long long C) {
  std::vector<T> In(static_cast<std::size_t>(R * C)), Out(static_cast<std::size_t>(C * R), T(-1));
  for (long long I = 0; I < R * C; ++I)
    In[static_cast<std::size_t>(I)] = static_cast<T>(I % 101 + 1);
  expect(Launch(In.data(), In.size(), Out.data(), Out.size(), R, C, 0) == cudaSuccess, "transpose launches", R, C);
  long long Bad = 0;
  for (long long Row = 0; Row < R; ++Row)
    for (long long Col = 0; Col < C; ++Col)
      if (!(Out[static_cast<std::size_t>(Col * R + Row)] == In[static_cast<std::size_t>(Row * C + Col)]))
        ++Bad;
  expect(Bad == 0, "out[c][r] == in[r][c] everywhere", R, C);
}

} // namespace

int main() {
  namespace T = transpose_any_shape;
  const long long Shapes[][2] = {{1, 1}, {33, 65}, {100, 31}, {64, 64}, {1, 100}, {97, 1}, {32, 32}};
  for (const auto &S : Shapes) {
    checkTranspose<float>(T::launch_transpose_f32, S[0], S[1]);
    checkTranspose<double>(T::launch_transpose_f64, S[0], S[1]);
    checkTranspose<std::int8_t>(T::launch_transpose_i8, S[0], S[1]);
  }

  // Rejections: nothing may run, so the output keeps its poison.
  std::vector<float> In(33 * 65, 1.0f), Out(33 * 65, -1.0f);
  auto Untouched = [&] {
    for (float V : Out)
      if (V != -1.0f)
        return false;
    return true;
  };
  expect(T::launch_transpose_f32(In.data(), In.size() + 1, Out.data(), Out.size(), 33, 65, 0) == cudaErrorInvalidValue,
         "an input count off by one is rejected", 33, 65);
  expect(T::launch_transpose_f32(In.data(), In.size(), Out.data(), Out.size(), 65, 33, 0) == cudaSuccess,
         "the same counts as 65 x 33 are accepted", 65, 33);
  Out.assign(Out.size(), -1.0f);
  expect(T::launch_transpose_f32(In.data(), In.size(), Out.data(), Out.size(), 33, 66, 0) == cudaErrorInvalidValue,
         "counts of another shape are rejected", 33, 66);
  expect(T::launch_transpose_f32(In.data(), 0, Out.data(), 0, 0, 65, 0) == cudaErrorInvalidValue,
         "a zero dimension is rejected", 0, 65);
  expect(T::launch_transpose_f32(In.data(), 0, Out.data(), 0, -3, 65, 0) == cudaErrorInvalidValue,
         "a negative dimension is rejected", -3, 65);
  // 65536 * 64 + 1 columns need 65537 blocks in y (64-column tiles): beyond CUDA's 65535.
  const long long Wide = 65536LL * 64 + 1;
  expect(T::launch_transpose_f32(In.data(), Wide, Out.data(), Wide, 1, Wide, 0) == cudaErrorInvalidValue,
         "a grid beyond CUDA's limits is rejected", 1, Wide);
  expect(Untouched(), "no rejected launch wrote", 0, 0);

  namespace S = runtime_sizes;
  std::vector<float> A(68, 2.0f), B(68, -1.0f);
  expect(S::launch_copy_flat(A.data(), 66, B.data(), 66, 66, 0) == cudaErrorInvalidValue,
         "N = 66 breaks `where N % 4 == 0`", 66, 0);
  expect(S::launch_copy_flat(A.data(), 68, B.data(), 67, 68, 0) == cudaErrorInvalidValue,
         "an output count off by one is rejected", 68, 67);
  for (float V : B)
    expect(V == -1.0f, "no rejected copy_flat wrote", 0, 0);
  expect(S::launch_copy_flat(A.data(), 68, B.data(), 68, 68, 0) == cudaSuccess, "N = 68 is accepted", 68, 0);
  for (float V : B)
    expect(V == 2.0f, "copy_flat copies at N = 68", 68, 0);
  std::vector<std::int32_t> X(8 * 3), Y(8 * 1, -1);
  for (std::size_t I = 0; I < X.size(); ++I)
    X[I] = static_cast<std::int32_t>(I);
  expect(S::launch_inner_rows(X.data(), 8 * 2, Y.data(), 0, 8, 2, 0) == cudaErrorInvalidValue,
         "M = 2 makes Mid = 0, breaking `where Mid >= 1`", 8, 2);
  expect(S::launch_inner_rows(X.data(), 8 * 3, Y.data(), 8, 8, 3, 0) == cudaSuccess, "M = 3 (Mid = 1) is accepted", 8, 3);
  for (std::size_t I = 0; I < Y.size(); ++I)
    expect(Y[I] == X[8 + I], "inner_rows keeps the middle row", static_cast<long long>(I), Y[I]);

  std::printf("%s\n", Failures == 0 ? "runtime launch checks: all passed" : "runtime launch checks: FAILED");
  return Failures == 0 ? 0 : 1;
}
