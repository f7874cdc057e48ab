// Time of `analyze` on the tiled transpose sample as the grid grows to 2^28
// threads, through the library (bench/analyze-samples.sh times the command
// on every sample): the fast path counts warps by class. Each run checks its result
// (fast path taken, the raw tile's column read at 32 wavefronts) so a broken
// analysis cannot look fast.
//
//   bench_analyze SAMPLES_DIR [--markdown]

#include "analysis/passes/KernelAnalysis.h"
#include "dsl/Parser.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

using namespace bankwise;

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: bench_analyze SAMPLES_DIR [--markdown]\n");
    return 2;
  }
  const std::string Path = std::string(Argv[1]) + "/transpose_tiled.bw";
  const bool Markdown = Argc > 2 && !std::strcmp(Argv[2], "--markdown");
  if (Markdown) {
    fmt::print("| N | threads | warp executions | fast path | seconds (parse + analyze) |\n");
    fmt::print("|---:|---:|---:|---|---:|\n");
  }
  for (std::int64_t N : {1024, 4096, 8192, 16384}) {
    const auto Start = std::chrono::steady_clock::now();
    DiagnosticEngine Diags;
    const ir::Program P = dsl::parseFile(Path, Diags, {{"N", N}});
    if (Diags.hasErrors()) {
      Diags.print(std::cerr);
      return 1;
    }
    const KernelReport R = analyzeKernel(P, P.Kernels.at(0));
    const double Secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    std::int64_t Execs = 0;
    bool Ok = R.FastPath;
    for (const AccessSiteReport &S : R.Sites) {
      Execs += S.WarpExecutions;
      if (S.Array == "tile" && !S.IsWrite)
        Ok = Ok && S.Wavefronts.Min == 32 && S.Wavefronts.Max == 32;
    }
    if (!Ok) {
      std::fprintf(stderr, "check failed for N = %lld\n", static_cast<long long>(N));
      return 1;
    }
    if (Markdown)
      fmt::print("| {} | {} | {} | {} | {:.3f} |\n", N, R.Threads, Execs,
                 R.FastPath ? "yes" : "no", Secs);
    else
      fmt::print("N = {:6}: {:>10} threads, {:>10} warp executions, {:.3f} s\n", N,
                 R.Threads, Execs, Secs);
  }
  return 0;
}
