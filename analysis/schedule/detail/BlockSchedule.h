// Internal: the conflict-free schedule of one shared-memory block (seed 003
// Sec. IV), shared by the DMM schedule and the three HMM passes.
#pragma once

#include "analysis/schedule/detail/CellGraph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace bankwise::schedule_detail {

/// Buffers reused from block to block (one per thread).
struct BlockScratch {
  SplitScratch Split;
  /// Both colourings: the bank matrix (Count), where each cell's edges
  /// start (CellBegin) and a cursor per cell (Fill). W > 64 (generic
  /// colouring): CellOf, CellColors, Color, then Slot and Rank for S and D.
  std::vector<std::uint32_t> Count, CellOf, CellBegin, Fill, CellColors,
      Color, Slot, Rank;
  /// Birkhoff decomposition (W <= 64): matching k is PermLane[k*W .. k*W+W)
  /// (right vertex of each left vertex) with multiplicity PermMult[k]; the
  /// edges listed cell after cell (Edges), the warps in colour order
  /// (Warps), each colour's smallest key (MinKey), a bit per source (Marks).
  std::vector<std::uint8_t> PermLane;
  std::vector<std::uint32_t> PermMult, Edges, Warps, MinKey;
  std::vector<std::uint64_t> Marks;
};

/// Q is a permutation of 0..N-1 (word j of the block goes to word Q[j]) and
/// W divides N. Writes S and D (N entries each) with D[k] = Q[S[k]] such
/// that for every warp i the W sources S[iW..iW+W-1] lie in distinct banks
/// (mod W) and lane l writes bank l: D[iW+l] mod W = l. Warps are numbered
/// by increasing smallest source. Seed 003: Q = (0,4,8,12,1,5,...), W = 4 ->
/// S = (0,5,10,15, 1,6,11,12, 2,7,8,13, 3,4,9,14).
template <class Index>
void conflictFreeBlock(std::span<const std::uint32_t> Q, std::uint32_t W,
                       std::span<Index> S, std::span<Index> D,
                       BlockScratch &B);

/// The second half of conflictFreeBlock: S and D from a given König colouring
/// Color[j] in [0, N/W) of the bank graph (one warp per colour class).
template <class Index>
void conflictFreeFromColors(std::span<const std::uint32_t> Q, std::uint32_t W,
                            std::span<const std::uint32_t> Color,
                            std::span<Index> S, std::span<Index> D,
                            BlockScratch &B);

extern template void conflictFreeFromColors<std::uint32_t>(
    std::span<const std::uint32_t>, std::uint32_t,
    std::span<const std::uint32_t>, std::span<std::uint32_t>,
    std::span<std::uint32_t>, BlockScratch &);
extern template void conflictFreeBlock<std::uint16_t>(
    std::span<const std::uint32_t>, std::uint32_t, std::span<std::uint16_t>,
    std::span<std::uint16_t>, BlockScratch &);
extern template void conflictFreeBlock<std::uint32_t>(
    std::span<const std::uint32_t>, std::uint32_t, std::span<std::uint32_t>,
    std::span<std::uint32_t>, BlockScratch &);

} // namespace bankwise::schedule_detail
