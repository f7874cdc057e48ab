// gpu-verify's report: per sample and kernel, the harness's verdict and
// timing, and per access site the model's prediction beside Nsight
// Compute's source counters (SiteMatch.h). Writes gpu-verify.json and
// gpu-verify.md.
#pragma once

#include "SiteMatch.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace bankwise::verify {

/// For each sample S, Dir holds (as bench/gpu-verify.sh lays it out):
///   S.report.json    predictions of the launch ncu profiled (bankwise compile --report)
///   S.cu             the CUDA that was profiled (nvcc -lineinfo)
///   S.cuda-sass.csv  ncu --import ... --csv --page source --print-source cuda,sass
///   S.run.json       the harness's JSON line for the full-size run (correctness, time)
struct ReportInput {
  std::string Dir, Gpu = "unknown GPU", Driver = "unknown", Date = "unknown";
  std::vector<std::string> Samples;
};

struct ReportOutput {
  nlohmann::json Json;
  std::string Markdown;
  bool AllCorrect = true;
  int ExactSites = 0, ExactMatched = 0, ExactFailed = 0, Removed = 0, NotExact = 0, InGroups = 0, Uniform = 0;
  /// Samples with runtime sizes (the report's "predicted_at"): launches, their exact sites and matches.
  int SizedLaunches = 0, SizedExact = 0, SizedMatched = 0;
  /// Launches whose harness or profiled run was at other sizes than the predictions.
  int SizeMismatches = 0;
  bool ok() const { return AllCorrect && ExactFailed == 0 && SizeMismatches == 0; }
};

ReportOutput buildReport(const ReportInput &In);

/// One sample's kernels matched (throws on unreadable inputs other than a
/// missing profile, which leaves the kernels unmeasured).
std::vector<KernelResult> verifySample(const std::string &Dir, const std::string &Sample,
                                       std::vector<std::string> *Errors = nullptr);

nlohmann::json toJson(const GroupResult &G);

/// The whole file at Path into Out; false when it cannot be read.
bool readFile(const std::string &Path, std::string &Out);

} // namespace bankwise::verify
