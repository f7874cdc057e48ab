// Conflict-free offline permutation on the DMM (seed 003 Sec. IV; seed 000
// Sec. 6). With two index arrays S and D, warp i performs
//   b[D(iw + l)] <- a[S(iw + l)]   for its lanes l = 0..w-1,
// and D = P o S, so b[P(x)] = a[x] for every x. S and D come from a König
// colouring of the bank graph (edge x joins bank x mod w of a to bank
// P(x) mod w of b; it is (n/w)-regular): warp i moves colour class i, so its
// w reads hit w distinct banks and so do its w writes.
//
// Canonical form: lane l writes bank l of b (D(iw + l) mod w = l), and warps
// are numbered by their smallest source address.
#pragma once

#include "analysis/models/Permutation.h"

#include <cstdint>
#include <span>
#include <vector>

namespace bankwise {

/// The two index arrays of the conflict-free permutation algorithm.
struct DmmSchedule {
  std::uint32_t W = 0;           ///< banks (= warp width)
  std::vector<std::uint32_t> S;  ///< S(k): the a-address lane k reads
  std::vector<std::uint32_t> D;  ///< D(k) = P(S(k)): the b-address it writes
  bool operator==(const DmmSchedule &) const = default;
};

/// Seed 003's S and D for P on a DMM of W banks. Needs W >= 1, n >= 1 and W
/// dividing n (UserError otherwise: the bank graph is regular only then).
/// P = (0,4,8,12,1,5,9,13,2,6,10,14,3,7,11,15), W = 4 ->
/// S = (0,5,10,15,1,6,11,12,2,7,8,13,3,4,9,14),
/// D = (0,5,10,15,4,9,14,3,8,13,2,7,12,1,6,11).
DmmSchedule scheduleConflictFree(const Permutation &P, std::uint32_t W);

/// Seed 003's construction from a given König colouring of the bank graph
/// (Colors[x] = colour of edge x = (x mod W, P(x) mod W)): warp i moves
/// colour class i (warps renumbered by smallest source), lane l writes bank
/// l. Throws UserError unless Colors is a proper (n/W)-colouring. The paper's
/// colouring of its example, colour (x - P(x)) mod 4, gives its S and D.
DmmSchedule conflictFreeFromColoring(const Permutation &P, std::uint32_t W,
                                     std::span<const std::uint32_t> Colors);

/// Executes the schedule as the DMM does: b[D(k)] <- a[S(k)] for every k.
/// Returns b. A must have n entries.
std::vector<std::uint32_t> applyDmmSchedule(const DmmSchedule &Sched,
                                            std::span<const std::uint32_t> A);

/// Model cost of a DMM schedule: the largest congestion (dmmCongestion with
/// w = W) of any warp's reads of a and of its writes of b. 1 and 1 means
/// conflict-free.
struct DmmScheduleCost {
  std::int64_t MaxReadCongestion = 0;
  std::int64_t MaxWriteCongestion = 0;
  std::uint64_t Warps = 0;
};
DmmScheduleCost dmmScheduleCost(const DmmSchedule &Sched);

} // namespace bankwise
