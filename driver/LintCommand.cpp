// bankwise lint: bank conflicts and uncoalesced accesses in existing CUDA,
// read with Clang (frontend/), lowered into the IR and analyzed by the same
// passes as `analyze`, reported in Clang's format, JSON or SARIF 2.1.0.
//
//   bankwise lint FILE.cu... [-p BUILD_DIR] [--block X,Y,Z] [--grid X,Y,Z]
//   bankwise lint -p BUILD_DIR [...]   (every .cu file of its compile_commands.json)
//                [-D NAME=VALUE] [--emit-bw] [--format text|json|sarif]
//                [--werror] [--fix] [-j|--threads N] [-- CLANG_ARGS]

#include "analysis/checks/Checks.h"
#include "analysis/checks/LintSites.h"
#include "driver/Commands.h"
#include "driver/CompilationDatabase.h"
#include "driver/KernelFiguresKey.h"
#include "driver/LintResults.h"
#include "driver/Output.h"
#include "driver/ProgramInput.h"
#include "frontend/CudaLowering.h"
#include "ir/Printer.h"
#include "pipeline/Pipeline.h"
#include "report/AnalysisPages.h"
#include "report/LintReport.h"
#include "support/Diagnostic.h"
#include "support/Parallel.h"
#include "support/Progress.h"
#include "support/TempFiles.h"

#include <chrono>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

namespace bankwise::driver {

std::vector<std::string> &passthroughArgs() {
  static std::vector<std::string> Args;
  return Args;
}

namespace {

struct LintOptions {
  std::vector<std::string> Files;
  std::string BuildDir;
  std::string Block, Grid;
  std::vector<std::string> Defines;
  bool EmitBw = false;
  std::string Format = "text";
  bool Werror = false;
  bool Fix = false;
  bool AsWritten = false;
  std::string Html; ///< --html FILE
  bool Timing = false;
  std::int64_t SizeBudget = LintSiteOptions::DefaultSizeBudget; ///< --size-budget
};

/// "32,8" -> {32, 8, 1}; throws UserError naming Flag for anything else.
frontend::Dim3 parseDim3(const std::string &Text, const char *Flag) {
  frontend::Dim3 D{1, 1, 1};
  std::stringstream SS(Text);
  std::string Part;
  std::size_t I = 0;
  while (std::getline(SS, Part, ',')) {
    std::int64_t V = 0;
    std::size_t Used = 0;
    try {
      V = std::stoll(Part, &Used);
    } catch (const std::exception &) {
      Used = 0;
    }
    if (I >= 3 || Used != Part.size() || V < 1)
      throw UserError(fmt::format("{} '{}': expected 1 to 3 positive integers separated by commas", Flag, Text));
    D[I++] = V;
  }
  if (I == 0)
    throw UserError(fmt::format("{} '{}': expected 1 to 3 positive integers separated by commas", Flag, Text));
  return D;
}

report::UnanalyzedSpace unanalyzedSpace(frontend::AccessSpace S) {
  switch (S) {
  case frontend::AccessSpace::Shared: return report::UnanalyzedSpace::Shared;
  case frontend::AccessSpace::Global: return report::UnanalyzedSpace::Global;
  case frontend::AccessSpace::Other: return report::UnanalyzedSpace::Other;
  case frontend::AccessSpace::Unknown: return report::UnanalyzedSpace::Unknown;
  }
  return report::UnanalyzedSpace::Unknown;
}

const char *launchKind(frontend::LaunchSource S) {
  switch (S) {
  case frontend::LaunchSource::CommandLine: return "command line";
  case frontend::LaunchSource::LaunchSite: return "launch site";
  case frontend::LaunchSource::LaunchBounds: return "__launch_bounds__";
  case frontend::LaunchSource::Implied: return "implied";
  }
  return "implied";
}

/// A note's cause: its text with quoted names and numbers blanked, so the
/// notes of one construct in several instantiations ('float' here, 'double'
/// there; 256 here, 128 there) have one.
std::string noteCause(const std::string &Message) {
  std::string Out;
  bool InQuote = false;
  for (char C : Message) {
    if (C == '\'') {
      InQuote = !InQuote;
      Out += C;
    } else if (!InQuote && !(std::isdigit(static_cast<unsigned char>(C)) && !Out.empty() && Out.back() == '#')) {
      Out += std::isdigit(static_cast<unsigned char>(C)) ? '#' : C;
    }
  }
  return Out;
}

/// Issue [13] item 2: what the lint did not understand is said once per
/// line, kernel and cause, not once per instantiation. Equal findings of
/// several kernels are one finding naming them; an unanalyzed note of an
/// instantiation joins another instantiation's note of the same template,
/// line and cause (its message, the first's, says how many it covers).
void addFinding(FileResult &R, LintFinding F, const std::string &Kernel) {
  for (FileFinding &X : R.Findings)
    if (X.F.Loc == F.Loc && X.F.Message == F.Message && X.F.Check == F.Check) {
      if (std::find(X.Kernels.begin(), X.Kernels.end(), Kernel) == X.Kernels.end())
        X.Kernels.push_back(Kernel);
      return;
    }
  const std::string Template = report::templateOf(Kernel);
  if (F.Check == "bankwise-unanalyzed" && !Template.empty()) {
    const std::string Cause = noteCause(F.Message);
    for (FileFinding &X : R.Findings)
      if (X.F.Loc == F.Loc && X.F.Check == F.Check && X.F.Sev == F.Sev && report::templateOf(X.Kernels.front()) == Template &&
          std::find(X.Kernels.begin(), X.Kernels.end(), Kernel) == X.Kernels.end() &&
          noteCause(X.F.Message) == Cause) {
        X.Kernels.push_back(Kernel);
        ++X.Folded;
        return;
      }
  }
  R.Findings.push_back({std::move(F), {Kernel}});
}

/// Pads the static shared arrays whose every access was understood and
/// whose warnings the padding removes; rewrites the file in one step.
std::string applyFixes(const std::string &File, const frontend::LoweredFile &L,
                       const std::vector<FileFinding> &Findings) {
  struct Edit {
    unsigned Offset, Length;
    std::int64_t Pad, Extent; ///< the padded extent, and the declared one
    bool Dependent;           ///< a template's size: a literal only
    std::string Array;
  };
  std::vector<Edit> Edits;
  std::vector<std::string> Skipped;
  for (const frontend::LoweredKernel &LK : L.Kernels) {
    if (!LK.Lowered)
      continue;
    for (const frontend::SharedArraySource &S : LK.Shared) {
      // The padding every conflicting site of it agrees removes its conflicts.
      std::optional<std::int64_t> Pad;
      bool Conflicts = false, Agree = true;
      for (const FileFinding &F : Findings) {
        if (F.F.Check != "bankwise-bank-conflict" || F.F.Sev != Severity::Warning ||
            std::find(F.Kernels.begin(), F.Kernels.end(), LK.Display) == F.Kernels.end() ||
            F.F.Message.find("'" + S.SourceName + "'") == std::string::npos)
          continue;
        Conflicts = true;
        std::optional<std::int64_t> Here;
        const std::string Prefix = "pad the inner dimension to ";
        for (const LintFinding::Note &N : F.F.Notes)
          if (N.Message.rfind(Prefix, 0) == 0 && N.Message.find("(conflict-free)") != std::string::npos)
            Here = std::stoll(N.Message.substr(Prefix.size()));
        if (!Here || (Pad && *Pad != *Here))
          Agree = false;
        Pad = Here;
      }
      if (!Conflicts)
        continue;
      const std::string Why = !S.AllUnderstood      ? "an access to it was not understood (a pointer, a cast or an "
                                                      "unknown index), so padding is not provably safe"
                              : S.InnerDimLength == 0 ? "its size is not written in the file's own text (a macro "
                                                        "declares it, or an included file)"
                              : !Agree || !Pad        ? "no one padding removes every conflict of it"
                                                      : "";
      if (!Why.empty()) {
        Skipped.push_back(fmt::format("'{}' in '{}' not padded: {}", S.SourceName, LK.Display, Why));
        continue;
      }
      Edits.push_back({S.InnerDimOffset, S.InnerDimLength, *Pad, S.InnerDim, S.InnerDimDependent, S.SourceName});
    }
  }
  auto Summary = [&](const std::vector<std::string> &Done) {
    std::string Out;
    if (!Done.empty())
      Out = fmt::format("{}: padded {}", File, fmt::join(Done, ", "));
    for (const std::string &S : Skipped)
      Out += (Out.empty() ? "" : "\n") + fmt::format("{}: --fix: {}", File, S);
    return Out;
  };
  if (Edits.empty())
    return Summary({});
  std::ifstream In(File, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Text = SS.str();
  std::sort(Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) { return A.Offset > B.Offset; });
  std::vector<std::string> Done;
  unsigned Last = ~0u;
  for (const Edit &E : Edits) {
    if (E.Offset + E.Length > Text.size() || E.Offset == Last)
      continue;
    // A literal becomes the padded extent; a name or an expression (a
    // constant, a macro invoked here) gains the difference, so only this
    // declaration changes. A template's size has other values in other
    // instantiations: only a literal there.
    const std::string Old = Text.substr(E.Offset, E.Length);
    const bool Literal = Old.find_first_not_of("0123456789") == std::string::npos;
    if (!Literal && E.Dependent) {
      Skipped.push_back(fmt::format("'{}' not padded: its size '{}' depends on a template parameter, and one "
                                    "padding would serve every instantiation",
                                    E.Array, Old));
      continue;
    }
    const bool Simple = Old.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                        std::string::npos;
    const std::string New = Literal  ? std::to_string(E.Pad)
                            : Simple ? fmt::format("{} + {}", Old, E.Pad - E.Extent)
                                     : fmt::format("({}) + {}", Old, E.Pad - E.Extent);
    Text.replace(E.Offset, E.Length, New);
    Last = E.Offset;
    Done.push_back(fmt::format("'{}' [{}] -> [{}]", E.Array, Old, New));
  }
  if (Done.empty())
    return Summary({});
  writeTextAtomically(File, Text);
  return Summary(Done);
}

/// Runs Work on this thread and Workers - 1 more; Work takes its items
/// from a shared counter.
void onWorkers(unsigned Workers, const std::function<void()> &Work) {
  std::vector<std::thread> Pool;
  for (unsigned W = 1; W < Workers; ++W)
    Pool.emplace_back(Work);
  Work();
  for (std::thread &T : Pool)
    T.join();
}

/// What the lint's figures of a lowered kernel take: its uncertain masks,
/// its arrays' source names, the size budget, lanes for --html.
LintSiteOptions lintSiteOptions(const frontend::LoweredKernel &LK, const LintOptions &O, unsigned Threads) {
  LintSiteOptions SO;
  SO.UncertainMask = LK.UncertainMask;
  SO.SourceNames = LK.SourceNames;
  SO.Threads = Threads;
  SO.Lanes = !O.Html.empty();
  SO.SizeBudget = O.SizeBudget;
  return SO;
}

/// The correctness checks' options for lowered kernel LK (K, its IR): what
/// the lowering knows beyond the IR (barrier spelling, arrays written by
/// copies it left out, aliases, an assumed block).
CorrectnessOptions lintCheckOptions(const frontend::LoweredKernel &LK, const ir::Kernel &K) {
  CorrectnessOptions CO;
  CO.Trace.UncertainSites = LK.UncertainMask;
  CO.BarrierName = "__syncthreads()";
  // memcpy_async destinations are written by a copy the IR leaves out.
  CO.WrittenSomewhere = {LK.AsyncCopied.begin(), LK.AsyncCopied.end()};
  // An access the lint left out may be a write it did not see: after
  // one to shared memory or through a pointer of unknown origin
  // (`p[i] += v` with p from a local array of pointers into the
  // buffer), every shared array counts as written somewhere, so no
  // read is taken for uninitialized because a write was missed.
  if (std::any_of(LK.AccessNoteSpaces.begin(), LK.AccessNoteSpaces.end(), [](const auto &N) {
        return N.second == frontend::AccessSpace::Shared || N.second == frontend::AccessSpace::Unknown;
      }))
    for (const ir::Array *A : K.arrays())
      if (A->Space == ir::MemSpace::Shared)
        CO.WrittenSomewhere.insert(A->Name);
  // IR arrays of one source array (seen through casts to other types).
  std::map<std::string, int> PerSource;
  for (const auto &[Ir, Source] : LK.SourceNames)
    ++PerSource[Source];
  for (const auto &[Ir, Source] : LK.SourceNames)
    if (PerSource[Source] > 1)
      CO.Aliases[Ir] = Source;
  // Which thread writes a shared element first, and which share it
  // between barriers, depend on the block: on an assumed one these
  // checks would judge a launch the program never makes.
  if (LK.Launch == frontend::LaunchSource::Implied)
    CO.Skip = {"bankwise-shared-race", "bankwise-uninitialized-shared-read"};
  return CO;
}

FileResult lintFile(const std::string &File, const LintOptions &O, const frontend::LowerOptions &LO,
                    unsigned AnalysisThreads) {
  FileResult R;
  R.File = File;
  frontend::LoweredFile L = frontend::lowerCudaFile(File, LO);
  R.Readable = L.Readable;
  R.ClangSeconds = L.ClangSeconds;
  R.LowerSeconds = L.LowerSeconds;
  for (const Diagnostic &D : L.ClangDiags)
    if (D.Sev == Severity::Error)
      addFinding(R, {"clang-diagnostic-error", Severity::Error, D.Loc, D.Message, {}}, "");
    else if (D.Sev == Severity::Note) // what the frontend skipped (a header, host code): said, not an error
      addFinding(R, {"bankwise-unanalyzed", Severity::Note, D.Loc, D.Message, {}}, "");
  if (!L.Readable)
    return R;
  if (O.EmitBw)
    R.Bw = ir::print(L.Program);
  const std::vector<ir::Kernel> AllKernels = std::move(L.Program.Kernels);
  // The figures of every lowered kernel, spread over the cores the files
  // leave (one kernel per worker; a lone kernel's all-sizes analysis gets
  // them instead); findings are then added in kernel order.
  // The lowered kernels, in order, are AllKernels.
  std::vector<const frontend::LoweredKernel *> LoweredKernels;
  for (const frontend::LoweredKernel &LK : L.Kernels)
    if (LK.Lowered)
      LoweredKernels.push_back(&LK);
  struct Figures {
    std::vector<LintSite> Sites;
    std::vector<LintFinding> SiteFindings; ///< the checks over Sites (PipelineResult::SiteFindings)
    std::optional<UserError> Error;
    std::vector<LintFinding> Correctness; ///< the checks over the kernel's trace
    double FigureSeconds = 0, CheckSeconds = 0; ///< --timing
    std::string FiguresOf; ///< KernelResult::FiguresOf
  };
  std::vector<Figures> Work(LoweredKernels.size());
  // Kernels that lower to one IR (figuresKey) are analyzed once: SameAs[W]
  // is the first of W's kind, whose sites W copies.
  std::vector<std::size_t> SameAs(Work.size());
  {
    std::map<std::string, std::size_t> First;
    ir::Program One = L.Program;
    for (std::size_t W = 0; W < Work.size(); ++W) {
      One.Kernels = {AllKernels[W]};
      SameAs[W] = First.try_emplace(figuresKey(One, *LoweredKernels[W]), W).first->second;
    }
  }
  const unsigned Cores = threadCount(AnalysisThreads);
  const unsigned Workers = static_cast<unsigned>(std::min<std::size_t>(Cores, Work.size()));
  // Each kernel alone through the pipeline's check and analyze passes (the
  // lint's figures): the passes copy and bind the program once per size
  // they evaluate, and a file may hold hundreds of kernels. A kernel that
  // lowers like an earlier one (SameAs) runs the checks only.
  const auto Run = [&](std::size_t W, std::vector<PassId> Passes, unsigned Threads) {
    const frontend::LoweredKernel &LK = *LoweredKernels[W];
    ir::Program One = L.Program; // params, machine; one kernel
    One.Kernels = {AllKernels[W]};
    PipelineOptions PO;
    PO.Passes = std::move(Passes);
    PO.RecordErrors = true; // a size at which the checks fail is a note, not a lost kernel
    PO.Checks = lintCheckOptions(LK, One.Kernels.front());
    PO.Analyze.Lint = lintSiteOptions(LK, O, Threads);
    return runPipeline(std::move(One), PO);
  };
  std::atomic<std::size_t> NextWork{0};
  auto Analyze = [&] {
    for (std::size_t W; (W = NextWork++) < Work.size();) {
      const frontend::LoweredKernel &LK = *LoweredKernels[W];
      std::vector<PassId> Passes = {PassId::Check};
      if (SameAs[W] == W) // else copied from SameAs[W] below
        Passes.push_back(PassId::Analyze);
      PipelineResult P = Run(W, std::move(Passes), Workers > 1 ? 1 : AnalysisThreads);
      Work[W].FigureSeconds = P.secondsOf(PassId::Analyze);
      Work[W].CheckSeconds = P.secondsOf(PassId::Check);
      if (const UserError *E = P.errorOf(PassId::Analyze)) {
        Work[W].Error = *E;
        continue;
      }
      if (SameAs[W] == W) {
        Work[W].Sites = std::move(P.LintSites.front());
        Work[W].SiteFindings = std::move(P.SiteFindings.front());
      }
      Work[W].Correctness = std::move(P.Findings);
      if (const UserError *E = P.errorOf(PassId::Check))
        Work[W].Correctness.push_back(
            {"bankwise-unanalyzed", Severity::Note, E->diagnostic().Loc.Line ? E->diagnostic().Loc : LK.Loc,
             fmt::format("correctness checks not run on kernel '{}': {}", LK.Display, E->diagnostic().Message), {}});
    }
  };
  onWorkers(Workers, Analyze);
  for (std::size_t W = 0; W < Work.size(); ++W) {
    if (SameAs[W] == W)
      continue;
    if (!Work[SameAs[W]].Error) {
      Work[W].Sites = Work[SameAs[W]].Sites;
      Work[W].SiteFindings = Work[SameAs[W]].SiteFindings;
      Work[W].FiguresOf = LoweredKernels[SameAs[W]]->Display;
      continue;
    }
    // Its error names the first kernel: this one's own, from its own run.
    PipelineResult P = Run(W, {PassId::Analyze}, AnalysisThreads);
    if (const UserError *E = P.errorOf(PassId::Analyze)) {
      Work[W].Error = *E;
    } else {
      Work[W].Sites = std::move(P.LintSites.front());
      Work[W].SiteFindings = std::move(P.SiteFindings.front());
    }
  }
  std::size_t Next = 0; // in Work
  for (const frontend::LoweredKernel &LK : L.Kernels) {
    for (const Diagnostic &D : LK.Notes) {
      addFinding(R, {"bankwise-unanalyzed", Severity::Note, D.Loc, D.Message, {}}, LK.Display);
      const std::string Key = frontend::accessNoteKey(D.Loc, D.Message);
      if (const auto It = LK.AccessNoteSpaces.find(Key); It != LK.AccessNoteSpaces.end())
        R.AccessSpaces.emplace(Key, unanalyzedSpace(It->second));
    }
    for (const Diagnostic &D : LK.CompilerNotes)
      addFinding(R, {"bankwise-vector-merge", Severity::Note, D.Loc, D.Message, {}}, LK.Display);
    KernelResult KR{LK.Name, LK.Display, LK.Loc, LK.LaunchNote, launchKind(LK.Launch), false, {}, {}, {}};
    if (!LK.Lowered) {
      KR.Why = LK.Notes.empty() ? "not lowered" : LK.Notes.front().Message;
      R.Kernels.push_back(std::move(KR));
      continue;
    }
    Figures &Fig = Work[Next++];
    R.KernelSeconds.emplace_back(Fig.FiguresOf.empty() ? LK.Display : LK.Display + " (figures of " + Fig.FiguresOf + ")",
                                 Fig.FigureSeconds, Fig.CheckSeconds);
    if (Fig.Error) {
      const UserError &E = *Fig.Error;
      KR.Why = E.diagnostic().Message;
      addFinding(R,
                 {"bankwise-unanalyzed", Severity::Note, E.diagnostic().Loc.Line ? E.diagnostic().Loc : LK.Loc,
                  fmt::format("kernel '{}' not analyzed: {}", LK.Display, E.diagnostic().Message), {}},
                 LK.Display);
      R.Kernels.push_back(std::move(KR));
      continue;
    }
    KR.Sites = std::move(Fig.Sites);
    // Totals over the launch are the launch's only where its block and
    // grid are: with a component assumed they count a launch the program
    // does not make (partial_dim3.cu's z: 96 requests where Nsight Compute
    // counted 768). The figures per request stand.
    if (LK.Launch == frontend::LaunchSource::Implied || LK.GridAssumed)
      for (LintSite &S : KR.Sites) {
        S.Requests = -1;
        S.WavefrontsTotal = S.SectorsTotal = 0;
      }
    KR.FiguresOf = std::move(Fig.FiguresOf);
    KR.Analyzed = true;
    // A finding inside a system header (an inlined library function) is
    // given at the user's line that reached it; the header's place is a note.
    const auto InUserFile = [&](LintFinding &F) {
      const auto It = std::find_if(LK.FromHeader.begin(), LK.FromHeader.end(),
                                   [&](const std::pair<SourceLoc, SourceLoc> &P) { return P.first == F.Loc; });
      if (It == LK.FromHeader.end())
        return;
      F.Notes.insert(F.Notes.begin(),
                     {F.Loc, "inside an inlined function of this system header, called from the line above"});
      F.Loc = It->second;
    };
    for (LintFinding &F : Fig.SiteFindings) {
      InUserFile(F);
      F.Notes.push_back({LK.Loc, fmt::format("figures for kernel '{}' with {}", LK.Display, LK.LaunchNote)});
      addFinding(R, std::move(F), LK.Display);
    }
    for (LintFinding &F : Fig.Correctness) {
      InUserFile(F);
      F.Notes.push_back({LK.Loc, fmt::format("kernel '{}' with {}", LK.Display, LK.LaunchNote)});
      addFinding(R, std::move(F), LK.Display);
    }
    if (LK.Launch == frontend::LaunchSource::Implied &&
        std::any_of(KR.Sites.begin(), KR.Sites.end(),
                    [](const LintSite &S) { return S.Space == ir::MemSpace::Shared; }))
      addFinding(R,
                 {"bankwise-unanalyzed", Severity::Note, LK.Loc,
                  fmt::format("shared-race and uninitialized-shared-read checks not run on kernel '{}': its block "
                              "is assumed (no launch gives a constant one); give --block for its real shape",
                              LK.Display),
                  {}},
                 LK.Display);
    R.Kernels.push_back(std::move(KR));
  }
  std::stable_sort(R.Findings.begin(), R.Findings.end(), [](const FileFinding &A, const FileFinding &B) {
    return std::tie(A.F.Loc.Line, A.F.Loc.Col) < std::tie(B.F.Loc.Line, B.F.Loc.Col);
  });
  L.Program.Kernels = AllKernels;
  // A file Clang reports errors in is not rewritten: what it means is not
  // known.
  const bool ClangErrors = std::any_of(R.Findings.begin(), R.Findings.end(), [](const FileFinding &F) {
    return F.F.Check == "clang-diagnostic-error";
  });
  if (O.Fix && !ClangErrors)
    R.FixSummary = applyFixes(File, L, R.Findings);
  return R;
}

//===-- Output -----------------------------------------------------------------===//

int runLint(LintOptions O) {
  if (O.Format != "text" && O.Format != "json" && O.Format != "sarif")
    throw UserError(fmt::format("--format '{}': expected text, json or sarif", O.Format));
  frontend::LowerOptions LO;
  if (!O.Block.empty())
    LO.Block = parseDim3(O.Block, "--block");
  if (!O.Grid.empty())
    LO.Grid = parseDim3(O.Grid, "--grid");
  for (const auto &[Name, Value] : parseNameValues<std::map<std::string, std::int64_t>>(O.Defines, "-D"))
    LO.Defines[Name] = Value;
  LO.BuildDir = O.BuildDir;
  LO.AsWritten = O.AsWritten;
  LO.Cuda.ExtraArgs = passthroughArgs();
  // No file: the whole project of -p's compilation database.
  const bool Project = O.Files.empty();
  if (Project) {
    if (O.BuildDir.empty())
      throw UserError("give .cu files, or -p BUILD_DIR to lint every .cu file of its compile_commands.json");
    if (O.Fix)
      throw UserError("--fix rewrites the files it is given: name them (it does not run on a whole project)");
    O.Files = projectFiles(O.BuildDir);
  }

  // One worker per thread of the run (--threads) over the files; the
  // all-sizes analysis of a lone file gets them all instead.
  const unsigned Workers = std::min<unsigned>(threadCount(), static_cast<unsigned>(O.Files.size()));
  const unsigned AnalysisThreads = Workers > 1 ? 1 : 0;
  std::vector<FileResult> Results(O.Files.size());
  std::vector<std::string> Errors(O.Files.size());
  std::atomic<std::size_t> NextFile{0};
  std::optional<Progress> Shown; // files done, on a terminal (support/Progress.h)
  if (O.Files.size() > 1)
    Shown.emplace("lint", O.Files.size()); // files done, on a terminal
  auto Work = [&] {
    for (std::size_t I; (I = NextFile++) < O.Files.size();) {
      try {
        Results[I] = lintFile(O.Files[I], O, LO, AnalysisThreads);
      } catch (const UserError &E) {
        Errors[I] = fmt::format("{}: error: {}", O.Files[I], E.diagnostic().Message);
        Results[I].File = O.Files[I];
        Results[I].Readable = false;
      }
      if (Shown)
        Shown->advance();
    }
  };
  onWorkers(Workers, Work);
  Shown.reset();

  bool ToolError = false, Findings = false, CheckErrors = false;
  for (std::size_t I = 0; I < Results.size(); ++I) {
    if (!Errors[I].empty()) {
      std::cerr << Errors[I] << '\n';
      ToolError = true;
    }
    // A file that is not valid CUDA (Clang's errors) is a tool error like
    // one Clang cannot read: its kernels that parsed are still reported.
    for (const FileFinding &F : Results[I].Findings)
      if (F.F.Check == "clang-diagnostic-error") {
        ToolError = true;
        if (O.Format != "text" || O.EmitBw) // text prints them among the diagnostics
          std::cerr << fmt::format("{}: error: {}\n", report::locationText(F.F.Loc), F.F.Message);
      }
    ToolError |= !Results[I].Readable;
    for (const FileFinding &F : Results[I].Findings) {
      Findings |= F.F.Sev == Severity::Warning;
      // A race or a divergent barrier is a wrong program, not a cost.
      CheckErrors |= F.F.Sev == Severity::Error && F.F.Check.rfind("bankwise-", 0) == 0;
    }
  }
  if (O.Timing)
    for (const FileResult &R : Results)
      std::cerr << report::lintTiming(R);
  if (!O.Html.empty())
    writeTextAtomically(O.Html, report::lintHtml(Results));
  if (O.EmitBw) {
    for (const FileResult &R : Results)
      if (R.Readable)
        std::cout << (Results.size() > 1 ? fmt::format("# {}\n", R.File) : "") << R.Bw;
  } else if (O.Format == "json") {
    // Bytes that are not UTF-8 (a file name: Linux allows any) become
    // U+FFFD rather than an exception.
    nlohmann::json J = report::lintJson(Results);
    J["summary"] = coverageJson(coverageOf(Results, Errors));
    std::cout << J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else if (O.Format == "sarif") {
    std::cout << report::lintSarif(Results, BANKWISE_VERSION).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  } else {
    std::cout << report::lintText(Results);
    if (Results.size() > 1)
      std::cout << coverageText(coverageOf(Results, Errors));
  }
  if (ToolError)
    return 2;
  // A project run fails on any warning, as a CI gate would want.
  return CheckErrors || (Findings && (O.Werror || Project)) ? 1 : 0;
}

} // namespace

void registerLintCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<LintOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "lint", "Bank conflicts and uncoalesced accesses in CUDA files (Clang 19; arguments after -- go to Clang)");
  Cmd->add_option("files", O->Files, "the .cu files (none: every .cu file of -p's compile_commands.json)");
  Cmd->add_option("-p", O->BuildDir,
                  "a build directory with compile_commands.json: each file's flags, and with no file given, "
                  "the files to lint (exit 1 on any warning, 2 when any file fails)");
  Cmd->add_option("--block", O->Block, "every kernel's block shape: X[,Y[,Z]]");
  Cmd->add_option("--grid", O->Grid, "every kernel's grid: X[,Y[,Z]]");
  Cmd->add_option("-D", O->Defines, "the value of an integer kernel parameter: -D n=4096 (repeatable)");
  Cmd->add_flag("--emit-bw", O->EmitBw, "print what was extracted as a .bw program (bankwise analyze reads it)");
  Cmd->add_option("--format", O->Format, "text, json or sarif (SARIF 2.1.0)")->capture_default_str();
  Cmd->add_flag("--werror", O->Werror, "exit with code 1 when there are warnings");
  Cmd->add_flag("--fix", O->Fix,
                "pad static shared arrays whose every access was understood, where padding removes the conflict");
  Cmd->add_flag("--as-written", O->AsWritten,
                "price each shared access as the source writes it: without nvcc -O3's merge of an unrolled "
                "loop's consecutive 4- and 8-byte shared accesses into 16-byte ones (what nvcc -Xcicc -O1 "
                "-Xptxas -O0 keeps)");
  Cmd->add_option("--html", O->Html,
                  "also write a self-contained HTML report to FILE: each site's warp drawn against the banks, "
                  "as written and under each fix, with the findings and source lines");
  Cmd->add_flag("--timing", O->Timing,
                "print to stderr where each file's time went: Clang, lowering, and the ten slowest kernels' "
                "figures and correctness checks");
  Cmd->add_option("--size-budget", O->SizeBudget,
                  "where a kernel's figures range over runtime sizes: at most about N million analysis "
                  "operations for them (0: no limit); past it a sample of the sizes is evaluated and the "
                  "figures say so")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  addThreadsOption(*Cmd, "-j,--threads");
  Cmd->callback([O, &Run] { Run = [O] { return runLint(*O); }; });
}

} // namespace bankwise::driver
