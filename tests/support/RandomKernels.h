// Random kernels shared by the property tests: the class-counting oracle
// (ClassCountingTest.cpp) and the all-sizes claims (AllSizesTest.cpp).
#pragma once

#include "support/Random.h"

#include <bit>
#include <cstdint>
#include <fmt/format.h>
#include <initializer_list>
#include <string>

namespace bankwise::testing {

inline std::int64_t pick(Rng &R, std::initializer_list<std::int64_t> Values) {
  return *(Values.begin() + R.below(Values.size()));
}

/// A random kernel of guarded global and shared accesses. Every access is in
/// bounds by construction: either its index range fits the array, or a
/// guard keeps the out-of-range lanes off (the fast path must then prove it
/// class by class). RuntimeLimits: the guards' limits RL and CL are runtime
/// sizes (`param RL`) instead of constants, for the all-sizes analysis.
inline std::string randomGuardedKernel(Rng &R, bool RuntimeLimits = false) {
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
    switch (R.below(17)) {
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
    case 14: { // per-lane choices: min/max of lane and block terms, a wrapping % or /, '?:' per lane
      const std::int64_t Size = 3 * Rows + 5 * Cols + 8 * K + 256;
      Params += fmt::format(", pc{}: global {}[{}]", S, E, Size);
      const std::int64_t L = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(Cols + K)));
      const std::int64_t A = pick(R, {1, 2, 3, 8}), T = 1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(BX)));
      const std::int64_t Md = pick(R, {3, 7, 32, 33, 100, Cols, Cols + 5}), Dv = pick(R, {2, 3, 5, 32});
      const std::string Fmt[] = {
          "    pc{0}[min(c + k, CL - 1)] = g[tid]\n",
          "    pc{0}[min(c * {2}, {1})] = g[tid]\n",
          "    pc{0}[max(c - k * {2}, {1})] = g[tid]\n",
          "    pc{0}[max({1}, r + tx)] = g[tid]\n",
          "    pc{0}[(c + k * {2} + {1}) % {4}] = g[tid]\n",
          "    pc{0}[(c * {2} + k) / {5} + {5}] = g[tid]\n",
          "    pc{0}[tx < {3} ? bx * {6} + tx : by * 3 + k] = g[tid]\n",
          "    pc{0}[c + k < {1} ? c + k : {1} + tx] = g[tid]\n",
          "    if min(c, k * 5) < {1} && c < CL {{ pc{0}[c] = g[tid] }}\n",
          "    let m{0} = min(c + k, {1})\n    pc{0}[m{0} * 2 + 1] = g[tid] + pc{0}[(m{0} + tx) % {4}]\n",
          // loops whose start or end is per lane or per block
          "    for j{0} in tx..{1} step {2} {{ pc{0}[j{0}] = g[tid] }}\n",
          "    for j{0} in c + k..{1} + bx step {3} {{ pc{0}[j{0} * 2] = g[tid] }}\n",
          "    for j{0} in {1}..tx step -{2} {{ pc{0}[j{0}] = g[tid] }}\n",
      };
      Body += fmt::format(fmt::runtime(Fmt[R.below(13)]), S, L, A, T, Md, Dv, BX);
      break;
    }
    case 15: // locals no access depends on, assigned under guards on block
             // indices (UnobservedLocals.h), and a local declared and assigned
             // under such a guard that an index reads
      Body += fmt::format("    let a{0} = 0\n    if bx == {1} {{ a{0} = in[r][c] }}\n    a{0} = a{0} + g[tid]\n"
                          "    if by + k > {2} {{ a{0} = 0 }}\n    out[c][r] = a{0}\n"
                          "    if bx % 2 == 0 {{\n      let o{0} = tx\n      o{0} = {3} - tx\n"
                          "      g[tid - tx + o{0}] = a{0}\n    }}\n",
                          S, R.below(static_cast<std::uint64_t>(GX)), R.below(3), BX - 1);
      break;
    case 16: { // loops under a data guard with their counters declared inside
               // it, a loop from each lane's start to a data end bounded by a
               // known one, and a local declared on one lane set whole there
      const std::int64_t N = BX * BY * GX * GY * GZ;
      const std::int64_t Step = std::max<std::int64_t>(pick(R, {1, 7, BX, N}), N / 64);
      const std::int64_t Lim =
          1 + static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(std::min(2 * N, Step * 80))));
      Params += fmt::format(", dg{}: global f32[{}], dl{}: global u32[{}]", S, std::max(Lim, N) + 64, S, GX * K + 8);
      Body += fmt::format("    if dl{0}[bx] > {1} {{\n      let i{0} = tid\n      while i{0} < {2} {{\n"
                          "        dg{0}[i{0}] = g[tid]\n        i{0} += {3}\n      }}\n"
                          "      let h{0} = 32\n      while h{0} > 0 {{\n        if tx < h{0} {{ dg{0}[tx + h{0}] = 1 }}\n"
                          "        h{0} = h{0} / 2\n      }}\n    }}\n"
                          "    for j{0} in tx + 1..min({5}, dl{0}[bx]) step 8 {{ dg{0}[j{0}] = 1 }}\n"
                          "    if tx == {4} {{\n      let d{0} = bx + k\n      if d{0} % 4 == 0 {{ d{0} = d{0} / 4 }} "
                          "else {{ d{0} = d{0} / 4 + 1 }}\n      dl{0}[d{0}] = 1\n    }}\n",
                          S, R.below(3), Lim, Step, R.below(static_cast<std::uint64_t>(BX)), BX + 40);
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
  const std::string Limits = RuntimeLimits ? std::string("param RL\nparam CL\n")
                                            : fmt::format("param RL = {}\nparam CL = {}\n", RLim, CLim);
  return fmt::format("{}{}{}"
                     "kernel rk({}) grid ({}, {}, {}) block ({}, {}) {{\n{}"
                     "  for k in 0..{} {{\n"
                     "    let r = by * {} + ty + {} * k\n"
                     "    let c = bx * {} + tx\n{}  }}\n}}\n",
                     Machine, Limits, Top, Params, GX, GY, GZ, BX, BY, Decls, K, BY,
                     BY * GY, BX, Body);
}

} // namespace bankwise::testing
