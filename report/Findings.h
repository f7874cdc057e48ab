// How analyze and compile report the correctness checks' findings
// (analysis/checks/Checks.h, the pipeline's check pass): Clang-style
// diagnostics on stderr, each with its source line and caret, and the same
// as JSON.
#pragma once

#include "analysis/checks/Checks.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace bankwise::report {

/// The findings in source order (file, line, column; stable otherwise).
inline std::vector<LintFinding> sortedFindings(std::vector<LintFinding> Fs) {
  std::stable_sort(Fs.begin(), Fs.end(), [](const LintFinding &A, const LintFinding &B) {
    return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Col) < std::tie(B.Loc.File, B.Loc.Line, B.Loc.Col);
  });
  return Fs;
}

/// Prints every finding with its notes to OS, with source lines; true when
/// one of them is an error.
inline bool printFindings(std::ostream &OS, const std::vector<LintFinding> &Fs) {
  std::map<std::string, std::vector<std::string>> Files;
  auto LineOf = [&](const SourceLoc &L) -> std::string {
    auto It = Files.find(L.File);
    if (It == Files.end()) {
      std::vector<std::string> Lines;
      std::ifstream In(L.File);
      for (std::string S; std::getline(In, S);)
        Lines.push_back(S);
      It = Files.emplace(L.File, std::move(Lines)).first;
    }
    return L.Line >= 1 && static_cast<std::size_t>(L.Line) <= It->second.size()
               ? It->second[static_cast<std::size_t>(L.Line - 1)]
               : "";
  };
  bool AnyError = false;
  for (const LintFinding &F : Fs) {
    AnyError = AnyError || F.Sev == Severity::Error;
    for (Diagnostic D : findingDiagnostics(F)) {
      if (D.Sev != Severity::Note)
        D.SourceLine = LineOf(D.Loc);
      printDiagnostic(OS, D);
    }
  }
  return AnyError;
}

/// [{"check", "severity", "location", "message", "notes": [{"location",
/// "message"}]}], the shape of lint --format json's diagnostics.
inline nlohmann::json findingsJson(const std::vector<LintFinding> &Fs) {
  auto Loc = [](const SourceLoc &L) { return L.File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Col); };
  nlohmann::json J = nlohmann::json::array();
  for (const LintFinding &F : Fs) {
    nlohmann::json Notes = nlohmann::json::array();
    for (const LintFinding::Note &N : F.Notes)
      Notes.push_back({{"location", Loc(N.Loc)}, {"message", N.Message}});
    J.push_back({{"check", F.Check},
                 {"severity", F.Sev == Severity::Error ? "error" : F.Sev == Severity::Warning ? "warning" : "note"},
                 {"location", Loc(F.Loc)},
                 {"message", F.Message},
                 {"notes", Notes}});
  }
  return J;
}

} // namespace bankwise::report
