#include "pipeline/Pipeline.h"

#include "ir/Printer.h"
#include "ir/Sites.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise {

/// A run's state: the program as it goes through the passes, what they
/// decided so far, and what the later passes need of the earlier ones.
struct PipelineRun {
  const PipelineOptions &Opts;
  ir::Program Prog;
  PipelineResult R;
  LayoutChoiceOptions LayoutOpts;
  /// The program before bind-sizes, when it bound runtime params.
  std::optional<ir::Program> Unbound;
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
  R.RepresentativeSizes = ir::representativeSizes(Run.Prog, Run.Opts.Sizes);
  Run.Unbound = Run.Prog;
  // Layout auto measures its candidates at size samples around the
  // representative sizes (analysis/passes/LayoutChoice.h) of the program
  // before binding; with --size, the passes decide at the given sizes alone.
  if (Run.Opts.Sizes.empty()) {
    Run.LayoutOpts.Unbound = &*Run.Unbound;
    Run.LayoutOpts.SizeSamples =
        layoutSizeSamples(*Run.Unbound, R.RepresentativeSizes, &Run.LayoutOpts.SamplesText);
  }
  Run.Prog = ir::bindParams(Run.Prog, R.RepresentativeSizes);
}

void scheduleColored(PipelineRun &Run) {
  ColoredScheduling C = applyColoredSchedules(Run.Prog);
  Run.Prog = std::move(C.Program);
  if (!C.Reports.empty()) // the samples would lack the schedules: decide at the bound sizes
    Run.LayoutOpts.SizeSamples.clear();
  Run.R.Colored = std::move(C.Reports);
}

void layoutAuto(PipelineRun &Run) {
  LayoutChoice L = chooseLayouts(Run.Prog, Run.LayoutOpts);
  Run.Prog = std::move(L.Program);
  Run.R.Layouts = std::move(L.Decisions);
  // The generic program takes the decisions (the check pass and analyze's
  // all-sizes figures read it).
  if (Run.Unbound)
    copyLayouts(*Run.Unbound, Run.Prog);
}

void check(PipelineRun &Run) {
  // With runtime params, on the program as read (at the representative
  // sizes and one above, runCorrectnessChecks), with the layouts chosen;
  // else on the program after the passes, schedules' kernels included.
  Run.R.Findings = runCorrectnessChecks(Run.Unbound ? *Run.Unbound : Run.Prog, Run.Opts.Checks);
  Run.R.Checked = true;
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
      {PassId::Check, "check",
       "the correctness checks (races, barriers under divergent conditions, uninitialized reads, unwritten "
       "outputs): over the program as read where it has runtime sizes; the program is not changed",
       check},
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

void PipelineResult::decisionsInto(codegen::CodegenOptions &Opts) const {
  Opts.ColoredSchedules = Colored;
  Opts.LayoutDecisions = Layouts;
  Opts.RuntimeParams = RuntimeParams;
  Opts.RepresentativeSizes = RepresentativeSizes;
}

PipelineResult runPipeline(ir::Program Prog, const PipelineOptions &Opts) {
  PipelineRun Run{Opts, std::move(Prog), {}, Opts.Layouts, std::nullopt};
  // A program made without the parser or the lowering gets its ids here.
  int HighestSite = ir::numberSites(Run.Prog);
  Run.R.RuntimeParams = Run.Prog.runtimeParams();
  for (const PassInfo &P : allPasses()) {
    if (std::find(Opts.Passes.begin(), Opts.Passes.end(), P.Id) == Opts.Passes.end())
      continue;
    P.Run(Run);
    HighestSite = ir::numberSites(Run.Prog, HighestSite); // the accesses the pass made
    if (Opts.DumpStream && std::find(Opts.DumpAfter.begin(), Opts.DumpAfter.end(), P.Id) != Opts.DumpAfter.end())
      *Opts.DumpStream << "# bankwise: the program after pass '" << P.Name << "'\n"
                       << ir::print(Run.Prog, ir::PrintOptions{.SiteIds = true}) << std::flush;
  }
  Run.R.Generic = std::move(Run.Unbound);
  Run.R.Program = std::move(Run.Prog);
  return std::move(Run.R);
}

} // namespace bankwise
