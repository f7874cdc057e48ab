// A kernel run thread by thread with concrete values: every shared access of
// the blocks it evaluates, with its element, its thread and its barrier
// interval (the `sync`s the thread passed before it), and which elements of
// each global array the whole launch writes. The correctness checks
// (analysis/checks/SharedRaceCheck.h, UninitializedSharedReadCheck.h,
// UnwrittenOutputCheck.h) read it: the tool knows every address, so a race
// or an unwritten element is found, never guessed.
//
//   shared t: f32[64]
//   t[tx] = a[tid]        // interval 0: thread 5 writes t[5]
//   sync
//   b[tid] = t[63 - tx]   // interval 1: thread 5 reads t[58]
//
// What the evaluation cannot know is left out and said so: an index that
// reads memory whose values are unknown (no `holds`, no --data) makes the
// access data-dependent (counted per site, not traced); a condition or loop
// bound on such values stops the evaluation of what it guards (DataControl).
#pragma once

#include "ir/Program.h"
#include "support/Diagnostic.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bankwise {

/// An access site: one ArrayRead node of a shared or global array.
class SchedulePlan; // PermutationTables.h

struct TraceSite {
  const ir::ArrayRead *Node = nullptr;
  SourceLoc Loc;
  const ir::Array *Arr = nullptr;
  bool IsWrite = false;
  /// Which lanes run it is not known (TraceOptions::UncertainSites): the
  /// trace runs it in every thread, and a check proves nothing by it.
  bool Uncertain = false;
  /// An atomic's element (IsWrite too): its accesses are traced as writes,
  /// and two atomics of one element do not race.
  bool Atomic = false;
  /// The atomic reads the element's old value: every one but an exchange
  /// whose old value is dropped (`atomicExch(&x, 0);`, a plain write of the
  /// element for bankwise-uninitialized-shared-read).
  bool ReadsOld = true;
};

/// One thread's access to one element of a shared array.
struct TracedAccess {
  std::int64_t Elem = 0;     ///< row-major element index (logical, layouts aside)
  std::int64_t Seq = 0;      ///< its place among its thread's accesses
  std::int32_t Site = 0;     ///< into KernelTrace::Sites
  std::int32_t Thread = 0;   ///< flat index in the block: (tz * BY + ty) * BX + tx
  std::int32_t Interval = 0; ///< `sync`s the thread passed before it
  bool Write = false;
};

/// One thread's run of a warp shuffle.
struct TracedShuffle {
  std::int32_t Shuffle = 0; ///< into KernelTrace::Shuffles
  std::int32_t Thread = 0;  ///< flat index in the block
};

/// The shared accesses of one block, thread after thread, each thread's in
/// program order, and its threads' runs of warp shuffles.
struct BlockTrace {
  std::array<std::int64_t, 3> Block{0, 0, 0};
  std::vector<TracedAccess> Shared;
  std::vector<TracedShuffle> Shuffles;
};

/// Which elements of a global array the launch's threads write (for the
/// arrays the kernel writes and never reads: its outputs).
struct ArrayCoverage {
  const ir::Array *Arr = nullptr;
  std::vector<bool> Written; ///< one per element, row-major
  /// Some write to it has an index on unknown data: Written is a subset.
  bool DataDependentWrite = false;
};

struct TraceOptions {
  /// Seed 001's schedules, as AnalysisOptions::Schedules.
  SchedulePlan *Schedules = nullptr;
  /// Contents of arrays (analyze --data), as AnalysisOptions::Data.
  const std::map<std::string, std::vector<std::int64_t>, std::less<>> *Data = nullptr;
  /// Work (statements and expression nodes evaluated, about 20 ns each) on
  /// the blocks traced for shared memory, and on the whole launch for the
  /// global coverage; above it that part is not traced (and says so).
  std::int64_t SharedWorkLimit = std::int64_t(1) << 23;
  std::int64_t CoverageWorkLimit = std::int64_t(1) << 23;
  /// Grids of at most this many blocks have every block traced for shared
  /// memory; larger ones a representative set (blocks 0, 1, G-2, G-1 of each
  /// grid dimension, combined).
  std::int64_t EveryBlockLimit = 64;
  /// Trace global coverage (the unwritten-output check's input).
  bool Coverage = true;
  /// Sites whose lane masks are unknown: the lint's accesses under a
  /// condition it could not evaluate (frontend's LoweredKernel::UncertainMask).
  std::vector<SourceLoc> UncertainSites;
};

struct KernelTrace {
  std::vector<TraceSite> Sites;
  /// The kernel's warp shuffles, in source order. A shuffle's value is
  /// another thread's, which a thread-by-thread run does not have: the
  /// trace takes it as data.
  std::vector<std::pair<const ir::Shuffle *, SourceLoc>> Shuffles;
  /// The blocks traced for shared memory, and whether they are all of them.
  std::vector<BlockTrace> Blocks;
  bool EveryBlock = false;
  std::int64_t NumBlocks = 1;
  /// Why no block was traced ("" when some were, or the kernel has no
  /// shared sites).
  std::string SharedWhy;
  /// Per site: thread accesses whose index reads unknown data (not traced).
  std::vector<std::int64_t> DataDependent;
  /// Per site: what made the first such index unknown, worded to follow
  /// "the index ": "reads 'p', whose values are unknown (...)", also when
  /// the value came through a local or a shuffle; "takes the value of
  /// 'shfl_xor' at 12:11, ..." when the shuffle itself is why.
  std::vector<std::string> DataSource;
  /// The first condition or loop bound on unknown data: what it guards was
  /// not evaluated, so absent accesses prove nothing.
  std::optional<SourceLoc> DataControl;
  /// Every thread of each traced block passed the same number of `sync`s.
  bool BarriersAgree = true;
  /// Global arrays the kernel writes, over every block; empty with
  /// CoverageWhy set when the launch is too large to evaluate.
  std::vector<ArrayCoverage> Coverage;
  bool CoverageTraced = false;
  std::string CoverageWhy;

  /// "block (0, 0, 0)", "blocks (0, 0, 0), (1, 0, 0), ... (16 of 4096)" or
  /// "every block (4)".
  std::string blocksText() const;
};

/// Evaluates kernel K of Prog (every size bound) thread by thread. Throws
/// UserError, located and naming the thread, for what the program does wrong
/// at run time (an index outside its array, overflow, division by zero, a
/// zero loop step), as analyzeKernel does.
KernelTrace traceKernel(const ir::Program &Prog, const ir::Kernel &K, const TraceOptions &Opts = {});

/// "tile[3][5]": Arr's element Elem (row-major) with its indices.
std::string elementText(const ir::Array &Arr, std::int64_t Elem);

/// "(3, 1, 0)": thread Flat of a block of BlockDim as (x, y, z).
std::string threadText(const std::array<std::int64_t, 3> &BlockDim, std::int64_t Flat);

} // namespace bankwise
