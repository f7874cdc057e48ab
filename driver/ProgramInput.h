// Reading a .bw program the way every subcommand does: -D overrides parsed,
// the file parsed and checked, diagnostics printed.
#pragma once

#include "dsl/Parser.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace bankwise::driver {

/// The "NAME=VALUE" arguments of option Flag ("-D", "--size") as a map;
/// throws UserError, naming Flag, for a malformed one.
template <class Map> Map parseNameValues(const std::vector<std::string> &Args, const char *Flag) {
  Map Out;
  for (const std::string &A : Args) {
    std::string Err;
    auto KV = dsl::parseOverride(A, Err);
    if (!KV)
      throw UserError(fmt::format("{} {}: {}", Flag, A, Err));
    Out[KV->first] = KV->second;
  }
  return Out;
}

/// Parses File with the "NAME=VALUE" Defines. Prints every diagnostic to
/// stderr and returns nothing when there was an error (the caller exits 2);
/// throws UserError for a malformed -D.
inline std::optional<ir::Program> readProgram(const std::string &File,
                                              const std::vector<std::string> &Defines) {
  const auto Overrides = parseNameValues<dsl::ParamOverrides>(Defines, "-D");
  DiagnosticEngine Diags;
  ir::Program Prog = dsl::parseFile(File, Diags, Overrides);
  Diags.print(std::cerr);
  if (Diags.hasErrors())
    return std::nullopt;
  return Prog;
}

} // namespace bankwise::driver
