// What analyzing or compiling a program will take, estimated from its
// declared sizes before any of that work starts (issue [10] item 3), so a
// size that needs more memory than the machine has, or hours, is an error
// at the declaration that asks for it instead of an out-of-memory kill.
//
// The costs that grow with a declared size are counted, each at a rate
// measured on the tool itself (docs/analysis.md, "Resource limits"):
//   - a permutation's table (4 bytes an entry, 4 more for its inverse);
//   - a schedule (`schedule colored|bits|auto` on a kernel, `schedule_src`,
//     `schedule_dst`, `hmm_src`, `hmm_dst`): its edge coloring, per element;
//   - the warp-by-warp walk of a site whose index reads data or a table
//     (every other site is counted by class, in time independent of the
//     sizes), per thread and trip of its enclosing loops.
#pragma once

#include "ir/Program.h"
#include "support/Diagnostic.h"

#include <string>
#include <vector>

namespace bankwise {

/// The rates the estimate charges (measured on a 2-core x86 machine with
/// the RelWithDebInfo build, rounded up).
struct ResourceRates {
  double TableBytesPerEntry = 4;
  /// Drawing a random table or reading a file: a cache miss an entry.
  double TableSecondsPerEntry = 1e-7;
  double ScheduleBytesPerElement = 24;
  double ScheduleSecondsPerElement = 6e-7;
  double WalkSecondsPerLane = 1e-7;
};

struct ResourceItem {
  SourceLoc Loc;
  std::string What; ///< "the table of permutation 'P' (2^32 entries)"
  double Bytes = 0;
  double Seconds = 0;
  /// For a walked site: warps times the trips of its loops, what the
  /// analysis's step budget (AnalysisOptions::WorkLimit) counts.
  double WarpSteps = 0;
  std::string Kernel;
};

struct ResourceEstimate {
  double Bytes = 0;
  double Seconds = 0;
  /// What the totals are made of, in program order.
  std::vector<ResourceItem> Items;
};

/// The estimate for Prog, whose sizes must all be bound (no runtime param
/// without a value; the caller binds them as the passes will).
ResourceEstimate estimateResources(const ir::Program &Prog, const ResourceRates &Rates = {});

struct ResourceLimits {
  double MaxBytes = 0;   ///< 0: no limit
  double MaxSeconds = 0; ///< 0: no limit
  /// The analysis refuses a kernel past this many evaluation steps
  /// (AnalysisOptions::WorkLimit), one at least per warp and walked site:
  /// a kernel whose walked sites need more warp steps is refused before
  /// the work starts. 0: not checked.
  double MaxWarpSteps = 0;
};

/// The default limits: 80% of this machine's physical memory, 900 s, and
/// the analysis's own step budget.
ResourceLimits defaultResourceLimits();

/// Throws UserError, located at the item that costs the most, when the
/// estimate passes a limit; the message gives the estimate, the limit and
/// the flag that raises it (--memory-limit GB, --time-limit SECONDS).
void checkResourceLimits(const ResourceEstimate &E, const ResourceLimits &L);

} // namespace bankwise
