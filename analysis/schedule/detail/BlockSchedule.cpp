// Conflict-free block schedule: colour the bank graph, one warp per colour.

#include "analysis/schedule/detail/BlockSchedule.h"

#include "analysis/schedule/EdgeColoring.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace bankwise::schedule_detail {

namespace {

/// Colors[j] in [0, N/W): the König colouring of the bank graph, edge j =
/// (j mod W, Q[j] mod W). Dense W x W cell matrix for W <= 1024, the generic
/// colouring otherwise.
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
  B.Slot.resize(N);
  for (std::uint32_t J = 0; J < N; ++J)
    B.Slot[std::size_t(Color[J]) * W + Q[J] % W] = J;
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
