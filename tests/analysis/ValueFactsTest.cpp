// Value classes, ranges and uniformity of a kernel's values (the facts
// codegen types and sizes its C++ by).

#include "analysis/passes/ValueFacts.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

ValueFactsInput noTables() {
  ValueFactsInput In;
  In.TableBound = [](const std::string &, bool) -> std::uint64_t { return 0; };
  return In;
}

const LocalFacts &local(const ValueFacts &F, const ir::Kernel &K, std::size_t StmtIndex) {
  return F.Lets[static_cast<std::size_t>(F.LetIndex.at(K.Body[StmtIndex].as<ir::Let>()))];
}

} // namespace

TEST_CASE("value facts: copies, arithmetic, ranges from the launch, uniformity") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(a: global f32[4096], b: global f64[4096], c: global f32[4096])\n"
                                    "    grid (16, 2) block (64, 2) {\n"
                                    "  let s = a[tid]\n"
                                    "  let x = s * 2\n"
                                    "  let y = b[tid] + 1\n"
                                    "  let r = by * 32 + ty\n"
                                    "  let u = bx * 64\n"
                                    "  c[tid] = x\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  const ValueFacts F(P, K, noTables());
  CHECK(local(F, K, 0).Class.K == ValueClass::Copy);
  CHECK(local(F, K, 1).Class == computeClass(false));
  CHECK(local(F, K, 2).Class == computeClass(true)); // f64 takes part: double
  const LocalFacts &R = local(F, K, 3);
  CHECK(R.Class.K == ValueClass::Int);
  CHECK(R.R == span(0, 1 * 32 + 1)); // by < 2, ty < 2
  CHECK(!R.Uniform);                  // ty differs between threads
  CHECK(local(F, K, 4).Uniform);
  CHECK(local(F, K, 4).R == span(0, 15 * 64));
  CHECK(F.HasCompute);
  CHECK(F.IntsFit32);
  CHECK(!F.RuntimeGrid);
}

TEST_CASE("value facts: loop counters reach their end, a runtime grid bounds block indices by CUDA's limits") {
  const ir::Program P = parseOrFail("target sm_90\nparam N\n"
                                    "kernel k(a: global f32[N]) grid ((N + 255) / 256) block (256) {\n"
                                    "  for j in 0..10 step 4 { a[tid] = 1 }\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  ValueFactsInput In = noTables();
  In.Runtime = {"N"};
  const ValueFacts F(P, K, In);
  const LoopFacts &L = F.Loops.at(0);
  CHECK(L.R == span(0, 9));
  CHECK(L.Reach == span(0, 13)); // 0, 4, 8, then 12 ends it
  CHECK(L.Uniform);
  CHECK(F.RuntimeGrid);
  // tid of a runtime grid: up to 2^31 - 1 blocks of 256 threads and more.
  CHECK(!F.IntsFit32);
  CHECK(!F.HasCompute);
}

TEST_CASE("value facts: arithmetic on vector elements is refused with its location") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(a: global f32x4[64]) threads 64 {\n"
                                    "  let v = a[tid] * 2\n"
                                    "}\n");
  CHECK_THROWS_WITH_AS(ValueFacts(P, P.Kernels[0], noTables()),
                       doctest::Contains("arithmetic on vector elements"), UserError);
}

TEST_CASE("value facts: an untyped integer accumulator widens the index type, a typed one does not") {
  // The kernel: `let acc = 0; acc += m[j]` has no bound (it grows
  // every trip), so some integer value may not fit 32 bits.
  auto Facts = [](const std::string &Let) {
    const ir::Program P = parseOrFail("target sm_90\n"
                                      "kernel k(m: global i32[64][256], r: global i32[64]) grid (1) block (64) {\n"
                                      "  " + Let + "\n"
                                      "  for j in 0..256 { acc += m[tx][j] }\n"
                                      "  r[tx] = acc\n"
                                      "}\n");
    const ValueFacts F(P, P.Kernels[0], noTables());
    return std::pair(F.IntsFit32, local(F, P.Kernels[0], 0).Class);
  };
  CHECK(Facts("let acc = 0") == std::pair(false, intClass()));
  CHECK(Facts("let acc: i32 = 0") == std::pair(true, intClass()));
  CHECK(Facts("let acc: i64 = 0") == std::pair(false, intClass()));
  CHECK(Facts("let acc: f32 = 0") == std::pair(true, computeClass(false)));
  CHECK(Facts("let acc: f64 = 0") == std::pair(true, computeClass(true)));
}

TEST_CASE("value facts: float literals are f32 data, '?:' joins its arms, geometry words are values") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(a: global f32[4096], b: global f64[4096]) grid (16) block (256) {\n"
                                    "  let h = 0.5\n"
                                    "  let d = b[tid] * 0.1\n"
                                    "  let i = tx < 8 ? bx * bdx + tx : gdx * bdx - 1\n"
                                    "  let s = tx < 8 ? a[tid] : 2.0\n"
                                    "  a[i] = h + s\n"
                                    "  b[tid] = d\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  const ValueFacts F(P, K, noTables());
  CHECK(local(F, K, 0).Class == computeClass(false));
  CHECK(local(F, K, 1).Class == computeClass(true));
  CHECK(local(F, K, 2).Class == intClass());
  CHECK(local(F, K, 2).R == span(0, 4095));
  CHECK(local(F, K, 3).Class == computeClass(false));
}
