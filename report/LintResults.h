// What one run of `bankwise lint` found, per file and kernel: what the lint
// command (driver/LintCommand.cpp) fills from the pipeline's findings and
// figures, and what its reports (report/LintReport.h) and its coverage
// summary (driver/LintCoverage.cpp) read. No Clang here: the frontend's
// facts arrive as plain values.
#pragma once

#include "analysis/checks/Checks.h"
#include "analysis/checks/LintSites.h"

#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace bankwise::report {

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

/// The memory an access the lint did not analyze would have touched, as far
/// as the frontend could tell (frontend::AccessSpace, the same values).
enum class UnanalyzedSpace { Shared, Global, Other, Unknown };

struct FileResult {
  std::string File;
  bool Readable = true;
  std::vector<FileFinding> Findings;
  /// The space of each access-not-analyzed finding, by frontend::accessNoteKey.
  std::map<std::string, UnanalyzedSpace> AccessSpaces;
  std::vector<KernelResult> Kernels;
  std::string Bw; ///< --emit-bw
  std::string FixSummary;
  /// --timing: Clang, lowering, and each lowered kernel's figures and checks
  /// (name, seconds of the figures, seconds of the correctness checks).
  double ClangSeconds = 0, LowerSeconds = 0;
  std::vector<std::tuple<std::string, double, double>> KernelSeconds;
};

/// The template a kernel is an instantiation of ("reduce" of
/// "reduce<256>"), or "" for a kernel that is not one.
std::string templateOf(const std::string &Display);

/// A finding's message as reported: an unanalyzed note of several
/// instantiations of one template says how many.
std::string shownMessage(const FileFinding &F);

} // namespace bankwise::report
