// The sites of the HTML report, made from what analyze and lint compute:
// an AccessSiteReport (analyze at fixed sizes), an AllSizesSite (analyze
// over every runtime size), a LintSite (lint). Each lays out the drawings
// of the site's sampled lanes (analysis/passes/WarpLanes.h), which the
// pipeline's analyze pass or the lint made (PipelineResult::Drawings,
// LintSite::Drawings), with the figures of SiteFigures.h; none walks
// threads or evaluates a layout itself.
#pragma once

#include "analysis/checks/LintSites.h"
#include "analysis/passes/AllSizes.h"
#include "analysis/passes/KernelAnalysis.h"
#include "pipeline/Pipeline.h"
#include "report/HtmlReport.h"

#include <string>

namespace bankwise::report {

/// "k.bw:12:5": a location as the reports print it.
std::string locationText(const SourceLoc &L);

/// Site S (every size bound) as analyze reports it; Written and WrittenK
/// (either null) the program before layout auto and the kernel there,
/// whose name of the array's layout heads its panel when Drawn has it
/// (SiteDrawings::AsWritten); Before the site's report there
/// (--transformed), or null; Drawn its sampled warps and their drawings
/// (PipelineResult::drawingsOf), or null: none drawn.
Site analyzedSite(const AccessSiteReport &S, const ir::Program *Written, const ir::Kernel *WrittenK,
                  const AccessSiteReport *Before, const SiteDrawings *Drawn, std::string Id);

/// Site S (runtime sizes free; layouts resolved) over every size; Drawn
/// its warps sampled with the sizes bound to At (the representative sizes,
/// which the page names) and their drawings, or null.
Site allSizesSite(const AllSizesSite &S, const ir::Bindings &At, const SiteDrawings *Drawn, std::string Id);

/// A lint site (with its LintSite::Lanes sampled): its figures, its warp
/// as written and under each layout fix the lint evaluated.
Site lintedSite(const LintSite &S, std::string Id);

} // namespace bankwise::report
