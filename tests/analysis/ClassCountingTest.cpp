// The class-counting fast path (guards on block indices and loop variables,
// opaque uniform values such as bitrev(bx, m), min, tables and divisions,
// symbolic long loops) against the warp-by-warp evaluator, which stays the
// definition: every per-site figure, the simulated time and the request
// count must be identical on thousands of random kernels and sizes.

#include "analysis/passes/KernelAnalysis.h"
#include "dsl/Parser.h"
#include "support/Random.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

std::int64_t pick(Rng &R, std::initializer_list<std::int64_t> Values) {
  return *(Values.begin() + R.below(Values.size()));
}

/// A random kernel of guarded global and shared accesses. Every access is in
/// bounds by construction: either its index range fits the array, or a
/// guard keeps the out-of-range lanes off (the fast path must then prove it
/// class by class).
std::string randomGuardedKernel(Rng &R) {
  const bool PowerOfTwo = R.below(3) == 0;
  const std::int64_t BX = pick(R, {8, 16, 32, 64}), BY = PowerOfTwo ? pick(R, {1, 2, 4}) : pick(R, {1, 2, 3, 4});
  const std::int64_t GX = PowerOfTwo ? pick(R, {1, 2, 4, 8, 16}) : 1 + static_cast<std::int64_t>(R.below(9));
  const std::int64_t GY = PowerOfTwo ? pick(R, {1, 2, 4}) : 1 + static_cast<std::int64_t>(R.below(4));
  const std::int64_t GZ = PowerOfTwo ? 1 : 1 + static_cast<std::int64_t>(R.below(2));
  const std::int64_t K = R.below(8) == 0 ? 65 + static_cast<std::int64_t>(R.below(10))
                                         : 1 + static_cast<std::int64_t>(R.below(4));
  const char *Elems[] = {"f32", "f16", "f64", "i8", "f32x4"};
  const std::string E = Elems[R.below(5)];
  // Rows reach by*BY + ty + BY*GY*k; columns bx*BX + tx.
  const std::int64_t Rows = BY * GY * K, Cols = BX * GX;
  const std::int64_t RLim = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(Rows)));
  const std::int64_t CLim = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(Cols)));
  std::string Params = fmt::format("in: global {}[{}][{}], out: global {}[{}][{}], g: global f32[{}]",
                                   E, Rows, Cols, E, Cols, Rows, BX * BY * GX * GY * GZ);
  std::string Decls, Body, Top;
  int Stmts = 1 + static_cast<int>(R.below(3));
  for (int S = 0; S < Stmts; ++S) {
    switch (R.below(14)) {
    case 0: { // the any-shape transpose's guarded read and write
      const char *Guards[] = {"r < RL && c < CL", "c < CL && r < RL", "r < RL", "c < CL && r < RL && c >= 1"};
      const char *G = Guards[R.below(4)];
      const bool RowGuard = std::string(G).find("r < RL") != std::string::npos;
      Body += fmt::format("    if {} {{ out[c][r] = in[r][c] }}\n", G);
      (void)RowGuard;
      break;
    }
    case 1: // an else branch on a block index (an opaque bx % 2)
      Body += "    if bx % 2 == 0 { g[tid] = in[r][c] } else { out[c][r] = g[tid] }\n";
      break;
    case 2: { // bitrev of a block index, the tiled bit reversal's write
      if (!PowerOfTwo || GX < 2)
        break;
      const int M = std::countr_zero(static_cast<std::uint64_t>(GX));
      Params += fmt::format(", bt{}: global f32[{}][{}]", S, GX, BX);
      Body += fmt::format("    bt{}[bitrev(bx, {})][tx] = g[tid]\n", S, M);
      break;
    }
    case 3: { // bitrev of tid, the naive bit reversal
      if (!PowerOfTwo)
        break;
      const std::int64_t N = BX * BY * GX * GY * GZ;
      const int M = std::countr_zero(static_cast<std::uint64_t>(N));
      Params += fmt::format(", bb{}: global f32[{}]", S, N);
      if (R.below(2)) {
        Body += fmt::format("    bb{}[bitrev(tid, {})] = g[tid]\n", S, M);
      } else { // the closed-form permutation, as offline_permutation_scheduled
        Top += fmt::format("permutation Q{} = bitreverse({})\n", S, N);
        const std::string Q = fmt::format(fmt::runtime(R.below(2) ? "Q{}" : "inverse(Q{})"), S);
        Body += fmt::format("    g[tid] = bb{}[{}(tid)]\n", S, Q);
      }
      break;
    }
    case 4: { // min, max and a non-dividing division of block indices
      const std::int64_t Q = static_cast<std::int64_t>(R.below(4));
      Params += fmt::format(", mm{}: global {}[{}][{}]", S, E, GX + 3 * GX + GY, BX);
      const char *Forms[] = {"min(bx, {})", "max(bx, {})", "(bx * 3 + by) / 2 + {}", "(bx + {}) % 3"};
      Body += fmt::format("    mm{}[{}][tx] = g[tid]\n", S,
                          fmt::format(fmt::runtime(Forms[R.below(4)]), Q));
      break;
    }
    case 5: // a permutation of the block index, or of tid (a table read per lane)
      if (R.below(2)) {
        const std::int64_t N = BX * BY * GX * GY * GZ;
        Top += fmt::format("permutation T{} = random({}, seed: {})\n", S, N, R.below(100));
        Params += fmt::format(", tt{}: global {}[{}]", S, E, 3 * N + 4);
        Body += fmt::format("    if c < CL {{ tt{}[{} * T{}(tid) + {}] = g[tid] }}\n", S,
                            1 + R.below(3), S, R.below(4));
        break;
      }
      [[fallthrough]];
    case 9: { // a permutation of the block index
      Top += fmt::format("permutation P{} = random({}, seed: {})\n", S, GX, R.below(100));
      Params += fmt::format(", pp{}: global f32[{}][{}]", S, GX, BX);
      Body += fmt::format("    pp{}[P{}(bx)][tx] = g[tid]\n", S, S);
      break;
    }
    case 6: { // a long loop with a guard tying its variable to the lanes
      const std::int64_t L = 65 + static_cast<std::int64_t>(R.below(6)), A = pick(R, {1, 3, 8, 33});
      const std::int64_t Lim = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(L * A + BX)));
      Params += fmt::format(", lg{}: global {}[{}]", S, E, L * A + BX);
      Body += fmt::format("    for j in 0..{} {{ if j * {} + tx < {} {{ lg{}[j * {} + tx] = g[tid] }} }}\n",
                          L, A, Lim, S, A);
      break;
    }
    case 7: { // a guard tying a block index and the loop variable together
      Params += fmt::format(", tb{}: global f32[{}]", S, GX + K + BX);
      Body += fmt::format("    if bx + k < {} {{ tb{}[bx + k + tx] = 1 }}\n",
                          1 + R.below(static_cast<std::uint64_t>(GX + K)), S);
      break;
    }
    case 10: { // '?:' choosing a per-lane index, in a compound assignment
      Params += fmt::format(", sl{}: global f32[{}]", S, BX);
      Body += fmt::format("    sl{}[tx < {} ? tx : {} - tx] += g[tid]\n", S, 1 + R.below(static_cast<std::uint64_t>(BX)),
                          BX - 1);
      break;
    }
    case 11: { // a while loop with a counter: grid-stride, counting down, block-dependent bounds
      const std::int64_t N = BX * BY * GX * GY * GZ;
      const std::int64_t Step = std::max<std::int64_t>(pick(R, {1, 7, 33, BX * GX, N}), N / 64);
      const std::int64_t Lim = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(std::min(3 * N, Step * 80))));
      Params += fmt::format(", ws{}: global f32[{}]", S, std::max(Lim, N));
      if (R.below(3) == 0) { // down from tid to D
        const std::int64_t D = static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(N)));
        Body += fmt::format("    let w{} = tid\n    while w{} >= {} {{\n      ws{}[w{}] = g[tid]\n      w{} -= {}\n    }}\n",
                            S, S, D, S, S, S, Step);
        break;
      }
      const char *Bounds[] = {"w{0} < {1}", "w{0} <= {1} - 1", "{1} > w{0}", "w{0} < {1} - bx * {2}",
                              "w{0} < {1} - (by + k) * {2}", "w{0} < {1} && bx < {2}", "by + k < {2} && w{0} < {1}"};
      const std::string Cond =
          fmt::format(fmt::runtime(Bounds[R.below(7)]), S, Lim, pick(R, {1, 5, BX}));
      const char *Starts[] = {"tid", "c + k", "bx * {} + tx"};
      const std::string Start = fmt::format(fmt::runtime(Starts[R.below(3)]), BX);
      Body += fmt::format("    let w{} = {}\n    while {} {{\n      ws{}[w{}] = g[tid]\n      w{} += {}\n    }}\n",
                          S, Start, Cond, S, S, S, Step);
      if (R.below(3) == 0) // the counter after the loop
        Body += fmt::format("    if w{0} - {1} >= 0 && w{0} - {1} < {2} {{ ws{3}[w{0} - {1}] = 1 }}\n", S, Step, Lim, S);
      break;
    }
    case 12: { // a halving while loop without a counter
      const std::int64_t H = pick(R, {1, 2, 4, 8, 16, 32});
      Params += fmt::format(", hs{}: global f32[{}]", S, BX + H);
      Body += fmt::format("    let h{0} = {1}\n    while h{0} > 0 {{\n      if tx < h{0} {{ hs{2}[tx + h{0}] = g[tid] }}\n"
                          "      h{0} {3}\n    }}\n",
                          S, H, S, R.below(2) ? ">>= 1" : "= h" + std::to_string(S) + " / 2");
      break;
    }
    case 13: { // '?:' on block indices: a uniform value, or arms that read
      switch (R.below(3)) {
      case 0:
        Params += fmt::format(", qs{}: global f32[{}]", S, GX * BX);
        Body += fmt::format("    let q{0} = bx == {1} ? {2} : {3}\n    if tx < q{0} {{ qs{0}[bx * {3} + tx] = g[tid] }}\n",
                            S, GX - 1, 1 + R.below(static_cast<std::uint64_t>(BX)), BX);
        break;
      case 1:
        Body += fmt::format("    g[tid] = bx < {} && by + k > {} ? in[r][c] : out[c][r]\n", R.below(static_cast<std::uint64_t>(GX + 1)),
                            R.below(3));
        break;
      default:
        Params += fmt::format(", qt{}: global f32[{}][{}]", S, GX, BX);
        Body += fmt::format("    qt{}[(bx + by) % 2 == 0 ? bx : {} - bx][tx] = bx == 0 && tx < 3 ? g[tid] : 0.5\n", S,
                            GX - 1);
        break;
      }
      break;
    }
    default: { // a shared tile, written and read transposed
      Decls += fmt::format("  shared t{}: {}[{}][{}]{}\n", S, E, BY, BX,
                           R.below(2) ? " layout pad(1)" : "");
      Body += fmt::format("    if c < CL {{ t{}[ty][tx] = in[r][c] }}\n    sync\n"
                          "    if r < RL {{ g[tid] = t{}[tx % {}][ty] }}\n",
                          S, S, BY);
      break;
    }
    }
  }
  std::string Machine = "target sm_90\n";
  switch (R.below(5)) {
  case 0:
    Machine = "machine dmm(w: 32, l: 2)\n";
    break;
  case 1:
    Machine = "machine hmm(d: 4, w: 32, L: 10)\n";
    break;
  default:
    break;
  }
  return fmt::format("{}param RL = {}\nparam CL = {}\n{}"
                     "kernel rk({}) grid ({}, {}, {}) block ({}, {}) {{\n{}"
                     "  for k in 0..{} {{\n"
                     "    let r = by * {} + ty + {} * k\n"
                     "    let c = bx * {} + tx\n{}  }}\n}}\n",
                     Machine, RLim, CLim, Top, Params, GX, GY, GZ, BX, BY, Decls, K, BY,
                     BY * GY, BX, Body);
}

} // namespace

TEST_CASE("class counting equals warp-by-warp evaluation on random guarded kernels") {
  Rng R(20261123);
  int Fast = 0, Guarded = 0, Tables = 0, Whiles = 0, Selects = 0;
  std::map<std::string, int> Reasons;
  const int Trials = 2000;
  for (int Trial = 0; Trial < Trials; ++Trial) {
    const std::string Text = randomGuardedKernel(R);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const ir::Kernel &K = P.Kernels.at(0);
    const KernelReport A = analyzeKernel(P, K);
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
          Tables, " with a table read per lane, ", Whiles, " with while loops, ", Selects, " with '?:'");
  CHECK(Fast >= Trials * 9 / 10);
  CHECK(Whiles >= Trials / 5);
  CHECK(Selects >= Trials / 10);
  CHECK(Guarded >= Trials / 2);
  CHECK(Tables >= Trials / 20);
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
