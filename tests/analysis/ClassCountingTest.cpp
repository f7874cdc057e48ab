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

namespace {

/// A tiled product's K loop (a public SGEMM's shape): each trip stages a
/// tile in shared memory, reads 16 x 16 elements of it and of a global
/// matrix, and steps the two global pointers (`pa += 16; pb += 16 * 64`).
std::string tiledLoop(std::int64_t K, const std::string &Layout, const std::string &Extra) {
  return fmt::format("target sm_90\n"
                     "param K = {}\n"
                     "kernel k(a: global f32[1048576], b: global f32[1048576]) grid (4, 2) block (16, 8) {{\n"
                     "  shared s: f32[1024] layout {}\n"
                     "  let pa = by * 64 * K + ty * K + tx\n"
                     "  let pb = bx * 16 + ty * 64 + tx\n"
                     "  let q = 1\n"
                     "  for k0 in 0..K step 16 {{\n"
                     "    s[ty * 34 + tx] = a[pa]\n"
                     "    sync\n"
                     "    for kk in 0..16 {{\n"
                     "      for j in 0..16 {{ let v = s[kk * 34 + j] + b[pb + kk * 64 + j] }}\n"
                     "    }}\n"
                     "    if k0 + 32 < K {{ s[ty * 34 + tx + 1] = 0 }}\n"
                     "    {}\n"
                     "    pa = pa + 16\n"
                     "    pb = pb + 16 * 64\n"
                     "    sync\n"
                     "  }}\n"
                     "}}\n",
                     K, Layout, Extra);
}

} // namespace

TEST_CASE("a heavy short loop runs its trips after the first as one symbolic trip, its pointers stepped") {
  // Trip by trip, a loop of T trips records T copies of its body's
  // accesses; as one symbolic trip (the trip a variable, `pa` and `pb`
  // affine in it), two: the first trip's and the symbolic one's, whatever
  // T is. A first trip of about 280 statements is heavy from 5 trips on
  // (HeavyUnrollWork); 2 and 3 trips still run one by one. Figures, time
  // and requests stay the warp-by-warp evaluation's, with a layout that
  // permutes within rows too.
  for (const std::string Layout : {"raw", "xor"}) {
    CAPTURE(Layout);
    std::vector<std::int64_t> Recorded;
    for (const std::int64_t K : {32, 48, 160, 640, 1008}) {
      CAPTURE(K);
      const ir::Program P = parseOrFail(tiledLoop(K, Layout, ""));
      bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
      Recorded.push_back(analyzeKernel(P, P.Kernels.at(0)).SymbolicAccesses);
    }
    CAPTURE(Recorded);
    // 10, 40 and 63 trips: one count; 3 trips: three copies of a trip (one
    // with the access under `k0 + 32 < K`), more than the two.
    CHECK(Recorded[3] == Recorded[2]);
    CHECK(Recorded[4] == Recorded[2]);
    CHECK(Recorded[1] > Recorded[2]);
  }
}

TEST_CASE("a long loop whose pointers step per trip stays on the counting path") {
  // 80 trips (more than are ever run one by one): before induction
  // variables were recognised, `pa = pa + 16` sent the kernel warp by warp.
  const ir::Program P = parseOrFail(tiledLoop(1280, "raw", ""));
  bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
}

TEST_CASE("a heavy short loop that cannot be one symbolic trip runs trip by trip, still counted") {
  // `q = q * 2` changes from trip to trip and is no induction variable;
  // `q = q + k0` steps by the loop's own variable, no constant step: the
  // symbolic try is undone and the trips run one by one, as before, on the
  // counting path (their recorded accesses grow with the trips).
  for (const std::string Extra : {"q = q * 2\n    s[q % 16] = 1", "q = q + k0\n    s[q % 16] = 1"}) {
    CAPTURE(Extra);
    std::vector<std::int64_t> Recorded;
    for (const std::int64_t K : {48, 160}) {
      CAPTURE(K);
      const ir::Program P = parseOrFail(tiledLoop(K, "raw", Extra));
      bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
      Recorded.push_back(analyzeKernel(P, P.Kernels.at(0)).SymbolicAccesses);
    }
    CHECK(Recorded[1] >= 3 * Recorded[0]); // 10 trips against 3
  }
}

TEST_CASE("a heavy while loop of few trips runs its unguarded trips after the first as one symbolic trip") {
  // A grid-stride loop over rows (llm.c's layernorm backward: a warp per
  // row), few rows per warp: the trips every warp runs after its first are
  // one symbolic trip, the last (guarded: some warps stop before it) trip
  // by trip; a pointer stepped per trip.
  std::vector<std::int64_t> Recorded;
  for (const std::int64_t Rows : {40, 72, 200, 480, 520}) {
    CAPTURE(Rows);
    const std::string Text = fmt::format(
        "target sm_90\n"
        "param R = {}\n"
        "kernel k(x: global f32[1048576], y: global f32[1048576]) grid (2) block (128) {{\n"
        "  shared t: f32[512] layout raw\n"
        "  let row = bx * 4 + ty + tx / 32\n"
        "  let p = (tx % 32) * 2\n"
        "  while row < R {{\n"
        "    for c in 0..8 {{\n"
        "      for e in 0..16 {{ let v = x[row * 512 + c * 64 + p + e] }}\n"
        "      t[(tx / 32) * 128 + c * 16 + tx % 16] = y[p]\n"
        "    }}\n"
        "    p = p + 3\n"
        "    row = row + 8\n"
        "  }}\n"
        "}}\n",
        Rows);
    const ir::Program P = parseOrFail(Text);
    bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
    Recorded.push_back(analyzeKernel(P, P.Kernels.at(0)).SymbolicAccesses);
  }
  // Every warp runs R / 8 trips (no guarded trip) of 144 accesses: 5 trips
  // are light enough to run one by one (5 copies); 9, 25 and 60 are the
  // first trip and one symbolic trip (2 copies); past 64 trips the loop was
  // always one symbolic trip (1 copy).
  CAPTURE(Recorded);
  CHECK(Recorded == std::vector<std::int64_t>{5 * 144, 2 * 144, 2 * 144, 2 * 144, 144});
}

TEST_CASE("a lane part the same in every lane is uniform: a remainder of it is one value per warp") {
  // llm.c's softmax: a warp per row, `idx = bx * 8 + tx / 32` (tx / 32 is
  // the warp's position, 0 in every lane's part), `idx % T` for a T that
  // divides nothing: one opaque value per warp, and `own / 4` of it again.
  // As a per-lane choice (every lane on the same arm) the second operation
  // left the affine domain and the kernel went warp by warp.
  for (const std::int64_t T : {1043, 97, 64, 5}) {
    CAPTURE(T);
    const std::string Text = fmt::format(
        "target sm_90\n"
        "param T = {}\n"
        "kernel k(x: global f32[1048576], y: global f32[1048576]) grid (16) block (256) {{\n"
        "  let idx = (16 - bx - 1) * 8 + tx / 32\n"
        "  let own = idx % T\n"
        "  let q = own / 4\n"
        "  for i in tx % 32..q step 32 {{ let v = x[idx * 64 + i] }}\n"
        "  if 4 * q + tx % 32 <= own {{ y[idx * T + 4 * q + tx % 32] = 1 }}\n"
        "}}\n",
        T);
    const ir::Program P = parseOrFail(Text);
    bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
  }
}

TEST_CASE("a row and column from a division and a remainder give back the index: b * T * C + t * C is idx * C") {
  // llm.c's kernels: `b = idx / T; t = idx % T; x[b * T * C + t * C + i]`.
  // T divides none of idx's coefficients, so b and t are opaque values per
  // warp and trip; their sum K T b + K t is K idx (X = T (X / T) + X % T),
  // affine again, and the loop's 512 trips are counted by residue, not
  // enumerated point by point (which the small work limit refuses).
  for (const std::int64_t T : {1000, 7, 64}) {
    CAPTURE(T);
    const std::string Text = fmt::format(
        "target sm_90\n"
        "param T = {}\n"
        "param C = 96\n"
        "kernel k(x: global f32[16777216], m: global f32[131072]) grid (32) block (256) {{\n"
        "  let idx = bx * 8 + tx / 32\n"
        "  while idx < 131072 {{\n"
        "    let b = idx / T\n"
        "    let t = idx % T\n"
        "    let r = m[b * T + t]\n"
        "    for i in tx % 32..C step 32 {{ let v = x[b * T * C + t * C + i] }}\n"
        "    idx = idx + 256\n"
        "  }}\n"
        "}}\n",
        T);
    const ir::Program P = parseOrFail(Text);
    bankwise::testing::checkCountedAsWarpByWarp(P, P.Kernels.at(0));
    AnalysisOptions Small;
    Small.WorkLimit = 20000; // under the 32 x 8 x 512 points of an enumeration
    const KernelReport R = analyzeKernel(P, P.Kernels.at(0), Small);
    CHECK(R.FastPath);
  }
}
