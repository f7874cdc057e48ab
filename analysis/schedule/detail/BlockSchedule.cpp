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

/// Augmenting path from the free left vertex U in the support Adj (bit v of
/// Adj[u] set when cell (u, v) has weight), breadth first, right vertices in
/// increasing order; flips it into the matching, keeping MC[u] = the count
/// of u's matched cell (Count[u * W + v] for the unmatched ones). False
/// when none exists.
bool augment(std::uint32_t U, const std::uint64_t *Adj, std::uint8_t *MatchL,
             std::uint8_t *MatchR, std::uint32_t *MC, std::uint32_t *Count,
             std::uint32_t W) {
  std::uint8_t Queue[64], ParentR[64];
  std::uint32_t Head = 0, Tail = 0;
  std::uint64_t Seen = 0;
  Queue[Tail++] = static_cast<std::uint8_t>(U);
  while (Head < Tail) {
    const std::uint32_t X = Queue[Head++];
    for (std::uint64_t Cand = Adj[X] & ~Seen; Cand; Cand &= Cand - 1) {
      auto V = static_cast<std::uint32_t>(__builtin_ctzll(Cand));
      Seen |= std::uint64_t(1) << V;
      ParentR[V] = static_cast<std::uint8_t>(X);
      if (MatchR[V] == NoVertex) {
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
      Queue[Tail++] = MatchR[V];
    }
  }
  return false;
}

/// Colors[j] in [0, N/W) for W <= 64 by a Birkhoff decomposition of the
/// W x W bank matrix M (M[u][v] = edges j with j mod W = u, Q[j] mod W = v):
/// take a perfect matching of M's support, with multiplicity c = its smallest
/// cell, subtract c times it, repair the matching where cells emptied, and
/// repeat; every round empties a cell, so at most W^2 rounds of O(W) work,
/// independent of N. Matching k with multiplicity c_k owns colours
/// [c_0 + .. + c_{k-1}, + c_k); the edges of a cell, in increasing j, take
/// the colours of the matchings through it in increasing order.
void colorBankGraphBirkhoff(std::span<const std::uint32_t> Q, std::uint32_t W,
                            BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  const std::size_t WW = std::size_t(W) * W;
  const BankOf Bank(W);
  B.Count.assign(WW, 0);
  for (std::uint32_t J = 0; J < N; ++J)
    ++B.Count[std::size_t(Bank(J)) * W + Bank(Q[J])];
  // Fill[cell]: where the cell's colours start in CellColors (its edges
  // before it, cells in (u, v) order).
  B.Fill.resize(WW + 1);
  B.Fill[0] = 0;
  for (std::size_t X = 0; X < WW; ++X)
    B.Fill[X + 1] = B.Fill[X] + B.Count[X];
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
      if (!augment(U, Adj, MatchL, MatchR, MC, Count, W))
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
      Freed[NumFreed++] = static_cast<std::uint8_t>(U);
    }
    if (!Left)
      break;
    // The rest is (Left)-regular, so a perfect matching exists (König).
    for (std::uint32_t I = 0; I < NumFreed; ++I)
      if (!augment(Freed[I], Adj, MatchL, MatchR, MC, Count, W))
        internalError("Birkhoff round without a perfect matching");
  }
  // Runs of colours per cell, cells in (u, v) order, matchings in order.
  B.CellBegin.assign(WW + 1, 0);
  for (std::size_t K = 0; K < NumPerms; ++K)
    for (std::uint32_t U = 0; U < W; ++U)
      ++B.CellBegin[std::size_t(U) * W + B.PermLane[K * W + U] + 1];
  for (std::size_t X = 0; X < WW; ++X)
    B.CellBegin[X + 1] += B.CellBegin[X];
  B.RunColor.resize(NumPerms * W);
  B.RunLen.resize(NumPerms * W);
  B.RunCur.assign(B.CellBegin.begin(), B.CellBegin.end() - 1);
  std::uint32_t First = 0;
  for (std::size_t K = 0; K < NumPerms; ++K) {
    for (std::uint32_t U = 0; U < W; ++U) {
      const std::uint32_t At =
          B.RunCur[std::size_t(U) * W + B.PermLane[K * W + U]]++;
      B.RunColor[At] = First;
      B.RunLen[At] = B.PermMult[K];
    }
    First += B.PermMult[K];
  }
  // Expand the runs: CellColors[Fill[cell] ..] lists the colours of each
  // cell in increasing order (runs of a cell are in increasing colour
  // order), so the edges take them with one load each and no branch.
  // The runs are stored cell after cell, so one flat pass writes them all;
  // most runs have length 1 or 2, so each run writes 4 colours
  // unconditionally (the next run overwrites the excess; 4 entries of
  // slack at the end) and only longer runs loop.
  {
    std::uint32_t At = 0;
    B.CellColors.resize(std::size_t(N) + 4);
    std::uint32_t *Out = B.CellColors.data();
    const std::uint32_t *RunColor = B.RunColor.data(),
                        *RunLen = B.RunLen.data();
    const std::size_t NumRuns = B.CellBegin[WW];
    for (std::size_t Run = 0; Run < NumRuns; ++Run) {
      const std::uint32_t C = RunColor[Run], L = RunLen[Run];
      Out[At] = C;
      Out[At + 1] = C + 1;
      Out[At + 2] = C + 2;
      Out[At + 3] = C + 3;
      for (std::uint32_t X = 4; X < L; ++X) [[unlikely]]
        Out[At + X] = C + X;
      At += L;
    }
    if (At != N)
      internalError("Birkhoff runs do not cover the block");
  }
}

/// The Birkhoff colouring handed out straight into the warps: element j
/// takes the next colour c of its cell, lands in Slot[c*W + bank(Q[j])],
/// and c gets its warp number (Rank) when it is first seen (j ascending:
/// warps by increasing smallest source). Same S and D as colouring first
/// and calling conflictFreeFromColors, with two passes over the block
/// fewer.
template <class Index>
void birkhoffBlock(std::span<const std::uint32_t> Q, std::uint32_t W,
                   std::span<Index> S, std::span<Index> D, BlockScratch &B) {
  const auto N = static_cast<std::uint32_t>(Q.size());
  const std::uint32_t Delta = N / W;
  colorBankGraphBirkhoff(Q, W, B);
  const BankOf Bank(W);
  constexpr std::uint32_t NoRank = 0xFFFFFFFFu;
  B.Slot.resize(N);
  B.Rank.assign(Delta, NoRank);
  std::uint32_t *Fill = B.Fill.data(), *Slot = B.Slot.data(),
                *Rank = B.Rank.data();
  const std::uint32_t *CellColors = B.CellColors.data();
  std::uint32_t Next = 0;
  for (std::uint32_t J = 0; J < N; ++J) {
    const std::uint32_t QB = Bank(Q[J]);
    const std::uint32_t C = CellColors[Fill[std::size_t(Bank(J)) * W + QB]++];
    Slot[std::size_t(C) * W + QB] = J;
    // Without a branch: a colour's first element is rare after the start.
    const std::uint32_t R = Rank[C];
    const std::uint32_t New = R == NoRank;
    Rank[C] = New ? Next : R;
    Next += New;
  }
  if (Next != Delta)
    internalError("Birkhoff colouring left a colour empty");
  for (std::uint32_t C = 0; C < Delta; ++C) {
    const std::size_t Base = std::size_t(Rank[C]) * W;
    const std::uint32_t *From = Slot + std::size_t(C) * W;
    for (std::uint32_t L = 0; L < W; ++L) {
      const std::uint32_t Src = From[L];
      S[Base + L] = static_cast<Index>(Src);
      D[Base + L] = static_cast<Index>(Q[Src]);
    }
  }
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
