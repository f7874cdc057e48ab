// What one run of `bankwise lint` found, per file and kernel, and the
// coverage summary over the files (issue [13] items 5 and 6: files,
// kernels, warnings by check, accesses with figures against those left
// unanalyzed). LintCommand.cpp fills them; LintCoverage.cpp sums them.
#pragma once

#include "analysis/checks/Checks.h"
#include "analysis/checks/LintSites.h"
#include "frontend/CudaLowering.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace bankwise::driver {

/// A finding with the kernels it was found in (a __device__ function or a
/// template instantiated twice reports once).
struct FileFinding {
  LintFinding F;
  std::vector<std::string> Kernels;
  /// Distinct findings folded into this one (instantiations of one
  /// template whose notes differ only in names and numbers): the summary
  /// counts each, as it did before they were folded.
  std::size_t Folded = 1;
};

struct KernelResult {
  std::string Name, Display;
  SourceLoc Loc;
  std::string Launch;
  std::string LaunchFrom;
  bool Analyzed = false;
  std::string Why; ///< when not analyzed
  /// The kernel whose figures these are, when another kernel of the file
  /// lowered to the same IR and was analyzed instead (figuresKey).
  std::string FiguresOf;
  std::vector<LintSite> Sites;
};

struct FileResult {
  std::string File;
  bool Readable = true;
  std::vector<FileFinding> Findings;
  /// The space of each access-not-analyzed finding, by frontend::accessNoteKey.
  std::map<std::string, frontend::AccessSpace> AccessSpaces;
  std::vector<KernelResult> Kernels;
  std::string Bw; ///< --emit-bw
  std::string FixSummary;
  /// --timing: Clang, lowering, and each lowered kernel's figures and checks
  /// (name, seconds of lintSites, seconds of the correctness checks).
  double ClangSeconds = 0, LowerSeconds = 0;
  std::vector<std::tuple<std::string, double, double>> KernelSeconds;
};

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
