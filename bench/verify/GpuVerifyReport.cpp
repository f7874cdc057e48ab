// Aggregates a bench/gpu-verify.sh run into gpu-verify.json and
// gpu-verify.md (Report.h): per kernel whether it is correct and its time,
// per access site the model's prediction beside Nsight Compute's source
// counters. Exit code 0 when every kernel is correct and every exact site
// matches, 1 otherwise, 2 on a usage or input error.
//
//   gpu-verify-report --dir DIR --out PREFIX [--gpu G] [--driver D] [--date T] SAMPLE...
//
// With --trim-fixture DEST, writes SAMPLE.{report.json,cu,cuda-sass.csv,run.json}
// of DIR to DEST cut down to what the report reads (bench/results/ncu-source.tgz, read by tests/verify).
#include "Report.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using bankwise::verify::readFile;

int trimFixtures(const std::string &Dir, const std::string &Dest, const std::vector<std::string> &Samples) {
  namespace v = bankwise::verify;
  std::filesystem::create_directories(Dest);
  for (const auto &S : Samples) {
    std::string Text;
    const std::string From = Dir + "/" + S, To = Dest + "/" + S;
    if (!readFile(From + ".report.json", Text)) {
      std::cerr << "gpu-verify-report: " << From << ".report.json is missing; " << S << " left out\n";
      continue;
    }
    std::ofstream(To + ".report.json", std::ios::binary) << Text;
    if (readFile(From + ".cu", Text))
      std::ofstream(To + ".cu", std::ios::binary) << v::trimCu(Text);
    try {
      if (readFile(From + ".cuda-sass.csv", Text))
        std::ofstream(To + ".cuda-sass.csv", std::ios::binary) << v::trimNcuSource(Text);
    } catch (const v::NcuSourceError &E) {
      std::cerr << "gpu-verify-report: " << From << ".cuda-sass.csv: " << E.what() << "\n";
      return 2;
    }
    // The harness's line: S.run.json, else the one the profiled run printed into S.prof.log.
    std::string Run;
    if (!readFile(From + ".run.json", Run) && readFile(From + ".prof.log", Text))
      if (auto P = Text.find("{\"program\""); P != std::string::npos)
        Run = Text.substr(P, Text.find('\n', P) - P) + "\n";
    if (!Run.empty())
      std::ofstream(To + ".run.json", std::ios::binary) << Run;
  }
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  bankwise::verify::ReportInput In;
  std::string Prefix, TrimTo;
  bool Quiet = false;
  CLI::App App{"gpu-verify's report: per-site predictions against Nsight Compute's source counters"};
  App.add_option("--dir", In.Dir, "directory laid out by bench/gpu-verify.sh")->required();
  App.add_option("--out", Prefix, "writes PREFIX.md and PREFIX.json");
  App.add_option("--gpu", In.Gpu, "GPU name for the header");
  App.add_option("--driver", In.Driver, "driver version for the header");
  App.add_option("--date", In.Date, "date for the header");
  App.add_flag("--quiet", Quiet, "do not print the Markdown");
  App.add_option("--trim-fixture", TrimTo, "write trimmed copies of the samples' inputs to this directory and stop");
  App.add_option("samples", In.Samples, "sample names (files SAMPLE.report.json, .cu, .cuda-sass.csv, .run.json)")
      ->required();
  CLI11_PARSE(App, Argc, Argv);
  if (!TrimTo.empty())
    return trimFixtures(In.Dir, TrimTo, In.Samples);
  if (Prefix.empty()) {
    std::cerr << "gpu-verify-report: --out PREFIX is required\n";
    return 2;
  }
  const auto Out = bankwise::verify::buildReport(In);
  std::ofstream(Prefix + ".json") << Out.Json.dump(1) << "\n";
  std::ofstream(Prefix + ".md") << Out.Markdown;
  if (!Quiet)
    std::cout << Out.Markdown;
  std::cerr << "gpu-verify-report: exact sites matched " << Out.ExactMatched << " of " << Out.ExactSites << " ("
            << Out.ExactFailed << " failed, " << Out.Removed << " removed by nvcc); all kernels correct: "
            << (Out.AllCorrect ? "yes" : "no") << "\n";
  return Out.ok() ? 0 : 1;
}
