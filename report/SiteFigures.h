// The figures of report/HtmlReport.h made from the analysis's drawings of
// a site's sampled warp executions (analysis/passes/WarpLanes.h's
// LaneDrawing, one per layout): the worst warp against the banks, the
// distribution of the cost, where an array's first elements fall in the
// banks; and the source lines around a location. Nothing here evaluates a
// layout or a cost.
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

/// D's worst execution (D has one) as a bank map.
BankMap bankMap(const SiteLanes &S, const LaneDrawing &D, std::string Caption);

/// How many of S's sampled executions have each cost under D's layout;
/// nullopt when S has none.
std::optional<Histogram> costHistogram(const SiteLanes &S, const LaneDrawing &D);

/// The histogram of a site's cost over every warp execution of the launch
/// (BySize false: Counts counts warp executions) or of its worst warp over
/// size classes (BySize: Counts counts classes, Of names them); nullopt
/// when Counts is empty.
std::optional<Histogram> countsHistogram(const CostCounts &Counts, bool Shared, bool BySize, const std::string &Of);

/// The banks of the first elements D drew (LaneDrawing::GridBanks).
ElementGrid elementGrid(const LaneDrawing &D, std::string Caption);

/// A drawing of a site's sample under one layout, and the name its panel
/// shows.
struct NamedDrawing {
  std::string Name;
  const LaneDrawing &D;
};

/// Adds the figures of S's drawings (analysis/passes/WarpLanes.h's
/// drawLanes, made by the pipeline's analyze pass or the lint) to X: the
/// worst sampled warp under Now (and how it compares with AnalysisMax, the
/// analysis's worst over every warp, when given), the histogram of the
/// sample's cost unless X has the analysis's (countsHistogram, over every
/// warp or every size class), and a panel per drawing of Compare (each its
/// own worst warp of the sample, and its first elements' banks on shared
/// memory). X.Rank becomes the most any warp drawn costs above the least a
/// warp can (1 wavefront, 4 sectors for 4-byte elements). A sample with no
/// execution adds a note instead.
void addLaneFigures(Site &X, const SiteLanes &S, const NamedDrawing &Now, const std::vector<NamedDrawing> &Compare,
                    std::optional<std::int64_t> AnalysisMax);

} // namespace bankwise::report
