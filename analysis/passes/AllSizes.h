// Per-site figures over every value of a kernel's runtime sizes (issue [5]).
//
// The models see a runtime size p only through residues: a uniform shift of
// every lane's address permutes the banks (congestion and wavefronts stay)
// and changes sectors, lines and UMM groups only through the shift modulo
// the period (the argument of issue [5]); a pitch p multiplies block and loop variables,
// so what matters of it is p modulo that period; a guard `c < p` leaves
// `p mod tile` lanes on in the boundary warps. So for sizes past the few
// block rows it takes for every residue of the block indices to occur, a
// site's figures are periodic in each runtime size, with period the
// kernel's residue period (32 words for 4-byte elements; 64 for 2-byte,
// 128 for 1-byte ones).
//
// analyzeAllSizes evaluates the class-counting analysis (exact at each
// size) at every residue class of the runtime sizes jointly, at a base
// magnitude, checks periodicity by evaluating classes again one period
// multiple higher and just past the small sizes, and evaluates the small
// sizes (the first 64 values of each size) jointly: every
// combination of small values and classes of the sizes that reach a site
// through their values, within a budget. A site's figures and the
// conditions printed with them are proven ("for every size") when all of
// these were evaluated and the checks agreed, and sampled otherwise: then
// they hold at the sizes tried, which the report names.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "ir/Bind.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

/// Min and max of one model's per-warp cost over every size and warp, and
/// a condition every size reaching the max (the min) meets: "C % 8 != 0"
/// (empty: no condition). Sampled: these hold at the sizes tried, not
/// proven for every size.
struct SizeRange {
  std::int64_t Min = 0, Max = 0;
  bool Any = false;
  std::string MaxWhen, MinWhen;
  /// MaxWhen holds where Max is reached (each size's residues), but not
  /// at every size it names: some evaluated size inside it cost less (the
  /// worst needs the sizes together, `H * W % 32`, not each alone).
  bool MaxWhenPartial = false;
  bool Sampled = false;
  /// "4 for every size", "1..5 for every size (5 only when C % 8 != 0; 1
  /// only when ...)", or "1..5 at the sizes tried, sampled (...)".
  std::string str() const;
};

struct AllSizesSite {
  SourceLoc Loc;
  std::string Array;
  ir::MemSpace Space = ir::MemSpace::Global;
  bool IsWrite = false;
  std::string Layout;
  bool DataDependent = false;
  /// Under a condition or loop bound that reads data at some size
  /// (AccessSiteReport::DataGuarded): the figures are worst cases.
  bool DataGuarded = false;
  std::string GuardSource;
  /// Runtime sizes that only bound the site (a uniform guard `e < R`, a
  /// grid dimension): its figures do not depend on their residues.
  std::vector<std::string> BoundOnly;
  /// The access in the program given to analyzeAllSizes (null where the
  /// dependence pass and the analysis did not list the same sites).
  const ir::ArrayRead *Node = nullptr;
  SizeRange Congestion, Groups, Wavefronts, Sectors, Lines;
  /// The figures rest on samples (some small combination or joint class
  /// was not evaluated, or a periodicity check disagreed).
  bool Sampled = false;
  /// The worst warp's cost (wavefronts on shared memory, sectors on global)
  /// at each residue class of the sizes that reach the site: how many
  /// classes have each (a bounded size: each of its values). BySizeOf
  /// says which classes, in words.
  CostCounts WorstBySize;
  std::string BySizeOf;
  /// An atomic (AccessSiteReport::IsAtomic): its same-address serialization.
  bool IsAtomic = false;
  ir::AtomicOp Op = ir::AtomicOp::Add;
  SizeRange Serialization;
};

struct AllSizesReport {
  std::string Kernel;
  SourceLoc Loc;
  std::vector<std::string> Params; ///< runtime sizes, declaration order
  std::int64_t Period = 32;        ///< residues are taken modulo this
  std::int64_t Bindings = 0;       ///< sizes evaluated
  bool AllClasses = false;   ///< every joint residue class was evaluated
  bool Periodic = true;      ///< the check one magnitude up agreed
  /// Every combination of small values and classes was evaluated.
  bool AllSmall = false;
  /// No site's figures are sampled: every figure holds for every size.
  bool Proven = false;
  std::string Domain;        ///< "R >= 1, C >= 1" as assumed
  std::string Method;        ///< what was evaluated, in words
  std::string FallbackReason; ///< some size needed the warp-by-warp path
  std::vector<AllSizesSite> Sites;
  /// Every size evaluated (the figures and conditions hold at each).
  std::vector<ir::Bindings> Tried;
};

struct AllSizesOptions {
  AnalysisOptions Analysis;
  /// At most this many joint residue classes are evaluated; beyond it each
  /// size's classes are evaluated with the others at a few representatives.
  std::int64_t MaxJointClasses = 1024;
  /// At most this many combinations of small values (and classes) of the
  /// sizes that reach a set of sites are evaluated; beyond it they are
  /// sampled (each small value with the others at two classes, the first
  /// small values jointly, the rest at random) and the figures say so.
  std::int64_t MaxSmallCombinations = 1024;
  /// Enumerate joint classes of every size for every site, as if each
  /// reached each site through its value (the fallback, and the reference
  /// the tests compare the dependence-based enumeration with).
  bool JointOverAll = false;
  /// The work of the whole analysis, in KernelReport::Operations plus a
  /// fixed overhead per size (0: no limit). The planned sizes are taken in
  /// an order drawn with a fixed seed (the largest, one for each site, the
  /// classes with the other sizes at one value, then the rest of the
  /// classes, small combinations and periodicity checks 6 : 3 : 1) up to
  /// the first prefix whose work reaches this, at least MinRuns; a site
  /// some dropped size would have reached is marked sampled. The lint sets
  /// it: a file's kernels each get a bounded share of the time, where
  /// `analyze --all-sizes` takes what it needs (docs/analysis.md).
  std::int64_t MaxOperations = 0;
  std::int64_t MinRuns = 32;
  /// Worker threads (0: the hardware's).
  unsigned Threads = 0;
};

/// Per-site figures of kernel K of Prog over every value of its runtime
/// params that their `where` constraints allow. Prog's `layout auto` arrays
/// must already be resolved. Throws UserError when no size satisfies the
/// constraints or when every size fails.
AllSizesReport analyzeAllSizes(const ir::Program &Prog, const ir::Kernel &K,
                               const AllSizesOptions &Opts = {});

/// The residues in Set (a subset of 0..L-1) as a condition on Name, in the
/// smallest modulus that describes it: {0} mod 32 -> "C % 32 == 0",
/// {1..7} mod 8 -> "C % 8 != 0", everything -> "" (no condition). Listed
/// (a sample's residues seen at the extreme where others were not
/// settled): "C % 32 in {...}" at L itself, naming no residue outside Set.
/// A size whose values are multiples of Step has only the residues that
/// are multiples of gcd(Step, L): the others are described by neither
/// side ({4, 12, 20, 28} of multiples of 4 -> "C % 8 == 4").
std::string residueCondition(const std::string &Name, const std::vector<bool> &Set, bool Listed = false,
                             std::int64_t Step = 1);

} // namespace bankwise
