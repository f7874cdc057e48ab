// bankwise compile: CUDA C++ from a .bw program.
//
//   bankwise compile samples/transpose_tiled.bw -o transpose.cu [--header transpose.h]
//            [--harness] [--arch sm_90] [-D N=4096] [--seed 1] [--report r.json]
//
// The script: parse, run the pipeline (pipeline/Pipeline.h: bind-sizes,
// schedule-colored, layout-auto; --dump-ir-after prints the program after a
// pass), emit (codegen/), write the outputs atomically (a temporary file
// renamed into place), so a failed run never leaves a half-written file.

#include "codegen/Codegen.h"
#include "driver/Commands.h"
#include "driver/ProgramInput.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "support/Diagnostic.h"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

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
  std::uint64_t Seed = 1;
  std::uint64_t InlineLimit = 64 * 1024;
  bool Harness = false;
};

/// Writes Bytes to Path through a temporary file in the same directory.
/// Writes Path through Write(stream) into a temporary file renamed into
/// place, so a failed write leaves no half-written output.
template <class F> void writeAtomically(const std::string &Path, F &&Write) {
  const std::string Tmp = Path + ".tmp";
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    if (!Out)
      throw UserError(fmt::format("cannot write '{}'", Path));
    Write(Out);
    Out.flush();
    if (!Out) {
      Out.close();
      std::error_code Ignored;
      std::filesystem::remove(Tmp, Ignored);
      throw UserError(fmt::format("cannot write '{}'", Path));
    }
  }
  std::error_code EC;
  std::filesystem::rename(Tmp, Path, EC);
  if (EC) {
    std::filesystem::remove(Tmp, EC);
    throw UserError(fmt::format("cannot write '{}': {}", Path, EC.message()));
  }
}

void writeText(const std::string &Path, const std::string &Text) {
  writeAtomically(Path, [&](std::ostream &Out) { Out.write(Text.data(), static_cast<std::streamsize>(Text.size())); });
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
  PO.Sizes = Given;
  PO.Layouts.Seed = O.Seed;
  PO.Layouts.Analysis = AO;
  PO.dumpAfter(O.DumpAfter, std::cerr);
  const PipelineResult P = runPipeline(std::move(*Read), PO);
  const ir::Program &Prog = P.Program;
  codegen::CodegenOptions CO;
  P.decisionsInto(CO);
  CO.Analysis = AO;
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

  const codegen::CompileResult R = codegen::compileToCuda(Prog, CO);
  for (const Diagnostic &W : R.Warnings)
    printDiagnostic(std::cerr, W);
  writeText(O.Output, R.Source);
  if (!O.Header.empty())
    writeText(O.Header, R.Header);
  if (!R.SideFile.empty())
    writeAtomically(SidePath, [&](std::ostream &Out) { R.SideFile.write(Out); });
  if (!O.Report.empty())
    writeText(O.Report, R.ReportJson);
  return 0;
}

} // namespace

void registerCompileCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<CompileOptions>();
  CLI::App *Cmd = App.add_subcommand("compile", "CUDA C++ (kernels, host API, optional harness) from a .bw program");
  Cmd->add_option("file", O->File, "the .bw program")->required();
  Cmd->add_option("-o,--output", O->Output, "the .cu to write")->required();
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
  Cmd->add_option("--dump-ir-after", O->DumpAfter, DumpIrAfterHelp);
  Cmd->callback([O, &Run] { Run = [O] { return runCompile(*O); }; });
}

} // namespace bankwise::driver
