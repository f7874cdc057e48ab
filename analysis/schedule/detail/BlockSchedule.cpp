// Conflict-free block schedule: colour the bank graph, one warp per colour.

#include "analysis/schedule/detail/BlockSchedule.h"

#include "analysis/schedule/EdgeColoring.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace bankwise::schedule_detail {

namespace {

[[noreturn]] void internalError(const char *What) {
  throw std::logic_error(fmt::format("bankwise internal error: {}", What));
}

constexpr std::uint8_t NoVertex = 0xFF;

/// X mod W, by a mask when W is a power of two (always, on real machines).
struct BankOf {
  std::uint32_t W, Mask;
  explicit BankOf(std::uint32_t Banks)
      : W(Banks), Mask((Banks & (Banks - 1)) == 0 ? Banks - 1 : 0) {}
  std::uint32_t operator()(std::uint32_t X) const {
    return Mask || W == 1 ? X & Mask : X % W;
  }
};

/// Fn(j, Q[j], cell) for every edge j of the bank graph, cell = (j mod W) *
/// W + Q[j] mod W, by masks and a shift when W is a power of two (always,
/// on real machines; a multiply per edge otherwise).
template <class F>
void forEachCell(std::span<const std::uint32_t> Q, std::uint32_t W, F &&Fn) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  if ((W & (W - 1)) == 0) {
    const std::uint32_t Mask = W - 1,
                        Shift = static_cast<std::uint32_t>(__builtin_ctz(W));
    for (std::uint32_t J = 0; J < N; ++J) {
      const std::uint32_t To = Q[J];
      Fn(J, To, std::size_t((J & Mask) << Shift | (To & Mask)));
    }
    return;
  }
  for (std::uint32_t J = 0; J < N; ++J) {
    const std::uint32_t To = Q[J];
    Fn(J, To, std::size_t(J % W) * W + To % W);
  }
}

/// Augmenting path from the free left vertex U in the support Adj (bit v of
/// Adj[u] set when cell (u, v) has weight), breadth first: a dequeued left
/// vertex first looks for a free right vertex among its cells (FreeR: the
/// unmatched right vertices; the lowest wins), and only then queues the
/// partners of its matched ones, right vertices in increasing order. Flips
/// the path into the matching, keeping MC[u] = the count of u's matched
/// cell (Count[u * W + v] for the unmatched ones). False when none exists.
bool augment(std::uint32_t U, const std::uint64_t *Adj, std::uint8_t *MatchL,
             std::uint8_t *MatchR, std::uint64_t &FreeR, std::uint32_t *MC,
             std::uint32_t *Count, std::uint32_t W) {
  std::uint8_t Queue[64], ParentR[64];
  std::uint32_t Head = 0, Tail = 0;
  std::uint64_t Seen = 0;
  Queue[Tail++] = static_cast<std::uint8_t>(U);
  while (Head < Tail) {
    const std::uint32_t X = Queue[Head++];
    if (const std::uint64_t Free = Adj[X] & FreeR & ~Seen) {
      auto V = static_cast<std::uint32_t>(__builtin_ctzll(Free));
      FreeR &= ~(std::uint64_t(1) << V);
      ParentR[V] = static_cast<std::uint8_t>(X);
      while (true) { // flip the path back to U
        const std::uint32_t PX = ParentR[V], Old = MatchL[PX];
        // MC[u] is the live count of u's matched cell; Count holds the
        // others. Write the old one back, load the new one.
        if (Old != NoVertex)
          Count[std::size_t(PX) * W + Old] = MC[PX];
        MC[PX] = Count[std::size_t(PX) * W + V];
        MatchL[PX] = static_cast<std::uint8_t>(V);
        MatchR[V] = static_cast<std::uint8_t>(PX);
        if (PX == U)
          return true;
        V = Old;
      }
    }
    for (std::uint64_t Cand = Adj[X] & ~Seen; Cand; Cand &= Cand - 1) {
      const auto V = static_cast<std::uint32_t>(__builtin_ctzll(Cand));
      Seen |= std::uint64_t(1) << V;
      ParentR[V] = static_cast<std::uint8_t>(X);
      Queue[Tail++] = MatchR[V]; // matched: the free ones were taken above
    }
  }
  return false;
}

/// The Birkhoff decomposition of the W x W bank matrix M (M[u][v] = edges j
/// with j mod W = u, Q[j] mod W = v), W <= 64: permutation matrices with
/// multiplicities summing to N/W, matching k (right vertex of every left
/// vertex) at B.PermLane[k*W ..] with multiplicity B.PermMult[k]; returns
/// their number. B.CellBegin[cell] is where each cell's edges start when the
/// edges are listed cell after cell, cells in (u, v) order.
///
/// Take a perfect matching of M's support, with multiplicity c = its
/// smallest cell, subtract c times it, repair the matching where cells
/// emptied, and repeat; every round empties a cell, so at most W^2 rounds of
/// O(W) work, independent of N.
std::size_t decomposeBankMatrix(std::span<const std::uint32_t> Q,
                                std::uint32_t W, BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  const std::size_t WW = std::size_t(W) * W;
  B.Count.assign(WW, 0);
  forEachCell(Q, W, [&](std::uint32_t, std::uint32_t, std::size_t Cell) {
    ++B.Count[Cell];
  });
  B.CellBegin.resize(WW + 1);
  B.CellBegin[0] = 0;
  for (std::size_t X = 0; X < WW; ++X)
    B.CellBegin[X + 1] = B.CellBegin[X] + B.Count[X];
  // At most Delta rounds (each takes at least one colour). Buffers sized
  // once; a round writes its matching at NumPerms * W.
  if (B.PermLane.size() < std::size_t(Delta) * W)
    B.PermLane.resize(std::size_t(Delta) * W);
  if (B.PermMult.size() < Delta)
    B.PermMult.resize(Delta);
  std::uint8_t *PermLane = B.PermLane.data();
  std::uint32_t *PermMult = B.PermMult.data();
  std::uint32_t *Count = B.Count.data();
  std::size_t NumPerms = 0;
  std::uint32_t Left = Delta;
  // The W cyclic shifts (u -> u + s mod W) first, each as often as its
  // smallest cell allows: no matching to search for, and on a near-uniform
  // matrix (a random block: cells of Delta/W +- a few) they take about two
  // thirds of the colours, so the rounds below, about one per cell emptied,
  // work on a smaller remainder (611 -> ~300 rounds for a random 32768-word
  // block).
  for (std::uint32_t Sh = 0; Sh < W && Left; ++Sh) {
    std::uint32_t Mult = Left;
    for (std::uint32_t U = 0, V = Sh; U < W; ++U, V = V + 1 == W ? 0 : V + 1)
      Mult = std::min(Mult, Count[std::size_t(U) * W + V]);
    if (!Mult)
      continue;
    for (std::uint32_t U = 0, V = Sh; U < W; ++U, V = V + 1 == W ? 0 : V + 1) {
      PermLane[NumPerms * W + U] = static_cast<std::uint8_t>(V);
      Count[std::size_t(U) * W + V] -= Mult;
    }
    PermMult[NumPerms++] = Mult;
    Left -= Mult;
  }
  std::uint64_t Adj[64] = {};
  std::uint8_t MatchL[64], MatchR[64];
  std::uint64_t FreeR = W == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << W) - 1;
  for (std::uint32_t U = 0; U < W; ++U) {
    MatchL[U] = MatchR[U] = NoVertex;
    for (std::uint32_t V = 0; V < W; ++V)
      if (Count[std::size_t(U) * W + V])
        Adj[U] |= std::uint64_t(1) << V;
  }
  // MC[u]: live count of u's matched cell, contiguous so that a round's
  // minimum and subtraction are plain loops over W entries.
  std::uint32_t MC[64] = {};
  if (Left)
    for (std::uint32_t U = 0; U < W; ++U)
      if (!augment(U, Adj, MatchL, MatchR, FreeR, MC, Count, W))
        internalError("bank graph without a perfect matching");
  std::uint8_t Freed[64];
  while (Left) {
    std::uint32_t Mult = Left;
    for (std::uint32_t U = 0; U < W; ++U)
      Mult = std::min(Mult, MC[U]);
    std::copy_n(MatchL, W, PermLane + NumPerms * W);
    PermMult[NumPerms++] = Mult;
    Left -= Mult;
    // Cells emptied by this round: a mask first (a loop without branches),
    // then its set bits.
    std::uint64_t Empty = 0;
    for (std::uint32_t U = 0; U < W; ++U) {
      MC[U] -= Mult;
      Empty |= std::uint64_t(MC[U] == 0) << U;
    }
    std::uint32_t NumFreed = 0;
    for (; Empty; Empty &= Empty - 1) {
      const auto U = static_cast<std::uint32_t>(__builtin_ctzll(Empty));
      const std::uint32_t V = MatchL[U];
      Count[std::size_t(U) * W + V] = 0;
      Adj[U] &= ~(std::uint64_t(1) << V);
      MatchL[U] = MatchR[V] = NoVertex;
      FreeR |= std::uint64_t(1) << V;
      Freed[NumFreed++] = static_cast<std::uint8_t>(U);
    }
    if (!Left)
      break;
    // The rest is (Left)-regular, so a perfect matching exists (König).
    for (std::uint32_t I = 0; I < NumFreed; ++I)
      if (!augment(Freed[I], Adj, MatchL, MatchR, FreeR, MC, Count, W))
        internalError("Birkhoff round without a perfect matching");
  }
  return NumPerms;
}

/// The Birkhoff colouring handed out matching by matching: matching k with
/// multiplicity c_k owns colours [c_0 + .. + c_{k-1}, + c_k), and the edges
/// of a cell, in increasing j, take the colours of the matchings through it
/// in increasing order. So the edges are first listed cell after cell (j
/// ascending within a cell), and colour after colour each lane u takes the
/// next edge of its cell (u, v) into bank v of the warp: the warps are
/// written whole, in colour order, with no per-edge colour table. Warps are
/// then numbered by increasing smallest source (a bit per source).
///
/// An edge is kept as (j << 16) | Q[j] when N <= 65536 (the minimum of a
/// colour's keys is then its smallest source, and D needs no gather), else
/// as j.
template <class Index>
void birkhoffBlock(std::span<const std::uint32_t> Q, std::uint32_t W,
                   std::span<Index> S, std::span<Index> D, BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  const std::size_t NumPerms = decomposeBankMatrix(Q, W, B);
  const std::size_t WW = std::size_t(W) * W;
  const bool Packed = N <= 65536;
  // Edges cell after cell, j ascending within a cell.
  B.Edges.resize(N);
  B.Fill.assign(B.CellBegin.begin(), B.CellBegin.begin() + WW);
  std::uint32_t *ByCell = B.Edges.data(), *Fill = B.Fill.data();
  if (Packed)
    forEachCell(Q, W, [&](std::uint32_t J, std::uint32_t To, std::size_t Cell) {
      ByCell[Fill[Cell]++] = J << 16 | To;
    });
  else
    forEachCell(Q, W, [&](std::uint32_t J, std::uint32_t, std::size_t Cell) {
      ByCell[Fill[Cell]++] = J;
    });
  // Warps in colour order, each colour's smallest key; Fill becomes each
  // cell's cursor.
  B.Warps.resize(N);
  B.MinKey.resize(Delta);
  std::uint32_t *Warps = B.Warps.data(), *MinKey = B.MinKey.data();
  std::uint32_t *Cur = B.Fill.data();
  std::copy(B.CellBegin.begin(), B.CellBegin.begin() + WW, Cur);
  const std::uint8_t *PermLane = B.PermLane.data();
  std::uint32_t Color = 0;
  for (std::size_t K = 0; K < NumPerms; ++K) {
    const std::uint8_t *Lane = PermLane + K * W;
    const std::uint32_t Mult = B.PermMult[K];
    if (Color + Mult > Delta)
      internalError("Birkhoff matchings exceed the block's colours");
    const std::uint32_t *From[64];
    for (std::uint32_t U = 0; U < W; ++U) {
      std::uint32_t &C = Cur[std::size_t(U) * W + Lane[U]];
      From[U] = ByCell + C;
      C += Mult;
    }
    for (std::uint32_t R = 0; R < Mult; ++R, ++Color) {
      std::uint32_t *Warp = Warps + std::size_t(Color) * W;
      std::uint32_t Min = ~0u;
      for (std::uint32_t U = 0; U < W; ++U) {
        const std::uint32_t E = From[U][R];
        Warp[Lane[U]] = E;
        Min = std::min(Min, E);
      }
      MinKey[Color] = Min;
    }
  }
  if (Color != Delta)
    internalError("Birkhoff matchings do not cover the block's colours");
  for (std::size_t X = 0; X < WW; ++X)
    if (Cur[X] != B.CellBegin[X + 1])
      internalError("Birkhoff matchings do not use every edge once");
  // Warps by increasing smallest source: mark each colour's smallest source
  // (distinct: the colours are disjoint), then read the marks in order.
  // ColorAt reuses the edge list, no longer needed.
  const unsigned KeyShift = Packed ? 16 : 0;
  std::vector<std::uint64_t> &Marks = B.Marks;
  Marks.assign(N / 64 + 1, 0);
  std::uint32_t *ColorAt = ByCell;
  for (std::uint32_t C = 0; C < Delta; ++C) {
    const std::uint32_t Src = MinKey[C] >> KeyShift;
    Marks[Src >> 6] |= std::uint64_t(1) << (Src & 63);
    ColorAt[Src] = C;
  }
  std::uint32_t Rank = 0;
  for (std::size_t Word = 0; Word < Marks.size(); ++Word)
    for (std::uint64_t Bits = Marks[Word]; Bits; Bits &= Bits - 1) {
      const std::size_t Src = Word * 64 + std::size_t(__builtin_ctzll(Bits));
      const std::uint32_t *Warp = Warps + std::size_t(ColorAt[Src]) * W;
      Index *SOut = S.data() + std::size_t(Rank) * W,
            *DOut = D.data() + std::size_t(Rank) * W;
      if (Packed)
        for (std::uint32_t L = 0; L < W; ++L) {
          SOut[L] = static_cast<Index>(Warp[L] >> 16);
          DOut[L] = static_cast<Index>(Warp[L] & 0xFFFFu);
        }
      else
        for (std::uint32_t L = 0; L < W; ++L) {
          SOut[L] = static_cast<Index>(Warp[L]);
          DOut[L] = static_cast<Index>(Q[Warp[L]]);
        }
      ++Rank;
    }
  if (Rank != Delta)
    internalError("Birkhoff colouring left a colour empty");
}

/// Colors[j] in [0, N/W): the König colouring of the bank graph, edge j =
/// (j mod W, Q[j] mod W), for W > 64 (W <= 64 goes through birkhoffBlock):
/// dense W x W cell matrix for W <= 1024, the generic colouring otherwise.
void colorBankGraph(std::span<const std::uint32_t> Q, std::uint32_t W,
                    BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  B.Color.resize(N);
  if (W > 1024) {
    std::vector<BipartiteEdge> Edges(N);
    for (std::uint32_t J = 0; J < N; ++J)
      Edges[J] = {J % W, Q[J] % W};
    const std::vector<std::uint32_t> C = colorRegularBipartite(W, Edges);
    std::copy(C.begin(), C.end(), B.Color.begin());
    return;
  }
  const std::size_t WW = std::size_t(W) * W;
  B.Count.assign(WW, 0);
  for (std::uint32_t J = 0; J < N; ++J)
    ++B.Count[std::size_t(J % W) * W + Q[J] % W];
  // Cells in (left, right) order; CellOf maps a matrix entry to its cell.
  CellGraph G;
  G.reserve(std::min<std::size_t>(WW, N));
  B.CellOf.resize(WW);
  B.CellBegin.clear();
  std::uint32_t Acc = 0;
  for (std::size_t X = 0; X < WW; ++X) {
    if (!B.Count[X])
      continue;
    B.CellOf[X] = static_cast<std::uint32_t>(G.size());
    B.CellBegin.push_back(Acc);
    G.push(static_cast<std::uint32_t>(X / W), static_cast<std::uint32_t>(X % W),
           B.Count[X], static_cast<std::uint32_t>(G.size()));
    Acc += B.Count[X];
  }
  B.CellBegin.push_back(Acc);
  const std::size_t NumCells = G.size();
  B.Fill.assign(B.CellBegin.begin(), B.CellBegin.end() - 1);
  B.CellColors.resize(N);
  factorizeCells(
      std::move(G), W, Delta, Delta, 0,
      [&](const CellGraph &Cells, std::uint32_t C) {
        for (std::size_t I = 0; I < Cells.size(); ++I)
          for (std::uint32_t K = 0; K < Cells.W[I]; ++K)
            B.CellColors[B.Fill[Cells.Id[I]]++] = C;
      },
      B.Split);
  // Edges of a cell, in increasing j, take its colours in increasing order.
  for (std::size_t C = 0; C < NumCells; ++C)
    std::sort(B.CellColors.begin() + B.CellBegin[C],
              B.CellColors.begin() + B.CellBegin[C + 1]);
  B.Fill.assign(B.CellBegin.begin(), B.CellBegin.end() - 1);
  for (std::uint32_t J = 0; J < N; ++J) {
    const std::uint32_t Cell = B.CellOf[std::size_t(J % W) * W + Q[J] % W];
    B.Color[J] = B.CellColors[B.Fill[Cell]++];
  }
}

} // namespace

template <class Index>
void conflictFreeBlock(std::span<const std::uint32_t> Q, std::uint32_t W,
                       std::span<Index> S, std::span<Index> D,
                       BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  if (W == 0 || N % W != 0 || S.size() != N || D.size() != N)
    throw std::logic_error("conflictFreeBlock: bad block size");
  if (W <= 64) {
    birkhoffBlock<Index>(Q, W, S, D, B);
    return;
  }
  colorBankGraph(Q, W, B);
  conflictFreeFromColors<Index>(Q, W, B.Color, S, D, B);
}

template <class Index>
void conflictFreeFromColors(std::span<const std::uint32_t> Q, std::uint32_t W,
                            std::span<const std::uint32_t> Color,
                            std::span<Index> S, std::span<Index> D,
                            BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  // Slot[c*W + l] = the source of colour c written to bank l.
  const BankOf Bank(W);
  B.Slot.resize(N);
  for (std::uint32_t J = 0; J < N; ++J)
    B.Slot[std::size_t(Color[J]) * W + Bank(Q[J])] = J;
  // Warp order: colours by first (= smallest) source.
  constexpr std::uint32_t NoRank = 0xFFFFFFFFu;
  B.Rank.assign(Delta, NoRank);
  std::uint32_t Next = 0;
  for (std::uint32_t J = 0; J < N && Next < Delta; ++J)
    if (B.Rank[Color[J]] == NoRank)
      B.Rank[Color[J]] = Next++;
  for (std::uint32_t C = 0; C < Delta; ++C) {
    const std::size_t Base = std::size_t(B.Rank[C]) * W;
    for (std::uint32_t L = 0; L < W; ++L) {
      const std::uint32_t Src = B.Slot[std::size_t(C) * W + L];
      S[Base + L] = static_cast<Index>(Src);
      D[Base + L] = static_cast<Index>(Q[Src]);
    }
  }
}

template void conflictFreeFromColors<std::uint32_t>(
    std::span<const std::uint32_t>, std::uint32_t,
    std::span<const std::uint32_t>, std::span<std::uint32_t>,
    std::span<std::uint32_t>, BlockScratch &);
template void conflictFreeBlock<std::uint16_t>(std::span<const std::uint32_t>,
                                               std::uint32_t,
                                               std::span<std::uint16_t>,
                                               std::span<std::uint16_t>,
                                               BlockScratch &);
template void conflictFreeBlock<std::uint32_t>(std::span<const std::uint32_t>,
                                               std::uint32_t,
                                               std::span<std::uint32_t>,
                                               std::span<std::uint32_t>,
                                               BlockScratch &);

} // namespace bankwise::schedule_detail
