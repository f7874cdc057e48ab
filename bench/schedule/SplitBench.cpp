// Cost of one Euler split of a 2048-vertex D-regular graph of unit-ish cells
// (the union of D random perfect matchings, as in the deep levels of the
// n = 2^26 row graph): eulerSplitRows (bit matrices or lists, by density)
// and eulerSplitEdges. Prints the best of several repetitions (the VM is
// shared).
//
//   bench_split [V] [reps] [max D] [min D]

#include "analysis/schedule/detail/BalancedSplit.h"
#include "analysis/schedule/detail/CellGraph.h"
#include "support/Random.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>

using namespace bankwise;
using namespace bankwise::schedule_detail;

namespace {

CellRows randomRegularCells(std::uint32_t V, std::uint32_t Delta,
                            std::uint64_t Seed) {
  Rng R(Seed);
  std::vector<std::uint32_t> Row(V), Perm(V);
  std::vector<std::vector<std::uint32_t>> Adj(V);
  for (std::uint32_t K = 0; K < Delta; ++K) {
    std::iota(Perm.begin(), Perm.end(), 0u);
    for (std::uint32_t I = V; I > 1; --I)
      std::swap(Perm[I - 1], Perm[R.below(I)]);
    for (std::uint32_t U = 0; U < V; ++U)
      Adj[U].push_back(Perm[U]);
  }
  CellRows G;
  G.RowStart.assign(std::size_t(V) + 1, 0);
  for (std::uint32_t U = 0; U < V; ++U) {
    std::fill(Row.begin(), Row.end(), 0u);
    for (std::uint32_t X : Adj[U])
      ++Row[X];
    for (std::uint32_t X = 0; X < V; ++X)
      if (Row[X]) {
        G.V.push_back(X);
        G.W.push_back(Row[X]);
      }
    G.RowStart[U + 1] = static_cast<std::uint32_t>(G.V.size());
  }
  return G;
}

template <class F> double best(int Reps, F &&Fn) {
  double Best = 1e30;
  for (int I = 0; I < Reps; ++I) {
    const auto T0 = std::chrono::steady_clock::now();
    Fn();
    Best = std::min(Best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - T0)
                              .count());
  }
  return Best;
}

} // namespace

int main(int Argc, char **Argv) {
  const std::uint32_t V = Argc > 1 ? std::atoi(Argv[1]) : 2048;
  const int Reps = Argc > 2 ? std::atoi(Argv[2]) : 5;
  std::printf("| D | cells | cell form ns/edge | edge form ns/edge | "
              "balanced units ns/edge | greedy excess | direct flips | "
              "path flips | searches |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const std::uint32_t MaxD = Argc > 3 ? std::atoi(Argv[3]) : 4096,
                      MinD = Argc > 4 ? std::atoi(Argv[4]) : 16;
  for (std::uint32_t D = MaxD; D >= MinD; D /= 2) {
    const CellRows G = randomRegularCells(V, D, D);
    const double E = double(V) * D;
    RowScratch S;
    CellRows A, B;
    const double Cells =
        best(Reps, [&] { eulerSplitRows(G, V, A, B, S.Split); });
    double Edge = 0;
    if (E <= double(1u << 23)) {
      EdgeRows Ge, Ae, Be;
      // Edge form from the cells (not timed), then one split.
      Ge.Adj.resize(std::size_t(E));
      std::size_t At = 0;
      for (std::uint32_t U = 0; U < V; ++U)
        for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
          for (std::uint32_t X = 0; X < G.W[C]; ++X)
            Ge.Adj[At++] = G.V[C];
      Ge.Col.resize(At);
      Ge.Pos.resize(At);
      std::vector<std::uint32_t> Start(V);
      for (std::uint32_t X = 0; X < V; ++X)
        Start[X] = X * D;
      for (std::size_t Ed = 0; Ed < At; ++Ed) {
        const std::uint32_t P = Start[Ge.Adj[Ed]]++;
        Ge.Col[P] = static_cast<std::uint32_t>(Ed);
        Ge.Pos[Ed] = P;
      }
      Edge = best(Reps, [&] { eulerSplitEdges(Ge, V, D, Ae, Be, S.Split); });
    }
    // Balanced split in unit form (unit form built outside the timing).
    std::vector<std::uint16_t> Units, UA(std::size_t(E) / 2 + 1),
        UB(std::size_t(E) / 2 + 1);
    cellsToUnits(G, V, D, Units);
    BalanceScratch BS;
    const double Bal = best(Reps, [&] {
      balancedSplitUnits(Units.data(), V, D, UA.data(), UB.data(), BS);
    });
    const BalanceStats &St = BS.Stats;
    std::printf("| %u | %zu | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f "
                "|\n",
                D, G.size(), 1e9 * Cells / E, 1e9 * Edge / E, 1e9 * Bal / E,
                double(St.GreedyExcess) / St.Splits,
                double(St.DirectFlips) / St.Splits,
                double(St.PathFlips) / St.Splits,
                double(St.Searches) / St.Splits);
    std::fflush(stdout);
  }
  return 0;
}
