// analyze's report of a pipeline run: the text, the JSON object and the
// HTML document of `bankwise analyze`, at fixed sizes or over every runtime
// size. They read the PipelineResult (its analyses, decisions and
// schedules) and render; nothing here analyzes.
#pragma once

#include "pipeline/Pipeline.h"
#include "report/HtmlReport.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include <cstdint>
#include <string>

namespace bankwise::report {

/// What the report says besides the result: the command's arguments.
struct AnalyzeReportOptions {
  std::string File;           ///< the .bw file as given
  std::uint64_t Seed = 1;     ///< --seed
  std::string Kernel;         ///< --kernel (empty: every kernel)
  bool Transformed = false;   ///< --transformed: each site as written too
  bool Html = false;          ///< --html: fill AnalyzeReport::Html
  /// AnalysisOptions::TimeWorkLimit, which a kernel's "not simulated" names.
  std::int64_t TimeWorkLimit = 0;
};

struct AnalyzeReport {
  std::string Text;    ///< what analyze prints without --json
  nlohmann::json Json; ///< what it prints with --json (one object)
  Document Html;       ///< the --html page's sections (untitled)
};

/// At fixed sizes: P ran every pass, the analyze pass with
/// AnalyzePassOptions::KeepAsRead (AsWritten for --transformed). J: what
/// the command put in the JSON object already (the check pass's findings).
AnalyzeReport fixedSizeReport(const PipelineResult &P, const AnalyzeReportOptions &O, nlohmann::json J);

/// Over every size: P ran bind-sizes, layout-auto, check and analyze with
/// AnalyzePassOptions::EverySize.
AnalyzeReport everySizeReport(const PipelineResult &P, const AnalyzeReportOptions &O, nlohmann::json J);

/// The findings of the pipeline's check pass, in source order, under
/// "diagnostics" in J and, unless Json (whose readers take stdout and
/// stderr together as often as not), with their source lines on Err; true
/// when one is an error.
bool analyzeChecks(const PipelineResult &P, bool Json, nlohmann::json &J, std::ostream &Err);

/// Each offline schedule's wall time, on Err (so that stdout stays the
/// same bytes run after run), not at all with Json.
void scheduleTimeNotes(const PipelineResult &P, bool Json, std::ostream &Err);

} // namespace bankwise::report
