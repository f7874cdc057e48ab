// Euler partitions and Alon's perfect matching on weighted cell graphs.

#include "analysis/schedule/detail/CellGraph.h"

#include "support/Diagnostic.h"

#include <algorithm>
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

namespace bankwise::schedule_detail {

namespace {

/// Union-find over trail walkers with parity: Rel[w] = flip(w) ^
/// flip(Parent[w]). Returns w's root and flip(w) ^ flip(root).
std::uint32_t findWalker(std::uint32_t W, std::uint32_t *Parent,
                         std::uint8_t *Rel, std::uint8_t &Parity) {
  std::uint32_t Root = W;
  std::uint8_t P = 0;
  while (Parent[Root] != Root) {
    P ^= Rel[Root];
    Root = Parent[Root];
  }
  std::uint8_t Q = P;
  for (std::uint32_t X = W; Parent[X] != X;) {
    const std::uint32_t Next = Parent[X];
    const std::uint8_t R = Rel[X];
    Parent[X] = Root;
    Rel[X] = Q;
    Q ^= R;
    X = Next;
  }
  Parity = P;
  return Root;
}

} // namespace

void colorTrails(std::size_t K, std::uint8_t *Side, SplitScratch &S) {
  // Walker w colours units with provisional sides: its start 0, the left
  // partner 1, the right partner of that 0, ... until the next unit is
  // already coloured (by w: the trail closed; by another walker: the two
  // segments meet). The final side is provisional ^ flip(w); at every
  // right link between segments, flip(w) ^ flip(w') follows from the
  // provisional sides. A new walker starts at the first uncoloured unit and
  // also links to the segment behind it, so every boundary is a link.
  constexpr unsigned Lanes = 16;
  constexpr std::uint32_t Idle = 0xFFFFFFFFu;
  TrailNode *T = S.Trail.data();
  std::vector<std::uint32_t> &Parent = S.WalkerParent;
  std::vector<std::uint8_t> &Rel = S.WalkerRel;
  Parent.clear();
  Rel.clear();
  auto Link = [&](std::uint32_t A, std::uint32_t B, std::uint8_t R) {
    std::uint8_t PA, PB;
    const std::uint32_t RA = findWalker(A, Parent.data(), Rel.data(), PA),
                        RB = findWalker(B, Parent.data(), Rel.data(), PB);
    const std::uint8_t Flip = R ^ PA ^ PB;
    if (RA == RB) {
      if (Flip)
        internalError("Euler trail of odd length");
      return;
    }
    const std::uint32_t Lo = std::min(RA, RB), Hi = std::max(RA, RB);
    Parent[Hi] = Lo;
    Rel[Hi] = Flip;
  };
  // Lane state: the walker and the unit it enters next (provisional side 0).
  std::uint32_t Cur[Lanes], Walker[Lanes];
  std::size_t Scan = 0;
  auto Start = [&](unsigned L) {
    while (Scan < K && T[Scan].Tag)
      Scan += 2; // units are coloured in left pairs
    if (Scan >= K) {
      Cur[L] = Idle;
      return;
    }
    const auto W = static_cast<std::uint32_t>(Parent.size());
    Parent.push_back(W);
    Rel.push_back(0);
    Walker[L] = W;
    const auto A = static_cast<std::uint32_t>(Scan);
    T[A].Tag = (W + 1) << 1;
    T[A ^ 1u].Tag = (W + 1) << 1 | 1u;
    // The segment behind the start: flip(W) ^ flip(w') = 1 ^ 0 ^ side'.
    if (const std::uint32_t Back = T[T[A].Mate].Tag)
      Link(W, (Back >> 1) - 1, static_cast<std::uint8_t>(1u ^ (Back & 1u)));
    Cur[L] = T[A ^ 1u].Mate;
  };
  for (unsigned L = 0; L < Lanes; ++L)
    Start(L);
  for (unsigned Active = Lanes; Active;) {
    Active = 0;
    for (unsigned L = 0; L < Lanes; ++L) {
      const std::uint32_t Y = Cur[L];
      if (Y == Idle)
        continue;
      ++Active;
      const std::uint32_t W = Walker[L];
      if (const std::uint32_t Tag = T[Y].Tag) {
        // Right link from a provisional 1 to Y: flip(W) ^ flip(w') = side'.
        Link(W, (Tag >> 1) - 1, static_cast<std::uint8_t>(Tag & 1u));
        Start(L);
        continue;
      }
      T[Y].Tag = (W + 1) << 1;
      T[Y ^ 1u].Tag = (W + 1) << 1 | 1u;
      const std::uint32_t Next = T[Y ^ 1u].Mate;
      __builtin_prefetch(&T[Next]);
      Cur[L] = Next;
    }
  }
  // Flips per walker, then the sides.
  const std::size_t NumWalkers = Parent.size();
  for (std::uint32_t W = 0; W < NumWalkers; ++W) {
    std::uint8_t P;
    findWalker(W, Parent.data(), Rel.data(), P);
  }
  // After full compression every walker's parent is its root and Rel[w]
  // its flip (a root's Rel is 0: it keeps its provisional sides).
  const std::uint8_t *Flip = Rel.data();
  for (std::size_t A = 0; A < K; ++A) {
    const std::uint32_t Tag = T[A].Tag;
    Side[A] = static_cast<std::uint8_t>((Tag & 1u) ^ Flip[(Tag >> 1) - 1]);
  }
}

} // namespace bankwise::schedule_detail

namespace bankwise::schedule_detail {

namespace {

/// Words of one row of a NumV x NumV bit matrix.
std::size_t wordsPerRow(std::uint32_t NumV) { return (NumV + 63) / 64; }

/// Par[r * WPR + w] = parity of the set bits of row r before word w; throws
/// if a row has an odd number of set bits.
void prefixParity(const std::vector<std::uint64_t> &M, std::uint32_t NumV,
                  std::vector<std::uint8_t> &Par) {
  const std::size_t WPR = wordsPerRow(NumV);
  Par.resize(M.size());
  for (std::size_t R = 0; R < NumV; ++R) {
    std::uint32_t P = 0;
    for (std::size_t W = R * WPR, E = W + WPR; W < E; ++W) {
      Par[W] = static_cast<std::uint8_t>(P);
      P ^= static_cast<std::uint32_t>(__builtin_popcountll(M[W])) & 1u;
    }
    if (P)
      internalError("Euler split of a vertex of odd weight");
  }
}

/// The set bit paired with set bit X of row Row of M: the set bits of a row
/// are paired consecutively (1st with 2nd, 3rd with 4th, ...).
/// Row 0 = bits {3, 5, 70, 71}: partner(5) = 3, partner(70) = 71.
[[gnu::always_inline]] inline std::uint32_t
pairedBit(const std::uint64_t *M, const std::uint8_t *Par, std::size_t WPR,
          std::uint32_t Row, std::uint32_t X) {
  const std::size_t RowBase = std::size_t(Row) * WPR;
  std::size_t W = RowBase + (X >> 6);
  const std::uint32_t B = X & 63u;
  const std::uint64_t Word = M[W];
  const std::uint64_t Below = Word & ((std::uint64_t(1) << B) - 1);
  const std::uint64_t Above = Word & ~((std::uint64_t(2) << B) - 1);
  // Second of its pair (odd rank): the previous set bit, else the next one.
  // Selected without branches: the rank parity is a coin flip.
  const std::uint64_t Second =
      std::uint64_t(0) - ((Par[W] ^ __builtin_popcountll(Below)) & 1u);
  const std::uint64_t Rest = (Below & Second) | (Above & ~Second);
  if (Rest) [[likely]] {
    const std::uint32_t Next = __builtin_ctzll(Rest),
                        Prev = 63 - __builtin_clzll(Rest);
    return static_cast<std::uint32_t>(((W - RowBase) << 6) +
                                      (Second ? Prev : Next));
  }
  std::uint64_t More = 0;
  if (Second) {
    while (!More)
      More = M[--W];
    return static_cast<std::uint32_t>(((W - RowBase) << 6) + 63 -
                                      __builtin_clzll(More));
  }
  while (!More)
    More = M[++W];
  return static_cast<std::uint32_t>(((W - RowBase) << 6) +
                                    __builtin_ctzll(More));
}

/// Dense mode: the odd cells as bit matrices (by row and by column), trails
/// walked by bit scans. Sets bit (u, v) of S.HalfA when the odd unit of cell
/// (u, v) goes to A. Working set 4 NumV^2 / 8 bytes (2 MiB for 2048
/// vertices), independent of the odd count. (Interleaving the matrices word
/// by word, for one cache line per step, measured 1.5x slower: 3 MiB.)
void walkTrailsDense(const CellRows &G, std::uint32_t NumV, SplitScratch &S) {
  const std::size_t WPR = wordsPerRow(NumV), Words = WPR * NumV;
  S.OddRows.assign(Words, 0);
  S.OddCols.assign(Words, 0);
  S.Visited.assign(Words, 0);
  S.HalfA.assign(Words, 0);
  for (std::uint32_t U = 0; U < NumV; ++U)
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C) {
      // Without a branch: the parity of a weight is a coin flip.
      const std::uint32_t V = G.V[C];
      const std::uint64_t Odd = G.W[C] & 1u;
      S.OddRows[U * WPR + (V >> 6)] |= Odd << (V & 63u);
      S.OddCols[V * WPR + (U >> 6)] |= Odd << (U & 63u);
    }
  prefixParity(S.OddRows, NumV, S.RowPar);
  prefixParity(S.OddCols, NumV, S.ColPar);
  const std::uint64_t *Odd = S.OddRows.data(), *OddT = S.OddCols.data();
  const std::uint8_t *OddPar = S.RowPar.data(), *OddTPar = S.ColPar.data();
  std::uint64_t *Vis = S.Visited.data(), *HalfA = S.HalfA.data();
  auto Mark = [&](std::uint64_t *M, std::uint32_t U, std::uint32_t V) {
    M[U * WPR + (V >> 6)] |= std::uint64_t(1) << (V & 63u);
  };
  auto isMarked = [&](const std::uint64_t *M, std::uint32_t U,
                      std::uint32_t V) {
    return (M[U * WPR + (V >> 6)] >> (V & 63u)) & 1u;
  };
  for (std::uint32_t U = 0; U < NumV; ++U)
    for (std::size_t W = 0; W < WPR; ++W) {
      const std::size_t At = U * WPR + W;
      for (std::uint64_t Cand = Odd[At] & ~Vis[At]; Cand;
           Cand = Odd[At] & ~Vis[At]) {
        const auto V0 =
            static_cast<std::uint32_t>((W << 6) + __builtin_ctzll(Cand));
        Mark(Vis, U, V0);
        Mark(HalfA, U, V0);
        // Two walkers from the start cell, one each way round the trail
        // (forward: left link first; backward: right link first), so that
        // two independent chains of bit scans overlap. The visited cells
        // are always one arc around the start; when the next cell of either
        // walker is visited, the arc is the whole trail. Same halves as one
        // walker going forward: the cells at even distance from the start
        // (either way) are in A.
        std::uint32_t Fu = U, Fv = V0, Bu = U, Bv = V0;
        while (true) {
          const std::uint32_t FV = pairedBit(Odd, OddPar, WPR, Fu, Fv);
          const std::uint32_t BU = pairedBit(OddT, OddTPar, WPR, Bv, Bu);
          if (isMarked(Vis, Fu, FV))
            break;
          Mark(Vis, Fu, FV);
          if (isMarked(Vis, BU, Bv))
            break;
          Mark(Vis, BU, Bv);
          const std::uint32_t FU = pairedBit(OddT, OddTPar, WPR, FV, Fu);
          const std::uint32_t BV = pairedBit(Odd, OddPar, WPR, BU, Bv);
          if (isMarked(Vis, FU, FV))
            break;
          Mark(Vis, FU, FV);
          Mark(HalfA, FU, FV);
          if (isMarked(Vis, BU, BV))
            break;
          Mark(Vis, BU, BV);
          Mark(HalfA, BU, BV);
          Fu = FU;
          Fv = FV;
          Bu = BU;
          Bv = BV;
        }
      }
    }
}

/// List mode: pairing at right vertices by a counting sort of the odd cells,
/// trails walked over the odd-cell indices. Writes S.Side per odd cell.
void walkTrailsList(const CellRows &G, std::uint32_t NumV, std::size_t K,
                    SplitScratch &S) {
  // Odd cells in (u, cell) order, with their right vertex. Every row has an
  // even number of them, so odd cells 2i and 2i+1 share their left vertex:
  // the left pairing is a <-> a ^ 1.
  S.LeftMate.resize(K); // right vertex of each odd cell
  std::size_t X = 0;
  for (std::size_t C = 0; C < G.size(); ++C) {
    S.LeftMate[X] = G.V[C];
    X += G.W[C] & 1u;
    if (X == K)
      break;
  }
  // Right pairing: odd cells of each right vertex, in u order, in pairs.
  S.Start.assign(static_cast<std::size_t>(NumV) + 1, 0);
  for (std::size_t I = 0; I < K; ++I)
    ++S.Start[S.LeftMate[I] + 1];
  for (std::uint32_t V = 0; V < NumV; ++V) {
    if (S.Start[V + 1] & 1u)
      internalError("Euler split of a right vertex of odd weight");
    S.Start[V + 1] += S.Start[V];
  }
  S.ByRight.resize(K);
  for (std::size_t I = 0; I < K; ++I)
    S.ByRight[S.Start[S.LeftMate[I]]++] = static_cast<std::uint32_t>(I);
  S.Trail.resize(K);
  TrailNode *T = S.Trail.data();
  for (std::size_t I = 0; I < K; I += 2) {
    T[S.ByRight[I]] = {S.ByRight[I + 1], 0};
    T[S.ByRight[I + 1]] = {S.ByRight[I], 0};
  }
  // One entry past the last, read (and ignored) by the halves' loop.
  S.Side.resize(K + 1);
  S.Side[K] = 0;
  colorTrails(K, S.Side.data(), S);
}

} // namespace

void eulerSplitRows(const CellRows &G, std::uint32_t NumV, CellRows &A,
                    CellRows &B, SplitScratch &S) {
  std::size_t K = 0;
  for (std::uint32_t U = 0; U < NumV; ++U) {
    std::size_t RowOdd = 0;
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
      RowOdd += G.W[C] & 1u;
    if (RowOdd & 1u)
      internalError("Euler split of a left vertex of odd weight");
    K += RowOdd;
  }
  // Dense mode when the odd cells are many for the bit matrices' size.
  // Dense mode (bit matrices, 4 NumV^2 / 8 bytes) when the odd cells fill
  // at least a quarter of the matrix: measured faster than the list mode on
  // the 2048-vertex row graph down to that density, slower below it.
  const bool Dense = K && NumV <= 4096 && K * 4 >= std::size_t(NumV) * NumV;
  if (Dense)
    walkTrailsDense(G, NumV, S);
  else if (K)
    walkTrailsList(G, NumV, K, S);
  else
    S.Side.assign(1, 0);
  const std::size_t WPR = wordsPerRow(NumV);
  const std::uint64_t *HalfA = S.HalfA.data();
  const std::uint8_t *Side = S.Side.data();
  writeCellHalves(G, NumV, A, B,
                  [&](std::uint32_t U, std::uint32_t V, std::size_t K) {
                    return Dense ? ~HalfA[U * WPR + (V >> 6)] >> (V & 63u) & 1u
                                 : Side[K];
                  });
}

namespace {

/// The trail walk of eulerSplitEdges: S.Side[e] = 0 when edge e goes to A.
void edgeSides(const EdgeRows &G, std::uint32_t NumV, std::uint32_t D,
               SplitScratch &S) {
  const std::size_t E = std::size_t(NumV) * D;
  if (D % 2 != 0)
    internalError("Euler split of a graph of odd degree");
  // Right partner of edge e: the other edge of e's pair of positions in Col
  // (positions 2m, 2m+1). Gathered in edge order: sequential writes,
  // independent reads.
  S.Trail.resize(E);
  TrailNode *T = S.Trail.data();
  const std::uint32_t *Col = G.Col.data(), *Pos = G.Pos.data();
  for (std::size_t Ed = 0; Ed < E; ++Ed)
    T[Ed] = {Col[Pos[Ed] ^ 1u], 0};
  S.Side.resize(E);
  colorTrails(E, S.Side.data(), S);
}

} // namespace

void eulerSplitEdges(const EdgeRows &G, std::uint32_t NumV, std::uint32_t D,
                     EdgeRows &A, EdgeRows &B, SplitScratch &S) {
  const std::size_t E = std::size_t(NumV) * D, Half = E / 2;
  edgeSides(G, NumV, D, S);
  const std::uint32_t *Col = G.Col.data(), *Pos = G.Pos.data();
  const std::uint8_t *Side = S.Side.data();
  A.Adj.resize(Half);
  A.Col.resize(Half);
  A.Pos.resize(Half);
  B.Adj.resize(Half);
  B.Col.resize(Half);
  B.Pos.resize(Half);
  for (std::size_t K = 0; K < Half; ++K) {
    const std::size_t EA = 2 * K + Side[2 * K], EB = EA ^ 1u;
    A.Adj[K] = G.Adj[EA];
    A.Pos[K] = Pos[EA] >> 1;
    B.Adj[K] = G.Adj[EB];
    B.Pos[K] = Pos[EB] >> 1;
  }
  // Without branches: which of a pair is in A is a coin flip.
  for (std::size_t M = 0; M < Half; ++M) {
    const std::uint32_t C0 = Col[2 * M], C1 = Col[2 * M + 1];
    const std::uint32_t FirstIsB = 0u - std::uint32_t(Side[C0]);
    A.Col[M] = ((C0 & ~FirstIsB) | (C1 & FirstIsB)) >> 1;
    B.Col[M] = ((C1 & ~FirstIsB) | (C0 & FirstIsB)) >> 1;
  }
}

namespace {

void factorEdgesAt(const EdgeRows &G, std::uint32_t NumV, std::uint32_t D,
                   std::uint32_t K, std::uint32_t Base,
                   const RowFactorSink &Sink, RowScratch &S,
                   std::size_t Depth) {
  if (K == 1) {
    CellRows &Leaf = S.Leaf;
    const std::size_t E = std::size_t(NumV) * D;
    Leaf.RowStart.resize(std::size_t(NumV) + 1);
    for (std::uint32_t U = 0; U <= NumV; ++U)
      Leaf.RowStart[U] = U * D;
    Leaf.V.assign(G.Adj.begin(), G.Adj.begin() + E);
    if (Leaf.W.size() != E)
      Leaf.W.assign(E, 1);
    Sink(Leaf, Base);
    return;
  }
  if (K % 2 != 0)
    internalError("edge form reached an odd factor count");
  if (K == 2) {
    // The last split goes straight into the two factors: edge 2k or 2k+1
    // (by the side of 2k) is edge k of factor Base, the other of Base + 1.
    // Same factors as eulerSplitEdges and K = 1 below, without building
    // the halves' Col and Pos.
    edgeSides(G, NumV, D, S.Split);
    const std::size_t Half = std::size_t(NumV) * D / 2;
    CellRows &Leaf = S.Leaf;
    Leaf.RowStart.resize(std::size_t(NumV) + 1);
    for (std::uint32_t U = 0; U <= NumV; ++U)
      Leaf.RowStart[U] = U * (D / 2);
    if (Leaf.W.size() != Half)
      Leaf.W.assign(Half, 1);
    Leaf.V.resize(Half);
    const std::uint8_t *Side = S.Split.Side.data();
    const std::uint32_t *Adj = G.Adj.data();
    for (std::uint32_t Y = 0; Y < 2; ++Y) {
      for (std::size_t X = 0; X < Half; ++X)
        Leaf.V[X] = Adj[2 * X + (Side[2 * X] ^ Y)];
      Sink(Leaf, Base + Y);
    }
    return;
  }
  if (Depth >= S.EdgeDepth.size())
    internalError("factorization deeper than its scratch");
  auto &[A, B] = S.EdgeDepth[Depth];
  eulerSplitEdges(G, NumV, D, A, B, S.Split);
  factorEdgesAt(A, NumV, D / 2, K / 2, Base, Sink, S, Depth + 1);
  factorEdgesAt(B, NumV, D / 2, K / 2, Base + K / 2, Sink, S, Depth + 1);
}

/// Edge form of the D-regular G: cells expanded into parallel edges, left
/// vertex by left vertex; Col by a counting sort (right vertex v owns
/// positions [v*D, (v+1)*D) since the graph is regular).
void toEdges(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
             EdgeRows &Out, SplitScratch &S) {
  const std::size_t E = std::size_t(NumV) * D;
  Out.Adj.resize(E);
  Out.Col.resize(E);
  Out.Pos.resize(E);
  std::size_t At = 0;
  for (std::uint32_t U = 0; U < NumV; ++U) {
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
      for (std::uint32_t X = 0; X < G.W[C]; ++X)
        Out.Adj[At++] = G.V[C];
    if (At != std::size_t(U + 1) * D)
      internalError("edge form of a graph that is not regular");
  }
  S.Start.resize(NumV);
  for (std::uint32_t V = 0; V < NumV; ++V)
    S.Start[V] = V * D;
  for (std::size_t Ed = 0; Ed < E; ++Ed) {
    const std::uint32_t P = S.Start[Out.Adj[Ed]]++;
    Out.Col[P] = static_cast<std::uint32_t>(Ed);
    Out.Pos[Ed] = P;
  }
}

void factorRowsAt(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
                  std::uint32_t K, std::uint32_t Base,
                  const RowFactorSink &Sink, RowScratch &S, std::size_t Depth) {
  if (K == 1) {
    Sink(G, Base);
    return;
  }
  // Edge form for the rest of the Euler splits once the graph is small
  // (2^19 edges) and its cells are mostly single edges (at most 2 per cell
  // on average). Measured on the 2048-row graph of n = 2^26 (one thread,
  // factorization CPU s): 2^17 -> 9.2, 2^19 -> 7.3, 2^21 -> 9.0; above
  // 2^19 the arrays (about 25 bytes per edge) leave the 2 MiB L2.
  const std::size_t Edges = std::size_t(NumV) * D;
  if (K % 2 == 0 && (K & (K - 1)) == 0 && Edges <= (std::size_t(1) << 19) &&
      Edges <= 2 * G.size()) {
    toEdges(G, NumV, D, S.Top, S.Split);
    factorEdgesAt(S.Top, NumV, D, K, Base, Sink, S, 0);
    return;
  }
  if (K % 2 == 0) {
    if (Depth >= S.Depth.size())
      internalError("factorization deeper than its scratch");
    auto &[A, B] = S.Depth[Depth];
    eulerSplitRows(G, NumV, A, B, S.Split);
    factorRowsAt(A, NumV, D / 2, K / 2, Base, Sink, S, Depth + 1);
    factorRowsAt(B, NumV, D / 2, K / 2, Base + K / 2, Sink, S, Depth + 1);
    return;
  }
  // Odd K > 1: the cell-graph engine (Alon's matching), then each factor is
  // gathered row by row and reported once.
  CellGraph H;
  H.reserve(G.size());
  for (std::uint32_t U = 0; U < NumV; ++U)
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C)
      H.push(U, G.V[C], G.W[C], C);
  std::vector<CellGraph> Parts(K);
  factorizeCells(
      std::move(H), NumV, D, K, 0,
      [&](const CellGraph &Cells, std::uint32_t F) {
        for (std::size_t I = 0; I < Cells.size(); ++I)
          Parts[F].push(Cells.U[I], Cells.V[I], Cells.W[I], Cells.Id[I]);
      },
      S.Split);
  CellRows F;
  for (std::uint32_t P = 0; P < K; ++P) {
    const CellGraph &Part = Parts[P];
    // Sorted by (u, source cell): a deterministic row order.
    std::vector<std::size_t> Order(Part.size());
    for (std::size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(), [&](std::size_t X, std::size_t Y) {
      return Part.U[X] != Part.U[Y] ? Part.U[X] < Part.U[Y]
                                    : Part.Id[X] < Part.Id[Y];
    });
    F.RowStart.assign(static_cast<std::size_t>(NumV) + 1, 0);
    F.V.clear();
    F.W.clear();
    for (std::size_t I : Order) {
      ++F.RowStart[Part.U[I] + 1];
      F.V.push_back(Part.V[I]);
      F.W.push_back(Part.W[I]);
    }
    for (std::uint32_t U = 0; U < NumV; ++U)
      F.RowStart[U + 1] += F.RowStart[U];
    Sink(F, Base + P);
  }
}

} // namespace

void factorCellRows(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
                    std::uint32_t K, std::uint32_t Base,
                    const RowFactorSink &Sink, RowScratch &S) {
  if (K == 0 || D % K != 0)
    internalError("factor count does not divide the degree");
  factorRowsAt(G, NumV, D, K, Base, Sink, S, 0);
}

} // namespace bankwise::schedule_detail
