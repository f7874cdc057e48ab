// Clang reads CUDA 13 device code through frontend/ (Clang 19 needs the
// workarounds of ../shared/HARDWARE.md).

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "frontend/CudaFrontend.h"

using namespace bankwise;
using namespace bankwise::frontend;

namespace {
std::string input(const std::string &Name) {
  return std::string(BANKWISE_TEST_INPUTS) + "/" + Name;
}
} // namespace

TEST_CASE("kernels of a real CUDA file are found with their locations") {
  const CudaParseResult R = parseCudaFile(input("transpose.cu"));
  for (const Diagnostic &D : R.Diags)
    MESSAGE(D.Loc.File << ":" << D.Loc.Line << ": " << D.Message);
  CHECK_FALSE(R.hasErrors());
  REQUIRE(R.Kernels.size() == 2);
  CHECK(R.Kernels[0].Name == "transposeNaive");
  CHECK(R.Kernels[0].Loc.Line == 7);
  CHECK(R.Kernels[0].NumParams == 3);
  CHECK(R.Kernels[1].Name == "scale");
  CHECK(R.Kernels[1].Loc.Line == 22);
}

TEST_CASE("CUDA that Clang cannot parse gives located errors") {
  const CudaParseResult R = parseCudaFile(input("broken.cu"));
  REQUIRE(R.hasErrors());
  const Diagnostic &D = R.Diags.front();
  CHECK(D.Loc.Line == 2);
  CHECK(D.Loc.Col == 20);
  CHECK(D.Message.find("undeclared_name") != std::string::npos);
  CHECK(D.SourceLine == "  a[threadIdx.x] = undeclared_name;");
}

TEST_CASE("a missing file is an error, not a crash") {
  const CudaParseResult R = parseCudaFile(input("no-such-file.cu"));
  REQUIRE(R.hasErrors());
  CHECK(R.Diags.front().Message == "cannot open CUDA file");
}
