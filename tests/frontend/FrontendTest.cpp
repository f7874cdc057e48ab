// Clang reads CUDA 13 device code through frontend/ (Clang 19 needs the
// workarounds of ../shared/HARDWARE.md).

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "frontend/CudaFrontend.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

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

namespace {
/// Sets an environment variable for one scope and restores it after.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      ::setenv(Name, Value, 1);
    else
      ::unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *Name;
  std::optional<std::string> Saved;
};
} // namespace

TEST_CASE("the CUDA toolkit is found behind an nvcc wrapper script on PATH") {
  // CI machines put `exec /usr/local/cuda-13.0/bin/nvcc "$@"` in
  // /usr/local/bin and leave the toolkit's bin/ off PATH.
  const std::string Real = defaultCudaPath();
  REQUIRE_FALSE(Real.empty());
  const std::filesystem::path Dir =
      std::filesystem::temp_directory_path() / ("bankwise-nvcc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(Dir);
  {
    std::ofstream Script(Dir / "nvcc");
    Script << "#!/bin/sh\nexec " << Real << "/bin/nvcc \"$@\"\n";
  }
  std::filesystem::permissions(Dir / "nvcc", std::filesystem::perms::owner_all);
  {
    const ScopedEnv Path("PATH", Dir.c_str());
    const ScopedEnv CudaPath("CUDA_PATH", nullptr);
    const ScopedEnv CudaHome("CUDA_HOME", nullptr);
    const ScopedEnv CudaRoot("CUDA_ROOT", nullptr);
    CHECK(std::filesystem::equivalent(defaultCudaPath(), Real));
    const CudaParseResult R = parseCudaFile(input("transpose.cu"));
    CHECK_FALSE(R.hasErrors());
    CHECK(R.Kernels.size() == 2);
  }
  {
    const ScopedEnv CudaPath("CUDA_PATH", Dir.c_str());
    CHECK(std::filesystem::equivalent(defaultCudaPath(), Real));
  }
  std::filesystem::remove_all(Dir);
}

TEST_CASE("a CUDA path without include/cuda.h is a located error, not Clang's") {
  CudaOptions Opts;
  Opts.CudaPath = "/nonexistent/cuda";
  const CudaParseResult R = parseCudaFile(input("transpose.cu"), Opts);
  REQUIRE(R.hasErrors());
  CHECK(R.Diags.front().Message.find("is not a CUDA toolkit") != std::string::npos);
  CHECK(R.Diags.front().Loc.File == input("transpose.cu"));
}
