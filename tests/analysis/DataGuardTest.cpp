// Data-dependent control flow (docs/analysis.md): conditions and loop bounds
// that read memory the analysis does not know. The sites under them are
// counted at the worst case (every lane that reaches them), with the
// expected DMM congestion when each lane takes the branch with probability
// 1/2; --data makes them exact; the fast path agrees with the warp-by-warp
// one.

#include "analysis/models/MemoryModel.h"
#include "analysis/passes/KernelAnalysis.h"
#include "support/Random.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

KernelReport analyze(const ir::Program &P, const AnalysisOptions &O = {}) {
  return analyzeKernel(P, P.Kernels.at(0), O);
}

const AccessSiteReport &site(const KernelReport &R, const std::string &Array, bool IsWrite) {
  for (const AccessSiteReport &S : R.Sites)
    if (S.Array == Array && S.IsWrite == IsWrite)
      return S;
  FAIL("no site for " << Array);
  return R.Sites.front();
}

/// E[congestion] over every subset of the lanes, each with probability
/// 1/2: the definition, by enumeration.
double bruteExpectedHalf(const std::vector<Address> &Lanes, std::int64_t W) {
  std::vector<Address> On;
  for (Address A : Lanes)
    if (A != NoAccess)
      On.push_back(A);
  const auto K = On.size();
  double Sum = 0;
  for (std::uint64_t Subset = 0; Subset < (std::uint64_t(1) << K); ++Subset) {
    std::vector<Address> Pick(Lanes.size(), NoAccess);
    for (std::size_t I = 0; I < K; ++I)
      if ((Subset >> I) & 1)
        Pick[I] = On[I];
    Sum += static_cast<double>(dmmCongestion(Pick, W));
  }
  return Sum / static_cast<double>(std::uint64_t(1) << K);
}

} // namespace

TEST_CASE("expected congestion with each lane in at probability 1/2") {
  // The contract's worked examples.
  CHECK(expectedHalfLaneCongestion(std::vector<Address>{0, 32, 64, 96}, 32) == doctest::Approx(2.0));
  CHECK(expectedHalfLaneCongestion(std::vector<Address>{5, 5, 5, 5}, 32) == doctest::Approx(0.9375));
  std::vector<Address> Row(32);
  for (int L = 0; L < 32; ++L)
    Row[static_cast<std::size_t>(L)] = L;
  CHECK(expectedHalfLaneCongestion(Row, 32) == doctest::Approx(1.0 - std::ldexp(1.0, -32)));
  CHECK(expectedHalfLaneCongestion(std::vector<Address>{NoAccess, NoAccess}, 32) == 0);
  // Against enumeration on random small warps (w = 4 and 8, up to 12 lanes,
  // repeated addresses and idle lanes included).
  Rng R(20261124);
  for (int Trial = 0; Trial < 200; ++Trial) {
    const std::int64_t W = Trial % 2 ? 4 : 8;
    const auto N = static_cast<std::size_t>(1 + R.below(12));
    std::vector<Address> Lanes(N);
    for (Address &A : Lanes)
      A = R.below(5) == 0 ? NoAccess : static_cast<Address>(R.below(static_cast<std::uint64_t>(3 * W)));
    CAPTURE(Trial);
    CHECK(expectedHalfLaneCongestion(Lanes, W) == doctest::Approx(bruteExpectedHalf(Lanes, W)));
  }
}

TEST_CASE("a condition that reads data: both branches at worst case, exact with --data") {
  const ir::Program P = parseOrFail(R"(target sm_90
param N = 1000
kernel k(f: global i32[N], a: global f32[N], b: global f32[N], c: global f32[N])
    grid ((N + 255) / 256) block (256) {
  let i = bx * 256 + tx
  if i < N && f[i] > 0 {
    b[i] = a[i]
  } else {
    if i < N { c[i] = a[i] }
  }
}
)");
  const KernelReport R = analyze(P);
  const AccessSiteReport &B = site(R, "b", true);
  CHECK(B.DataGuarded);
  CHECK_FALSE(B.DataDependent);
  CHECK(B.GuardSource == "f");
  CHECK(B.GuardLoc.Line == 6);
  CHECK_FALSE(B.GuardIsLoop);
  // Lanes with i >= N never take the branch: 1000 thread accesses, not 1024.
  CHECK(B.ThreadAccesses == 1000);
  CHECK(B.Sectors.Max == 4);
  // 32 consecutive words: one address per bank, so 1 - 2^-k expected.
  CHECK(B.ExpectedGuardCongestion < 1.0);
  CHECK(B.ExpectedGuardCongestion > 0.99);
  CHECK(R.TimeUsesWorstCase);
  // The else runs on every lane (those with i >= N surely, the rest maybe).
  CHECK(site(R, "c", true).DataGuarded);
  CHECK(site(R, "c", true).ThreadAccesses == 1000);
  // The condition's own read is not under it.
  CHECK_FALSE(site(R, "f", false).DataGuarded);
  // The fast path and the warp-by-warp path agree.
  AnalysisOptions Ex;
  Ex.Exhaustive = true;
  const KernelReport E = analyze(P, Ex);
  for (std::size_t I = 0; I < R.Sites.size(); ++I) {
    CAPTURE(R.Sites[I].Array);
    CHECK(R.Sites[I] == E.Sites[I]);
  }
  // With the values: f > 0 in the first half of every 64 elements, so
  // half the warps write b, the others c.
  AnalysisOptions O;
  O.Data["f"].resize(1000);
  for (std::size_t I = 0; I < 1000; ++I)
    O.Data["f"][I] = I % 64 < 32 ? 1 : 0;
  const KernelReport D = analyze(P, O);
  CHECK_FALSE(site(D, "b", true).DataGuarded);
  CHECK(site(D, "b", true).ThreadAccesses == 512);
  CHECK(site(D, "c", true).ThreadAccesses == 488);
  CHECK_FALSE(D.TimeUsesWorstCase);
}

TEST_CASE("a shared write under a data branch: expected congestion below the worst") {
  const ir::Program P = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(f: shared i32[1024], s: shared f32[32][32]) threads 1024 {
  if f[tid] != 0 { s[tid % 32][tid / 32] = 1 }
}
)");
  const KernelReport R = analyze(P); // the site is a reference into it
  const AccessSiteReport &S = site(R, "s", true);
  CHECK(S.DataGuarded);
  CHECK(S.Congestion.Max == 32); // a column: every lane in one bank
  CHECK(S.Congestion.Min == 32);
  // 32 distinct addresses in one bank, each present with probability 1/2.
  CHECK(S.ExpectedGuardCongestion == doctest::Approx(16.0));
}

TEST_CASE("a loop whose end reads data: its first 32 iterations, fewer when an index leaves") {
  const ir::Program P = parseOrFail(R"(target sm_90
kernel k(len: global i32[64], a: global f32[64][40], b: global f32[64][10])
    grid (8) block (32, 8) {
  let r = bx * 8 + ty
  for j in 0..len[r] {
    a[r][j] = 0
  }
  for j in 0..len[r] {
    b[r][tx % 10] = j
  }
}
)");
  const KernelReport R = analyze(P);
  // a: 64 warps over 32 sampled iterations.
  const AccessSiteReport &A = site(R, "a", true);
  CHECK(A.DataGuarded);
  CHECK(A.GuardIsLoop);
  CHECK(A.GuardSource == "len");
  CHECK(A.WarpExecutions == 64 * 32);
  // b's index never leaves, and the counter is known per iteration.
  CHECK(site(R, "b", true).WarpExecutions == 64 * 32);
  // A row of 10: the sampling of the loop writing b[r][j] stops at j = 10.
  const ir::Program Q = parseOrFail(R"(target sm_90
kernel k(len: global i32[64], b: global f32[64][10]) grid (8) block (32, 8) {
  let r = bx * 8 + ty
  for j in 0..len[r] { b[r][j] = 0 }
}
)");
  CHECK(site(analyze(Q), "b", true).WarpExecutions == 64 * 10);
  // With the values: len[r] = 3, three iterations exactly.
  AnalysisOptions O;
  O.Data["len"].assign(64, 3);
  const KernelReport D = analyze(Q, O);
  CHECK(site(D, "b", true).WarpExecutions == 64 * 3);
  CHECK_FALSE(site(D, "b", true).DataGuarded);
}

TEST_CASE("a loop whose start reads data, and a local set under a data branch") {
  const ir::Program P = parseOrFail(R"(target sm_90
kernel k(start: global i32[256], a: global f32[4096], b: global f32[256], c: global f32[256])
    grid (1) block (256) {
  for j in start[tx]..start[tx] + 4 {
    b[tx] = a[j]
  }
  let x = tx
  if start[tx] > 0 { x = 0 }
  c[x] = 1
}
)");
  const KernelReport R = analyze(P);
  const AccessSiteReport &A = site(R, "a", false);
  CHECK(A.DataGuarded);
  CHECK(A.DataDependent); // the counter is unknown
  CHECK(A.DataSource == "start");
  CHECK(site(R, "b", true).DataGuarded);
  CHECK_FALSE(site(R, "b", true).DataDependent);
  // x may be tx or 0: c's index is data.
  const AccessSiteReport &C = site(R, "c", true);
  CHECK(C.DataDependent);
  CHECK_FALSE(C.DataGuarded);
}

TEST_CASE("a '?:' whose condition reads data: both arms at worst case, the value data") {
  const ir::Program P = parseOrFail(R"(target sm_90
kernel k(f: global i32[256], a: global f32[256], b: global f32[256]) grid (1) block (256) {
  b[tx] = f[tx] > 0 ? a[tx] : a[255 - tx]
}
)");
  const KernelReport R = analyze(P);
  int Arms = 0;
  for (const AccessSiteReport &S : R.Sites)
    if (S.Array == "a") {
      ++Arms;
      CHECK(S.DataGuarded);
      CHECK(S.ThreadAccesses == 256);
    }
  CHECK(Arms == 2);
  CHECK_FALSE(site(R, "b", true).DataGuarded);
}

TEST_CASE("loops under a data guard whose counter is declared inside it stay on the counting path") {
  // The last block of a public reduction: thread 0 takes a ticket, the block
  // tests it after a barrier and sums the partial results in a grid-stride
  // while loop, then halves a stride in a loop without a counter.
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "param n = 300\n"
                                    "kernel k(a: global f32[4096], cnt: global u32[4]) grid (8) block (128) {\n"
                                    "  shared last: u32[1]\n"
                                    "  shared s: f32[128]\n"
                                    "  if tx == 0 {\n"
                                    "    let t = atomic_add(cnt[0], 1)\n"
                                    "    last[0] = t\n"
                                    "  }\n"
                                    "  sync\n"
                                    "  if last[0] == 7 {\n"
                                    "    let i = tx\n"
                                    "    let sum = 0\n"
                                    "    while i < n { sum = sum + a[i]\n i = i + 128 }\n"
                                    "    s[tx] = sum\n"
                                    "    sync\n"
                                    "    let h = 64\n"
                                    "    while h > 0 {\n"
                                    "      if tx < h { s[tx] = s[tx] + s[tx + h] }\n"
                                    "      sync\n"
                                    "      h = h / 2\n"
                                    "    }\n"
                                    "  }\n"
                                    "}\n");
  bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
  // A counter from outside the guard would be unknown after the loop: the
  // runs per warp handle it, with the same figures.
  const ir::Program Q = parseOrFail("target sm_90\n"
                                    "param n = 300\n"
                                    "kernel k(a: global f32[4096], f: global u32[8]) grid (8) block (128) {\n"
                                    "  let i = tx\n"
                                    "  if f[bx] > 0 {\n"
                                    "    while i < n { a[i] = 1\n i = i + 128 }\n"
                                    "  }\n"
                                    "  a[i] = 2\n"
                                    "}\n");
  const auto [FastQ, SlowQ] = bankwise::testing::fastAndExhaustive(Q, Q.Kernels.at(0));
  CHECK_FALSE(FastQ.FastPath);
  CHECK(FastQ.FallbackReason == "a while loop under a data-dependent condition");
  bankwise::testing::checkSameReports(FastQ, SlowQ);
}

TEST_CASE("a local declared on part of a warp is assigned whole on those lanes") {
  // Block width 48: no warp family, so `tx == 0` is lane 0 of warp 0 in the
  // runs per warp position. v exists there only; the round-up choice on a
  // per-block count assigns it on all of its lanes (merge sort's iDivUp
  // under `if (threadIdx.x == 0)`).
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "param n = 1000\n"
                                    "kernel k(b: global u32[4096]) grid (8) block (48) {\n"
                                    "  shared cnt: u32[1]\n"
                                    "  if tx == 0 {\n"
                                    "    let a = n - bx * 100\n"
                                    "    let v = 0\n"
                                    "    if a % 128 == 0 { v = a / 128 } else { v = a / 128 + 1 }\n"
                                    "    cnt[0] = v\n"
                                    "    b[bx * 8 + v % 8] = v\n"
                                    "  }\n"
                                    "  sync\n"
                                    "  b[bx * 48 + tx] = cnt[0]\n"
                                    "}\n");
  bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
}

TEST_CASE("a loop from each lane's start to a data end bounded by a known one stops at the known end") {
  // A public kernel's `for (i = tid + 32; i < min(256, bucket_size * 32); i
  // += 32)`: lanes leave at 256 whatever the data. Warp w starts at 32 (w +
  // 1): 7 - w trips, 28 a block; sampling 32 trips would run on to the
  // array's end at 512 (15 - w trips, 92 a block).
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(n: global i32[4]) grid (4) block (256) {\n"
                                    "  shared s: f32[512]\n"
                                    "  for i in tx + 32..min(256, n[bx] * 32) step 32 {\n"
                                    "    s[i] = 1\n"
                                    "  }\n"
                                    "}\n");
  bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
  const KernelReport R = analyze(P);
  CHECK(site(R, "s", true).WarpExecutions == 4 * 28);
}
