// How nvcc issues a warp's atomic on a CUDA target (sm_90, CUDA 13, -O3),
// as measured on H200 (bench/results/h100/atomic-aggregation.md, made by
// bench/gpu-atomic-aggregation.sh from bench/atomics/aggregation.cu):
//
//   atomicAdd(&s, v)              s the same in every thread: REDUX.SUM, one
//                                 ATOMS.ADD per warp (1 wavefront)
//   atomicAdd(&h[k], 1);          old value dropped: ATOMS.POPC.INC, lanes on
//                                 one address merge (a read's wavefronts)
//   atomicAdd(&h[tid / 32], v)    neither: ATOMS.ADD lane by lane (32)
//
// The per-lane rule of docs/analysis.md ("Atomics") holds for the rest.
// The abstract machines (dmm, umm, hmm) keep it for every atomic.
#pragma once

#include "analysis/models/MemoryModel.h"
#include "ir/Program.h"

#include <cstdint>
#include <map>
#include <span>
#include <vector>
#include <string_view>

namespace bankwise {

enum class AtomicIssue : std::uint8_t {
  /// One request per lane: lanes on one address take turns (ATOMS.ADD of
  /// a value, ATOMS.EXCH, ATOMS.INC, a float's or a 64-bit value's CAS loop).
  PerLane,
  /// The warp's values combined in registers (REDUX, POPC) and one lane's
  /// atomic issued: a 32-bit integer add, sub, min, max, and, or or xor
  /// (global: add) whose address is the same in every thread of the
  /// block as the compiler sees it (block indices, parameters, constants,
  /// loop counters of uniform loops; no thread index, no loaded value).
  OnePerWarp,
  /// ATOMS.POPC.INC (shared memory only): `atomicAdd(&a[i], 1)` on a 32-bit
  /// integer with the old value dropped, at any address. Lanes on one
  /// address merge into one increment by their count; distinct addresses
  /// in one bank take turns, as a read's do.
  PerAddress,
};

std::string_view spelling(AtomicIssue I);

/// The lanes of a warp's atomic whose requests reach memory when nvcc
/// issues it as I: every active lane (PerLane), the first active one
/// (OnePerWarp), the first at each address (PerAddress); NoAccess elsewhere.
/// issuedLanes({3, 3, NoAccess, 5}, PerAddress) == {3, NoAccess, NoAccess, 5}.
std::vector<Address> issuedLanes(std::span<const Address> Lanes, AtomicIssue I);

/// Whether each atomic of K uses its old value: a let's initializer or an
/// assigned value does; a statement of its own does when the CUDA it was
/// lowered from did (ir::Atomic::OldValueUsed).
std::map<const ir::Atomic *, bool> atomicOldValueUsed(const ir::Kernel &K);

/// How each atomic of kernel K of Prog is issued on a CUDA target (those
/// not listed: PerLane).
std::map<const ir::Atomic *, AtomicIssue> atomicIssues(const ir::Program &Prog, const ir::Kernel &K);

} // namespace bankwise
