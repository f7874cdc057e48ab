// The weighted Euler-split engine behind the HMM schedule (detail/CellGraph.h)
// and the Birkhoff block colouring behind every block's s and d
// (detail/BlockSchedule.h): every factor of factorCellRows is regular and the
// factors add up to the graph, in all three split modes (list, bit-matrix,
// edge form) and through Alon's matching for odd factor counts; every block
// schedule is conflict-free for power-of-two and other bank counts.

#include "analysis/schedule/detail/BlockSchedule.h"
#include "analysis/schedule/detail/CellGraph.h"
#include "support/Random.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>

using namespace bankwise;
using namespace bankwise::schedule_detail;

namespace {

/// Cells (row by row, v ascending) of the union of Delta random perfect
/// matchings on V + V vertices.
CellRows randomRegularCells(std::uint32_t V, std::uint32_t Delta,
                            std::uint64_t Seed) {
  Rng R(Seed);
  std::vector<std::uint32_t> M(std::size_t(V) * V, 0), Perm(V);
  for (std::uint32_t K = 0; K < Delta; ++K) {
    std::iota(Perm.begin(), Perm.end(), 0u);
    for (std::uint32_t I = V; I > 1; --I)
      std::swap(Perm[I - 1], Perm[R.below(I)]);
    for (std::uint32_t U = 0; U < V; ++U)
      ++M[std::size_t(U) * V + Perm[U]];
  }
  CellRows G;
  G.RowStart.assign(std::size_t(V) + 1, 0);
  for (std::uint32_t U = 0; U < V; ++U) {
    for (std::uint32_t X = 0; X < V; ++X)
      if (M[std::size_t(U) * V + X]) {
        G.V.push_back(X);
        G.W.push_back(M[std::size_t(U) * V + X]);
      }
    G.RowStart[U + 1] = static_cast<std::uint32_t>(G.V.size());
  }
  return G;
}

/// Factors G into K and checks: each factor reported once, each vertex of
/// each factor has weight Delta / K, and per cell the factors sum to G.
void checkFactorization(const CellRows &G, std::uint32_t V, std::uint32_t Delta,
                        std::uint32_t K) {
  INFO("V = " << V << ", Delta = " << Delta << ", K = " << K);
  std::vector<std::uint32_t> Sum(std::size_t(V) * V, 0), Seen(K, 0);
  bool Regular = true;
  RowScratch S;
  factorCellRows(
      G, V, Delta, K, 0,
      [&](const CellRows &F, std::uint32_t Factor) {
        ++Seen[Factor];
        std::vector<std::uint32_t> In(V, 0);
        for (std::uint32_t U = 0; U < V; ++U) {
          std::uint32_t Out = 0;
          for (std::uint32_t C = F.RowStart[U]; C < F.RowStart[U + 1]; ++C) {
            Out += F.W[C];
            In[F.V[C]] += F.W[C];
            Sum[std::size_t(U) * V + F.V[C]] += F.W[C];
          }
          Regular = Regular && Out == Delta / K;
        }
        for (std::uint32_t X = 0; X < V; ++X)
          Regular = Regular && In[X] == Delta / K;
      },
      S);
  CHECK(Regular);
  CHECK(std::all_of(Seen.begin(), Seen.end(),
                    [](std::uint32_t X) { return X == 1; }));
  std::vector<std::uint32_t> Orig(std::size_t(V) * V, 0);
  for (std::uint32_t U = 0; U < V; ++U)
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
      Orig[std::size_t(U) * V + G.V[C]] += G.W[C];
  CHECK(Sum == Orig);
}

/// The Euler split as specified (CellGraph.h), one trail at a time: odd
/// cells paired consecutively at a left vertex (cell order) and at a right
/// vertex (u order); each trail starts at its first odd cell in row order,
/// which goes to A, and is walked left link first, alternating A, B, A...
/// Returns the weight of every cell in A (B has the rest).
std::vector<std::uint32_t> referenceSplitA(const CellRows &G, std::uint32_t V) {
  std::vector<std::uint32_t> Odd, OddU; // odd cells in row order
  for (std::uint32_t U = 0; U < V; ++U)
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
      if (G.W[C] & 1u) {
        Odd.push_back(C);
        OddU.push_back(U);
      }
  const std::size_t K = Odd.size();
  std::vector<std::uint32_t> Left(K), Right(K);
  for (std::size_t I = 0; I < K; I += 2) { // rows have even odd counts
    Left[I] = static_cast<std::uint32_t>(I + 1);
    Left[I + 1] = static_cast<std::uint32_t>(I);
  }
  std::vector<std::vector<std::uint32_t>> ByV(V);
  for (std::size_t I = 0; I < K; ++I)
    ByV[G.V[Odd[I]]].push_back(static_cast<std::uint32_t>(I));
  for (const auto &L : ByV)
    for (std::size_t I = 0; I < L.size(); I += 2) {
      Right[L[I]] = L[I + 1];
      Right[L[I + 1]] = L[I];
    }
  std::vector<int> Side(K, -1);
  for (std::size_t S = 0; S < K; ++S) {
    if (Side[S] >= 0)
      continue;
    std::uint32_t X = static_cast<std::uint32_t>(S);
    do {
      Side[X] = 0;
      Side[Left[X]] = 1;
      X = Right[Left[X]];
    } while (X != S);
  }
  std::vector<std::uint32_t> WA(G.size());
  for (std::size_t C = 0; C < G.size(); ++C)
    WA[C] = G.W[C] / 2;
  for (std::size_t I = 0; I < K; ++I)
    WA[Odd[I]] += Side[I] == 0;
  return WA;
}

/// Checks eulerSplitRows(G) against the reference: same halves, cell by
/// cell (so also: every vertex has half its weight in each half).
void checkSplitMatchesReference(const CellRows &G, std::uint32_t V) {
  CellRows A, B;
  SplitScratch S;
  eulerSplitRows(G, V, A, B, S);
  const std::vector<std::uint32_t> WA = referenceSplitA(G, V);
  bool Same = A.RowStart.size() == std::size_t(V) + 1 &&
              B.RowStart.size() == std::size_t(V) + 1;
  for (std::uint32_t U = 0; Same && U < V; ++U) {
    std::uint32_t IA = A.RowStart[U], IB = B.RowStart[U];
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C) {
      const std::uint32_t WB = G.W[C] - WA[C];
      if (WA[C]) {
        Same = Same && IA < A.RowStart[U + 1] && A.V[IA] == G.V[C] &&
               A.W[IA] == WA[C];
        ++IA;
      }
      if (WB) {
        Same = Same && IB < B.RowStart[U + 1] && B.V[IB] == G.V[C] &&
               B.W[IB] == WB;
        ++IB;
      }
    }
    Same = Same && IA == A.RowStart[U + 1] && IB == B.RowStart[U + 1];
  }
  CHECK(Same);
}

} // namespace

TEST_CASE("Euler splits equal the one-trail-at-a-time reference") {
  // Bit-matrix mode (odd cells fill >= 1/4 of the matrix, walked from both
  // ends of every trail at once) and list mode (sparser), on random,
  // adversarial and degenerate graphs; V not a multiple of 64 puts rows
  // across word boundaries.
  for (std::uint32_t V : {2u, 3u, 8u, 64u, 100u, 130u})
    for (std::uint32_t Delta : {2u, 4u, 6u, 64u, 200u}) {
      INFO("random V = " << V << ", Delta = " << Delta);
      checkSplitMatchesReference(randomRegularCells(V, Delta, V * 7 + Delta),
                                 V);
    }
  // Complete bipartite graph, unit weights (every cell odd, densest case),
  // and with weights 3 (odd, > 1).
  for (std::uint32_t V : {2u, 4u, 66u, 128u})
    for (std::uint32_t Wt : {1u, 3u}) {
      CellRows G;
      G.RowStart.assign(std::size_t(V) + 1, 0);
      for (std::uint32_t U = 0; U < V; ++U) {
        for (std::uint32_t X = 0; X < V; ++X) {
          G.V.push_back(X);
          G.W.push_back(Wt);
        }
        G.RowStart[U + 1] = static_cast<std::uint32_t>(G.V.size());
      }
      INFO("complete V = " << V << ", weight " << Wt);
      checkSplitMatchesReference(G, V);
    }
  // Circulant u -> u, u + 1 (degree 2): one trail through every vertex,
  // the longest possible; and u -> u + s for 2 shifts s with a common
  // factor (several long trails); identity x 2 (no odd cell at all).
  for (std::uint32_t V : {3u, 8u, 65u, 1000u})
    for (std::uint32_t Step : {1u, 2u, 0u}) {
      CellRows G;
      G.RowStart.assign(std::size_t(V) + 1, 0);
      for (std::uint32_t U = 0; U < V; ++U) {
        std::uint32_t A = U, B = (U + (Step ? Step : V)) % V;
        if (A > B)
          std::swap(A, B);
        if (A == B) {
          G.V.push_back(A);
          G.W.push_back(2);
        } else {
          G.V.push_back(A);
          G.W.push_back(1);
          G.V.push_back(B);
          G.W.push_back(1);
        }
        G.RowStart[U + 1] = static_cast<std::uint32_t>(G.V.size());
      }
      INFO("circulant V = " << V << ", step " << Step);
      checkSplitMatchesReference(G, V);
    }
}

TEST_CASE("the weighted Euler split follows its contract example") {
  CellRows G;
  G.RowStart = {0, 2, 4};
  G.V = {0, 1, 0, 1};
  G.W = {3, 1, 1, 3};
  CellRows A, B;
  SplitScratch S;
  eulerSplitRows(G, 2, A, B, S);
  CHECK(A.RowStart == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(A.V == std::vector<std::uint32_t>{0, 1});
  CHECK(A.W == std::vector<std::uint32_t>{2, 2});
  CHECK(B.V == std::vector<std::uint32_t>{0, 1, 0, 1});
  CHECK(B.W == std::vector<std::uint32_t>{1, 1, 1, 1});
}

TEST_CASE("colorTrails 2-colours every trail whatever its length") {
  // Random right pairings (one giant trail and many short ones), and the
  // pairing a <-> a^1 (every trail of length 2).
  for (std::size_t K : {2u, 4u, 34u, 1000u, 65536u}) {
    for (std::uint64_t Seed : {1u, 2u, 3u}) {
      Rng R(Seed * 1000 + K);
      std::vector<std::uint32_t> Units(K);
      std::iota(Units.begin(), Units.end(), 0u);
      for (std::size_t I = K; I > 1; --I)
        std::swap(Units[I - 1], Units[R.below(static_cast<std::uint32_t>(I))]);
      SplitScratch S;
      S.Trail.resize(K);
      for (std::size_t I = 0; I < K; I += 2) {
        S.Trail[Units[I]] = {Units[I + 1], 0};
        S.Trail[Units[I + 1]] = {Units[I], 0};
      }
      if (Seed == 3)
        for (std::uint32_t A = 0; A < K; ++A)
          S.Trail[A] = {A ^ 1u, 0};
      const std::vector<TrailNode> Pairs = S.Trail;
      std::vector<std::uint8_t> Side(K), Again(K);
      colorTrails(K, Side.data(), S);
      bool Proper = Side[0] == 0;
      for (std::uint32_t A = 0; A < K; ++A)
        Proper = Proper && Side[A] <= 1 && Side[A] != Side[A ^ 1u] &&
                 Side[A] != Side[Pairs[A].Mate];
      CHECK(Proper);
      S.Trail = Pairs;
      colorTrails(K, Again.data(), S);
      CHECK(Side == Again);
    }
  }
}

TEST_CASE("cell-row factorizations are regular in every split mode") {
  // 64 vertices, degree 256: bit-matrix splits at the top (many odd cells),
  // list splits in the middle, edge form at the bottom; K = 6, 12 and 3 go
  // through Alon's matching.
  const CellRows G = randomRegularCells(64, 256, 7);
  for (std::uint32_t K : {1u, 2u, 8u, 32u, 256u, 4u * 16u})
    checkFactorization(G, 64, 256, K);
  const CellRows H = randomRegularCells(40, 96, 8);
  for (std::uint32_t K : {3u, 6u, 12u, 96u})
    checkFactorization(H, 40, 96, K);
  // Heavy cells (a multiple of the identity plus a sparse part): the list
  // mode all the way down, the edge form never.
  CellRows Heavy = randomRegularCells(300, 2, 9);
  for (std::uint32_t U = 0; U < 300; ++U)
    for (std::uint32_t C = Heavy.RowStart[U]; C < Heavy.RowStart[U + 1]; ++C)
      Heavy.W[C] *= 64;
  checkFactorization(Heavy, 300, 128, 16);
}

TEST_CASE("Birkhoff block schedules are conflict-free for any bank count") {
  for (std::uint32_t W : {1u, 3u, 4u, 32u, 48u, 64u})
    for (std::uint32_t Delta : {1u, 5u, 64u}) {
      const std::uint32_t N = W * Delta;
      Rng R(W * 1000 + Delta);
      std::vector<std::uint32_t> Q(N);
      std::iota(Q.begin(), Q.end(), 0u);
      for (std::uint32_t I = N; I > 1; --I)
        std::swap(Q[I - 1], Q[R.below(I)]);
      std::vector<std::uint32_t> Sv(N), Dv(N);
      BlockScratch B;
      conflictFreeBlock<std::uint32_t>(Q, W, Sv, Dv, B);
      INFO("W = " << W << ", Delta = " << Delta);
      bool Ok = true;
      std::vector<std::uint32_t> Hit(N, 0);
      for (std::uint32_t Warp = 0; Warp < Delta; ++Warp) {
        std::vector<bool> Bank(W, false);
        for (std::uint32_t L = 0; L < W; ++L) {
          const std::uint32_t K = Warp * W + L;
          Ok = Ok && !Bank[Sv[K] % W] && Dv[K] % W == L && Dv[K] == Q[Sv[K]];
          Bank[Sv[K] % W] = true;
          ++Hit[Sv[K]];
        }
      }
      CHECK(Ok);
      CHECK(std::all_of(Hit.begin(), Hit.end(),
                        [](std::uint32_t X) { return X == 1; }));
      // Canonical order: warps by increasing smallest source.
      bool Ordered = true;
      std::uint32_t Prev = 0;
      for (std::uint32_t Warp = 0; Warp < Delta; ++Warp) {
        const std::uint32_t Min = *std::min_element(
            Sv.begin() + Warp * W, Sv.begin() + (Warp + 1) * W);
        Ordered = Ordered && (Warp == 0 || Min > Prev);
        Prev = Min;
      }
      CHECK(Ordered);
    }
}
