// Helpers shared by the front-end tests.
#pragma once

#include "dsl/Parser.h"

#include <string>
#include <vector>

namespace bankwise::test {

/// Contents of Path, byte for byte; fails the test when unreadable.
std::string readFile(const std::string &Path);
/// The *.bw files of Dir, sorted by name.
std::vector<std::string> bwFiles(const std::string &Dir);
/// Diags printed as text, for failure messages.
std::string render(const DiagnosticEngine &Diags);

struct Parsed {
  ir::Program Program;
  DiagnosticEngine Diags;
};
/// parseProgram on Source, named FileName.
Parsed parse(const std::string &Source, const std::string &FileName = "t.bw",
             const dsl::ParamOverrides &Overrides = {});

} // namespace bankwise::test
