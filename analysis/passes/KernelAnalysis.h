// Per-access-site cost analysis of a DSL kernel under the memory-machine
// models (issue [2]): for every access site, the DMM congestion and UMM
// address groups of every warp execution (min / mean / max), sm_90 wavefronts,
// sectors and lines; then the kernel's model time from the simulator and the
// papers' lower bound beside it.
//
// Two evaluators give the same numbers (a test checks it on random kernels):
//   - the fast path runs the body once per warp position in a block, keeping
//     block indices and loop variables symbolic (affine terms, opaque uniform
//     values, guard atoms), and counts each access's warp executions by class
//     (residue of the uniform address part, lane mask of each guard) without
//     visiting warps (ClassCounting.cpp; WarpEvaluation.cpp evaluates a warp
//     position's body); only table reads per lane at a
//     block-dependent index and the time's simulation walk warps;
//   - the exhaustive path runs every warp with concrete values, and is used
//     whenever the fast path cannot model an operation; it is the oracle.
#pragma once

#include "analysis/passes/AtomicIssue.h"
#include "analysis/models/MemoryModel.h"
#include "ir/Program.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bankwise {

/// How many of something (warp executions, sizes) have each cost: bars
/// by cost, ascending. A histogram's data: every warp execution counted,
/// not a sample.
struct CostCounts {
  std::vector<std::pair<std::int64_t, std::int64_t>> Bars; ///< (cost, how many)
  void add(std::int64_t Cost, std::int64_t Times = 1);
  void merge(const CostCounts &O);
  std::int64_t total() const;
  bool operator==(const CostCounts &) const = default;
};

/// Min / mean / max of a per-warp cost over warp executions, and how many
/// executions have each cost.
struct CostStats {
  std::int64_t Min = 0;
  std::int64_t Max = 0;
  std::int64_t Count = 0; ///< warp executions
  double Sum = 0;
  CostCounts Counts; ///< warp executions per cost
  void add(std::int64_t V, std::int64_t Times = 1);
  /// The statistics of both sets of executions.
  void merge(const CostStats &O);
  double mean() const { return Count ? Sum / static_cast<double>(Count) : 0; }
  /// "-" with no executions, "4" when uniform, else "1..32 (mean 16.5)".
  std::string str() const;
  bool operator==(const CostStats &) const = default;
};

/// The IR node an access site is: a stable id of the site while the analyzed
/// program lives, for passes that find a site's report from the IR (codegen
/// puts each report above its statement), where two sites may share a
/// source location (a macro in a linted kernel, an expanded pass). Not a
/// figure: reports of two copies of one program compare equal.
struct SiteNode {
  const ir::ArrayRead *Read = nullptr; ///< null for a site not in the IR (seed 001's passes)
  bool operator==(const SiteNode &) const { return true; }
};

/// One place in the source that reads or writes a shared or global array.
struct AccessSiteReport {
  SiteNode Node;
  SourceLoc Loc;
  std::string Array;
  ir::MemSpace Space = ir::MemSpace::Global;
  bool IsWrite = false;
  /// An atomic read-modify-write (IsWrite too): Op names it. Its DMM
  /// congestion counts the lanes in a bank with repeats (atomic updates of
  /// one address do not merge), and Serialization is the most lanes of a
  /// warp on one address (docs/analysis.md, "Atomics").
  bool IsAtomic = false;
  ir::AtomicOp Op = ir::AtomicOp::Add;
  /// How nvcc issues the atomic on a CUDA target (AtomicIssue.h): lane by
  /// lane, or combined (one per warp, one per address), which the costs
  /// then count.
  AtomicIssue Issue = AtomicIssue::PerLane;
  std::int64_t ElemBytes = 4;
  std::string Layout; ///< printable layout of the array, e.g. "raw"
  std::int64_t WarpExecutions = 0;
  std::int64_t ThreadAccesses = 0;
  CostStats Congestion; ///< DMM, w = the machine's warp size
  CostStats Groups;     ///< UMM, address groups of w elements
  CostStats Wavefronts; ///< sm_90 shared memory
  CostStats Sectors;    ///< sm_90 global memory, 32-byte sectors
  CostStats Lines;      ///< sm_90 global memory, 128-byte lines
  CostStats Serialization; ///< atomics: same-address serialization per warp
  /// The index reads memory whose values the analysis does not know (no
  /// `holds`, no --data): costs above are then unknown and not filled.
  bool DataDependent = false;
  std::string DataSource; ///< the array whose values the index reads
  /// The most over the warp executions of a worst congestion: every active
  /// lane in one bank where the index reads data (fewer when the known
  /// indices allow no more), the congestion where it is known.
  std::int64_t WorstCongestion = 0;
  /// Random indices, any layout incl. RAP: the mean over the warp executions
  /// of E[max load] of each one's own active lanes in w banks
  /// (expectedMaxLoad), at most its worst, where its index reads data, and
  /// of its congestion where it is known.
  double ExpectedRapCongestion = 0;
  /// Whether a lane makes the access depends on data the analysis does not
  /// know: it sits under an `if` whose condition, or in a loop whose bounds,
  /// read memory (no `holds`, no --data). Every lane that reaches the
  /// statement is then counted as making it: the costs above are the worst
  /// case (no cost grows when lanes leave). A loop whose end reads data
  /// is counted over its first 32 iterations (fewer when an index leaves
  /// its array first); one whose start or step does runs once with an
  /// unknown counter.
  bool DataGuarded = false;
  std::string GuardSource; ///< the array the condition or bound reads
  SourceLoc GuardLoc;      ///< the `if` or `for`
  bool GuardIsLoop = false; ///< a loop's bounds, not a condition
  /// DMM congestion expected when each lane takes the branch independently
  /// with probability 1/2 (expectedHalfLaneCongestion), mean over warp
  /// executions; for a guarded site whose addresses are known.
  double ExpectedGuardCongestion = 0;
  bool operator==(const AccessSiteReport &) const = default;
};

/// How a report names the access: "read", "write", or the atomic
/// ("atomic_add").
inline std::string accessName(const AccessSiteReport &S) {
  return S.IsAtomic ? std::string(ir::spelling(S.Op)) : S.IsWrite ? "write" : "read";
}

struct KernelReport {
  std::string Kernel;
  SourceLoc Loc;
  std::int64_t Threads = 0;
  std::int64_t WarpSize = 32;
  std::int64_t Warps = 0;
  std::vector<AccessSiteReport> Sites;
  bool FastPath = false;
  /// On the fast path: some site reads a table per lane at a block-dependent
  /// index (b[P(tid)]), so its warps were evaluated one by one (compiled).
  bool TableWalk = false;
  /// On the fast path: the block's warps ran as one symbolic family (one
  /// run for all warp positions) rather than one run per warp position.
  bool WarpFamily = false;
  std::string FallbackReason; ///< why the exhaustive path ran
  /// The evaluation steps the exhaustive path took (a warp or a loop trip
  /// each, what AnalysisOptions::WorkLimit counts); 0 on the fast path.
  std::int64_t EvaluationSteps = 0;
  /// The warp accesses the fast path's symbolic run recorded (templates),
  /// over its warp positions: what its counting went through. A loop run as
  /// one symbolic trip records its body's accesses once, a loop run trip by
  /// trip once per trip. 0 on the exhaustive path.
  std::int64_t SymbolicAccesses = 0;
  /// Expressions evaluated, statements run and evaluation steps (a warp,
  /// a loop trip, a point of the fast path's enumeration), over every path
  /// tried: a measure of the analysis' work that does not depend on the
  /// machine (the all-sizes budget, AllSizesOptions::MaxOperations).
  std::int64_t Operations = 0;
  std::string TimeMachine;    ///< the machine the time is simulated on
  std::int64_t Time = 0;      ///< model time units
  /// False when the launch makes more warp accesses than
  /// AnalysisOptions::TimeWorkLimit: Time is then not computed (0).
  bool TimeSimulated = true;
  std::int64_t Requests = 0;  ///< thread requests in the simulation
  double LowerBound = 0;
  std::string LowerBoundFormula;
  bool TimeUsesWorstCase = false; ///< data-dependent sites at worst case
};

class SchedulePlan; // PermutationTables.h

struct AnalysisOptions {
  /// Where seed 001's schedules of hmm_src / hmm_dst tables come from: the
  /// pipeline's plan, which the schedule-colored pass filled. Null: the
  /// analysis computes the ones it reads.
  SchedulePlan *Schedules = nullptr;
  /// --data NAME=file.bin: the values of array NAME (its element type, little
  /// endian), so reads of it are known.
  std::map<std::string, std::vector<std::int64_t>, std::less<>> Data;
  /// Force the exhaustive path (tests compare it with the fast path).
  bool Exhaustive = false;
  /// Upper bounds that keep every input's analysis short: warp executions
  /// and loop iterations evaluated warp by warp (about a microsecond each),
  /// warp executions on the fast path (a few nanoseconds each), and warps
  /// on the thread-by-thread path.
  std::int64_t WorkLimit = std::int64_t(1) << 26;
  std::int64_t FastWorkLimit = std::int64_t(1) << 30;
  std::int64_t MaxWarps = std::int64_t(1) << 25;
  /// Warps in one block: each position is evaluated once symbolically.
  std::int64_t MaxWarpsPerBlock = std::int64_t(1) << 20;
  /// The simulator visits every warp access in order; above this much work
  /// (a unit per warp access and per guard atom it evaluates) the fast path
  /// reports per-site figures (counted by class) but no time.
  std::int64_t TimeWorkLimit = std::int64_t(1) << 23;
  /// Simulate the time at all (layout choice needs only per-site figures).
  bool SimulateTime = true;
  /// When set, only the sites of this array are counted (layout choice
  /// scores a candidate on its own array's sites).
  std::string OnlyArray;
  /// When not empty, only sites I with OnlySites[I] (in report order) are
  /// evaluated and counted; the others' reports stay empty and no time is
  /// simulated. The all-sizes analysis evaluates each site only at the sizes
  /// its figures need. A site's index is still evaluated only if something
  /// else reads it (a table's value), so errors found are those of the kept sites.
  std::vector<bool> OnlySites;
};

/// Analyzes kernel K of program Prog. Throws UserError for what the program
/// does wrong at run time (an index out of bounds, overflow, division by
/// zero), located at the expression and naming a thread.
/// What analyzeKernel throws when the analysis needs more evaluation steps
/// than AnalysisOptions::WorkLimit: the warp-by-warp path (before it walks
/// any warp when its warps alone are too many), or the fast path's joint
/// enumeration. Reason is why the kernel went warp by warp, empty on the
/// fast path.
class StepLimitError : public UserError {
public:
  StepLimitError(SourceLoc Loc, const std::string &Message, std::string Reason)
      : UserError(Loc, Message), Reason(std::move(Reason)) {}
  std::string Reason;
};

KernelReport analyzeKernel(const ir::Program &Prog, const ir::Kernel &K,
                           const AnalysisOptions &Opts = {});

/// Expected largest bin of K balls thrown uniformly into W bins: the expected
/// congestion of K random distinct addresses (seed 002 Table II's "Random",
/// the same under RAW, RAS and RAP). Exact, by dynamic programming.
double expectedMaxLoad(std::int64_t K, std::int64_t W);

/// Reads a --data file: little-endian values of ElemType, one per element.
std::vector<std::int64_t> loadDataFile(const std::string &Path,
                                       ir::ElemType Elem,
                                       std::int64_t ExpectedCount);

} // namespace bankwise
