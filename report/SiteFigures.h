// The figures of report/HtmlReport.h made from the analysis: a site's
// sampled warp executions (analysis/passes/WarpLanes.h) drawn under a
// layout, the distribution of their cost, where an array's first elements
// fall in the banks, and the source lines around a location.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/WarpLanes.h"
#include "report/HtmlReport.h"
#include "support/Diagnostic.h"

#include <optional>
#include <string>

namespace bankwise::report {

/// The lines of Loc.File from Around before Loc's line to Around after it;
/// no lines when the file cannot be read.
SourceExcerpt sourceExcerpt(const SourceLoc &Loc, int Around = 3);

/// Execution W of S drawn under Layout, with its warpCost.
BankMap warpBankMap(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout, std::string Caption);

/// How many of S's executions have each warpCost under Layout; nullopt
/// when S has none.
std::optional<Histogram> costHistogram(const SiteLanes &S, const LayoutFn &Layout);

/// The histogram of a site's cost over every warp execution of the launch
/// (BySize false: Counts counts warp executions) or of its worst warp over
/// size classes (BySize: Counts counts classes, Of names them); nullopt
/// when Counts is empty.
std::optional<Histogram> countsHistogram(const CostCounts &Counts, bool Shared, bool BySize, const std::string &Of);

/// The banks (4-byte word mod 32) of the first rows of S's array under
/// Layout: up to 8 rows of up to 32 columns (a one-dimensional array in
/// rows of 32).
ElementGrid elementGrid(const SiteLanes &S, const LayoutFn &Layout, std::string Caption);

/// A layout of the array to compare: its name and function.
struct NamedLayout {
  std::string Name;
  LayoutFn Fn;
};

/// Adds S's figures to X: the worst sampled warp under Now (and how it
/// compares with AnalysisMax, the analysis's worst over every warp, when
/// given), the histogram of the sample's cost unless X has the analysis's
/// (countsHistogram, over every warp or every size class), and a panel per
/// layout of Compare (each its own worst warp of the sample, and its first
/// elements' banks on shared memory). X.Rank becomes the most any warp
/// drawn costs above the least a warp can (1 wavefront, 4 sectors for
/// 4-byte elements). A sample with no execution adds a note instead.
void addLaneFigures(Site &X, const SiteLanes &S, const NamedLayout &Now, const std::vector<NamedLayout> &Compare,
                    std::optional<std::int64_t> AnalysisMax);

} // namespace bankwise::report
