// The sites of the HTML report, made from what analyze and lint compute:
// an AccessSiteReport (analyze at fixed sizes), an AllSizesSite (analyze
// over every runtime size), a LintSite (lint). Each draws the site's
// sampled lanes (WarpLanes.h), which the pipeline's analyze pass walked
// (PipelineResult::Lanes, LintSite::Lanes), with the figures of
// SiteFigures.h; none walks threads itself.
#pragma once

#include "analysis/checks/LintSites.h"
#include "analysis/passes/AllSizes.h"
#include "analysis/passes/KernelAnalysis.h"
#include "report/HtmlReport.h"

#include <string>

namespace bankwise::report {

/// "k.bw:12:5": a location as the reports print it.
std::string locationText(const SourceLoc &L);

/// Site S of kernel K of Prog (every size bound) as analyze reports it;
/// Written and WrittenK (either null) the program before layout auto,
/// whose layout of the array is drawn beside the chosen one when they
/// differ; Before the site's report there (--transformed), or null; Lanes
/// its sampled warps (PipelineResult::lanesOf), or null: none drawn.
Site analyzedSite(const AccessSiteReport &S, const ir::Program &Prog, const ir::Kernel &K,
                  const ir::Program *Written, const ir::Kernel *WrittenK, const AccessSiteReport *Before,
                  const SiteLanes *Lanes, std::string Id);

/// Site S of kernel K (runtime sizes free; layouts resolved) over every
/// size; Lanes its warps sampled in Bound, K's program with its sizes bound
/// to At (the representative sizes, which the page names), or null.
Site allSizesSite(const AllSizesSite &S, const ir::Kernel &K, const ir::Program &Bound,
                  const ir::Bindings &At, const SiteLanes *Lanes, std::string Id);

/// A lint site (with its LintSite::Lanes sampled): its figures, its warp
/// as written and under each layout fix the lint evaluated.
Site lintedSite(const LintSite &S, std::string Id);

} // namespace bankwise::report
