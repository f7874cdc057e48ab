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

/// Parses File with the "NAME=VALUE" Defines. Prints every diagnostic to
/// stderr and returns nothing when there was an error (the caller exits 2);
/// throws UserError for a malformed -D.
inline std::optional<ir::Program> readProgram(const std::string &File,
                                              const std::vector<std::string> &Defines) {
  dsl::ParamOverrides Overrides;
  for (const std::string &D : Defines) {
    std::string Err;
    auto KV = dsl::parseOverride(D, Err);
    if (!KV)
      throw UserError(fmt::format("-D {}: {}", D, Err));
    Overrides[KV->first] = KV->second;
  }
  DiagnosticEngine Diags;
  ir::Program Prog = dsl::parseFile(File, Diags, Overrides);
  Diags.print(std::cerr);
  if (Diags.hasErrors())
    return std::nullopt;
  return Prog;
}

} // namespace bankwise::driver
