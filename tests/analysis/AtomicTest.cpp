// Atomics under the models (docs/analysis.md, "Atomics"): same-address
// serialization and the DMM congestion of an atomic (lanes per bank,
// repeats counted), against a count made here lane by lane; the
// histogram example of the docs; the fast path against warp-by-warp
// evaluation.

#include "analysis/models/MemoryModel.h"
#include "analysis/passes/KernelAnalysis.h"
#include "support/Random.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

const AccessSiteReport &atomicSite(const KernelReport &R) {
  for (const AccessSiteReport &S : R.Sites)
    if (S.IsAtomic)
      return S;
  FAIL("no atomic site");
  return R.Sites.front();
}

/// Per-warp figures of an atomic on one array, counted here lane by lane:
/// the element of every thread, grouped by warp.
struct Counted {
  std::int64_t SerialMin = 1 << 30, SerialMax = 0, CongMin = 1 << 30, CongMax = 0;
  double SerialSum = 0;
  std::int64_t Warps = 0;
};

Counted countWarps(std::int64_t Threads, std::int64_t W, const std::function<std::int64_t(std::int64_t)> &Elem) {
  Counted C;
  for (std::int64_t Base = 0; Base < Threads; Base += W) {
    std::map<std::int64_t, std::int64_t> Same, Bank;
    for (std::int64_t T = Base; T < std::min(Base + W, Threads); ++T) {
      ++Same[Elem(T)];
      ++Bank[Elem(T) % W];
    }
    std::int64_t S = 0, B = 0;
    for (const auto &[K, N] : Same)
      S = std::max(S, N);
    for (const auto &[K, N] : Bank)
      B = std::max(B, N);
    C.SerialMin = std::min(C.SerialMin, S);
    C.SerialMax = std::max(C.SerialMax, S);
    C.CongMin = std::min(C.CongMin, B);
    C.CongMax = std::max(C.CongMax, B);
    C.SerialSum += static_cast<double>(S);
    ++C.Warps;
  }
  return C;
}

} // namespace

TEST_CASE("atomic models: same-address serialization and DMM congestion with repeats") {
  CHECK(atomicSerialization(std::vector<Address>{3, 3, NoAccess, 5, 3}) == 3);
  CHECK(atomicSerialization(std::vector<Address>{0, 1, 2, 3}) == 1);
  CHECK(atomicSerialization(std::vector<Address>{NoAccess, NoAccess}) == 0);
  CHECK(dmmAtomicCongestion(std::vector<Address>{0, 0, 4, 1}, 4) == 3);
  CHECK(dmmCongestion(std::vector<Address>{0, 0, 4, 1}, 4) == 2); // reads of one address merge
  // Against a brute-force count on random warps: for every address, the
  // lanes on it; for every bank, the lanes in it.
  Rng R(99);
  for (int Trial = 0; Trial < 2000; ++Trial) {
    const std::int64_t W = 1 + static_cast<std::int64_t>(R.below(64));
    std::vector<Address> Lanes(static_cast<std::size_t>(W));
    for (Address &A : Lanes)
      A = R.below(5) == 0 ? NoAccess : static_cast<Address>(R.below(1 + R.below(200)));
    std::int64_t Serial = 0, Cong = 0;
    for (Address A : Lanes) {
      if (A == NoAccess)
        continue;
      Serial = std::max<std::int64_t>(Serial, std::count(Lanes.begin(), Lanes.end(), A));
      Cong = std::max<std::int64_t>(Cong, std::count_if(Lanes.begin(), Lanes.end(), [&](Address B) {
                                      return B != NoAccess && B % W == A % W;
                                    }));
    }
    CAPTURE(Trial);
    CHECK(atomicSerialization(Lanes) == Serial);
    CHECK(dmmAtomicCongestion(Lanes, W) == Cong);
    // Never less than the plain access's congestion, never more than the lanes.
    CHECK(dmmAtomicCongestion(Lanes, W) >= dmmCongestion(Lanes, W));
  }
}

TEST_CASE("docs/analysis.md's histogram: one bin for every lane serializes 32, 32 bins serialize 1") {
  // 256 values into a shared histogram of 32 bins, warp by warp: when a
  // warp's 32 lanes add their values to one bin they take 32 turns on one
  // address (and the DMM counts the 32 in one bank); bins that differ per
  // lane take one. The values are data (v[tid]): nvcc issues such an add
  // lane by lane (AtomicIssue.h; an add of 1 it would combine).
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel same(out: global i32[32], v: global i32[256]) grid (1) block (256) {\n"
                                    "  shared hist: i32[32] layout raw\n"
                                    "  if tx < 32 { hist[tx] = 0 }\n"
                                    "  sync\n"
                                    "  atomic_add(hist[warp], v[tid])\n"
                                    "  sync\n"
                                    "  if tx < 32 { out[tx] = hist[tx] }\n"
                                    "}\n"
                                    "kernel spread(out: global i32[32], v: global i32[256]) grid (1) block (256) {\n"
                                    "  shared hist: i32[32] layout raw\n"
                                    "  if tx < 32 { hist[tx] = 0 }\n"
                                    "  sync\n"
                                    "  atomic_add(hist[lane], v[tid])\n"
                                    "  sync\n"
                                    "  if tx < 32 { out[tx] = hist[tx] }\n"
                                    "}\n");
  for (const bool Exhaustive : {false, true}) {
    CAPTURE(Exhaustive);
    AnalysisOptions O;
    O.Exhaustive = Exhaustive;
    const AccessSiteReport Same = atomicSite(analyzeKernel(P, P.Kernels[0], O));
    CHECK(Same.Op == ir::AtomicOp::Add);
    CHECK(Same.IsWrite);
    CHECK(Same.Issue == AtomicIssue::PerLane);
    CHECK(Same.WarpExecutions == 8);
    CHECK(Same.Serialization.Min == 32);
    CHECK(Same.Serialization.Max == 32);
    CHECK(Same.Congestion.Max == 32); // 32 lanes in one bank, repeats counted
    CHECK(Same.Wavefronts.Max == 32); // measured on H200: s_warpdata, ATOMS.ADD, 32 a request
    const AccessSiteReport Spread = atomicSite(analyzeKernel(P, P.Kernels[1], O));
    CHECK(Spread.Serialization.Min == 1);
    CHECK(Spread.Serialization.Max == 1);
    CHECK(Spread.Congestion.Max == 1);
    CHECK(Spread.Wavefronts.Max == 1);
  }
}

namespace {

/// The atomic of a one-statement kernel of 256 threads (the probes of
/// bench/atomics/aggregation.cu, in .bw): s a shared scalar, h 32 and big
/// 1024 shared words, v data, p a parameter, g a global array.
AccessSiteReport probe(const std::string &Stmt, const std::string &Elem = "i32",
                       const std::string &Machine = "target sm_90") {
  const ir::Program P = parseOrFail(fmt::format("{0}\nparam p = 5\n"
                                                "kernel k(out: global {1}[1024], v: global {1}[256], "
                                                "g: global {1}[64]) grid (1) block (256) {{\n"
                                                "  shared s: {1}[1] layout raw\n"
                                                "  shared h: {1}[32] layout raw\n"
                                                "  shared big: {1}[1024] layout raw\n"
                                                "  {2}\n"
                                                "}}\n",
                                                Machine, Elem, Stmt));
  const KernelReport R = analyzeKernel(P, P.Kernels[0]);
  return atomicSite(R);
}

} // namespace

TEST_CASE("issuedLanes keeps the lanes whose requests reach memory") {
  const std::vector<Address> L = {NoAccess, 3, 3, NoAccess, 5, 3};
  CHECK(issuedLanes(L, AtomicIssue::PerLane) == L);
  CHECK(issuedLanes(L, AtomicIssue::OnePerWarp) ==
        std::vector<Address>{NoAccess, 3, NoAccess, NoAccess, NoAccess, NoAccess});
  CHECK(issuedLanes(L, AtomicIssue::PerAddress) == std::vector<Address>{NoAccess, 3, NoAccess, NoAccess, 5, NoAccess});
}

TEST_CASE("atomics as nvcc -O3 issues them on sm_90, as measured (bench/results/h100/atomic-aggregation.md)") {
  // Each row: the probe's statement, its measured wavefronts per request
  // on H200 (nvcc 13.0 -O3), and how it was issued (the SASS).
  struct Row {
    const char *Stmt;
    std::int64_t Wavefronts;
    AtomicIssue Issue;
  };
  const Row Rows[] = {
      {"atomic_add(s[0], 1)", 1, AtomicIssue::OnePerWarp},              // s_const1: ATOMS.POPC.INC
      {"atomic_add(s[0], 3)", 1, AtomicIssue::OnePerWarp},              // s_const3: POPC, ATOMS.ADD
      {"atomic_sub(s[0], 1)", 1, AtomicIssue::OnePerWarp},              // s_sub1
      {"atomic_add(s[0], p)", 1, AtomicIssue::OnePerWarp},              // s_param
      {"atomic_add(s[0], v[tid])", 1, AtomicIssue::OnePerWarp},         // s_data: REDUX.SUM
      {"atomic_add(s[0], tid)", 1, AtomicIssue::OnePerWarp},            // s_tid
      {"atomic_max(s[0], v[tid])", 1, AtomicIssue::OnePerWarp},         // s_maxdata: REDUX.MAX
      {"atomic_or(s[0], 4)", 1, AtomicIssue::OnePerWarp},               // s_or: REDUX.OR
      {"let o = atomic_add(s[0], 1)\n  out[tid] = o", 1, AtomicIssue::OnePerWarp}, // s_used1
      {"atomic_add(h[bx % 32], 1)", 1, AtomicIssue::OnePerWarp},        // s_bid
      {"atomic_add(h[p % 32], v[tid])", 1, AtomicIssue::OnePerWarp},    // s_pidx (a value here)
      {"atomic_exch(s[0], 7)", 32, AtomicIssue::PerLane},               // s_exch: ATOMS.EXCH
      {"atomic_add(h[warp], 1)", 1, AtomicIssue::PerAddress},           // s_warp: ATOMS.POPC.INC
      {"atomic_add(h[lane], 1)", 1, AtomicIssue::PerAddress},           // s_lane
      {"atomic_add(big[32 * lane], 1)", 32, AtomicIssue::PerAddress},   // s_bank1: 32 addresses, one bank
      {"atomic_add(big[lane / 2], 1)", 1, AtomicIssue::PerAddress},     // s_pair1
      {"atomic_add(big[32 * (lane % 2)], 1)", 2, AtomicIssue::PerAddress}, // s_twobank1
      {"atomic_add(h[warp], v[tid])", 32, AtomicIssue::PerLane},        // s_warpdata: ATOMS.ADD
      {"atomic_add(h[warp], 3)", 32, AtomicIssue::PerLane},             // s_warpconst3
      {"atomic_sub(h[warp], 1)", 32, AtomicIssue::PerLane},             // s_warpsub1
      {"atomic_max(h[warp], 5)", 32, AtomicIssue::PerLane},             // s_warpmax
      {"atomic_inc(s[0], 100)", 32, AtomicIssue::PerLane},              // s_inc: ATOMS.INC
      {"let o = atomic_add(h[warp], 1)\n  out[tid] = o", 32, AtomicIssue::PerLane}, // s_warpused1
  };
  for (const Row &R : Rows) {
    CAPTURE(R.Stmt);
    const std::string Elem = std::string(R.Stmt).find("atomic_inc") != std::string::npos ? "u32" : "i32";
    const AccessSiteReport S = probe(R.Stmt, Elem);
    CHECK(S.Issue == R.Issue);
    CHECK(S.Wavefronts.Max == R.Wavefronts);
    CHECK(S.Wavefronts.Min == R.Wavefronts);
    // Lanes on one address take no turns once combined.
    if (R.Issue != AtomicIssue::PerLane)
      CHECK(S.Serialization.Max == 1);
  }
  // f32 and 64-bit shared atomics are a compare-and-swap loop on sm_90
  // (ATOMS.CAST.SPIN): not combined, still priced lane by lane.
  CHECK(probe("atomic_add(s[0], 1.0)", "f32").Issue == AtomicIssue::PerLane);
  CHECK(probe("atomic_add(s[0], 1)", "u64").Issue == AtomicIssue::PerLane);
  // Global: a uniform address's adds go out as one RED (g_const1, g_data);
  // elsewhere lane by lane.
  const AccessSiteReport G1 = probe("atomic_add(g[0], v[tid])");
  CHECK(G1.Issue == AtomicIssue::OnePerWarp);
  CHECK(G1.Serialization.Max == 1);
  const AccessSiteReport G2 = probe("atomic_add(g[warp], 1)");
  CHECK(G2.Issue == AtomicIssue::PerLane);
  CHECK(G2.Serialization.Max == 32);
  // The abstract machines have no compiler: every atomic lane by lane.
  const AccessSiteReport D = probe("atomic_add(s[0], 1)", "i32", "machine dmm(w: 32, l: 1)");
  CHECK(D.Issue == AtomicIssue::PerLane);
  CHECK(D.Congestion.Max == 32);
  CHECK(D.Serialization.Max == 32);
}

TEST_CASE("global atomics: sectors as a plain access, serialization per address") {
  // 64 threads add to c[tid / 4]: four lanes per address, 8 addresses of 4
  // bytes per warp, one sector.
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(c: global u32[16], v: global u32[64]) grid (1) block (64) {\n"
                                    "  let old = atomic_add(c[tid / 4], v[tid])\n"
                                    "  v[tid] = old\n"
                                    "}\n");
  const KernelReport R = analyzeKernel(P, P.Kernels[0]);
  const AccessSiteReport &S = atomicSite(R);
  CHECK(S.Space == ir::MemSpace::Global);
  CHECK(S.Serialization.Min == 4);
  CHECK(S.Serialization.Max == 4);
  CHECK(S.Sectors.Max == 1);
  CHECK(S.Groups.Max == 1);
  // The old value is data: v[tid] = old writes whatever it was.
  CHECK(R.Sites.size() == 3);
}

TEST_CASE("atomic figures equal a lane-by-lane count, and the fast path the warp-by-warp one") {
  Rng R(20261124);
  for (int Trial = 0; Trial < 60; ++Trial) {
    const std::int64_t A = static_cast<std::int64_t>(R.below(5)), B = static_cast<std::int64_t>(R.below(3));
    const std::int64_t M = 1 + static_cast<std::int64_t>(R.below(96)), Block = 32 * (1 + R.below(4));
    const std::int64_t Grid = 1 + static_cast<std::int64_t>(R.below(3));
    const bool Shared = R.below(2);
    // element of thread t (t the flat thread in the block, b the block)
    const std::string Index = fmt::format("({} * tx + {} * bx + tx / 7) % {}", A, B, M);
    const std::string Text =
        Shared ? fmt::format("machine dmm(w: 32, l: 1)\n"
                             "kernel k(g: global i32[{}]) grid ({}) block ({}) {{\n"
                             "  shared s: i32[{}] layout raw\n"
                             "  atomic_add(s[{}], 1)\n"
                             "  sync\n"
                             "  g[bx * {} + tx] = s[tx % {}]\n"
                             "}}\n",
                             Grid * Block, Grid, Block, M, Index, Block, M)
               : fmt::format("machine dmm(w: 32, l: 1)\n"
                             "kernel k(g: global i32[{}]) grid ({}) block ({}) {{\n"
                             "  atomic_max(g[{}], tx)\n"
                             "}}\n",
                             M, Grid, Block, Index);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const auto [Fast, Slow] = testing::fastAndExhaustive(P, P.Kernels[0]);
    testing::checkSameReports(Fast, Slow);
    // Every block's warps alike here; count block by block.
    Counted C;
    for (std::int64_t Bx = 0; Bx < Grid; ++Bx) {
      const Counted One = countWarps(Block, 32, [&](std::int64_t T) { return (A * T + B * Bx + T / 7) % M; });
      C.SerialMin = std::min(C.SerialMin, One.SerialMin);
      C.SerialMax = std::max(C.SerialMax, One.SerialMax);
      C.CongMin = std::min(C.CongMin, One.CongMin);
      C.CongMax = std::max(C.CongMax, One.CongMax);
      C.SerialSum += One.SerialSum;
      C.Warps += One.Warps;
    }
    const AccessSiteReport &S = atomicSite(Fast);
    CHECK(S.WarpExecutions == C.Warps);
    CHECK(S.Serialization.Min == C.SerialMin);
    CHECK(S.Serialization.Max == C.SerialMax);
    CHECK(S.Serialization.Sum == doctest::Approx(C.SerialSum));
    // An atomic's DMM congestion counts the lanes per bank, repeats counted.
    CHECK(S.Congestion.Min == C.CongMin);
    CHECK(S.Congestion.Max == C.CongMax);
  }
}

TEST_CASE("atomics whose index is data: every lane may meet, exact with --data") {
  CHECK(expectedHalfLaneAtomicCongestion(std::vector<Address>{5, 5, 5, 5}, 32) == doctest::Approx(2.0));
  CHECK(expectedHalfLaneCongestion(std::vector<Address>{5, 5, 5, 5}, 32) == doctest::Approx(0.9375));
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(keys: global i32[64], hist: global u32[64]) grid (1) block (64) {\n"
                                    "  atomic_add(hist[keys[tx] % 64], 1)\n"
                                    "}\n");
  const AccessSiteReport S = atomicSite(analyzeKernel(P, P.Kernels[0]));
  CHECK(S.DataDependent);
  CHECK(S.DataSource == "keys");
  CHECK(S.WorstCongestion == 32);
  CHECK(S.ExpectedRapCongestion == doctest::Approx(expectedMaxLoad(32, 32)));
  // Given the keys: lanes 0..31 all on bin 3, lanes 32..63 on 32 bins.
  AnalysisOptions O;
  std::vector<std::int64_t> Keys(64, 3);
  for (int I = 32; I < 64; ++I)
    Keys[static_cast<std::size_t>(I)] = I;
  O.Data["keys"] = Keys;
  const AccessSiteReport E = atomicSite(analyzeKernel(P, P.Kernels[0], O));
  CHECK(!E.DataDependent);
  CHECK(E.Serialization.Min == 1);
  CHECK(E.Serialization.Max == 32);
  CHECK(E.Congestion.Max == 32);
}
