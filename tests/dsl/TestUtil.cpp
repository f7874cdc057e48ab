#include "TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bankwise::test {

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  REQUIRE_MESSAGE(In.good(), "cannot read " << Path);
  std::ostringstream Buf;
  Buf << In.rdbuf();
  return Buf.str();
}

std::vector<std::string> bwFiles(const std::string &Dir) {
  std::vector<std::string> Files;
  for (const auto &E : std::filesystem::directory_iterator(Dir))
    if (E.is_regular_file() && E.path().extension() == ".bw")
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::string render(const DiagnosticEngine &Diags) {
  std::ostringstream OS;
  Diags.print(OS);
  return OS.str();
}

Parsed parse(const std::string &Source, const std::string &FileName,
             const dsl::ParamOverrides &Overrides) {
  Parsed P;
  P.Program = dsl::parseProgram(Source, FileName, P.Diags, Overrides);
  return P;
}

} // namespace bankwise::test
