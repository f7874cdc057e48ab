// The scheduled offline permutation of global memory on the HMM (seed 001
// Secs. V-VII): a and b are R x C row-major matrices (n = R * C) and
// b[P(i)] = a[i] is done in three passes,
//
//   pass 0  row-wise:    each row of a is permuted inside shared memory;
//   pass 1  column-wise: each strip of StripCols whole columns is permuted;
//   pass 2  row-wise:    each row is permuted into its final order.
//
// Every pass runs one block per row (strip), as seed 001's row-wise
// permutation: (1) alpha[j] <- in[addr(j)] (coalesced), (2) read s[j], d[j]
// (coalesced), (3) beta[d[j]] <- alpha[s[j]] (conflict-free: s and d are
// seed 003's schedule of the block, see ConflictFree.h), (4) out[addr(j)] <-
// beta[j] (coalesced).
//
// Routing (seed 001 Sec. VII, with strips for columns): the row graph joins
// row floor(i / C) of a to row floor(P(i) / C) of b for every i; it is
// C-regular. It is split into K = C / StripCols factors, each
// StripCols-regular (Euler partitions, EdgeColoring.h). Pass 0 moves the
// elements of factor f of every row into strip f (columns f*StripCols ..),
// so each strip holds exactly StripCols elements bound for each row of b;
// pass 1 moves them to their rows; pass 2 to their columns. StripCols = 1 is
// the paper's column-wise permutation (a König colouring of the row graph).
#pragma once

#include "analysis/models/Permutation.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bankwise {

/// Matrix shape and machine parameters of an HMM schedule.
struct HmmShape {
  std::uint32_t Rows = 0;      ///< R
  std::uint32_t Cols = 0;      ///< C; n = R * C
  std::uint32_t StripCols = 8; ///< columns per block of the column pass
  std::uint32_t Banks = 32;    ///< w: banks of shared memory = warp width
  /// Lanes of every warp ordered so that each half-warp's 16 sources and 16
  /// destinations are distinct mod 16 (w = 32 only): sm_90 serves an 8-byte
  /// shared access half a warp at a time (MemoryModel.h), and an f64 gather
  /// or scatter whose half repeats a bank pair costs 4 wavefronts instead
  /// of 2. Such an order always exists: link the two pairs of every source
  /// class mod 16 and of every destination class; the links form even
  /// cycles, which two colours (the halves) alternate around.
  bool HalfWarpLanes = false;
  bool operator==(const HmmShape &) const = default;
};

/// Checks that Shape can schedule n elements; throws UserError naming the
/// failed requirement: R * C = n < 2^32; w divides C (whole warps, regular
/// bank graph of a row); StripCols divides C; w divides R * StripCols (same
/// for a strip); C <= 65536 and R * StripCols <= 65536 (16-bit block
/// indices). Example: R = 16, C = 64, StripCols = 8, w = 32 fits n = 1024.
void validateHmmShape(const HmmShape &Shape, std::uint64_t N);

/// Shared memory of one sm_90 block: 227 KB.
inline constexpr std::uint64_t Sm90SharedBytesPerBlock = 227 * 1024;

/// The sm_90 shape for n elements of ElemBytes (4 or 8) bytes: w = 32,
/// StripCols = 32 / ElemBytes (one 32-byte sector per row of a strip), R a
/// multiple of 32 / StripCols and C of 32, and a row (ElemBytes * C bytes)
/// and a strip (32R bytes) each within 227 KB; among those, the smallest
/// largest block, then the fewest rows. n = 2^26 -> R = 2048, C = 32768
/// (4 bytes) or R = 4096, C = 16384 (8 bytes). Throws UserError when no R,
/// C qualify or ElemBytes is neither 4 nor 8.
///
/// Why 8-byte elements keep w = 32: the schedule makes the 32 element
/// indices of every warp access distinct mod 32, so each 4-byte bank holds
/// two of the 64 words an f64 warp moves, the 2 wavefronts that 256 bytes
/// need anyway. The 8-byte shape also sets HalfWarpLanes, so that each
/// half-warp reads and writes 16 indices distinct mod 16 (sm_90 serves
/// 8-byte accesses half a warp at a time: 2 wavefronts in all).
HmmShape chooseSm90Shape(std::uint64_t N, int ElemBytes = 4);

/// Row-wise or strip (column-wise) pass.
enum class HmmPassKind { Row, Strip };

/// A complete schedule: for every pass, every block, the s and d arrays of
/// seed 001's row-wise permutation, 16-bit block-local indices.
/// Layout: one buffer of 6n uint16 -- planes s0, d0, s1, d1, s2, d2; in
/// plane p the block b occupies [b * blockWords(p), (b+1) * blockWords(p)).
class HmmSchedule {
public:
  static constexpr int NumPasses = 3;

  HmmSchedule() = default;
  HmmSchedule(const HmmShape &Shape); ///< allocated, uninitialised

  const HmmShape &shape() const { return Shape; }
  std::uint64_t size() const {
    return std::uint64_t(Shape.Rows) * Shape.Cols;
  }
  /// Pass 1 is the strip pass; passes 0 and 2 are row passes.
  static HmmPassKind kind(int Pass) {
    return Pass == 1 ? HmmPassKind::Strip : HmmPassKind::Row;
  }
  /// Words per block: C for a row pass, R * StripCols for the strip pass.
  std::uint32_t blockWords(int Pass) const;
  /// Blocks of a pass: R rows, or C / StripCols strips.
  std::uint32_t numBlocks(int Pass) const;
  /// Global word address of word J of block Blk: row pass Blk*C + J; strip
  /// pass (J / StripCols) * C + Blk * StripCols + J % StripCols.
  std::uint64_t address(int Pass, std::uint32_t Blk, std::uint32_t J) const;
  /// address(Pass, Blk, J) = address(Pass, 0, J) + Blk * blockStride(Pass):
  /// C for a row pass, StripCols for a strip pass.
  std::uint64_t blockStride(int Pass) const;
  /// s and d of a pass (n entries each, block after block).
  std::span<const std::uint16_t> s(int Pass) const { return plane(2 * Pass); }
  std::span<const std::uint16_t> d(int Pass) const {
    return plane(2 * Pass + 1);
  }
  std::span<const std::uint16_t> plane(int K) const;
  std::span<std::uint16_t> plane(int K);

  /// Same shape and same bytes in every plane.
  bool operator==(const HmmSchedule &O) const;

private:
  HmmShape Shape;
  std::unique_ptr<std::uint16_t[]> Data;
};

/// Builds the schedule of P (n = R * C) on Threads threads (0: all cores).
/// The result depends only on P and Shape, never on thread timing. Throws
/// UserError if validateHmmShape fails or P has the wrong size.
HmmSchedule scheduleHmmPermutation(const Permutation &P, const HmmShape &Shape,
                                   unsigned Threads = 0);

/// CPU reference of the GPU kernels: runs the three passes, block by block,
/// steps (1)-(4) exactly as above, and returns b (b[P(i)] = a[i]).
std::vector<std::uint32_t> applyHmmSchedule(const HmmSchedule &Sched,
                                            std::span<const std::uint32_t> A,
                                            unsigned Threads = 0);

/// Model costs of one pass, computed warp by warp from the schedule with
/// dmmCongestion (w = Banks), ummGroups (w = Banks) and sm90Global
/// (ElemBytes-byte elements, 4 or 8; 2-byte s and d).
struct HmmPassCost {
  HmmPassKind Kind = HmmPassKind::Row;
  std::uint32_t Blocks = 0;
  std::uint32_t BlockWords = 0;
  /// Largest congestion of any warp's shared access in steps (1), (3), (4).
  std::int64_t MaxSharedCongestion = 0;
  /// Warp requests to the data arrays (loads of in, stores to out).
  std::uint64_t GlobalRequests = 0;
  std::uint64_t Sectors = 0;               ///< 32-byte sectors, all requests
  std::int64_t MaxSectorsPerRequest = 0;   ///< 4 (8 for 8 bytes) = whole sectors for w = 32
  std::int64_t MaxLinesPerRequest = 0;     ///< 128-byte lines
  std::int64_t MaxUmmGroups = 0;           ///< address groups of w words
  std::uint64_t IndexSectors = 0;          ///< sectors of the s and d loads
  bool operator==(const HmmPassCost &) const = default;
};
std::vector<HmmPassCost> hmmPassCosts(const HmmSchedule &Sched, int ElemBytes = 4);

} // namespace bankwise
