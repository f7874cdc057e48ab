// Generic kernels and functions: an instance is the kernel written out with
// its arguments, a call is the function's body written out with its
// arguments, and every later pass sees ordinary kernels.
#include "TestUtil.h"
#include "ir/Printer.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace bankwise;

namespace {

/// P parsed without any diagnostic.
test::Parsed clean(const std::string &Src) {
  test::Parsed P = test::parse(Src);
  INFO(test::render(P.Diags));
  REQUIRE(P.Diags.diagnostics().empty());
  return P;
}

std::vector<std::string> kernelNames(const ir::Program &P) {
  std::vector<std::string> Names;
  for (const ir::Kernel &K : P.Kernels)
    Names.push_back(K.Name);
  return Names;
}

} // namespace

TEST_CASE("the generic transpose sample is the four kernels written out") {
  test::Parsed Generic = clean(test::readFile(std::string(BANKWISE_SAMPLES_DIR) + "/transpose_any_shape.bw"));
  test::Parsed Copies = clean(test::readFile(std::string(BANKWISE_DSL_GENERIC_DIR) + "/transpose_copies.bw"));
  CHECK(kernelNames(Generic.Program) ==
        std::vector<std::string>{"transpose_f32", "transpose_f64", "transpose_f16", "transpose_i8"});
  // Equal as IR (locations aside): same types, constants, geometry, body.
  CHECK(Generic.Program == Copies.Program);
  CHECK(ir::print(Generic.Program) == ir::print(Copies.Program));
}

TEST_CASE("instances are named by their arguments, or as written") {
  test::Parsed P = clean(R"(target sm_90
kernel fill<T: type, N: int, V: int = N * bytes(T)>(a: global T[N]) grid (1) block (N) {
  a[tx] = V
}
instance fill<f32, 64>, fill<i8, 32, -3>, small = fill<f64, 2>
instance fill<u16, 4 * 8>
)");
  REQUIRE(kernelNames(P.Program) ==
          std::vector<std::string>{"fill_f32_64", "fill_i8_32_m3", "small", "fill_u16_32"});
  const ir::Kernel &F32 = P.Program.Kernels[0];
  CHECK(ir::spelling(F32.Params[0].Elem) == "f32");
  CHECK(F32.Params[0].Shape == std::vector<std::int64_t>{64});
  CHECK(F32.Geo.BlockDim[0] == 64);
  const auto *Store = F32.Body[0].as<ir::Assign>();
  REQUIRE(Store);
  CHECK(ir::print(Store->Value) == "256"); // the default N * bytes(T), 64 * 4
  CHECK(ir::print(P.Program.Kernels[1].Body[0].as<ir::Assign>()->Value) == "-3");
  CHECK(ir::print(P.Program.Kernels[2].Body[0].as<ir::Assign>()->Value) == "16");
  CHECK(P.Program.Kernels[3].Params[0].Shape == std::vector<std::int64_t>{32});
}

TEST_CASE("bytes(T) is each element type's size") {
  const std::vector<std::pair<std::string, std::int64_t>> Sizes{
      {"i8", 1}, {"u16", 2}, {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"i64", 8}, {"f64", 8}, {"f32x4", 16}};
  for (const auto &[Type, Bytes] : Sizes) {
    INFO(Type);
    test::Parsed P = clean(fmt::format("param B = bytes({})\nkernel k(a: global f32[1]) threads 1 {{ a[0] = B }}\n",
                                       Type));
    CHECK(P.Program.Params[0].Value == Bytes);
  }
}

TEST_CASE("a function call is its body with the arguments in parentheses") {
  test::Parsed Called = clean(R"(target sm_90
fn idx(r, c) = r * 33 + c
fn twice(x) = x + x
kernel k(a: global f32[4096], b: global f32[4096]) grid (4) block (32, 32) {
  b[idx(ty + bx, tx)] = a[twice(tx) * 2 + idx(1, 2)]
}
)");
  test::Parsed Written = clean(R"(target sm_90
kernel k(a: global f32[4096], b: global f32[4096]) grid (4) block (32, 32) {
  b[(ty + bx) * 33 + tx] = a[(tx + tx) * 2 + (1 * 33 + 2)]
}
)");
  CHECK(Called.Program == Written.Program);
}

TEST_CASE("a block function's locals are renamed at each call, and it may call functions") {
  test::Parsed Called = clean(R"(target sm_90
fn col(j) = tx + 32 * j
fn load(dst, src, r) {
  for j in 0..2 {
    let c = col(j)
    dst[r][c] = src[r][c]
  }
}
kernel k(a: global f32[64][64], b: global f32[64][64]) grid (1) block (32) {
  shared t: f32[64][64] layout raw
  load(t, a, tx)
  load(t, a, tx + 32)
  sync
  b[tx][tx] = t[tx][tx]
}
)");
  test::Parsed Written = clean(R"(target sm_90
kernel k(a: global f32[64][64], b: global f32[64][64]) grid (1) block (32) {
  shared t: f32[64][64] layout raw
  for load_j in 0..2 {
    let load_c = (tx + 32 * load_j)
    t[tx][load_c] = a[tx][load_c]
  }
  for load_j_2 in 0..2 {
    let load_c_2 = (tx + 32 * load_j_2)
    t[(tx + 32)][load_c_2] = a[(tx + 32)][load_c_2]
  }
  sync
  b[tx][tx] = t[tx][tx]
}
)");
  CHECK(Called.Program == Written.Program);
  // A second kernel counts its calls afresh.
  test::Parsed Two = clean(R"(target sm_90
fn zero(dst) { let z = 0
  dst[tx] = z }
kernel k1(a: global f32[32]) threads 32 { zero(a) }
kernel k2(a: global f32[32]) threads 32 { zero(a) }
)");
  CHECK(Two.Program.Kernels[1].Body[0].as<ir::Let>()->Name == "zero_z");
}

TEST_CASE("generic kernels call functions, and their instances print and read back") {
  test::Parsed P = clean(R"(target sm_90
param N
fn at(i) = bx * 256 + i
kernel scale<T: type>(a: global T[N], b: global T[N]) grid ((N + 255) / 256) block (256) {
  if at(tx) < N { b[at(tx)] = a[at(tx)] * 2 }
}
instance scale<f32>, scale<f16>
)");
  REQUIRE(P.Program.Kernels.size() == 2);
  const std::string Text = ir::print(P.Program);
  test::Parsed Q = clean(Text);
  CHECK(Q.Program == P.Program);
}

TEST_CASE("expansions that grow without bound stop at the limit with an error") {
  std::string Src = "fn f0(x) = x + x\n";
  for (int I = 1; I <= 24; ++I)
    Src += fmt::format("fn f{}(x) = f{}(x) + f{}(x)\n", I, I - 1, I - 1);
  Src += "kernel k(a: global f32[1]) threads 1 { a[0] = 1 }\n";
  test::Parsed P = test::parse(Src);
  REQUIRE(P.Diags.hasErrors());
  CHECK(test::render(P.Diags).find("passes the limit of 1048576 tokens") != std::string::npos);
}
