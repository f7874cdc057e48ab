// The greedy-and-repair Euler splits behind the HMM schedule's factorization
// (detail/BalancedSplit.h): every split gives each vertex exactly half its
// edges and the halves add up to the graph, on random graphs, on graphs with
// heavy parallel edges, on structured and degenerate ones, with the repair's
// first window forced small (so that chains and the whole-graph fallback
// run); factorBalancedUnits's factors are regular and sum to the graph for
// even and odd factor counts.

#include "analysis/schedule/detail/BalancedSplit.h"
#include "support/Random.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>
#include <stdexcept>

using namespace bankwise;
using namespace bankwise::schedule_detail;

namespace {

/// Unit form of the union of Delta random perfect matchings (rows shuffled,
/// parallel edges where two matchings agree).
std::vector<std::uint16_t> randomRegularUnits(std::uint32_t V,
                                              std::uint32_t Delta,
                                              std::uint64_t Seed) {
  Rng R(Seed);
  std::vector<std::uint16_t> G(std::size_t(V) * Delta);
  std::vector<std::uint32_t> Perm(V);
  for (std::uint32_t K = 0; K < Delta; ++K) {
    std::iota(Perm.begin(), Perm.end(), 0u);
    for (std::uint32_t I = V; I > 1; --I)
      std::swap(Perm[I - 1], Perm[R.below(I)]);
    for (std::uint32_t U = 0; U < V; ++U)
      G[std::size_t(U) * Delta + K] = static_cast<std::uint16_t>(Perm[U]);
  }
  return G;
}

/// Per (u, v) edge counts of NumV rows of D units.
std::vector<std::uint32_t> unitCounts(const std::uint16_t *G,
                                      std::uint32_t NumV, std::uint32_t D) {
  std::vector<std::uint32_t> M(std::size_t(NumV) * NumV, 0);
  for (std::uint32_t U = 0; U < NumV; ++U)
    for (std::uint32_t I = 0; I < D; ++I)
      ++M[std::size_t(U) * NumV + G[std::size_t(U) * D + I]];
  return M;
}

/// Splits G and checks that A and B are (D/2)-regular on both sides and add
/// up to G cell by cell. Returns the scratch's statistics.
BalanceStats checkUnitSplit(const std::vector<std::uint16_t> &G,
                            std::uint32_t NumV, std::uint32_t D,
                            std::size_t Window = 16) {
  INFO("NumV = " << NumV << ", D = " << D << ", window = " << Window);
  const std::size_t Half = std::size_t(NumV) * (D / 2);
  std::vector<std::uint16_t> A(Half + 1), B(Half + 1);
  BalanceScratch S;
  S.RepairUnitsPerVertex = Window;
  balancedSplitUnits(G.data(), NumV, D, A.data(), B.data(), S);
  std::vector<std::uint32_t> InA(NumV, 0), InB(NumV, 0);
  for (std::size_t I = 0; I < Half; ++I) {
    ++InA[A[I]];
    ++InB[B[I]];
  }
  bool Regular = true;
  for (std::uint32_t V = 0; V < NumV; ++V)
    Regular &= InA[V] == D / 2 && InB[V] == D / 2;
  CHECK(Regular);
  // Row by row, A's and B's units together are G's.
  bool Sums = true;
  std::vector<std::uint16_t> Parent, Halves;
  for (std::uint32_t U = 0; U < NumV && Sums; ++U) {
    Parent.assign(G.begin() + std::size_t(U) * D,
                  G.begin() + std::size_t(U + 1) * D);
    Halves.assign(A.begin() + std::size_t(U) * (D / 2),
                  A.begin() + std::size_t(U + 1) * (D / 2));
    Halves.insert(Halves.end(), B.begin() + std::size_t(U) * (D / 2),
                  B.begin() + std::size_t(U + 1) * (D / 2));
    std::sort(Parent.begin(), Parent.end());
    std::sort(Halves.begin(), Halves.end());
    Sums = Parent == Halves;
  }
  CHECK(Sums);
  return S.Stats;
}

} // namespace

TEST_CASE("the balanced unit split follows its contract example") {
  const std::vector<std::uint16_t> G = {0, 1, 1, 0};
  std::vector<std::uint16_t> A(3), B(3);
  BalanceScratch S;
  balancedSplitUnits(G.data(), 2, 2, A.data(), B.data(), S);
  CHECK(A[0] == 0);
  CHECK(A[1] == 1);
  CHECK(B[0] == 1);
  CHECK(B[1] == 0);
}

TEST_CASE("balanced unit splits are exact on random regular graphs") {
  // 2048 vertices as in the 2^26 row graph, degrees from the deep levels
  // (few units per vertex: the repair's chains) to dense ones (many
  // parallel edges), and odd vertex counts.
  for (std::uint32_t D : {2u, 4u, 16u, 64u, 512u})
    checkUnitSplit(randomRegularUnits(2048, D, D), 2048, D);
  for (std::uint32_t V : {1u, 2u, 3u, 37u, 500u})
    for (std::uint32_t D : {2u, 6u, 40u})
      checkUnitSplit(randomRegularUnits(V, D, V * 100 + D), V, D);
}

TEST_CASE("the unit repair's chains and whole-graph fallback are exact") {
  // A window of one unit per vertex: most vertices are mended by chains,
  // and some splits need every row.
  BalanceStats Total;
  for (std::uint32_t D : {4u, 16u, 64u, 256u}) {
    Total.add(checkUnitSplit(randomRegularUnits(1024, D, 7 * D), 1024, D, 1));
    Total.add(checkUnitSplit(randomRegularUnits(1024, D, 7 * D), 1024, D, 0));
  }
  CHECK(Total.GreedyExcess > 0);
  CHECK(Total.PathFlips > 0);
  CHECK(Total.FullRepairs > 0);
}

TEST_CASE("balanced unit splits of structured and degenerate graphs") {
  // Every edge parallel: row u holds D copies of (u * 7) mod V.
  for (std::uint32_t D : {2u, 8u, 64u}) {
    std::vector<std::uint16_t> G(256 * std::size_t(D));
    for (std::uint32_t U = 0; U < 256; ++U)
      std::fill_n(G.begin() + std::size_t(U) * D, D,
                  static_cast<std::uint16_t>((U * 7) % 256));
    checkUnitSplit(G, 256, D);
  }
  // Two blocks: rows of the first half reach only the first half, sorted
  // rows (the layout that made neighbouring pairs a band graph).
  {
    const std::uint32_t V = 512, D = 32;
    std::vector<std::uint16_t> G(std::size_t(V) * D);
    for (std::uint32_t U = 0; U < V; ++U) {
      for (std::uint32_t I = 0; I < D; ++I)
        G[std::size_t(U) * D + I] = static_cast<std::uint16_t>(
            (U / 256) * 256 + (U + I * 8) % 256);
      std::sort(G.begin() + std::size_t(U) * D,
                G.begin() + std::size_t(U + 1) * D);
    }
    checkUnitSplit(G, V, D);
    checkUnitSplit(G, V, D, 1);
  }
  // Complete bipartite graph: every row holds every vertex once (sorted).
  {
    const std::uint32_t V = 128;
    std::vector<std::uint16_t> G(std::size_t(V) * V);
    for (std::uint32_t U = 0; U < V; ++U)
      for (std::uint32_t I = 0; I < V; ++I)
        G[std::size_t(U) * V + I] = static_cast<std::uint16_t>(I);
    checkUnitSplit(G, V, V);
  }
  // The largest vertex id (65535) is a vertex, not a marker.
  {
    const std::uint32_t V = 65536, D = 2;
    std::vector<std::uint16_t> G(std::size_t(V) * D);
    for (std::uint32_t U = 0; U < V; ++U) {
      G[std::size_t(U) * D] = static_cast<std::uint16_t>(V - 1 - U);
      G[std::size_t(U) * D + 1] = static_cast<std::uint16_t>(U);
    }
    checkUnitSplit(G, V, D);
  }
}

TEST_CASE("balanced unit splits are deterministic") {
  const std::vector<std::uint16_t> G = randomRegularUnits(777, 48, 3);
  const std::size_t Half = 777 * 24;
  std::vector<std::uint16_t> A1(Half + 1), B1(Half + 1), A2(Half + 1),
      B2(Half + 1);
  BalanceScratch S1, S2;
  balancedSplitUnits(G.data(), 777, 48, A1.data(), B1.data(), S1);
  // A scratch that has split something else first.
  const std::vector<std::uint16_t> Other = randomRegularUnits(777, 16, 4);
  std::vector<std::uint16_t> X(777 * 8 + 1), Y(777 * 8 + 1);
  balancedSplitUnits(Other.data(), 777, 16, X.data(), Y.data(), S2);
  balancedSplitUnits(G.data(), 777, 48, A2.data(), B2.data(), S2);
  A1.resize(Half);
  A2.resize(Half);
  B1.resize(Half);
  B2.resize(Half);
  CHECK(A1 == A2);
  CHECK(B1 == B2);
}

TEST_CASE("balanced splits reject graphs that have no Euler partition") {
  BalanceScratch S;
  std::vector<std::uint16_t> A(8), B(8);
  // Odd degree.
  const std::vector<std::uint16_t> Odd = {0, 1, 2, 1, 2, 0, 2, 0, 1};
  CHECK_THROWS_AS(
      balancedSplitUnits(Odd.data(), 3, 3, A.data(), B.data(), S),
      std::logic_error);
  // Left vertices of even weight, right vertices of odd weight (3 and 1).
  const std::vector<std::uint16_t> OddRight = {0, 0, 0, 1};
  CHECK_THROWS_AS(
      balancedSplitUnits(OddRight.data(), 2, 2, A.data(), B.data(), S),
      std::logic_error);
}

TEST_CASE("factorBalancedUnits factors are regular and sum to the graph") {
  auto Check = [](const std::vector<std::uint16_t> &G, std::uint32_t V,
                  std::uint32_t D, std::uint32_t K) {
    INFO("V = " << V << ", D = " << D << ", K = " << K);
    std::vector<std::uint32_t> Sum(std::size_t(V) * V, 0), Seen(K, 0);
    bool Regular = true;
    BalancedScratch S;
    factorBalancedUnits(
        G.data(), V, D, K, 5,
        [&](const std::uint16_t *Rows, std::uint32_t Deg, std::uint32_t F) {
          Regular &= Deg == D / K && F >= 5 && F < 5 + K;
          if (F < 5 || F >= 5 + K)
            return;
          ++Seen[F - 5];
          std::vector<std::uint32_t> In(V, 0);
          for (std::uint32_t U = 0; U < V; ++U)
            for (std::uint32_t I = 0; I < Deg; ++I) {
              const std::uint16_t X = Rows[std::size_t(U) * Deg + I];
              ++In[X];
              ++Sum[std::size_t(U) * V + X];
            }
          for (std::uint32_t X = 0; X < V; ++X)
            Regular &= In[X] == D / K;
        },
        S);
    CHECK(Regular);
    CHECK(std::all_of(Seen.begin(), Seen.end(),
                      [](std::uint32_t C) { return C == 1; }));
    CHECK(Sum == unitCounts(G.data(), V, D));
  };
  // Heavy parallel edges (16 per cell on average).
  const std::vector<std::uint16_t> G = randomRegularUnits(64, 1024, 21);
  for (std::uint32_t K : {1u, 2u, 16u, 128u, 1024u})
    Check(G, 64, 1024, K);
  // Odd factor counts go through Alon's matching (12: two splits first,
  // whose rows are no longer sorted).
  const std::vector<std::uint16_t> H = randomRegularUnits(40, 96, 22);
  for (std::uint32_t K : {3u, 12u, 96u})
    Check(H, 40, 96, K);
}
