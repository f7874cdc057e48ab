// Command-line values read by the .bw parser itself, so that a value is
// accepted on the command line exactly when it would be in a file: -D
// NAME=VALUE (as `param NAME = VALUE`) and --machine SPEC (as `target SPEC`
// or `machine SPEC`).
#include "dsl/Parser.h"

#include <fmt/format.h>

namespace bankwise::dsl {

using namespace ir;

std::optional<std::pair<std::string, std::int64_t>>
parseOverride(std::string_view Text, std::string &Error) {
  const std::size_t Eq = Text.find('=');
  if (Eq == std::string_view::npos || Eq == 0) {
    Error = fmt::format("expected NAME=VALUE in -D '{}'", Text);
    return std::nullopt;
  }
  const std::string Name(Text.substr(0, Eq));
  std::string Value(Text.substr(Eq + 1));
  DiagnosticEngine Scratch;
  Program P =
      parseProgram("param " + Name + " = " + Value + "\n", "-D", Scratch);
  // A well-formed override is exactly one param whose value is a literal,
  // possibly negated; anything else is malformed.
  std::optional<std::int64_t> V;
  if (P.Params.size() == 1 && P.Params[0].Name == Name) {
    if (P.Params[0].Init)
      if (const auto *L = P.Params[0].Init->as<IntLit>())
        V = L->Value;
  }
  bool OnlyNoKernel = true;
  for (const Diagnostic &D : Scratch.diagnostics())
    if (D.Message != "program declares no kernel")
      OnlyNoKernel = false;
  if (!V || !OnlyNoKernel) {
    Error = fmt::format("invalid -D '{}': expected NAME=INTEGER", Text);
    return std::nullopt;
  }
  return std::make_pair(Name, *V);
}

std::optional<Machine> parseMachineSpec(std::string_view Spec, std::string &Error) {
  const bool Call = Spec.find('(') != std::string_view::npos;
  DiagnosticEngine Scratch;
  Program P = parseProgram((Call ? "machine " : "target ") + std::string(Spec) + "\n", "--machine", Scratch);
  // Sema reports a program without kernels only when nothing else is wrong.
  for (const Diagnostic &D : Scratch.diagnostics())
    if (D.Sev == Severity::Error && D.Message != "program declares no kernel") {
      Error = D.Message;
      return std::nullopt;
    }
  if (!P.Mach) {
    Error = "not a machine";
    return std::nullopt;
  }
  return P.Mach;
}

} // namespace bankwise::dsl
