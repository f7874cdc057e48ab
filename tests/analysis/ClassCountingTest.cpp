// The class-counting fast path (guards on block indices and loop variables,
// opaque uniform values such as bitrev(bx, m), min, tables and divisions,
// symbolic long loops) against the warp-by-warp evaluator, which stays the
// definition: every per-site figure, the simulated time and the request
// count must be identical on thousands of random kernels and sizes.

#include "analysis/passes/KernelAnalysis.h"
#include "dsl/Parser.h"
#include "support/Random.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"
#include "tests/support/RandomKernels.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <map>
#include <string>
#include <vector>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

using bankwise::testing::randomGuardedKernel;

} // namespace

TEST_CASE("class counting equals warp-by-warp evaluation on random guarded kernels") {
  Rng R(20261123);
  int Fast = 0, Guarded = 0, Tables = 0, Whiles = 0, Selects = 0, Choices = 0, Unobserved = 0, Families = 0, DataLoops = 0;
  std::map<std::string, int> Reasons;
  const int Trials = 2000;
  for (int Trial = 0; Trial < Trials; ++Trial) {
    const std::string Text = randomGuardedKernel(R);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const ir::Kernel &K = P.Kernels.at(0);
    // The warp-by-warp path simulates any size; the fast path stops at
    // TimeWorkLimit, raised here so that the times can be compared.
    AnalysisOptions FastOpts;
    FastOpts.TimeWorkLimit = std::int64_t(1) << 28;
    const KernelReport A = analyzeKernel(P, K, FastOpts);
    AnalysisOptions O;
    O.Exhaustive = true;
    const KernelReport B = analyzeKernel(P, K, O);
    CAPTURE(A.FallbackReason);
    Fast += A.FastPath;
    Tables += A.TableWalk;
    if (!A.FastPath)
      ++Reasons[A.FallbackReason];
    Guarded += A.FastPath && Text.find(" if ") != std::string::npos;
    Whiles += A.FastPath && Text.find("while ") != std::string::npos;
    Selects += A.FastPath && (Text.find("let q") != std::string::npos || Text.find("? in[r][c]") != std::string::npos ||
                              Text.find("== 0 ? bx") != std::string::npos); // '?:' on block indices
    Choices += A.FastPath && Text.find("pc") != std::string::npos; // per-lane choices (issue [12])
    Unobserved += A.FastPath && Text.find("let a") != std::string::npos; // assigned under block guards
    Families += A.WarpFamily; // one symbolic run for every warp of the block
    DataLoops += A.FastPath && Text.find("let i") != std::string::npos; // loops inside a data guard
    REQUIRE(A.Sites.size() == B.Sites.size());
    for (std::size_t I = 0; I < A.Sites.size(); ++I) {
      CAPTURE(I);
      REQUIRE(A.Sites[I] == B.Sites[I]);
    }
    REQUIRE(A.TimeSimulated);
    REQUIRE(A.Time == B.Time);
    REQUIRE(A.Requests == B.Requests);
  }
  // The kernels must exercise the counting path, guards included, for the
  // comparison to mean something.
  for (const auto &[Why, N] : Reasons)
    MESSAGE(N, " fell back: ", Why);
  MESSAGE(Fast, " of ", Trials, " random kernels counted by class, ", Guarded, " with guards, ",
          Tables, " with a table read per lane, ", Whiles, " with while loops, ", Selects, " with '?:', ", Choices,
          " with per-lane choices, ", Unobserved, " with locals assigned under guards on block indices, ", Families,
          " with the block's warps as one family, ", DataLoops, " with loops inside a data guard");
  CHECK(Fast >= Trials * 9 / 10);
  CHECK(Whiles >= Trials / 6);
  CHECK(Selects >= Trials / 10);
  CHECK(Guarded >= Trials / 2);
  CHECK(Tables >= Trials / 20);
  CHECK(Choices >= Trials / 12);
  CHECK(Unobserved >= Trials / 20);
  CHECK(Families >= Trials / 4);
  CHECK(DataLoops >= Trials / 20);
}

TEST_CASE("lanes whose address is one below a period boundary count as accesses (reversed indices)") {
  // b[bx * 32 + Off - tx]: the uniform part's residue minus the lane can
  // be -1 before the lift to non-negative addresses, which is also the
  // models' 'no access' mark; such a lane was once dropped (4 sectors
  // instead of 5 at Off = 62).
  for (int Off = 31; Off < 96; ++Off) {
    const std::string Text = fmt::format("target sm_90\n"
                                         "kernel rev(a: global f32[128], b: global f32[{}]) grid (4) block (32) {{\n"
                                         "  b[bx * 32 + {} - tx] = a[tid]\n}}\n",
                                         96 + Off + 1, Off);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const KernelReport A = analyzeKernel(P, P.Kernels[0]);
    AnalysisOptions O;
    O.Exhaustive = true;
    const KernelReport B = analyzeKernel(P, P.Kernels[0], O);
    REQUIRE(A.FastPath);
    REQUIRE(A.Sites.size() == B.Sites.size());
    for (std::size_t I = 0; I < A.Sites.size(); ++I)
      CHECK(A.Sites[I] == B.Sites[I]);
    CHECK(A.Sites[0].Sectors.Max == (Off % 8 == 7 ? 4 : 5)); // b: 32 lanes from Off - 31
  }
}

TEST_CASE("a site subset (OnlySites) gives the kept sites' full figures and leaves the others empty") {
  // The all-sizes analysis evaluates each site only at the sizes it needs,
  // through AnalysisOptions::OnlySites, on both evaluators.
  Rng R(20261124);
  int Compared = 0, Skipped = 0;
  for (int Trial = 0; Trial < 300; ++Trial) {
    const std::string Text = randomGuardedKernel(R);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const ir::Kernel &K = P.Kernels.at(0);
    for (const bool Exhaustive : {false, true}) {
      AnalysisOptions All;
      All.Exhaustive = Exhaustive;
      const KernelReport Full = analyzeKernel(P, K, All);
      if (Full.Sites.size() < 2)
        continue;
      AnalysisOptions Some = All;
      Some.OnlySites.assign(Full.Sites.size(), false);
      for (std::size_t I = 0; I < Full.Sites.size(); ++I)
        Some.OnlySites[I] = R.below(2) == 0;
      const KernelReport Part = analyzeKernel(P, K, Some);
      REQUIRE(Part.Sites.size() == Full.Sites.size());
      CHECK_FALSE(Part.TimeSimulated);
      for (std::size_t I = 0; I < Full.Sites.size(); ++I) {
        CAPTURE(I);
        if (Some.OnlySites[I]) {
          REQUIRE(Part.Sites[I] == Full.Sites[I]);
          ++Compared;
        } else {
          CHECK(Part.Sites[I].WarpExecutions == 0);
          CHECK(Part.Sites[I].Sectors.Count + Part.Sites[I].Wavefronts.Count == 0);
          ++Skipped;
        }
      }
    }
  }
  MESSAGE(Compared, " kept sites compared, ", Skipped, " left out");
  CHECK(Compared >= 200);
  CHECK(Skipped >= 200);
}

TEST_CASE("class counting visits no warp: huge launches are counted exactly") {
  // 2^31 - 1 blocks of 1024 threads (2^41 threads): far beyond any warp
  // walk. The read of in[r][c] under r < R && c < C is the any-shape
  // transpose's; its sector counts follow ANALYSIS.md's example 2.
  const ir::Program P = parseOrFail(
      "target sm_90\n"
      "param C = 12289\n"
      "kernel big(g: global f32[2199023255552]) grid (2147483647) block (1024) {\n"
      "  g[tid] = 1\n"
      "}\n"
      "kernel t(in: global f32[8191][C], out: global f32[C][8191])\n"
      "    grid ((C + 31) / 32, (8191 + 31) / 32) block (32, 8) {\n"
      "  for k in 0..4 {\n"
      "    let r = by * 32 + ty + 8 * k\n"
      "    let c = bx * 32 + tx\n"
      "    if r < 8191 && c < C { out[c][r] = in[r][c] }\n"
      "  }\n"
      "}\n");
  const KernelReport Big = analyzeKernel(P, P.Kernels[0]);
  CHECK(Big.FastPath);
  CHECK_FALSE(Big.TimeSimulated);
  CHECK(Big.Threads == std::int64_t(2147483647) * 1024);
  REQUIRE(Big.Sites.size() == 1);
  CHECK(Big.Sites[0].WarpExecutions == std::int64_t(2147483647) * 32);
  CHECK(Big.Sites[0].Sectors.Min == 4);
  CHECK(Big.Sites[0].Sectors.Max == 4);

  const KernelReport T = analyzeKernel(P, P.Kernels[1]);
  CHECK(T.FastPath);
  const auto &In = T.Sites.at(1);
  REQUIRE(In.Array == "in");
  // C = 12289 is odd: one row in eight starts a 32-byte sector, so an
  // interior warp reads 4 sectors (aligned) or 5, and the last block column
  // (12289 % 32 = 1 active lane) reads 1.
  CHECK(In.Sectors.Max == 5);
  CHECK(In.Sectors.Min == 1);
  // Interior rows: 8191 rows * 384 full block columns; r % 8 == 0 rows align.
  const std::int64_t Rows = 8191, FullCols = 12289 / 32;
  const std::int64_t Aligned = (Rows + 7) / 8; // rows r with r * C % 8 == 0
  const double Expected = static_cast<double>(FullCols) *
                              (4.0 * static_cast<double>(Aligned) +
                               5.0 * static_cast<double>(Rows - Aligned)) +
                          1.0 * static_cast<double>(Rows);
  CHECK(In.Sectors.Sum == doctest::Approx(Expected).epsilon(1e-12));
  CHECK(In.WarpExecutions == Rows * (FullCols + 1));
}

TEST_CASE("sites of one address under one guard share their enumerated classes and keep their own figures") {
  // A grid-stride loop over image tiles (the block's tile from a division
  // and a remainder by a runtime width, a public Mandelbrot's): the guard's
  // variables are enumerated together, once for the sites of one address;
  // sites of other element sizes, of a partial last warp (block 16 x 5),
  // under one more lane condition or one more guard on the tile must still
  // get their own figures.
  for (const auto [W, H, Gw, Nb] : {std::array<int, 4>{100, 37, 7, 40}, {33, 64, 3, 11}, {16, 16, 1, 1},
                                    {250, 90, 16, 97}}) {
    const std::string Text = fmt::format(
        "target sm_90\n"
        "param W = {}\nparam H = {}\nparam gw = {}\nparam nb = {}\n"
        "kernel k(d: global f32[65536], e: global u8[65536]) grid (8) block (16, 5) {{\n"
        "  let bi = bx\n"
        "  while bi < nb {{\n"
        "    let x = 16 * (bi % gw) + tx\n"
        "    let y = 5 * (bi / gw) + ty\n"
        "    if x < W && y < H {{\n"
        "      d[W * y + x] = d[W * y + x] + 1\n"
        "      e[W * y + x] = 2\n"
        "      if tx < 3 {{ d[W * y + x] = 0 }}\n"
        "      if x < W - 2 {{ d[W * y + x] = 3 }}\n"
        "    }}\n"
        "    bi = bi + 8\n"
        "  }}\n"
        "}}\n",
        W, H, Gw, Nb);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
  }
}
