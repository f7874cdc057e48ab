// bankwise compile: CUDA C++ from a .bw program.
//
//   bankwise compile samples/transpose_tiled.bw -o transpose.cu [--header transpose.h]
//            [--harness] [--arch sm_90] [-D N=4096] [--seed 1] [--report r.json]
//   bankwise compile samples/transpose_any_shape.bw --torch ext/ [--torch-module NAME]
//
// The script: parse, run the pipeline (pipeline/Pipeline.h: bind-sizes,
// schedule-colored, layout-auto, check; --dump-ir-after prints the program
// after a pass), emit (codegen/), write the outputs atomically (a temporary file
// renamed into place), so a failed run never leaves a half-written file.
// --torch DIR writes a PyTorch extension of the module (docs/torch.md): its
// files all appear together, renamed into place once all are written.

#include "codegen/Codegen.h"
#include "driver/Commands.h"
#include "driver/Findings.h"
#include "driver/Output.h"
#include "driver/ProgramInput.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "support/Diagnostic.h"
#include "support/TempFiles.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <unistd.h>

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
  LimitOptions Limits;
};

/// Writes Side's bytes to Tmp (created or truncated), through O_DIRECT where
/// the file system takes it: the bytes go to the disk from one reused 8 MiB
/// buffer instead of being copied into as much fresh page cache first. At
/// n = 2^26 the side file is 1.9 GB, and that copy (with the first touch of
/// 1.9 GB of pages) took 3.5-5.8 s of the compile on the development VM.
/// Elsewhere an ordinary stream. Throws UserError naming Path on failure,
/// with Tmp removed.
void writeSideFileBytes(const std::string &Tmp, const std::string &Path, const codegen::SideFile &Side) {
  auto Fail = [&] {
    std::error_code Ignored;
    std::filesystem::remove(Tmp, Ignored);
    throw UserError(fmt::format("cannot write '{}'", Path));
  };
#ifdef O_DIRECT
  constexpr std::size_t Align = 4096, BufBytes = std::size_t(8) << 20;
  const int Fd = ::open(Tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0666);
  if (Fd < 0 && errno != EINVAL) // EINVAL: no O_DIRECT on this file system
    Fail();
  if (Fd >= 0) {
    std::unique_ptr<unsigned char, decltype(&std::free)> Buf(
        static_cast<unsigned char *>(std::aligned_alloc(Align, BufBytes)), &std::free);
    bool Ok = Buf != nullptr;
    // Whole buffers, and whole blocks of the last one, go out directly; a
    // write O_DIRECT refuses (alignment) and the tail shorter than a block
    // go through the page cache.
    auto Buffered = [&] { Ok = Ok && ::fcntl(Fd, F_SETFL, ::fcntl(Fd, F_GETFL) & ~O_DIRECT) == 0; };
    auto WriteAll = [&](const unsigned char *Data, std::size_t N) {
      while (Ok && N > 0) {
        const ssize_t Done = ::write(Fd, Data, N);
        if (Done < 0 && errno == EINTR)
          continue;
        if (Done < 0 && errno == EINVAL && (::fcntl(Fd, F_GETFL) & O_DIRECT)) {
          Buffered();
          continue;
        }
        if (Done <= 0) {
          Ok = false;
          break;
        }
        Data += Done;
        N -= static_cast<std::size_t>(Done);
      }
    };
    std::size_t Used = 0;
    if (Ok)
      Side.forEachChunk([&](const unsigned char *Data, std::size_t N) {
        while (N > 0 && Ok) {
          const std::size_t Take = std::min(N, BufBytes - Used);
          std::memcpy(Buf.get() + Used, Data, Take);
          Used += Take;
          Data += Take;
          N -= Take;
          if (Used == BufBytes) {
            WriteAll(Buf.get(), Used);
            Used = 0;
          }
        }
      });
    const std::size_t Whole = Used / Align * Align;
    WriteAll(Buf.get(), Whole);
    if (Used > Whole)
      Buffered();
    WriteAll(Buf.get() + Whole, Used - Whole);
    if (::close(Fd) != 0 || !Ok)
      Fail();
    return;
  }
#endif
  std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
  if (!Out || !Side.write(Out) || !Out.flush()) {
    Out.close();
    Fail();
  }
}

/// Side's bytes written to PATH.tmp on a thread of its own from the moment
/// the tables are planned (codegen::planSideFile, before the pipeline's
/// analyze pass, so the write overlaps the analysis of the kernels),
/// renamed to PATH once every other output is written. A writer not
/// committed removes its temporary file.
class SideFileWriter {
public:
  explicit SideFileWriter(std::string Path) : Path(std::move(Path)), Tmp(this->Path + ".tmp"), Guard(Tmp) {}
  SideFileWriter(const SideFileWriter &) = delete;
  SideFileWriter &operator=(const SideFileWriter &) = delete;
  ~SideFileWriter() {
    wait();
    if (Started && !Committed) {
      std::error_code Ignored;
      std::filesystem::remove(Tmp, Ignored);
    }
  }
  /// Starts writing Side (once).
  void start(const codegen::SideFile &S) {
    if (Started) // a later plan is compared, and written if it differs, by commit
      return;
    Side = S;
    Started = true;
    Thread = std::thread([this] {
      try {
        writeSideFileBytes(Tmp, Path, Side);
      } catch (...) {
        Error = std::current_exception();
      }
    });
  }
  /// Renames the finished file into place, writing it first if Final is not
  /// what was started (a table planned after the analyses).
  void commit(const codegen::SideFile &Final) {
    wait();
    if (Error)
      std::rethrow_exception(Error);
    const bool Same = Started && Final.Tables.size() == Side.Tables.size() &&
                      std::equal(Final.Tables.begin(), Final.Tables.end(), Side.Tables.begin(),
                                 [](const codegen::TablePlan &A, const codegen::TablePlan &B) {
                                   return A.Offset == B.Offset && A.Size == B.Size && A.Width == B.Width &&
                                          A.Hash == B.Hash;
                                 });
    if (!Same) {
      Started = true;
      writeSideFileBytes(Tmp, Path, Final);
    }
    std::error_code EC;
    std::filesystem::rename(Tmp, Path, EC);
    if (EC)
      throw UserError(fmt::format("cannot write '{}': {}", Path, EC.message()));
    Committed = true;
  }

private:
  void wait() {
    if (Thread.joinable())
      Thread.join();
  }
  std::string Path, Tmp;
  TempFileGuard Guard;
  codegen::SideFile Side;
  std::thread Thread;
  std::exception_ptr Error;
  bool Started = false, Committed = false;
};

/// Writes every (path, text) of Files through a temporary file each, and
/// renames them into place only once all are written and BeforeRename (when
/// given: the side file's commit) has returned: a failure or a signal
/// leaves none of them half-written, none without the others, and no
/// temporary file.
void writeTogether(const std::vector<std::pair<std::string, std::string>> &Files,
                   const std::function<void()> &BeforeRename = {}) {
  std::vector<std::unique_ptr<TempFileGuard>> Guards;
  std::vector<std::string> Written;
  auto RemoveAll = [&] {
    std::error_code Ignored;
    for (const std::string &T : Written)
      std::filesystem::remove(T, Ignored);
  };
  for (const auto &[Path, Text] : Files) {
    const std::string Tmp = Path + ".tmp";
    Guards.push_back(std::make_unique<TempFileGuard>(Tmp));
    Written.push_back(Tmp);
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    Out.write(Text.data(), static_cast<std::streamsize>(Text.size()));
    Out.flush();
    if (!Out) {
      Out.close();
      RemoveAll();
      throw UserError(fmt::format("cannot write '{}'", Path));
    }
  }
  if (BeforeRename) {
    try {
      BeforeRename();
    } catch (...) {
      RemoveAll();
      throw;
    }
  }
  for (std::size_t I = 0; I < Files.size(); ++I) {
    std::error_code EC;
    std::filesystem::rename(Written[I], Files[I].first, EC);
    if (EC) {
      RemoveAll();
      throw UserError(fmt::format("cannot write '{}': {}", Files[I].first, EC.message()));
    }
  }
}

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
  checkResources(*Read, Given, O.Limits);
  AnalysisOptions AO;
  loadDataOptions(O.Data, *Read, AO);
  PipelineOptions PO;
  PO.Sizes = Given;
  PO.Layouts.Seed = O.Seed;
  PO.Layouts.Analysis = AO;
  PO.Checks.Data = &AO.Data;
  PO.Analyze.Analysis = AO; // the predictions of the comments and the report
  // The check pass's findings, as soon as it has them: a racy or
  // divergent-barrier program is never emitted (nor analyzed).
  PO.StopOnCheckError = true;
  PO.AfterCheck = [](const PipelineResult &R) {
    if (printFindings(std::cerr, sortedFindings(R.Findings)))
      return;
    // schedule auto's choices, with the estimates behind them.
    for (const ColoredScheduleReport &C : R.Colored) {
      if (C.Auto)
        std::cerr << fmt::format("{}:{}:{}: note: {}\n", C.Loc.File, C.Loc.Line, C.Loc.Col, autoScheduleNote(C));
      // The offline schedule's CPU time beside the kernels' estimates: the
      // number of runs that repay it.
      if (C.Hmm)
        std::cerr << fmt::format("{}:{}:{}: note: {}\n", C.Loc.File, C.Loc.Line, C.Loc.Col, scheduleCostNote(C));
    }
  };
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
    Files.push_back({O.Report, R.ReportJson});
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
