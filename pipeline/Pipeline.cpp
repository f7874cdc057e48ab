#include "pipeline/Pipeline.h"

#include "ir/Printer.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <optional>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise {

std::string_view passName(PassId P) {
  switch (P) {
  case PassId::BindSizes:
    return "bind-sizes";
  case PassId::ScheduleColored:
    return "schedule-colored";
  case PassId::LayoutAuto:
    return "layout-auto";
  }
  return "?";
}

std::vector<PassId> parsePassList(std::string_view Names) {
  if (Names == "all")
    return {AllPasses.begin(), AllPasses.end()};
  std::vector<PassId> Out;
  while (true) {
    const std::size_t Comma = Names.find(',');
    const std::string_view Name = Names.substr(0, Comma);
    const auto It = std::find_if(AllPasses.begin(), AllPasses.end(),
                                 [&](PassId P) { return passName(P) == Name; });
    if (It == AllPasses.end()) {
      std::vector<std::string_view> Known;
      for (PassId P : AllPasses)
        Known.push_back(passName(P));
      throw UserError(fmt::format("unknown pass '{}' (the passes: {}, or all)", Name, fmt::join(Known, ", ")));
    }
    Out.push_back(*It);
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
  PipelineResult R;
  R.RuntimeParams = Prog.runtimeParams();
  auto Runs = [&](PassId P) {
    return std::find(Opts.Passes.begin(), Opts.Passes.end(), P) != Opts.Passes.end();
  };
  auto After = [&](PassId P) {
    if (Opts.DumpStream &&
        std::find(Opts.DumpAfter.begin(), Opts.DumpAfter.end(), P) != Opts.DumpAfter.end())
      *Opts.DumpStream << "# bankwise: the program after pass '" << passName(P) << "'\n"
                       << ir::print(Prog) << std::flush;
  };
  // Layout auto measures its candidates at size samples around the
  // representative sizes (analysis/passes/LayoutChoice.h) of the program
  // before binding; with --size, the passes decide at the given sizes alone.
  std::optional<ir::Program> Unbound;
  LayoutChoiceOptions LayoutOpts = Opts.Layouts;
  if (Runs(PassId::BindSizes)) {
    if (R.RuntimeParams.empty() && !Opts.Sizes.empty())
      throw UserError(fmt::format("--size {}: the program has no runtime params (every size is a constant)",
                                  Opts.Sizes.begin()->first));
    if (!R.RuntimeParams.empty()) {
      R.RepresentativeSizes = ir::representativeSizes(Prog, Opts.Sizes);
      if (Opts.Sizes.empty()) {
        Unbound = Prog;
        LayoutOpts.Unbound = &*Unbound;
        LayoutOpts.SizeSamples = layoutSizeSamples(*Unbound, R.RepresentativeSizes, &LayoutOpts.SamplesText);
      }
      Prog = ir::bindParams(Prog, R.RepresentativeSizes);
    }
    After(PassId::BindSizes);
  }
  if (Runs(PassId::ScheduleColored)) {
    ColoredScheduling C = applyColoredSchedules(Prog);
    Prog = std::move(C.Program);
    if (!C.Reports.empty()) // the samples would lack the schedules: decide at the bound sizes
      LayoutOpts.SizeSamples.clear();
    R.Colored = std::move(C.Reports);
    After(PassId::ScheduleColored);
  }
  if (Runs(PassId::LayoutAuto)) {
    LayoutChoice L = chooseLayouts(Prog, LayoutOpts);
    Prog = std::move(L.Program);
    R.Layouts = std::move(L.Decisions);
    After(PassId::LayoutAuto);
  }
  R.Program = std::move(Prog);
  return R;
}

} // namespace bankwise
