// The block's warps as one symbolic family (Analyzer::WarpFamily) against
// the warp-by-warp evaluator, over block shapes of every kind: a width that
// is a multiple of the warp's, a divisor of it (several rows or planes a
// warp), 3-D blocks, and shapes that cannot be a family (a width of 24, a
// partial last warp), which run per warp position as before.

#include "analysis/passes/KernelAnalysis.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <string>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

/// A kernel that reads thread indices every way: in indices (tx, ty, tz,
/// tid, warp, lane), in guards, a loop whose start is ty, and a shared tile.
/// With Data, also reads whose addresses data decides under guards on the
/// position (where a family gives way to runs per position: the lanes a
/// guard leaves decide the figures).
std::string kernelFor(std::int64_t X, std::int64_t Y, std::int64_t Z, bool Data) {
  const std::int64_t T = X * Y * Z, G = 6;
  return fmt::format("target sm_90\n"
                     "kernel k(g: global f32[{0}], h: global f32[{1}], q: global f32[{2}], ix: global i32[{0}]) grid (3, 2) "
                     "block ({3}, {4}, {5}) {{\n"
                     "  shared t: f32[{5}][{4}][{6}]\n"
                     "  t[tz][ty][tx] = g[tid]\n"
                     "  sync\n"
                     "  if ty % 2 == 0 {{ g[tid] = t[tz][(ty + 1) % {4}][tx] }}\n"
                     "  if warp == 1 && lane < 20 {{ h[(by * 3 + bx) * 64 + lane * 2] = 1 }}\n"
                     "  if tx < {7} {{ q[((tz * {4} + ty) * {3} + tx) * 3 + bx] = t[tz][ty][tx] }}\n"
                     "  for j in ty..{4} step 2 {{ h[(by * 3 + bx) * 64 + (j * 7 + tx) % 64] = 2 }}\n"
                     "  let w = warp * 32\n"
                     "  if tz + ty > 0 {{ g[(w + lane) % {0}] = h[tx % 64] }}\n"
                     "{8}"
                     "}}\n",
                     T * G, G * 64, T * 3 + 3, X, Y, Z, X + 1, (X + 1) / 2,
                     // data: an address under a guard on the position, data alike
                     // in the lanes a guard leaves, data beside the warp index
                     Data ? fmt::format("  if tid % 5 == 0 {{ h[ix[tid] % 64] = 1 }}\n"
                                        "  if ty == 0 {{\n    let d = ix[bx]\n    q[(d % 8) * 3 + tx % 3] = 1\n  }}\n"
                                        "  if tx == 0 {{ q[ix[tid] % {}] = 2 }}\n"
                                        "  if tid < 3 {{ h[ix[0] % 64 + tid] = 4 }}\n"
                                        "  h[(warp * 2 + ix[tid] % 2) % 64] = 3\n",
                                        T * 3 + 3)
                         : std::string());
}

} // namespace

TEST_CASE("one symbolic run for a block's warps gives the warp-by-warp figures, for every block shape") {
  const std::array<std::array<std::int64_t, 3>, 14> Shapes = {{{32, 8, 1},
                                                               {64, 2, 1},
                                                               {96, 1, 1},
                                                               {16, 16, 1},
                                                               {8, 8, 2},
                                                               {4, 4, 8},
                                                               {2, 2, 16},
                                                               {1, 64, 1},
                                                               {32, 2, 2},
                                                               {16, 4, 3},
                                                               {24, 4, 1},   // not a family
                                                               {40, 2, 1},   // not a family
                                                               {16, 3, 1},   // a partial last warp
                                                               {32, 1, 1}}}; // one warp
  int Families = 0;
  for (const auto &S : Shapes)
    for (const bool Data : {false, true}) {
    CAPTURE(S[0]);
    CAPTURE(S[1]);
    CAPTURE(S[2]);
    CAPTURE(Data);
    const ir::Program P = parseOrFail(kernelFor(S[0], S[1], S[2], Data));
    const auto [Fast, Slow] = bankwise::testing::fastAndExhaustive(P, P.Kernels.at(0));
    CAPTURE(Fast.FallbackReason);
    CHECK(Fast.FastPath);
    bankwise::testing::checkSameReports(Fast, Slow);
    CHECK(Fast.Requests == Slow.Requests);
    const bool Shaped = (S[0] * S[1] * S[2]) % 32 == 0 && S[0] * S[1] * S[2] > 32 && S[0] != 24 && S[0] != 40;
    if (!Shaped)
      CHECK_FALSE(Fast.WarpFamily);
    if (!Data)
      Families += Fast.WarpFamily;
  }
  // The loop starting at ty and the guards on ty stay affine in the family.
  CHECK(Families == 10);
}
