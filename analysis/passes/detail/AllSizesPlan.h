// The plan of the all-sizes analysis (analyzeAllSizes, AllSizes.cpp): a
// runtime size's domain as its `where` states it, the runs (one binding of
// the sizes each) and the order in which a work budget takes them; the
// state its steps share, and the steps that plan the runs
// (AllSizesRuns.cpp). Internal: nothing outside analysis/ includes it.
#pragma once

#include "analysis/passes/AllSizes.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/SizeDependence.h"
#include "ir/Bind.h"
#include "ir/Eval.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace bankwise::all_sizes {

/// What the `where` of a runtime param says of its own value directly:
/// bounds and a divisor; anything else is checked by binding.
struct Domain {
  std::string Name;
  std::int64_t Lo = 1;
  std::optional<std::int64_t> Hi;
  std::int64_t Step = 1;
};

/// Reads what `where` E says of D's own value (D.Name): bounds and a
/// divisor (LoGiven: a lower bound was given).
void readConstraint(const ir::Expr &E, const ir::ConstEnv &Env, Domain &D, bool &LoGiven);

/// The first multiple of Step that is >= X (X >= 0).
std::int64_t alignUp(std::int64_t X, std::int64_t Step);

/// One binding of the runtime sizes that the analysis evaluates.
struct Run {
  ir::Bindings Sizes;
  /// The sites whose figures need this size (empty: every site).
  std::vector<bool> Sites;
  int CheckOf = -1;       ///< the periodicity check of run CheckOf
  std::optional<KernelReport> Rep;
  std::string Error;      ///< the size is invalid (constraint, grid)
  std::string RunError;   ///< the kernel fails at this size
  /// Per site: 1 when this run is a residue class of the sizes the site's
  /// figures depend on (at the base magnitude), 2 when those classes were
  /// too many to enumerate and each size went through its own with the
  /// others at two; 0 otherwise. Runs of the same sizes merge their marks.
  std::vector<std::uint8_t> ClassOf = {};
  /// A combination of small sizes (its grid is small in some dimension).
  bool SmallCombination = false;
  std::string StepError = {}; ///< the size needs more than its share of the steps
  /// A class run where each size goes through its classes with the others
  /// at two representatives: 0 at the first, 1 at the second. A budget
  /// (budgetOrder) takes the first tier before the second.
  std::uint8_t Tier = 0;
  std::size_t Planned = 0; ///< its index in the plan (before a budget's order)
};

/// What a run of the all-sizes analysis costs beyond its operations
/// (KernelReport::Operations), in operations: the binding of its sizes and
/// the analysis' setup, measured at about a tenth of a millisecond.
constexpr std::int64_t RunOverhead = 250;

/// The order in which a budget (AllSizesOptions::MaxOperations) takes the
/// runs: Probe first, then the residue classes with the other sizes at
/// their first representative (Run::Tier 0: where a figure's condition
/// comes from), then those at the second, the small combinations and the
/// periodicity checks interleaved at 6 : 3 : 1 (a check once its run is
/// placed), each kind in an order drawn with a fixed seed: any prefix is a
/// sample of each kind. Before all of these, in that order, the first run
/// of each site not yet covered (a site no size reaches through its value
/// has one run in the plan): Covering is how many runs that takes, which a
/// budget keeps whatever their work. Corner (Runs.size(): none), second
/// after Probe: every size at its first class, a multiple of the period,
/// as real sizes often are (texture_3d.cu's pitch 256 and slice 16384:
/// a sample without that joint class printed the 6 sectors of unaligned
/// pitches, with no condition, for its 4).
std::vector<std::size_t> budgetOrder(const std::vector<Run> &Runs, std::size_t Probe, std::size_t Corner,
                                     std::size_t NumSites, std::size_t &Covering);

/// Runs in the order Order (a permutation of their indices), each CheckOf
/// following its run.
void reorderRuns(std::vector<Run> &Runs, const std::vector<std::size_t> &Order);

/// The ClassOf marks of a run for the sites in Of: Mark on each.
std::vector<std::uint8_t> classMarks(const std::vector<bool> &Of, std::uint8_t Mark);

/// Per size: its residue-class representatives at a base magnitude past
/// the first block rows, every small value, and the same classes one
/// magnitude up and (where a gap is left) just past the small values, to
/// check that the figures are periodic in between.
struct Values {
  std::vector<std::int64_t> Classes, Check, CheckLow, Small;
};

/// What the steps of analyzeAllSizes share: the kernel and the options, the
/// sizes' domains and values, which sizes reach each site through their
/// values, the runs, and the report the steps fill in.
struct State {
  const ir::Program &Prog;
  const ir::Kernel &K;
  const AllSizesOptions &Opts;
  AllSizesReport Rep = {};
  std::vector<Domain> Doms = {};
  std::int64_t L = 32; ///< the residue period (AllSizesReport::Period)
  std::vector<Values> Vals = {}; ///< per size, as Doms
  std::vector<SiteSizeDependence> Dep = {};
  /// Per site, per size: the size's classes are enumerated jointly for the
  /// site (it reaches the site through its value, or every size does).
  std::vector<std::vector<bool>> Joint = {};
  std::set<std::vector<bool>> Sets = {}; ///< the sets of sizes enumerated jointly: Joint's rows
  std::vector<Run> Runs = {};
  std::size_t ClassRuns = 0; ///< the runs planned before the small combinations
  std::map<std::vector<bool>, bool> SetSampled = {}; ///< per set: some class or small combination left out
  std::vector<std::string> SmallText = {}; ///< per set with small values: which combinations, in words
  std::size_t Planned = 0; ///< the runs planned, before a budget drops some
  std::vector<bool> CutSites = {}; ///< per site: a run a budget dropped would have reached it
  bool Aligned = false; ///< the dependence pass lists the sites the analysis reports
  std::vector<bool> SitePeriodic = {}; ///< per site: its periodicity checks agreed
};

/// Reads the sizes to range over (the runtime params without an
/// expression), their domains and the report's Params and Domain.
void readDomains(State &S);

/// Finds the residue period L of the kernel's arrays.
void findResiduePeriod(State &S);

/// Chooses each size's values: classes, checks and small values.
void chooseValues(State &S);

/// Groups the sites by the sizes that reach them through their values:
/// Dep, Joint and Sets.
void groupSitesBySizes(State &S);

/// The sizes of Pick (one value per size, as Doms) as bindings.
ir::Bindings bindingOf(const State &S, const std::vector<std::int64_t> &Pick);

/// Every size at its Rep2-th class (its last where it has fewer).
std::vector<std::int64_t> representatives(const State &S, std::size_t Rep2);

/// Plans the runs of the joint residue classes of each set of sizes.
void planClassRuns(State &S);

/// Plans the runs of each size through its classes alone, for the sites it
/// only bounds.
void planBoundingRuns(State &S);

/// Plans the runs of the small sizes of each set, every combination or a
/// sample of them.
void planSmallRuns(State &S);

/// Plans the periodicity checks of some class and small runs.
void planPeriodicityChecks(State &S);

/// Merges the runs of the same sizes into one.
void mergeRepeatedRuns(State &S);

} // namespace bankwise::all_sizes
