// Internal engine of the HMM schedule's factorization: Euler partitions found
// by a greedy orientation and an exact repair instead of trail walks.
//
// An Euler split of a bipartite multigraph (every vertex of even degree)
// gives each half exactly half of every vertex's edges. Pair the units
// (edges) of every left vertex and send one
// unit of each pair to each half: every left vertex is balanced whatever the
// choice. The right vertices are balanced when every one of them sends as
// many units to A as to B; such a choice exists (an Euler partition).
//
// The trail walk of CellGraph.h finds it by chasing pointers through the
// whole graph: a cache miss per edge on the large row graphs of the HMM
// schedule. Here one sequential pass decides every pair greedily, the unit
// whose right vertex has sent fewer units to A so far going to A; the
// running counts stay within a few units of zero, so only about one right
// vertex in ten ends unbalanced (by two units), and a repair mends them
// exactly: any A unit of a left vertex may trade places with any of its B
// units, so a vertex with too many A units trades with one with too few
// where they share a left vertex, or along a chain of such trades found by
// breadth-first search. The repair looks at the last rows first (a few
// units per vertex) and at the whole graph only if that fails; a path then
// always exists (the differences from
// a balanced choice decompose into paths from vertices with too many A
// units to vertices with too few, and cycles). Every pass but the repair is
// a sequential scan with the per-vertex counts in L1.
//
// Deterministic: the result depends only on the input graph.
#pragma once

#include "analysis/schedule/detail/CellGraph.h"

#include <cstdint>
#include <vector>

namespace bankwise::schedule_detail {

/// Counters of the work the repair needed (for the benchmark's report).
struct BalanceStats {
  std::uint64_t Splits = 0, Pairs = 0;
  /// Sum over vertices of the excess of A over B after the greedy pass.
  std::uint64_t GreedyExcess = 0;
  /// Direct trades (in one row), trades made along chains, chain searches,
  /// index builds, and repairs that needed every row.
  std::uint64_t DirectFlips = 0, PathFlips = 0, Searches = 0, Rebuilds = 0,
                FullRepairs = 0;
  void add(const BalanceStats &O);
};

/// Buffers reused from split to split (one per thread).
struct BalanceScratch {
  /// A minus B units per right vertex.
  std::vector<std::int32_t> Excess;
  /// Repair search: the positions of A units grouped by right vertex,
  /// breadth-first queue, marks and the path back.
  std::vector<std::uint32_t> Head, ByTail, Via, From, Queue, Seen;
  std::uint32_t Stamp = 0;
  /// The repair looks at the last rows first, about this many units per
  /// vertex, and at every row only if they do not suffice.
  std::size_t RepairUnitsPerVertex = 8;
  BalanceStats Stats;
};

/// Unit form of a D-regular bipartite multigraph (NumV <= 65536 vertices per
/// side): left vertex u owns entries [u*D, (u+1)*D) of an array of uint16,
/// the right vertices of its edges in any order (parallel edges are repeated
/// entries).
///
/// Euler partition of the D-regular G (D even) into the (D/2)-regular A and
/// B (NumV * D/2 entries each), all in unit form. Units k and D/2 + k of a
/// row are a pair; A's row gets the A unit of pair k at k, B's row the B
/// unit, before the repair trades.
/// Example: NumV = 2, D = 2, rows {0, 1}, {1, 0} -> A = {0}, {1},
/// B = {1}, {0}.
void balancedSplitUnits(const std::uint16_t *G, std::uint32_t NumV,
                        std::uint32_t D, std::uint16_t *A, std::uint16_t *B,
                        BalanceScratch &S);

/// The two steps of balancedSplitUnits, for a caller that runs the greedy
/// pass over row ranges in parallel: greedySplitUnits orients the pairs of
/// rows [U0, U1) with its own A-minus-B counts Ex (NumV entries, zero at
/// first), writing those rows of A and B; repairSplitUnits then mends A and
/// B (NumV rows of H units) exactly, given S.Excess = the sum of the counts
/// of every range. The result depends on the ranges (not on how they run).
void greedySplitUnits(const std::uint16_t *G, std::uint32_t U0,
                      std::uint32_t U1, std::uint32_t D, std::uint16_t *A,
                      std::uint16_t *B, std::int32_t *Ex);
void repairSplitUnits(std::uint16_t *A, std::uint16_t *B, std::uint32_t NumV,
                      std::uint32_t H, BalanceScratch &S);

/// Unit form of the D-regular cell graph G (cells of a row in ascending V).
void cellsToUnits(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
                  std::vector<std::uint16_t> &Out);

/// Receives each factor once: NumV rows of D/K entries each, in unit form.
using UnitFactorSink = std::function<void(const std::uint16_t *Rows,
                                          std::uint32_t Degree,
                                          std::uint32_t Factor)>;

/// Buffers of one worker of factorBalancedUnits: the halves of each depth.
struct BalancedScratch {
  BalanceScratch Split;
  std::vector<std::array<std::vector<std::uint16_t>, 2>> UnitDepth =
      std::vector<std::array<std::vector<std::uint16_t>, 2>>(40);
  RowScratch Euler; ///< odd factor counts go through factorCellRows
};

/// Splits the D-regular G, in unit form (rows in any order), into K
/// factors, each (D/K)-regular, reported to Sink as factors Base ..
/// Base+K-1, depth first: balanced splits while K is even; an odd K > 1
/// goes to factorCellRows (Alon's matching). The result depends only on G,
/// D, K and Base.
void factorBalancedUnits(const std::uint16_t *G, std::uint32_t NumV,
                         std::uint32_t D, std::uint32_t K, std::uint32_t Base,
                         const UnitFactorSink &Sink, BalancedScratch &S);

} // namespace bankwise::schedule_detail
