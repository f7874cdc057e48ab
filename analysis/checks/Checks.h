// The lint's checks, clang-tidy's way: one name per check, used for its
// unit (analysis/checks/NameCheck.{h,cpp}), its tests (tests/lint/name/),
// its docs entry and its line in allChecks().
#pragma once

#include "analysis/checks/LintSites.h"
#include "support/Diagnostic.h"

#include <string>
#include <vector>

namespace bankwise {

/// One diagnostic of a check: a warning (or a note where the figures are
/// worst cases the lint cannot confirm), with its notes.
struct LintFinding {
  std::string Check; ///< "bankwise-bank-conflict"
  Severity Sev = Severity::Warning;
  SourceLoc Loc;
  std::string Message;
  struct Note {
    SourceLoc Loc;
    std::string Message;
  };
  std::vector<Note> Notes;
};

using CheckFn = std::vector<LintFinding> (*)(const std::vector<LintSite> &);

struct CheckInfo {
  const char *Name;
  const char *Summary;
  CheckFn Run;
};

/// Every check, in the order their diagnostics are listed.
const std::vector<CheckInfo> &allChecks();

/// "{N}-way" phrase helpers shared by the checks: "load from" or "store to".
inline const char *accessPhrase(const LintSite &S) { return S.IsWrite ? "store to" : "load from"; }

/// " when n % 8 != 0" for a figure whose worst case holds only at some
/// sizes; empty when it holds at every size.
std::string sizeCondition(const SizeRange &R);

} // namespace bankwise
