#include "support/Diagnostic.h"

#include <utility>

namespace bankwise {

namespace {
const char *severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}
} // namespace

void printDiagnostic(std::ostream &OS, const Diagnostic &D) {
  if (!D.Loc.File.empty()) {
    OS << D.Loc.File;
    if (D.Loc.Line > 0) {
      OS << ':' << D.Loc.Line;
      if (D.Loc.Col > 0)
        OS << ':' << D.Loc.Col;
    }
    OS << ": ";
  } else {
    OS << "bankwise: ";
  }
  OS << severityName(D.Sev) << ": " << D.Message << '\n';
  if (!D.SourceLine.empty() && D.Loc.Col > 0) {
    OS << D.SourceLine << '\n';
    // Keep tabs so the caret lines up under the column in a terminal.
    std::string Pad;
    for (int I = 1; I < D.Loc.Col && I <= static_cast<int>(D.SourceLine.size());
         ++I)
      Pad += D.SourceLine[I - 1] == '\t' ? '\t' : ' ';
    OS << Pad << "^\n";
  }
}

void DiagnosticEngine::report(Diagnostic D) {
  if (D.Sev == Severity::Error)
    ++NumErrors;
  Diags.push_back(std::move(D));
}

void DiagnosticEngine::error(SourceLoc Loc, std::string Message,
                             std::string SourceLine) {
  report({Severity::Error, std::move(Loc), std::move(Message),
          std::move(SourceLine)});
}

void DiagnosticEngine::warning(SourceLoc Loc, std::string Message,
                               std::string SourceLine) {
  report({Severity::Warning, std::move(Loc), std::move(Message),
          std::move(SourceLine)});
}

void DiagnosticEngine::note(SourceLoc Loc, std::string Message,
                            std::string SourceLine) {
  report({Severity::Note, std::move(Loc), std::move(Message),
          std::move(SourceLine)});
}

void DiagnosticEngine::print(std::ostream &OS) const {
  for (const Diagnostic &D : Diags)
    printDiagnostic(OS, D);
}

UserError::UserError(Diagnostic D)
    : std::runtime_error(D.Message), Diag(std::move(D)) {}

UserError::UserError(SourceLoc Loc, const std::string &Message)
    : UserError(Diagnostic{Severity::Error, std::move(Loc), Message, {}}) {}

UserError::UserError(const std::string &Message)
    : UserError(SourceLoc{}, Message) {}

} // namespace bankwise
