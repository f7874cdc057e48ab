// The coverage summary of one run of `bankwise lint` over its files (issue
// [13] items 5 and 6: files, kernels, warnings by check, accesses with
// figures against those left unanalyzed), from the per-file results of
// report/LintResults.h that LintCommand.cpp fills; LintCoverage.cpp sums them.
#pragma once

#include "report/LintResults.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace bankwise::driver {

using report::FileFinding;
using report::FileResult;
using report::KernelResult;

/// What a run covered (issue [13] items 5 and 6): files, kernels, warnings
/// by check, and the memory accesses that got figures (by space) against
/// those left unanalyzed (by cause, the note's reason with names elided).
struct Coverage {
  std::size_t Files = 0, FilesFailed = 0, Kernels = 0, KernelsUnanalyzed = 0;
  std::map<std::string, std::size_t> WarningsByCheck;
  std::size_t SharedSites = 0, GlobalSites = 0, Unanalyzed = 0;
  /// Unanalyzed accesses by the space their source shows (Unanalyzed is
  /// their sum): shared, global, other (constant, local), unknown.
  std::size_t SharedUnanalyzed = 0, GlobalUnanalyzed = 0, OtherUnanalyzed = 0, UnknownUnanalyzed = 0;
  std::map<std::string, std::size_t> UnanalyzedByCause;
  /// Texture and surface reads: neither shared nor global accesses, so
  /// outside both counts, and said so.
  std::size_t TextureFetches = 0;
};

/// The coverage of Results; Errors[I] is file I's failure ("" when none).
Coverage coverageOf(const std::vector<FileResult> &Results, const std::vector<std::string> &Errors);
nlohmann::json coverageJson(const Coverage &C);
/// The `lint summary:` lines.
std::string coverageText(const Coverage &C);

} // namespace bankwise::driver
