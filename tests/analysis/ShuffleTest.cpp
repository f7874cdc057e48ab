// Warp shuffles under the analysis (docs/analysis.md, "Warp shuffles"): no
// access of their own; an index that goes through one is known exactly
// when the value is known in every lane, and data otherwise. Figures
// checked against a lane-by-lane count made here with CUDA's source-lane
// rules written out again; the fast path against warp-by-warp evaluation.

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/ThreadTrace.h"
#include "support/Random.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

/// CUDA's source lane for width 32 (the programming guide's rules).
std::int64_t cudaSource(const std::string &Op, std::int64_t Lane, std::int64_t Arg) {
  if (Op == "shfl")
    return Arg & 31;
  if (Op == "shfl_xor")
    return (Lane ^ Arg) > 31 ? Lane : Lane ^ Arg;
  if (Op == "shfl_up")
    return Lane < Arg ? Lane : Lane - Arg;
  return Lane + Arg > 31 ? Lane : Lane + Arg; // shfl_down
}

} // namespace

TEST_CASE("an index through a warp shuffle is exact: congestion against a lane-by-lane count") {
  Rng R(20261125);
  const char *Ops[] = {"shfl", "shfl_xor", "shfl_up", "shfl_down"};
  for (int Trial = 0; Trial < 80; ++Trial) {
    const std::string Op = Ops[R.below(4)];
    const std::int64_t A = static_cast<std::int64_t>(R.below(5)), B = static_cast<std::int64_t>(R.below(40));
    const std::int64_t Arg = static_cast<std::int64_t>(R.below(Op == "shfl" ? 70 : 34));
    const std::int64_t Stride = 1 + static_cast<std::int64_t>(R.below(33));
    // Lane l stores to s[v(src(l)) * Stride], v(l) = A * l + B (l the lane).
    const std::string Text = fmt::format("target sm_90\n"
                                         "kernel k(out: global f32[64]) grid (2) block (64) {{\n"
                                         "  shared s: f32[{}] layout raw\n"
                                         "  let v = {} * lane + {}\n"
                                         "  s[{}(v, {}) * {}] = 1\n"
                                         "  out[tx] = 0\n"
                                         "}}\n",
                                         (A * 31 + B + 1) * Stride, A, B, Op, Arg, Stride);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const auto [Fast, Slow] = testing::fastAndExhaustive(P, P.Kernels[0]);
    REQUIRE(Fast.Sites.size() == 2);
    testing::checkSameReports(Fast, Slow);
    // The lanes' word addresses, and the DMM congestion of one warp.
    std::map<std::int64_t, std::set<std::int64_t>> Banks;
    for (std::int64_t L = 0; L < 32; ++L) {
      const std::int64_t Word = (A * cudaSource(Op, L, Arg) + B) * Stride;
      Banks[Word % 32].insert(Word);
    }
    std::int64_t Congestion = 0;
    for (const auto &[Bank, Words] : Banks)
      Congestion = std::max<std::int64_t>(Congestion, static_cast<std::int64_t>(Words.size()));
    const AccessSiteReport &S = Fast.Sites[0];
    CHECK(S.Array == "s");
    CHECK(!S.DataDependent);
    CHECK(S.WarpExecutions == 4);
    CHECK(S.Congestion.Min == Congestion);
    CHECK(S.Congestion.Max == Congestion);
    CHECK(S.Wavefronts.Max == Congestion); // 4-byte words on 32 banks
  }
}

TEST_CASE("a shuffled value the analysis does not know is data, and one from an idle lane too") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(p: global i32[64], b: global f32[64]) grid (1) block (64) {\n"
                                    "  let key = p[tid]\n"
                                    "  b[shfl_xor(key, 1) % 64] = 1\n"
                                    "  if lane < 16 { b[shfl_xor(lane, 16) + 32] = 2 }\n"
                                    "}\n");
  const KernelReport R = analyzeKernel(P, P.Kernels[0]);
  REQUIRE(R.Sites.size() == 3);
  CHECK(R.Sites[1].DataDependent);
  CHECK(R.Sites[1].DataSource == "p");
  CHECK(R.Sites[2].DataDependent);
  CHECK(R.Sites[2].DataSource == "'shfl_xor' from a lane that does not run it");
  // With the keys given, exact again: key = 2 * tid, lanes swapped in pairs.
  AnalysisOptions O;
  std::vector<std::int64_t> Keys(64);
  for (std::size_t I = 0; I < Keys.size(); ++I)
    Keys[I] = 2 * static_cast<std::int64_t>(I);
  O.Data["p"] = Keys;
  const KernelReport E = analyzeKernel(P, P.Kernels[0], O);
  CHECK(!E.Sites[1].DataDependent);
  CHECK(E.Sites[1].Sectors.Max == 8); // 32 lanes, 8-byte stride: 256 bytes
}

TEST_CASE("a negative shuffle distance is a run-time error naming the thread") {
  // In an index, the analyzer evaluates the shuffle and finds it; in a
  // stored value, which no figure depends on, the thread-by-thread trace
  // (the checks' run) does.
  const ir::Program InIndex = parseOrFail("target sm_90\n"
                                          "kernel k(b: global i32[64]) grid (1) block (64) {\n"
                                          "  b[shfl_up(lane, tx - 40) % 64] = 1\n"
                                          "}\n");
  const ir::Program Stored = parseOrFail("target sm_90\n"
                                         "kernel k(b: global i32[64]) grid (1) block (64) {\n"
                                         "  b[tid] = shfl_up(lane, tx - 40)\n"
                                         "}\n");
  const std::string Want = "the distance of 'shfl_up' is -40, negative (thread tid = 0";
  for (const bool Exhaustive : {false, true}) {
    AnalysisOptions O;
    O.Exhaustive = Exhaustive;
    try {
      (void)analyzeKernel(InIndex, InIndex.Kernels[0], O);
      FAIL("no error");
    } catch (const UserError &E) {
      CHECK(std::string(E.what()).find(Want) != std::string::npos);
    }
  }
  try {
    (void)traceKernel(Stored, Stored.Kernels[0]);
    FAIL("no error");
  } catch (const UserError &E) {
    CHECK(std::string(E.what()).find(Want) != std::string::npos);
  }
}
