// What the lint's checks read: one record per access site of a kernel (by
// source location, load or store), its sm_90 figures over every size of the
// kernel's runtime parameters (or at the sizes given), the lanes' stride,
// and, for shared arrays of two or more dimensions, the figures the layout
// fixes would give. No Clang here: the sites come from the IR, whichever
// front end made it.
#pragma once

#include "analysis/passes/AllSizes.h"
#include "analysis/passes/WarpLanes.h"
#include "ir/Program.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bankwise {

/// A layout fix and its predicted wavefronts at the site.
struct FixFigure {
  std::string Fix;    ///< "pad the inner dimension to 33"
  ir::Layout Layout;  ///< the layout the analysis evaluated
  LayoutFn Fn;        ///< the same as a layout function of the array
  SizeRange Wavefronts;
};

struct LintSite {
  SourceLoc Loc;
  std::string Array;  ///< the IR array
  std::string Source; ///< the name the source gives it
  ir::MemSpace Space = ir::MemSpace::Global;
  bool IsWrite = false;
  std::int64_t ElemBytes = 4;
  std::int64_t Dims = 1;       ///< dimensions of the array
  std::int64_t InnerDim = 0;   ///< its innermost extent
  bool DataDependent = false;
  std::string DataSource;
  SizeRange Wavefronts, Sectors, Lines;
  /// An atomic (atomicAdd and kin): the most lanes of a warp on one address.
  bool IsAtomic = false;
  SizeRange Serialization;
  /// At fixed sizes (no runtime size left): the warp requests over the
  /// whole launch and the sum of their wavefronts and sectors; -1 over
  /// all sizes. What a profiler counts, for comparing with it.
  std::int64_t Requests = -1;
  double WavefrontsTotal = 0, SectorsTotal = 0;
  /// Words between the addresses of lanes 0 and 1 at the site's first
  /// execution (in its worst copy when a loop was unrolled); nullopt when
  /// they do not both reach it or an index is not known.
  std::optional<double> LaneStrideWords;
  /// Figures assume every lane active (a condition the lint cannot see).
  bool UncertainMask = false;
  /// Runtime sizes the figures were taken over ("" when all are fixed).
  std::string Domain;
  /// Wavefronts (shared memory) or sectors (global) per warp: how many
  /// warp executions of the launch have each at fixed sizes (the copies
  /// of an unrolled loop together), or how many size classes have each as
  /// their worst warp over all sizes (the worst copy's); over all sizes
  /// CostsOf names the classes (AllSizesSite::BySizeOf), else it is empty.
  CostCounts Costs;
  std::string CostsOf;
  std::vector<FixFigure> Fixes;
  /// With LintSiteOptions::Lanes: a sample of the site's warp executions
  /// (its worst copy's), for drawing them (report/); empty otherwise.
  SiteLanes Lanes;
  /// With a sample: its drawings under the layout as written (Lanes.Layout)
  /// and then under each fix's, in Fixes' order.
  std::vector<LaneDrawing> Drawings;
};

struct LintSiteOptions {
  /// Site locations whose lane masks are not known (LoweredKernel's).
  std::vector<SourceLoc> UncertainMask;
  /// IR array name -> source name.
  std::map<std::string, std::string> SourceNames;
  /// Evaluate the layout fixes of conflicting shared sites.
  bool Fixes = true;
  /// Sample each site's warp executions into LintSite::Lanes.
  bool Lanes = false;
  /// Worker threads of the all-sizes analysis (0: the hardware's).
  unsigned Threads = 0;
  /// The work of each kernel's all-sizes figures, in millions of analysis
  /// operations (AllSizesOptions::MaxOperations; 0: no limit): a file's
  /// kernels each get a bounded share of the time, and figures from a
  /// sample of the sizes say so.
  std::int64_t SizeBudget = DefaultSizeBudget;
  static constexpr std::int64_t DefaultSizeBudget = 1;
};

/// The sites of kernel K of Prog with their figures: at the sizes Prog
/// binds, or over every size of its runtime params. Sites at one location
/// and of one kind (load or store; copies of an unrolled loop) are merged,
/// keeping the worst. Throws UserError where the analysis does (an index
/// out of bounds at every size, say).
std::vector<LintSite> lintSites(const ir::Program &Prog, const ir::Kernel &K,
                                const LintSiteOptions &Opts = {});

} // namespace bankwise
