#include "pipeline/Pipeline.h"

#include "analysis/passes/ArrayLayout.h"
#include "ir/Printer.h"
#include "ir/Walk.h"
#include "ir/Sites.h"
#include "support/Diagnostic.h"
#include "support/Progress.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise {

/// A run's state: the result as the passes fill it, and what the later
/// passes need of the earlier ones.
struct PipelineRun {
  const PipelineOptions &Opts;
  /// The result as the passes fill it: R.Program is the program as it goes
  /// through them, R.Generic the program before bind-sizes (when it bound
  /// runtime params).
  PipelineResult R;
  LayoutChoiceOptions LayoutOpts;
};

namespace {

/// Each layout auto decision of Bound's arrays onto Generic's arrays of the
/// same kernel and name (kernels a schedule generated have none there).
void copyLayouts(ir::Program &Generic, const ir::Program &Bound) {
  for (ir::Array &A : Generic.Arrays)
    for (const ir::Array &B : Bound.Arrays)
      if (A.Name == B.Name)
        A.Lay = B.Lay;
  for (ir::Kernel &K : Generic.Kernels) {
    const ir::Kernel *BK = Bound.findKernel(K.Name);
    if (!BK)
      continue;
    const std::vector<const ir::Array *> B = BK->arrays();
    for (ir::Array *A : K.arrays())
      for (const ir::Array *X : B)
        if (A->Name == X->Name)
          A->Lay = X->Lay;
  }
}

void bindSizes(PipelineRun &Run) {
  PipelineResult &R = Run.R;
  if (R.RuntimeParams.empty() && !Run.Opts.Sizes.empty())
    throw UserError(fmt::format("--size {}: the program has no runtime params (every size is a constant)",
                                Run.Opts.Sizes.begin()->first));
  if (R.RuntimeParams.empty())
    return;
  R.RepresentativeSizes = ir::representativeSizes(Run.R.Program, Run.Opts.Sizes);
  Run.R.Generic = Run.R.Program;
  // Layout auto measures its candidates at size samples around the
  // representative sizes (analysis/passes/LayoutChoice.h) of the program
  // before binding; with --size, the passes decide at the given sizes alone.
  if (Run.Opts.Sizes.empty()) {
    Run.LayoutOpts.Unbound = &*Run.R.Generic;
    Run.LayoutOpts.SizeSamples =
        layoutSizeSamples(*Run.R.Generic, R.RepresentativeSizes, &Run.LayoutOpts.SamplesText);
  }
  Run.R.Program = ir::bindParams(Run.R.Program, R.RepresentativeSizes);
}

void scheduleColored(PipelineRun &Run) {
  ColoredScheduling C = applyColoredSchedules(Run.R.Program, Run.R.Schedules.get());
  Run.R.Program = std::move(C.Program);
  if (!C.Reports.empty()) // the samples would lack the schedules: decide at the bound sizes
    Run.LayoutOpts.SizeSamples.clear();
  Run.R.Colored = std::move(C.Reports);
}

void layoutAuto(PipelineRun &Run) {
  LayoutChoice L = chooseLayouts(Run.R.Program, Run.LayoutOpts);
  Run.R.Program = std::move(L.Program);
  Run.R.Layouts = std::move(L.Decisions);
  // The generic program takes the decisions (the check pass and analyze's
  // all-sizes figures read it).
  if (Run.R.Generic)
    copyLayouts(*Run.R.Generic, Run.R.Program);
}

void placeSharedArrays(PipelineRun &Run) {
  if (const std::optional<ir::TargetInfo> T = ir::targetInfo(Run.Opts.Arch))
    Run.R.Placements = placeShared(Run.R.Program, *T, Run.R.RuntimeParams);
}

void check(PipelineRun &Run) {
  // With runtime params, on the program as read (at the representative
  // sizes and one above, runCorrectnessChecks), with the layouts chosen;
  // else on the program after the passes, schedules' kernels included.
  CorrectnessOptions Checks = Run.Opts.Checks;
  Checks.Trace.Schedules = Run.R.Schedules.get();
  Run.R.Findings = runCorrectnessChecks(Run.R.Generic ? *Run.R.Generic : Run.R.Program, Checks);
  Run.R.Checked = true;
}

/// The bounds of the tables K's values read (a permutation's, P(i) without
/// a size, a `holds` array's, seed 001's planes), computed here so that the
/// facts, which codegen queries after the run, need no tables of their own.
std::map<std::pair<std::string, bool>, std::uint64_t> tableBounds(PipelineRun &Run, const ir::Kernel &K) {
  const ir::Program &Prog = Run.R.Program;
  std::map<std::pair<std::string, bool>, std::uint64_t> Out;
  std::optional<PermutationTables> Tables;
  auto Need = [&](const std::string &Perm, bool Inverse) {
    if (Out.count({Perm, Inverse}))
      return;
    const ir::Permutation *P = Prog.findPerm(Perm);
    if (P && P->Size && !ir::isBlockLocalTable(P->Kind)) {
      Out[{Perm, Inverse}] = static_cast<std::uint64_t>(*P->Size);
      return;
    }
    if (!Tables)
      Tables.emplace(Prog, Run.R.Schedules.get());
    Out[{Perm, Inverse}] = Tables->table(Perm, Inverse).bound();
  };
  // The tables the kernel's arrays hold (its own, and the program's it
  // reads: ValueFacts' ranges of their elements), and P(i).
  auto Holds = [&](const std::string &Name) {
    if (const ir::Array *A = Prog.findArray(K, Name); A && A->Holds)
      Need(A->Holds->Perm, A->Holds->Inverse);
  };
  for (const ir::Array *A : K.arrays())
    Holds(A->Name);
  ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) {
    ir::forEachSubexpr(Root, [&](const ir::Expr &X) {
      if (const auto *A = X.as<ir::PermApply>())
        Need(A->Perm, A->Inverse);
      else if (const auto *R = X.as<ir::ArrayRead>())
        Holds(R->Array);
      else if (const ir::ArrayRead *T = ir::atomicTarget(X))
        Holds(T->Array);
    });
  });
  return Out;
}

void valueFacts(PipelineRun &Run) {
  PipelineResult &R = Run.R;
  const std::set<std::string, std::less<>> Runtime(R.RuntimeParams.begin(), R.RuntimeParams.end());
  for (const ir::Kernel &K : R.Program.Kernels) {
    KernelValueFacts F;
    F.Kernel = K.Name;
    try {
      ValueFactsInput In;
      In.Runtime = Runtime;
      In.TableBound = [Bounds = tableBounds(Run, K), Name = K.Name](const std::string &Perm, bool Inverse) {
        const auto It = Bounds.find({Perm, Inverse});
        if (It == Bounds.end())
          throw std::logic_error(fmt::format("value-facts: no bound of table '{}'{} for kernel '{}'", Perm,
                                             Inverse ? " (inverse)" : "", Name));
        return It->second;
      };
      F.Facts.emplace(R.Program, K, std::move(In));
    } catch (const UserError &E) {
      F.Error = E;
    }
    R.Values.push_back(std::move(F));
  }
}

/// analyze --kernel Only selects kernel K of Prog: K itself, or a launch of
/// it by that name (every kernel when Only is empty).
bool selected(const ir::Program &Prog, const ir::Kernel &K, const std::string &Only) {
  if (Only.empty() || K.Name == Only)
    return true;
  const ir::Launch *L = Prog.launchOf(K.Name);
  return L && L->Name == Only;
}

/// The layout function of array Name of K in P, or nullopt where it has
/// none (a layout the analysis cannot apply).
std::optional<LayoutFn> layoutOf(const ir::Program &P, const ir::Kernel &K, const std::string &Name) {
  const ir::Array *A = P.findArray(K, Name);
  if (!A)
    return std::nullopt;
  try {
    return arrayLayout(*A);
  } catch (const UserError &) {
    return std::nullopt;
  }
}

/// With AnalyzePassOptions::Lanes, the sampled warps of site Site of
/// Program's kernel Name and their drawings (none for a site the program
/// lacks, or whose array has no layout function).
void sampleLanes(PipelineRun &Run, const std::string &Name, int Site) {
  if (!Run.Opts.Analyze.Lanes)
    return;
  PipelineResult &R = Run.R;
  const ir::Kernel *K = R.Program.findKernel(Name);
  const ir::ArrayRead *Node = K ? ir::findSite(*K, Site) : nullptr;
  if (!Node)
    return;
  const std::optional<LayoutFn> Now = layoutOf(R.Program, *K, Node->Array);
  if (!Now)
    return;
  SiteDrawings D{sampleSiteLanes(R.Program, *K, Node, {}), {}, std::nullopt};
  D.Now = drawLanes(D.Lanes, *Now);
  const ir::Kernel *WK = R.AsRead ? R.AsRead->findKernel(Name) : nullptr;
  if (const std::optional<LayoutFn> Was = WK ? layoutOf(*R.AsRead, *WK, Node->Array) : std::nullopt; Was && *Was != *Now)
    D.AsWritten = drawLanes(D.Lanes, *Was);
  R.Drawings.emplace(std::pair(Name, Site), std::move(D));
}

/// The figures over every size of Generic's selected kernels.
void analyzeEverySize(PipelineRun &Run, const AnalysisOptions &AO) {
  const AnalyzePassOptions &A = Run.Opts.Analyze;
  AllSizesOptions SO;
  SO.Analysis = AO;
  for (const ir::Kernel &K : Run.R.Generic->Kernels) {
    if (!A.OnlyKernel.empty() && K.Name != A.OnlyKernel)
      continue;
    const Progress Shown(fmt::format("analyzing kernel '{}' over every size", K.Name));
    Run.R.EverySize.push_back(analyzeAllSizes(*Run.R.Generic, K, SO));
    for (const AllSizesSite &S : Run.R.EverySize.back().Sites)
      if (S.Node)
        sampleLanes(Run, K.Name, S.Node->Site);
  }
}

/// With AsWritten, the analyses of the program as read that kernel K of the
/// program after the passes stands for: its namesake, and the kernel its
/// launch replaced (seed 001's passes stand for the scatter as written).
void analyzeAsRead(PipelineRun &Run, const ir::Kernel &K, const AnalysisOptions &AO) {
  PipelineResult &R = Run.R;
  if (!Run.Opts.Analyze.AsWritten || !R.AsRead)
    return;
  std::vector<std::string> Names = {K.Name};
  if (const ir::Launch *L = Run.R.Program.launchOf(K.Name))
    Names.push_back(L->Name);
  for (const std::string &Name : Names)
    if (const ir::Kernel *W = R.AsRead->findKernel(Name); W && !R.AsReadAnalyses.count(Name))
      R.AsReadAnalyses.emplace(Name, analyzeKernel(*R.AsRead, *W, AO));
}

/// The figures of the selected kernels of the program after the passes (and
/// of the program as read, with AsWritten).
void analyzeAtSizes(PipelineRun &Run, const AnalysisOptions &AO) {
  for (const ir::Kernel &K : Run.R.Program.Kernels) {
    if (!selected(Run.R.Program, K, Run.Opts.Analyze.OnlyKernel))
      continue;
    {
      const Progress Shown(fmt::format("analyzing kernel '{}'", K.Name));
      Run.R.Analyses.push_back(analyzeKernel(Run.R.Program, K, AO));
    }
    for (const AccessSiteReport &S : Run.R.Analyses.back().Sites)
      if (S.Node.Read)
        sampleLanes(Run, K.Name, S.Node.Read->Site);
    analyzeAsRead(Run, K, AO);
  }
}

void analyze(PipelineRun &Run) {
  const AnalyzePassOptions &A = Run.Opts.Analyze;
  AnalysisOptions AO = A.Analysis;
  AO.Schedules = Run.R.Schedules.get();
  if (A.Lint) { // the lint's workers show their own progress
    for (const ir::Kernel &K : Run.R.Program.Kernels)
      if (selected(Run.R.Program, K, A.OnlyKernel)) {
        Run.R.LintSites.push_back(lintSites(Run.R.Program, K, *A.Lint));
        // The checks over the sites' figures (bank conflicts, uncoalesced
        // accesses), in the checks' order.
        std::vector<LintFinding> &Found = Run.R.SiteFindings.emplace_back();
        for (const CheckInfo &C : allChecks())
          if (C.Run)
            for (LintFinding &F : C.Run(Run.R.LintSites.back()))
              Found.push_back(std::move(F));
      }
  } else if (A.EverySize && Run.R.Generic) {
    analyzeEverySize(Run, AO);
  } else {
    analyzeAtSizes(Run, AO);
  }
  Run.R.Analyzed = true;
}

/// Throws UserError when Prog's estimate at the sizes bind-sizes will give
/// (Sizes, else the representative ones) passes O's limits.
void checkWorkLimits(const ir::Program &Prog, const ir::Bindings &Sizes, const WorkLimits &O) {
  ResourceLimits L = defaultResourceLimits();
  if (O.MemoryGB >= 0)
    L.MaxBytes = O.MemoryGB * 1024.0 * 1024 * 1024;
  if (O.Seconds >= 0)
    L.MaxSeconds = O.Seconds;
  if (Prog.runtimeParams().empty())
    return checkResourceLimits(estimateResources(Prog), L);
  checkResourceLimits(estimateResources(ir::bindParams(Prog, ir::representativeSizes(Prog, Sizes))), L);
}

} // namespace

const std::vector<PassInfo> &allPasses() {
  static const std::vector<PassInfo> Passes = {
      {PassId::BindSizes, "bind-sizes",
       "runtime params (`param R`) bound to representative sizes (--size, else the smallest the constraints "
       "allow), so that the passes below see concrete shapes; the generated code keeps them as arguments",
       bindSizes},
      {PassId::ScheduleColored, "schedule-colored",
       "`schedule colored` copies: shared ones rewritten through seed 003's S and D tables; global ones "
       "replaced by seed 001's three pass kernels and a `launch` of them under the kernel's name",
       scheduleColored},
      {PassId::LayoutAuto, "layout-auto", "every `layout auto` array given its chosen layout", layoutAuto},
      {PassId::PlaceShared, "place-shared",
       "each kernel's shared arrays placed on the CUDA target (--arch): the largest program-level ones that do "
       "not fit kept in global memory, dynamic shared memory above 48 KB, the staging copies priced; the "
       "program is not changed (codegen reads the placement)",
       placeSharedArrays},
      {PassId::Check, "check",
       "the correctness checks (races, barriers under divergent conditions, uninitialized reads, unwritten "
       "outputs): over the program as read where it has runtime sizes; the program is not changed",
       check},
      {PassId::ValueFacts, "value-facts",
       "each kernel's value classes, ranges and uniformity (analysis/passes/ValueFacts.h), by which codegen "
       "types its indices and writes its CPU reference; what codegen cannot type is kept for codegen to "
       "report; the program is not changed",
       valueFacts},
      {PassId::Analyze, "analyze",
       "each kernel's figures under the models (analysis/passes/KernelAnalysis.h): at the program's sizes, or "
       "over every size where analyze has runtime sizes; what codegen's comments and report and analyze's "
       "output quote; the program is not changed",
       analyze},
  };
  return Passes;
}

std::vector<PassId> allPassIds() {
  std::vector<PassId> Out;
  for (const PassInfo &P : allPasses())
    Out.push_back(P.Id);
  return Out;
}

std::string_view passName(PassId P) {
  for (const PassInfo &I : allPasses())
    if (I.Id == P)
      return I.Name;
  return "?";
}

std::string dumpIrAfterHelp() {
  std::vector<std::string_view> Names;
  std::string Each;
  for (const PassInfo &P : allPasses()) {
    Names.push_back(P.Name);
    Each += fmt::format("\n{}: {}", P.Name, P.Help);
  }
  return fmt::format("print the program as .bw text to stderr after these passes: {} (comma-separated), or "
                     "all. The passes, in order:{}",
                     fmt::join(Names, ", "), Each);
}

std::vector<PassId> parsePassList(std::string_view Names) {
  if (Names == "all")
    return allPassIds();
  std::vector<PassId> Out;
  while (true) {
    const std::size_t Comma = Names.find(',');
    const std::string_view Name = Names.substr(0, Comma);
    const auto It = std::find_if(allPasses().begin(), allPasses().end(),
                                 [&](const PassInfo &P) { return P.Name == Name; });
    if (It == allPasses().end()) {
      std::vector<std::string_view> Known;
      for (const PassInfo &P : allPasses())
        Known.push_back(P.Name);
      throw UserError(fmt::format("unknown pass '{}' (the passes: {}, or all)", Name, fmt::join(Known, ", ")));
    }
    Out.push_back(It->Id);
    if (Comma == std::string_view::npos)
      return Out;
    Names.remove_prefix(Comma + 1);
  }
}

void PipelineOptions::dumpAfter(std::string_view Names, std::ostream &Out) {
  if (Names.empty())
    return;
  DumpAfter = parsePassList(Names);
  DumpStream = &Out;
}

bool PipelineResult::checkFailed() const {
  return std::any_of(Findings.begin(), Findings.end(), [](const LintFinding &F) { return F.Sev == Severity::Error; });
}

const KernelReport *PipelineResult::analysisOf(std::string_view Kernel) const {
  for (const KernelReport &R : Analyses)
    if (R.Kernel == Kernel)
      return &R;
  return nullptr;
}

const SharedPlacement *PipelineResult::placementOf(std::string_view Kernel) const {
  for (const SharedPlacement &S : Placements)
    if (S.Kernel == Kernel)
      return &S;
  return nullptr;
}

const KernelValueFacts *PipelineResult::valuesOf(std::string_view Kernel) const {
  for (const KernelValueFacts &V : Values)
    if (V.Kernel == Kernel)
      return &V;
  return nullptr;
}

const UserError *PipelineResult::errorOf(PassId P) const {
  for (const auto &[Pass, E] : Errors)
    if (Pass == P)
      return &E;
  return nullptr;
}

double PipelineResult::secondsOf(PassId P) const {
  for (const auto &[Pass, S] : Seconds)
    if (Pass == P)
      return S;
  return 0;
}

const SiteDrawings *PipelineResult::drawingsOf(const std::string &Kernel, int Site) const {
  const auto It = Drawings.find(std::pair(Kernel, Site));
  return It == Drawings.end() ? nullptr : &It->second;
}

const KernelReport *PipelineResult::asReadAnalysisOf(std::string_view Kernel) const {
  const auto It = AsReadAnalyses.find(Kernel);
  return It == AsReadAnalyses.end() ? nullptr : &It->second;
}

PipelineResult runPipeline(ir::Program Prog, const PipelineOptions &Opts) {
  if (Opts.Limits)
    checkWorkLimits(Prog, Opts.Sizes, *Opts.Limits);
  PipelineRun Run{Opts, {}, Opts.Layouts};
  Run.R.Program = std::move(Prog);
  Run.LayoutOpts.Analysis.Schedules = Run.R.Schedules.get();
  // A program made without the parser or the lowering gets its ids here.
  int HighestSite = ir::numberSites(Run.R.Program);
  Run.R.RuntimeParams = Run.R.Program.runtimeParams();
  const auto Runs = [&](PassId Id) { return std::find(Opts.Passes.begin(), Opts.Passes.end(), Id) != Opts.Passes.end(); };
  if (Runs(PassId::Analyze) && (Opts.Analyze.KeepAsRead || Opts.Analyze.AsWritten))
    Run.R.AsRead = Run.R.Program;
  for (const PassInfo &P : allPasses()) {
    if (!Runs(P.Id))
      continue;
    if (P.Id == PassId::Analyze && Opts.BeforeAnalyze)
      Opts.BeforeAnalyze(Run.R);
    const auto Start = std::chrono::steady_clock::now();
    try {
      P.Run(Run);
    } catch (const UserError &E) {
      if (!Opts.RecordErrors || (P.Id != PassId::Check && P.Id != PassId::Analyze))
        throw;
      Run.R.Errors.emplace_back(P.Id, E);
      if (P.Id == PassId::Analyze) { // no figures of a kernel that failed
        Run.R.LintSites.clear();
        Run.R.SiteFindings.clear();
        Run.R.Analyses.clear();
        Run.R.EverySize.clear();
        Run.R.AsReadAnalyses.clear();
        Run.R.Drawings.clear();
      }
    }
    Run.R.Seconds.emplace_back(P.Id, std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count());
    HighestSite = ir::numberSites(Run.R.Program, HighestSite); // the accesses the pass made
    if (Opts.DumpStream && std::find(Opts.DumpAfter.begin(), Opts.DumpAfter.end(), P.Id) != Opts.DumpAfter.end()) {
      *Opts.DumpStream << "# bankwise: the program after pass '" << P.Name << "'\n";
      if (P.Id == PassId::PlaceShared) // its decisions, which the program does not show
        for (const SharedPlacement &S : Run.R.Placements)
          *Opts.DumpStream << describe(S);
      *Opts.DumpStream << ir::print(Run.R.Program, ir::PrintOptions{.SiteIds = true}) << std::flush;
    }
    if (P.Id != PassId::Check)
      continue;
    if (Opts.AfterCheck)
      Opts.AfterCheck(Run.R);
    if (Opts.StopOnCheckError && Run.R.checkFailed())
      break;
  }
  return std::move(Run.R);
}

} // namespace bankwise
