// bankwise compile: CUDA C++ from a .bw program.
//
//   bankwise compile samples/transpose_tiled.bw -o transpose.cu [--header transpose.h]
//            [--harness] [--arch sm_90] [-D N=4096] [--seed 1] [--report r.json]
//   bankwise compile samples/transpose_any_shape.bw --torch ext/ [--torch-module NAME]
//
// The script: parse, run the pipeline (pipeline/Pipeline.h: bind-sizes,
// schedule-colored, layout-auto, place-shared, check, value-facts,
// analyze; --dump-ir-after prints the program after a pass), emit
// (codegen/), report (report/CompileReport.h), write the outputs
// atomically (a temporary file renamed into place), so a failed run never
// leaves a half-written file.
// --torch DIR writes a PyTorch extension of the module (docs/torch.md): its
// files all appear together, renamed into place once all are written.

#include "codegen/Codegen.h"
#include "driver/Commands.h"
#include "driver/CompileOutputs.h"
#include "driver/Output.h"
#include "driver/ProgramInput.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "report/CompileReport.h"
#include "support/Diagnostic.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>

namespace bankwise::driver {

namespace {

struct CompileOptions {
  std::string File;
  std::string Output;
  std::string Header;
  std::string Report;
  std::string SideFile;
  std::string Arch = "sm_90";
  std::string Namespace;
  std::vector<std::string> Defines;
  std::vector<std::string> Sizes;
  std::vector<std::string> Data;
  std::string DumpAfter;
  std::string TorchDir;
  std::string TorchModule;
  std::uint64_t Seed = 1;
  std::uint64_t InlineLimit = 64 * 1024;
  bool Harness = false;
  WorkLimits Limits;
};

/// --torch DIR: the module compiled again for the extension (no harness,
/// its header beside it, every table in the source), its ops, setup.py and
/// loader, written together. Returns the exit code: 2 when no kernel can be
/// an op or a table would need a side file.
int writeTorchExtension(const CompileOptions &O, const PipelineResult &P, codegen::CodegenOptions CO) {
  const std::string Module =
      codegen::cppIdentifier(O.TorchModule.empty() ? std::filesystem::path(O.File).stem().string() : O.TorchModule);
  CO.Namespace = Module;
  CO.TorchModule = Module;
  CO.HeaderInclude = Module + ".h";
  CO.Harness = false;
  CO.SideFileName = Module + ".tables.bin";
  const codegen::CompileResult R = codegen::compileToCuda(P, CO);
  for (const Diagnostic &N : R.Torch->Skipped)
    printDiagnostic(std::cerr, N);
  if (!R.SideFile.empty()) {
    std::cerr << fmt::format("{}: error: --torch: {} table bytes would go to a side file, which the extension "
                             "cannot read; raise --inline-table-limit to keep them in the source\n",
                             O.File, R.SideFile.size());
    return 2;
  }
  if (R.Torch->Ops.empty()) {
    std::cerr << fmt::format("{}: error: --torch: no kernel or launch of the program can be an op (the notes "
                             "above say why)\n",
                             O.File);
    return 2;
  }
  const std::filesystem::path Dir(O.TorchDir);
  std::error_code EC;
  std::filesystem::create_directories(Dir, EC);
  if (EC)
    throw UserError(fmt::format("cannot create '{}': {}", O.TorchDir, EC.message()));
  const std::vector<std::string> Names = codegen::torchFileNames(Module);
  const std::vector<std::string> Texts = {R.Source, R.Header, R.Torch->Bindings, R.Torch->SetupPy, R.Torch->LoaderPy};
  std::vector<std::pair<std::string, std::string>> Files;
  for (std::size_t I = 0; I < Names.size(); ++I)
    Files.push_back({(Dir / Names[I]).string(), Texts[I]});
  writeTogether(Files);
  std::cerr << fmt::format("{}: note: --torch: wrote {} ({} op{}: torch.ops.{}.{})\n", O.File, O.TorchDir,
                           R.Torch->Ops.size(), R.Torch->Ops.size() == 1 ? "" : "s", Module,
                           fmt::join(R.Torch->Ops, ", "));
  return 0;
}

int runCompile(const CompileOptions &O) {
  const auto Given = parseNameValues<ir::Bindings>(O.Sizes, "--size");
  std::optional<ir::Program> Read = readProgram(O.File, O.Defines);
  if (!Read)
    return 2;
  // Runtime params stay arguments of the emitted code; every decision
  // (schedules, layouts, predictions) is made on the program bound to
  // representative sizes.
  AnalysisOptions AO;
  loadDataOptions(O.Data, *Read, AO);
  PipelineOptions PO;
  PO.Limits = O.Limits;
  PO.Sizes = Given;
  PO.Layouts.Seed = O.Seed;
  PO.Layouts.Analysis = AO;
  PO.Arch = O.Arch;
  PO.Checks.Data = &AO.Data;
  PO.Analyze.Analysis = AO; // the predictions of the comments and the report
  // The check pass's findings, as soon as it has them: a racy or
  // divergent-barrier program is never emitted (nor analyzed).
  PO.StopOnCheckError = true;
  PO.AfterCheck = [](const PipelineResult &R) { report::printCompileChecks(std::cerr, R); };
  codegen::CodegenOptions CO;
  CO.SourceName = O.File;
  const std::filesystem::path Out(O.Output);
  CO.Namespace = O.Namespace.empty() ? Out.stem().string() : O.Namespace;
  if (!O.Header.empty()) {
    // The .cu includes the header by its path relative to the .cu's folder.
    std::filesystem::path H(O.Header);
    const auto Rel = std::filesystem::relative(std::filesystem::absolute(H),
                                               std::filesystem::absolute(Out).parent_path());
    CO.HeaderInclude = Rel.empty() ? H.filename().string() : Rel.generic_string();
  }
  const std::string SidePath = O.SideFile.empty() ? (Out.parent_path() / (Out.stem().string() + ".tables.bin")).string()
                                                  : O.SideFile;
  CO.SideFileName = SidePath;
  CO.Arch = O.Arch;
  CO.Harness = O.Harness;
  CO.Seed = O.Seed;
  CO.InlineTableLimit = O.InlineLimit;
  // The side file is written while the kernels are analyzed: its tables
  // need the program every earlier pass made, not the analyses.
  SideFileWriter Side(SidePath);
  PO.BeforeAnalyze = [&](const PipelineResult &R) {
    if (O.Output.empty())
      return;
    if (const codegen::SideFile S = codegen::planSideFile(R, CO); !S.empty())
      Side.start(S);
  };
  PO.dumpAfter(O.DumpAfter, std::cerr);
  const PipelineResult P = runPipeline(std::move(*Read), PO);
  if (P.checkFailed())
    return 2;
  if (!O.TorchDir.empty()) {
    if (const int Code = writeTorchExtension(O, P, CO); Code != 0 || O.Output.empty())
      return Code;
  }
  const codegen::CompileResult R = codegen::compileToCuda(P, CO);
  for (const Diagnostic &W : R.Warnings)
    printDiagnostic(std::cerr, W);
  // Every output or none: the .cu, header and report wait for the side file.
  std::vector<std::pair<std::string, std::string>> Files = {{O.Output, R.Source}};
  if (!O.Header.empty())
    Files.push_back({O.Header, R.Header});
  if (!O.Report.empty())
    Files.push_back({O.Report, report::compileReportJson(P, R, {O.File, O.Arch})});
  writeTogether(Files, [&] {
    if (!R.SideFile.empty())
      Side.commit(R.SideFile);
  });
  return 0;
}

} // namespace

void registerCompileCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<CompileOptions>();
  CLI::App *Cmd = App.add_subcommand("compile", "CUDA C++ (kernels, host API, optional harness) from a .bw program");
  Cmd->add_option("file", O->File, "the .bw program")->required();
  Cmd->add_option("-o,--output", O->Output, "the .cu to write (needed unless --torch is given)");
  Cmd->add_option("--torch", O->TorchDir,
                  "also write a PyTorch extension to this folder: the module, an op per kernel, setup.py and "
                  "a loader (docs/torch.md)");
  Cmd->add_option("--torch-module", O->TorchModule,
                  "the extension's module: torch.ops.NAME (default: the .bw file's stem)");
  Cmd->add_option("--header", O->Header, "also write the host API to this header (the .cu includes it)");
  Cmd->add_flag("--harness", O->Harness,
                "add a main that checks every kernel against a CPU reference and times it");
  Cmd->add_option("--arch", O->Arch, "CUDA architecture (bounds shared memory per block)")->capture_default_str();
  Cmd->add_option("-D", O->Defines, "override a param: -D N=4096 (repeatable); binds a runtime param for good");
  Cmd->add_option("--size", O->Sizes,
                  "representative size of a runtime param, for layout choice and predictions only: --size R=4097 "
                  "(repeatable; default: the smallest value >= 64 that meets its where, else the smallest >= 1)");
  Cmd->add_option("--seed", O->Seed, "seed of the harness's random inputs and of layout auto's RAP")
      ->capture_default_str();
  Cmd->add_option("--namespace", O->Namespace, "C++ namespace of the module (default: the output's stem)");
  Cmd->add_option("--side-file", O->SideFile,
                  "where tables too large for the source go (default: OUTPUT_STEM.tables.bin)");
  Cmd->add_option("--inline-table-limit", O->InlineLimit,
                  "largest table, in stored bytes, kept in the source")
      ->capture_default_str();
  Cmd->add_option("--report", O->Report, "write every access site's predicted cost as JSON");
  Cmd->add_option("--data", O->Data,
                  "contents of an array an index reads, for exact predictions in comments and report: "
                  "--data p=p.bin (repeatable; the format of analyze --data)");
  Cmd->add_option("--dump-ir-after", O->DumpAfter, dumpIrAfterHelp());
  addLimitOptions(Cmd, O->Limits);
  addThreadsOption(*Cmd);
  Cmd->callback([O, &Run] {
    if (O->Output.empty() && O->TorchDir.empty())
      throw CLI::RequiredError("--output or --torch");
    if (O->Output.empty() && (O->Harness || !O->Header.empty() || !O->Report.empty() || !O->SideFile.empty()))
      throw CLI::ValidationError("--harness, --header, --report and --side-file", "describe the .cu of --output");
    Run = [O] { return runCompile(*O); };
  });
}

} // namespace bankwise::driver
