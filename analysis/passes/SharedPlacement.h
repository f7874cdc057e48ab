// The place-shared pass's decision (pipeline/Pipeline.h): where each
// kernel's shared arrays live on a CUDA target. A block gets at most
// TargetInfo::MaxSharedPerBlock bytes of shared memory; a kernel whose
// shared arrays need more keeps its largest staged arrays (program-level
// or parameter arrays, whose data comes from and goes back to global
// memory) in global memory instead, one at a time, and a kernel above the
// 48 KB a block gets without opting in uses dynamic shared memory, each
// array at an offset. The copies that staging adds (global to shared and
// back) are priced here too, so that codegen and the reports read every
// figure from the pipeline's result.
#pragma once

#include "ir/Program.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise {

/// The sm_90 cost of one warp of a staging copy (a block's lanes over
/// consecutive elements), and how many warp executions the copy takes.
struct StagingCost {
  std::int64_t Wavefronts = 0, Sectors = 0, Lines = 0, WarpExecutions = 0;
  bool operator==(const StagingCost &) const = default;
};

/// One shared array of a kernel (a view, which allocates nothing, aside).
struct SharedArrayPlacement {
  std::string Array;
  /// Its footprint under its layout, in bytes, rounded up to 16.
  std::int64_t Bytes = 0;
  /// A program-level or parameter array: its data comes from global memory
  /// (and goes back when the kernel writes it).
  bool Staged = false;
  bool Written = false;
  /// Kept in global memory: it did not fit with the kernel's other arrays.
  bool Demoted = false;
  /// Bytes into the kernel's dynamic shared memory (SharedPlacement::Dynamic),
  /// else -1.
  std::int64_t Offset = -1;
  /// For a staged array that stays in shared memory: each warp of its
  /// copies in and back (the kernel's block, at most 1,024 threads, over
  /// consecutive elements).
  StagingCost Copy;
};

struct SharedPlacement {
  std::string Kernel;
  /// The kernel's shared arrays in the order it first names them
  /// (parameters first).
  std::vector<SharedArrayPlacement> Arrays;
  /// The shared bytes a block uses, and whether they are dynamic (above
  /// TargetInfo::DefaultSharedPerBlock), and then how many.
  std::int64_t StaticBytes = 0;
  bool Dynamic = false;
  std::int64_t DynamicBytes = 0;
  /// A warning for each array kept in global memory.
  std::vector<Diagnostic> Warnings;
  /// What CUDA cannot compile, for codegen to throw: more than the target
  /// holds with every staged array in global memory, or a written staged
  /// array in a kernel of several blocks (each would need its own copy).
  std::optional<UserError> Error;
  /// The placement of array Name, or nullptr.
  const SharedArrayPlacement *find(std::string_view Name) const;
};

/// S as one comment line for --dump-ir-after=place-shared: "# place-shared:
/// kernel 'k': 'mid' 80000 bytes at 0, 'small' 16000 bytes at 80000: 96000
/// bytes, dynamic; in global memory: 'big'"; empty for a kernel without
/// shared arrays.
std::string describe(const SharedPlacement &S);

/// The placement of every kernel of Prog (sizes bound; Runtime names the
/// params that stay runtime arguments: a grid that reads one has more than
/// one block) on target T, in Prog's order. A kernel whose shared array has
/// a layout that does not apply gets no arrays (codegen reports the
/// layout's error).
std::vector<SharedPlacement> placeShared(const ir::Program &Prog, const ir::TargetInfo &T,
                                         const std::vector<std::string> &Runtime);

} // namespace bankwise
