// Diagnostics in Clang's style: "file:line:col: error: message", the source
// line, and a caret under the column. User errors are values of this kind;
// internal bugs are assertions.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bankwise {

/// A position in an input. Line and Col are 1-based; 0 means "unknown" (a
/// whole-file error such as a bad binary permutation file prints "file: ...").
struct SourceLoc {
  std::string File;
  int Line = 0;
  int Col = 0;
  bool operator==(const SourceLoc &) const = default;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity Sev = Severity::Error;
  SourceLoc Loc;
  std::string Message;
  /// The text of the offending line, without its newline; empty when unknown.
  std::string SourceLine;
};

/// Prints D as "file:line:col: error: msg", then the source line and a caret
/// when both are known.
void printDiagnostic(std::ostream &OS, const Diagnostic &D);

/// Collects diagnostics so one run can report several errors.
class DiagnosticEngine {
public:
  void report(Diagnostic D);
  void error(SourceLoc Loc, std::string Message, std::string SourceLine = {});
  void warning(SourceLoc Loc, std::string Message, std::string SourceLine = {});
  void note(SourceLoc Loc, std::string Message, std::string SourceLine = {});
  bool hasErrors() const { return NumErrors > 0; }
  int numErrors() const { return NumErrors; }
  const std::vector<Diagnostic> &diagnostics() const { return Diags; }
  void print(std::ostream &OS) const;

private:
  std::vector<Diagnostic> Diags;
  int NumErrors = 0;
};

/// Thrown for bad user input that stops the current command; the driver
/// prints the diagnostic and exits with code 2.
class UserError : public std::runtime_error {
public:
  explicit UserError(Diagnostic D);
  UserError(SourceLoc Loc, const std::string &Message);
  /// An error with no location (a bad command-line value, say).
  explicit UserError(const std::string &Message);
  const Diagnostic &diagnostic() const { return Diag; }

private:
  Diagnostic Diag;
};

} // namespace bankwise
