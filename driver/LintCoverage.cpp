#include "driver/LintResults.h"
#include "frontend/CudaLowering.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace bankwise::driver {

namespace {

/// "the index of 's' is not understood (a call to 'f')" -> "the index of '…'
/// is not understood (a call to '…')": one cause for every array and name.
std::string causeOf(const std::string &Why) {
  std::string Out;
  bool InQuote = false;
  for (char C : Why) {
    if (C == '\'') {
      Out += InQuote ? "…'" : "'";
      InQuote = !InQuote;
    } else if (!InQuote) {
      Out += C;
    }
  }
  return Out;
}

} // namespace

Coverage coverageOf(const std::vector<FileResult> &Results, const std::vector<std::string> &Errors) {
  Coverage C;
  const std::string Prefix = "access not analyzed: ";
  const std::string Texture = "texture fetch, not priced: ";
  for (std::size_t I = 0; I < Results.size(); ++I) {
    const FileResult &R = Results[I];
    ++C.Files;
    bool Failed = !R.Readable || !Errors[I].empty();
    for (const KernelResult &K : R.Kernels) {
      ++C.Kernels;
      C.KernelsUnanalyzed += !K.Analyzed;
      for (const LintSite &S : K.Sites)
        ++(S.Space == ir::MemSpace::Shared ? C.SharedSites : C.GlobalSites);
    }
    for (const FileFinding &F : R.Findings) {
      Failed |= F.F.Check == "clang-diagnostic-error";
      if (F.F.Sev == Severity::Warning)
        ++C.WarningsByCheck[F.F.Check];
      if (F.F.Check == "bankwise-unanalyzed" && F.F.Message.rfind(Prefix, 0) == 0) {
        C.Unanalyzed += F.Folded;
        C.UnanalyzedByCause[causeOf(F.F.Message.substr(Prefix.size()))] += F.Folded;
        const auto It = R.AccessSpaces.find(frontend::accessNoteKey(F.F.Loc, F.F.Message));
        switch (It == R.AccessSpaces.end() ? report::UnanalyzedSpace::Unknown : It->second) {
        case report::UnanalyzedSpace::Shared: C.SharedUnanalyzed += F.Folded; break;
        case report::UnanalyzedSpace::Global: C.GlobalUnanalyzed += F.Folded; break;
        case report::UnanalyzedSpace::Other: C.OtherUnanalyzed += F.Folded; break;
        case report::UnanalyzedSpace::Unknown: C.UnknownUnanalyzed += F.Folded; break;
        }
      }
      if (F.F.Check == "bankwise-unanalyzed" && F.F.Message.rfind(Texture, 0) == 0)
        C.TextureFetches += F.Folded;
    }
    C.FilesFailed += Failed;
  }
  return C;
}

nlohmann::json coverageJson(const Coverage &C) {
  nlohmann::json J = {{"files", C.Files},
                      {"files_failed", C.FilesFailed},
                      {"kernels", C.Kernels},
                      {"kernels_not_analyzed", C.KernelsUnanalyzed},
                      {"warnings_by_check", C.WarningsByCheck},
                      {"shared_accesses_with_figures", C.SharedSites},
                      {"global_accesses_with_figures", C.GlobalSites},
                      {"accesses_not_analyzed", C.Unanalyzed},
                      {"accesses_not_analyzed_by_space",
                       {{"shared", C.SharedUnanalyzed},
                        {"global", C.GlobalUnanalyzed},
                        {"other", C.OtherUnanalyzed},
                        {"unknown", C.UnknownUnanalyzed}}},
                      {"accesses_not_analyzed_by_cause", C.UnanalyzedByCause},
                      {"texture_fetches_not_priced", C.TextureFetches}};
  return J;
}

std::string coverageText(const Coverage &C) {
  std::size_t Warnings = 0;
  std::vector<std::string> ByCheck;
  for (const auto &[Check, N] : C.WarningsByCheck) {
    Warnings += N;
    ByCheck.push_back(fmt::format("{} {}", N, Check));
  }
  std::string Out = fmt::format("lint summary: {} files ({} failed), {} kernels ({} not analyzed), {} warnings{}\n",
                                C.Files, C.FilesFailed, C.Kernels, C.KernelsUnanalyzed, Warnings,
                                ByCheck.empty() ? "" : fmt::format(" ({})", fmt::join(ByCheck, ", ")));
  Out += fmt::format("lint summary: accesses with figures: {} shared, {} global; not analyzed: {} ({} shared, {} "
                     "global, {} constant or local, {} through pointers of unknown space){}\n",
                     C.SharedSites, C.GlobalSites, C.Unanalyzed, C.SharedUnanalyzed, C.GlobalUnanalyzed,
                     C.OtherUnanalyzed, C.UnknownUnanalyzed,
                     C.TextureFetches ? fmt::format("; texture fetches, not priced: {}", C.TextureFetches) : "");
  std::vector<std::pair<std::size_t, std::string>> Causes;
  for (const auto &[Cause, N] : C.UnanalyzedByCause)
    Causes.push_back({N, Cause});
  std::stable_sort(Causes.begin(), Causes.end(), [](const auto &A, const auto &B) { return A.first > B.first; });
  for (const auto &[N, Cause] : Causes)
    Out += fmt::format("lint summary:   {} not analyzed: {}\n", N, Cause);
  return Out;
}

} // namespace bankwise::driver
