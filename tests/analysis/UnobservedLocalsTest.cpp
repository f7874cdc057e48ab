// Which locals the analysis never needs the value of (UnobservedLocals.h),
// and what skipping them buys: kernels that assign such a local under a
// guard on block indices stay on the counting path, with the figures of
// the warp-by-warp evaluation.

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/UnobservedLocals.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

std::set<std::string> unobservedIn(const std::string &Body) {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel kern(a: global f32[4096], b: global f32[4096], m: global i32[4096]) "
                                    "grid (4) block (64) {\n" +
                                    Body + "}\n");
  const auto U = unobservedLocals(P.Kernels.at(0));
  return {U.begin(), U.end()};
}

} // namespace

TEST_CASE("unobserved locals: sums and stored values, indices and conditions, through other locals") {
  // s is summed and stored; i is an index; the loop variable is never listed.
  CHECK(unobservedIn("  let i = bx * 64 + tx\n"
                     "  let s = 0\n"
                     "  for k in 0..8 { s = s + a[i + k] }\n"
                     "  b[i] = s\n") == std::set<std::string>{"s"});
  // j reaches an index through i2; f reaches a condition through g.
  CHECK(unobservedIn("  let j = tx\n  let i2 = j * 2\n  let f = bx\n  let g = f + 1\n  let v = a[i2]\n"
                     "  if g < 3 { b[i2] = v }\n") == std::set<std::string>{"v"});
  // A local assigned into an observed one is observed, wherever it is assigned.
  CHECK(unobservedIn("  let x = 0\n  let y = 0\n  if bx == 0 { y = 5 }\n  x = y\n  b[x] = 1\n").empty());
}

TEST_CASE("unobserved locals: what decides which lanes read is observed") {
  // The left side of && before a read decides which lanes read.
  CHECK(unobservedIn("  let c = tx\n  let s = 0\n  s = c < 8 && a[tx] > 0\n  b[tx] = s\n") ==
        std::set<std::string>{"s"});
  // A '?:' whose arms read: its condition decides which lanes read which.
  CHECK(unobservedIn("  let c = tx % 2\n  let s = c == 0 ? a[tx] : b[tx]\n  b[tx] = s\n") ==
        std::set<std::string>{"s"});
  // Without a read on its right side, && is only a value.
  CHECK(unobservedIn("  let c = tx\n  let s = c < 8 && tx > 2\n  b[tx] = s\n") ==
        std::set<std::string>{"c", "s"});
  // A shuffle around a read: its source lane is observed, the value is not.
  CHECK(unobservedIn("  let d = 1\n  let s = shfl_down(a[tx], d)\n  b[tx] = s\n") == std::set<std::string>{"s"});
  // Data read into an index is observed (its reads price the access).
  CHECK(unobservedIn("  let p = m[tx]\n  b[p % 64] = 1\n").empty());
}

TEST_CASE("a sum reset under a guard on block indices stays on the counting path, with the exhaustive figures") {
  // The shape of a grid-stride dot product with a per-block reduction (a
  // public sample's: the lint sent it warp by warp over 32768 warps).
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "param size = 70000\n"
                                    "kernel k(x: global f32[1048576], y: global f32[1048576], r: global f64[64]) "
                                    "grid (64) block (256) {\n"
                                    "  let s = 0\n"
                                    "  let i = bx * 256 + tx\n"
                                    "  while i < size {\n"
                                    "    s = s + x[i] * y[i]\n"
                                    "    i = i + 16384\n"
                                    "  }\n"
                                    "  sync\n"
                                    "  if bx == 0 {\n"
                                    "    s = 0\n"
                                    "    let j = tx\n"
                                    "    j = j * 2\n" // declared under the guard: assigned alike in every warp
                                    "    if j < 64 { s = s + r[j] }\n"
                                    "  }\n"
                                    "  r[bx] = s\n"
                                    "}\n");
  const auto [Fast, Slow] = bankwise::testing::fastAndExhaustive(P, P.Kernels.at(0));
  CAPTURE(Fast.FallbackReason);
  CHECK(Fast.FastPath);
  bankwise::testing::checkSameReports(Fast, Slow);
}

TEST_CASE("idle statements: no access, no barrier, and only unobserved locals assigned from outside") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel kern(b: global f32[4096]) grid (4) block (64) {\n"
                                    "  let x = bx * 64 + tx\n"
                                    "  let v = 0\n"
                                    "  if (x & 32) != 0 { v = 100 } else { v = 0 }\n" // idle: v is only stored
                                    "  let i = 0\n"
                                    "  while i < tx { i = i + 1 }\n" // not idle: i is an index below
                                    "  for k in 0..x { let f = k * 2 }\n" // idle: f is its own
                                    "  if x > 3 { b[x] = v }\n"            // an access: never idle
                                    "  b[i] = v\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels.at(0);
  const UnobservedParts U = unobservedParts(K);
  CHECK(U.Locals == std::unordered_set<std::string>{"v", "f"});
  REQUIRE(U.Statements.size() == 2);
  CHECK(U.Statements.count(&K.Body[2]) == 1); // the if on x & 32
  CHECK(U.Statements.count(&K.Body[5]) == 1); // the for
  // x is then observed only by the access's guard and index, not by the
  // idle if's bitwise condition: the kernel stays on the counting path.
  const auto [Fast, Slow] = bankwise::testing::fastAndExhaustive(P, K);
  CAPTURE(Fast.FallbackReason);
  CHECK(Fast.FastPath);
  bankwise::testing::checkSameReports(Fast, Slow);
}

TEST_CASE("a local set in both branches of a guard on block indices is a choice, not an assignment under it") {
  // The round-up division of the public samples' iDivUp, on a per-block
  // count, and a one-branch override: values chosen per warp.
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "param n = 1000\n"
                                    "kernel kern(b: global f32[4096]) grid (8) block (64) {\n"
                                    "  let a = n - bx * 100\n"
                                    "  let v = 0\n"
                                    "  if a % 128 == 0 { v = a / 128 } else { v = a / 128 + 1 }\n"
                                    "  let w = 5\n"
                                    "  if bx == 2 { w = 9 }\n"
                                    "  if tx < v * 8 + w { b[bx * 64 + tx] = 1 }\n"
                                    "}\n");
  bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
}
