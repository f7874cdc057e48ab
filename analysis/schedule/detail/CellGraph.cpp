// Euler partitions and Alon's perfect matching on weighted cell graphs.

#include "analysis/schedule/detail/CellGraph.h"

#include "support/Diagnostic.h"

#include <cassert>
#include <fmt/format.h>
#include <stdexcept>

namespace bankwise::schedule_detail {

namespace {

constexpr std::uint32_t Unvisited = 2;
constexpr std::uint32_t BadCell = 0xFFFFFFFFu;

[[noreturn]] void internalError(const char *What) {
  throw std::logic_error(fmt::format("bankwise internal error: {}", What));
}

/// Pairs the odd cells consecutively at every vertex of one side: Mate[a] is
/// the odd cell paired with odd cell a at its Key vertex.
void pairAtSide(const std::vector<std::uint32_t> &Odd,
                const std::vector<std::uint32_t> &Key, std::uint32_t NumV,
                std::vector<std::uint32_t> &Start,
                std::vector<std::uint32_t> &Sorted,
                std::vector<std::uint32_t> &Mate) {
  const std::size_t K = Odd.size();
  Start.assign(static_cast<std::size_t>(NumV) + 1, 0);
  for (std::size_t A = 0; A < K; ++A)
    ++Start[Key[Odd[A]] + 1];
  for (std::uint32_t X = 0; X < NumV; ++X) {
    if (Start[X + 1] % 2 != 0)
      internalError("Euler split of a vertex with an odd number of odd cells");
    Start[X + 1] += Start[X];
  }
  Sorted.resize(K);
  for (std::size_t A = 0; A < K; ++A)
    Sorted[Start[Key[Odd[A]]]++] = static_cast<std::uint32_t>(A);
  Mate.resize(K);
  for (std::size_t I = 0; I < K; I += 2) {
    Mate[Sorted[I]] = Sorted[I + 1];
    Mate[Sorted[I + 1]] = Sorted[I];
  }
}

} // namespace

void eulerSplit(const CellGraph &G, std::uint32_t NumV, CellGraph &A,
                CellGraph &B, SplitScratch &S) {
  A.clear();
  B.clear();
  const std::size_t N = G.size();
  S.Odd.clear();
  for (std::size_t E = 0; E < N; ++E)
    if (G.W[E] & 1u)
      S.Odd.push_back(static_cast<std::uint32_t>(E));
  const std::size_t K = S.Odd.size();
  if (K) {
    pairAtSide(S.Odd, G.U, NumV, S.Start, S.ByLeft, S.LeftMate);
    pairAtSide(S.Odd, G.V, NumV, S.Start, S.ByRight, S.RightMate);
    // Walk each closed trail: left link, right link, ...; alternate sides.
    S.Side.assign(K, Unvisited);
    for (std::size_t A0 = 0; A0 < K; ++A0) {
      if (S.Side[A0] != Unvisited)
        continue;
      auto Cur = static_cast<std::uint32_t>(A0);
      while (true) {
        S.Side[Cur] = 0;
        const std::uint32_t Mate = S.LeftMate[Cur];
        if (S.Side[Mate] != Unvisited)
          internalError("Euler trail revisits a cell");
        S.Side[Mate] = 1;
        Cur = S.RightMate[Mate];
        if (Cur == A0)
          break;
        if (S.Side[Cur] != Unvisited)
          internalError("Euler trail does not close");
      }
    }
  }
  A.reserve(N);
  B.reserve(N);
  std::size_t OddIdx = 0;
  for (std::size_t E = 0; E < N; ++E) {
    const std::uint32_t W = G.W[E];
    std::uint32_t WA = W / 2, WB = W / 2;
    if (W & 1u)
      (S.Side[OddIdx++] == 0 ? WA : WB) += 1;
    if (WA)
      A.push(G.U[E], G.V[E], WA, G.Id[E]);
    if (WB)
      B.push(G.U[E], G.V[E], WB, G.Id[E]);
  }
}

CellGraph alonPerfectMatching(const CellGraph &G, std::uint32_t NumV,
                              std::uint32_t D, SplitScratch &S) {
  const std::uint64_t E = static_cast<std::uint64_t>(NumV) * D;
  std::uint32_t T = 0;
  while ((std::uint64_t(1) << T) < E)
    ++T;
  if (T >= 31)
    throw UserError(fmt::format(
        "edge colouring: {} edges with odd degree {} is beyond the 2^31-edge "
        "limit of Alon's matching",
        E, D));
  const std::uint32_t Pow = 1u << T;
  const std::uint32_t Alpha = Pow / D, Beta = Pow - Alpha * D;
  // H = Alpha * G + Beta * (bad matching u -- u); H is Pow-regular.
  CellGraph H, A, B;
  H.reserve(G.size() + NumV);
  for (std::size_t I = 0; I < G.size(); ++I)
    H.push(G.U[I], G.V[I], G.W[I] * Alpha, static_cast<std::uint32_t>(I));
  if (Beta)
    for (std::uint32_t X = 0; X < NumV; ++X)
      H.push(X, X, Beta, BadCell);
  for (std::uint32_t Deg = Pow; Deg > 1; Deg /= 2) {
    eulerSplit(H, NumV, A, B, S);
    std::uint64_t BadA = 0, BadB = 0;
    for (std::size_t I = 0; I < A.size(); ++I)
      if (A.Id[I] == BadCell)
        BadA += A.W[I];
    for (std::size_t I = 0; I < B.size(); ++I)
      if (B.Id[I] == BadCell)
        BadB += B.W[I];
    H.swap(BadB < BadA ? B : A);
  }
  for (std::size_t I = 0; I < H.size(); ++I)
    if (H.Id[I] == BadCell || H.W[I] != 1)
      internalError("Alon's matching kept a bad edge");
  if (H.size() != NumV)
    internalError("Alon's matching is not perfect");
  return H;
}

void factorizeCells(CellGraph G, std::uint32_t NumV, std::uint32_t D,
                    std::uint32_t K, std::uint32_t Base, const FactorSink &Sink,
                    SplitScratch &S) {
  if (K == 1 || G.size() == 0) {
    if (K != 1 && D != 0)
      internalError("empty graph of nonzero degree");
    if (G.size())
      Sink(G, Base);
    return;
  }
  if (K % 2 == 0) {
    CellGraph A, B;
    eulerSplit(G, NumV, A, B, S);
    G = CellGraph();
    factorizeCells(std::move(A), NumV, D / 2, K / 2, Base, Sink, S);
    factorizeCells(std::move(B), NumV, D / 2, K / 2, Base + K / 2, Sink, S);
    return;
  }
  const std::uint32_t F = D / K;
  if (F == 1) {
    CellGraph M = alonPerfectMatching(G, NumV, D, S);
    CellGraph Out;
    Out.reserve(M.size());
    for (std::size_t I = 0; I < M.size(); ++I) {
      const std::uint32_t Src = M.Id[I];
      Out.push(G.U[Src], G.V[Src], 1, G.Id[Src]);
      --G.W[Src];
    }
    Sink(Out, Base);
    CellGraph Rest;
    Rest.reserve(G.size());
    for (std::size_t I = 0; I < G.size(); ++I)
      if (G.W[I])
        Rest.push(G.U[I], G.V[I], G.W[I], G.Id[I]);
    G = CellGraph();
    factorizeCells(std::move(Rest), NumV, D - 1, K - 1, Base + 1, Sink, S);
    return;
  }
  // Odd K, factors of degree F > 1: colour fully, then group F colours.
  const FactorSink Group = [&](const CellGraph &Cells, std::uint32_t Color) {
    Sink(Cells, Base + Color / F);
  };
  factorizeCells(std::move(G), NumV, D, D, 0, Group, S);
}

} // namespace bankwise::schedule_detail
