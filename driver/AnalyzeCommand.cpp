// bankwise analyze: per-access-site costs of every kernel of a .bw program
// under the memory-machine models, the model time and the lower bound.
//
//   bankwise analyze samples/transpose_tiled.bw [-D N=4096] [--json]
//            [--machine "umm(w: 32, l: 400)"] [--data p=p.bin] [--kernel K]

#include "driver/Commands.h"
#include "driver/Output.h"
#include "driver/ProgramInput.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "report/AnalyzeReport.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace bankwise::driver {

namespace {


struct AnalyzeOptions {
  std::string File;
  std::vector<std::string> Defines;
  std::vector<std::string> Data;
  std::string MachineSpec;
  std::string Kernel;
  bool Json = false;
  bool Exhaustive = false;
  bool Transformed = false;
  std::string DumpAfter;
  std::string Html; ///< --html FILE
  std::uint64_t Seed = 1;
  WorkLimits Limits;
};


/// What analyze's report takes of the command's arguments.
report::AnalyzeReportOptions reportOptions(const AnalyzeOptions &O, const AnalysisOptions &AO) {
  report::AnalyzeReportOptions R;
  R.File = O.File;
  R.Seed = O.Seed;
  R.Kernel = O.Kernel;
  R.Transformed = O.Transformed;
  R.Html = !O.Html.empty();
  R.TimeWorkLimit = AO.TimeWorkLimit;
  return R;
}

/// Writes the HTML report of --html (nothing without it).
void writeHtml(const AnalyzeOptions &O, report::Document &D) {
  if (O.Html.empty())
    return;
  D.Title = fmt::format("bankwise analyze {}", O.File);
  writeTextAtomically(O.Html, report::renderHtml(D));
}

/// The pipeline's options for analyze: its seed and analysis options, the
/// kernels it analyzes, and --dump-ir-after to stderr. AO outlives the run.
PipelineOptions pipelineOptions(const AnalyzeOptions &O, const AnalysisOptions &AO) {
  PipelineOptions PO;
  PO.Limits = O.Limits;
  PO.Layouts.Seed = O.Seed;
  PO.Layouts.Analysis = AO;
  PO.Checks.OnlyKernel = O.Kernel;
  PO.Checks.Data = &AO.Data;
  PO.Analyze.Analysis = AO;
  PO.Analyze.OnlyKernel = O.Kernel;
  PO.Analyze.AsWritten = O.Transformed;
  PO.Analyze.Lanes = !O.Html.empty(); // the warps --html draws
  PO.dumpAfter(O.DumpAfter, std::cerr);
  return PO;
}

/// "sm_90", "dmm(w: 32, l: 1)", ...: dsl::parseMachineSpec, so the command
/// line and a file accept and reject the same specs.
ir::Machine parseMachineSpec(const std::string &Spec) {
  std::string Why;
  if (std::optional<ir::Machine> M = dsl::parseMachineSpec(Spec, Why))
    return *M;
  throw UserError(fmt::format("--machine '{}': {} (expected sm_90, dmm(w: 32, l: 1), umm(w: 32, l: 400) "
                              "or hmm(d: 132, w: 32, L: 400))",
                              Spec, Why));
}

/// analyze without -D for the runtime sizes: figures over every size.
int runAllSizes(const AnalyzeOptions &O, ir::Program Read, const AnalysisOptions &AO) {
  // Layout choice needs sizes: it runs at the representative sizes compile
  // uses, and the generic program takes its decisions; the analyze pass
  // then takes every size of the generic program.
  PipelineOptions PO = pipelineOptions(O, AO);
  PO.Passes = {PassId::BindSizes, PassId::LayoutAuto, PassId::Check, PassId::Analyze};
  PO.Analyze.EverySize = true;
  nlohmann::json J;
  bool CheckErrors = false;
  PO.AfterCheck = [&](const PipelineResult &R) { CheckErrors = report::analyzeChecks(R, O.Json, J, std::cerr); };
  const PipelineResult P = runPipeline(std::move(Read), PO);
  if (P.EverySize.empty())
    throw UserError(fmt::format("no kernel named '{}' in {}", O.Kernel, O.File));
  report::AnalyzeReport A = report::everySizeReport(P, reportOptions(O, AO), std::move(J));
  writeHtml(O, A.Html);
  const int Rc = emitReport(O.Json, A.Json, A.Text);
  return CheckErrors ? 2 : Rc;
}

int runAnalyze(const AnalyzeOptions &O) {
  std::optional<ir::Program> Read = readProgram(O.File, O.Defines);
  if (!Read)
    return 2;
  if (!O.MachineSpec.empty())
    Read->Mach = parseMachineSpec(O.MachineSpec);

  AnalysisOptions AO;
  AO.Exhaustive = O.Exhaustive;
  loadDataOptions(O.Data, *Read, AO);

  if (!Read->runtimeParams().empty())
    return runAllSizes(O, std::move(*Read), AO);

  // Every pass; the program as read stays in the result for --transformed
  // (a colored kernel as written is the copy it describes) and the HTML,
  // which draws its layouts beside the chosen ones.
  PipelineOptions PO = pipelineOptions(O, AO);
  PO.Analyze.KeepAsRead = true;
  nlohmann::json J;
  bool CheckErrors = false;
  PO.AfterCheck = [&](const PipelineResult &R) {
    CheckErrors = report::analyzeChecks(R, O.Json, J, std::cerr);
    report::scheduleTimeNotes(R, O.Json, std::cerr);
  };
  const PipelineResult P = runPipeline(std::move(*Read), PO);
  if (P.Analyses.empty())
    throw UserError(fmt::format("no kernel named '{}' in {}", O.Kernel, O.File));
  report::AnalyzeReport A = report::fixedSizeReport(P, reportOptions(O, AO), std::move(J));
  writeHtml(O, A.Html);
  const int Rc = emitReport(O.Json, A.Json, A.Text);
  return CheckErrors ? 2 : Rc;
}

} // namespace

void registerAnalyzeCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<AnalyzeOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "analyze", "Per-access-site costs of a .bw program's kernels under the models");
  Cmd->add_option("file", O->File, "the .bw program")->required();
  Cmd->add_option("-D", O->Defines, "override a param: -D N=4096 (repeatable)");
  Cmd->add_option("--machine", O->MachineSpec,
                  "analyze on another machine: sm_90, \"dmm(w: 32, l: 1)\", ... (read as a .bw file's "
                  "`target`/`machine` line: every parameter given)");
  Cmd->add_option("--data", O->Data,
                  "NAME=FILE: the values of integer array NAME (little endian), "
                  "for data-dependent indices");
  Cmd->add_option("--kernel", O->Kernel, "analyze only this kernel");
  Cmd->add_flag("--transformed", O->Transformed,
                "show each site's cost as written and after layout auto");
  Cmd->add_option("--seed", O->Seed, "seed of a RAP layout that auto chooses")
      ->capture_default_str();
  Cmd->add_flag("--exhaustive", O->Exhaustive,
                "evaluate every warp, without the affine fast path");
  Cmd->add_flag("--json", O->Json, "print JSON instead of text");
  Cmd->add_option("--html", O->Html,
                  "also write a self-contained HTML report to FILE: per site, the worst warp's bank map, the "
                  "cost's histogram, the layouts before and after, the source lines");
  Cmd->add_option("--dump-ir-after", O->DumpAfter, dumpIrAfterHelp());
  addLimitOptions(Cmd, O->Limits);
  addThreadsOption(*Cmd);
  Cmd->callback([O, &Run] { Run = [O] { return runAnalyze(*O); }; });
}

} // namespace bankwise::driver
