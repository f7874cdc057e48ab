// Parsing helpers shared by the test suites: a .bw text or sample in, a
// checked program out, with the diagnostics shown when parsing fails.
#pragma once

#include "dsl/Parser.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>

namespace bankwise::testing {

/// Parses Text (named "test.bw"); fails the test on any error.
inline ir::Program parseOrFail(const std::string &Text, const dsl::ParamOverrides &D = {}) {
  DiagnosticEngine Diags;
  ir::Program P = dsl::parseProgram(Text, "test.bw", Diags, D);
  std::ostringstream OS;
  Diags.print(OS);
  INFO(OS.str());
  REQUIRE_FALSE(Diags.hasErrors());
  return P;
}

/// Parses samples/Name; fails the test on any error.
inline ir::Program sampleOrFail(const std::string &Name, const dsl::ParamOverrides &D = {}) {
  DiagnosticEngine Diags;
  ir::Program P = dsl::parseFile(std::string(BANKWISE_SAMPLES_DIR) + "/" + Name, Diags, D);
  std::ostringstream OS;
  Diags.print(OS);
  INFO(OS.str());
  REQUIRE_FALSE(Diags.hasErrors());
  return P;
}

} // namespace bankwise::testing
