// The lint's reports of a run's results (report/LintResults.h): text with
// source lines and carets, JSON (one object: files, kernels, sites,
// diagnostics), SARIF 2.1.0, the HTML page, and --timing's lines. Each reads
// the results and renders; nothing here analyzes.
#pragma once

#include "report/LintResults.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace bankwise::report {

/// The findings as a compiler prints them: "file:line:col: warning: ... [check]",
/// the source line and a caret, the notes, the kernels; each file's fix summary.
std::string lintText(const std::vector<FileResult> &Results);

/// --format json: every file, kernel, site (its sm_90 figures, fixes,
/// totals at fixed sizes) and diagnostic.
nlohmann::json lintJson(const std::vector<FileResult> &Results);

/// --format sarif: one run, the checks as rules (allChecks() and the three
/// the lint adds), the findings as results with their notes as related
/// locations. ToolVersion: the driver's version.
nlohmann::json lintSarif(const std::vector<FileResult> &Results, std::string_view ToolVersion);

/// --html: per file its findings, per kernel its sites with their warps
/// drawn (report/AnalysisPages.h).
std::string lintHtml(const std::vector<FileResult> &Results);

/// --timing: where one file's wall time went, the slowest kernels first.
std::string lintTiming(const FileResult &R);

} // namespace bankwise::report
