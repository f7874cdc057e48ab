// Data-dependent sites against their definitions (docs/analysis.md,
// "Data-dependent indices"): the expected congestion is the mean over the
// warp executions of E[max load] of each one's own active lanes in w random
// banks, computed here by enumeration and by sampling, apart from
// expectedMaxLoad; and data read at a warp-uniform index is one value in
// every lane, so an index built from it is priced exactly when its cost
// does not depend on the value, which the tests check against runs that
// know the data (--data) for random values.

#include "analysis/passes/KernelAnalysis.h"
#include "dsl/Parser.h"
#include "support/Random.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

KernelReport analyze(const ir::Program &P, const std::string &Kernel, const AnalysisOptions &O = {}) {
  const ir::Kernel *K = P.findKernel(Kernel);
  REQUIRE(K != nullptr);
  return analyzeKernel(P, *K, O);
}

const AccessSiteReport &site(const KernelReport &R, const std::string &Array, bool IsWrite = false) {
  for (const AccessSiteReport &S : R.Sites)
    if (S.Array == Array && S.IsWrite == IsWrite)
      return S;
  FAIL("no site for " << Array);
  return R.Sites.front();
}

/// E[max load] of K balls in W bins by visiting all W^K placements.
double enumeratedMaxLoad(int K, int W) {
  std::vector<int> Bin(static_cast<std::size_t>(K), 0);
  double Sum = 0;
  std::int64_t Count = 0;
  while (true) {
    std::vector<int> Load(static_cast<std::size_t>(W), 0);
    for (int B : Bin)
      ++Load[static_cast<std::size_t>(B)];
    Sum += *std::max_element(Load.begin(), Load.end());
    ++Count;
    int I = 0;
    while (I < K && ++Bin[static_cast<std::size_t>(I)] == W)
      Bin[static_cast<std::size_t>(I++)] = 0;
    if (I == K)
      break;
  }
  return Sum / static_cast<double>(Count);
}

} // namespace

TEST_CASE("data-dependent expected congestion: the mean over warps, each at its own active lanes") {
  // w = 4: warps of 4 lanes; a guard `tid < N` leaves the warps 4, ..., 4,
  // N % 4 active lanes, and the warps past N none (no execution).
  for (int N = 1; N <= 16; ++N) {
    const ir::Program P = parseOrFail(fmt::format(R"(machine dmm(w: 4, l: 1)
kernel g(a: shared f32[4096], idx: global i32[16], b: global f32[16]) threads 16 {{
  if tid < {} {{ b[tid] = a[idx[tid]] }}
}}
)",
                                                  N));
    for (bool Exhaustive : {false, true}) {
      AnalysisOptions O;
      O.Exhaustive = Exhaustive;
      const AccessSiteReport &A = site(analyze(P, "g", O), "a");
      double Sum = 0;
      int Warps = 0;
      for (int First = 0; First < N; First += 4, ++Warps)
        Sum += enumeratedMaxLoad(std::min(4, N - First), 4);
      CAPTURE(N);
      CAPTURE(Exhaustive);
      if (N == 1) { // one lane reads data alike in all its lanes: exact
        CHECK_FALSE(A.DataDependent);
        CHECK(A.Congestion.Max == 1);
        continue;
      }
      REQUIRE(A.DataDependent);
      CHECK(A.WarpExecutions == Warps);
      CHECK(A.WorstCongestion == std::min(4, N));
      CHECK(A.ExpectedRapCongestion == doctest::Approx(Sum / Warps));
    }
  }
}

TEST_CASE("data-dependent expected congestion: N = 33 against random banks") {
  // Two warps, of 32 lanes and of 1; each lane's address in a bank drawn at
  // random (one row per lane, so the addresses differ: balls in bins).
  const ir::Program P = parseOrFail(R"(target sm_90
param N = 33
kernel gather(a: shared f32[1024], idx: global i32[N], b: global f32[N]) threads 64 {
  if tid < N { b[tid] = a[idx[tid]] }
}
)");
  const AccessSiteReport &A = site(analyze(P, "gather"), "a");
  REQUIRE(A.DataDependent);
  CHECK(A.WarpExecutions == 2);
  CHECK(A.WorstCongestion == 32);
  Rng R(12);
  const int Trials = 20000;
  double Sum = 0;
  for (int T = 0; T < Trials; ++T) {
    for (int Active : {32, 1}) {
      std::map<std::int64_t, int> PerBank;
      int Most = 0;
      for (int L = 0; L < Active; ++L)
        Most = std::max(Most, ++PerBank[static_cast<std::int64_t>(R.below(32))]);
      Sum += Most;
    }
  }
  const double Sampled = Sum / (2.0 * Trials);
  // About 2.27 (the mean of 3.53 and 1), not the 2.39 of 16 lanes, the
  // rounded-down mean of 33 lanes over two warps.
  CHECK(A.ExpectedRapCongestion == doctest::Approx(Sampled).epsilon(0.01));
  CHECK(A.ExpectedRapCongestion < 2.33);
}

TEST_CASE("data read at a warp-uniform index is one value in every lane") {
  // An embedding lookup: each block copies row ids[bx] of a table. The
  // table read costs what a row read costs, whatever ids holds, when the
  // row starts on whole periods (D = 64 floats: 256 bytes); with D = 40 its
  // sectors depend on the row, but its DMM congestion still does not.
  const ir::Program P = parseOrFail(R"(target sm_90
param B = 12
kernel embed(ids: global i32[B], table: global f32[100][64], out: global f32[B][64]) grid (B) block (64) {
  out[bx][tx] = table[ids[bx]][tx]
}
kernel embed_flat(ids: global i32[B], table: global f32[6400], out: global f32[768]) grid (B) block (64) {
  out[bx * 64 + tx] = table[ids[bx] * 64 + tx]
}
kernel embed_back(ids: global i32[B], table: global f32[6500], out: global f32[768]) grid (B) block (64) {
  out[bx * 64 + tx] = table[(ids[bx] + 1) * 64 + 30 - tx]
}
kernel embed_odd(ids: global i32[B], table: global f32[4000], out: global f32[480]) grid (B) block (40) {
  out[bx * 40 + tx] = table[ids[bx] * 40 + tx]
}
kernel embed_shared(ids: global i32[B], out: global f32[B][64]) grid (B) block (64) {
  shared t: f32[8][64]
  for r in 0..8 { t[r][tx] = 1.0 }
  sync
  let r = ids[bx] % 8
  out[bx][tx] = t[r][tx]
}
kernel embed_shuffled(ids: global i32[B], out: global f32[B][64]) grid (B) block (64) {
  shared t: f32[8][64]
  for r in 0..8 { t[r][tx] = 1.0 }
  sync
  let r = shfl(ids[bx] % 8, 3)
  out[bx][tx] = t[r][tx + 0]
}
kernel embed_column(ids: global i32[B], out: global f32[B][64]) grid (B) block (64) {
  shared t: f32[64][33]
  for r in 0..33 { t[tx][r] = 1.0 }
  sync
  out[bx][tx] = t[tx][ids[bx] % 33]
}
kernel per_lane(ids: global i32[768], out: global f32[768]) grid (B) block (64) {
  shared t: f32[8][64]
  for r in 0..8 { t[r][tx] = 1.0 }
  sync
  out[tid] = t[ids[tid] % 8][0]
}
kernel half_assigned(ids: global i32[B], out: global f32[B][64]) grid (B) block (64) {
  shared t: f32[8][64]
  for r in 0..8 { t[r][tx] = 1.0 }
  sync
  let r = ids[bx] % 8
  if tx % 2 == 0 { r = ids[(bx + 1) % B] % 8 }
  out[bx][tx] = t[r][0]
}
)");
  struct Case {
    const char *Kernel, *Array;
    bool Exact; ///< the costs do not depend on the data
  };
  // embed_back: lane 31's known part is -1 (row start + 30 - 31), one
  // element into the row before; it is an access like any other.
  const Case Cases[] = {{"embed", "table", true},         {"embed_flat", "table", true},
                        {"embed_back", "table", true},
                        {"embed_odd", "table", false},    {"embed_shared", "t", true},
                        {"embed_shuffled", "t", true},    {"embed_column", "t", true},
                        {"per_lane", "t", false},         {"half_assigned", "t", false}};
  Rng R(7);
  for (const Case &C : Cases) {
    const std::string Kernel = C.Kernel;
    CAPTURE(Kernel);
    for (bool Exhaustive : {false, true}) {
      CAPTURE(Exhaustive);
      AnalysisOptions O;
      O.Exhaustive = Exhaustive;
      const AccessSiteReport S = site(analyze(P, C.Kernel, O), C.Array);
      CHECK(S.DataDependent == !C.Exact);
      // Against runs that know the data: random ids, values 0..99.
      for (int Draw = 0; Draw < 8; ++Draw) {
        AnalysisOptions OD = O;
        std::vector<std::int64_t> &Ids = OD.Data["ids"];
        Ids.resize(768);
        for (std::int64_t &V : Ids)
          V = static_cast<std::int64_t>(R.below(100));
        const AccessSiteReport K = site(analyze(P, C.Kernel, OD), C.Array);
        REQUIRE_FALSE(K.DataDependent);
        if (C.Exact) {
          CHECK(S.Congestion == K.Congestion);
          CHECK(S.Groups == K.Groups);
          CHECK(S.Wavefronts == K.Wavefronts);
          CHECK(S.Sectors == K.Sectors);
          CHECK(S.Lines == K.Lines);
        } else {
          // A worst case the data never exceeds.
          CHECK(K.Congestion.Max <= S.WorstCongestion);
        }
      }
    }
  }
  // Where the row's start moves the sectors, the banks still only rotate:
  // congestion 1 in every warp, worst and expected.
  const AccessSiteReport Odd = site(analyze(P, "embed_odd"), "table");
  CHECK(Odd.WorstCongestion == 1);
  CHECK(Odd.ExpectedRapCongestion == doctest::Approx(1.0));
  // Data per lane, or data that only some lanes replaced, is data per lane:
  // column 0 of up to 8 rows, all in bank 0.
  CHECK(site(analyze(P, "per_lane"), "t").WorstCongestion == 8);
  CHECK(site(analyze(P, "half_assigned"), "t").WorstCongestion == 8);
}
