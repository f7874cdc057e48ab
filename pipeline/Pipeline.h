// The pipeline: every pass bankwise runs between the front end (dsl/, or the
// lint's frontend/) and its outputs (analysis reports, CUDA), in order, in
// one place. The driver's commands and the tests call runPipeline rather
// than sequencing passes themselves, and --dump-ir-after prints the program
// as .bw text after any pass. The passes, their order and their help are
// one table, allPasses() (Pipeline.cpp), which --dump-ir-after's help and
// its list of names are made from.
#pragma once

#include "analysis/checks/Checks.h"
#include "analysis/passes/ColoredSchedule.h"
#include "analysis/passes/LayoutChoice.h"
#include "codegen/Codegen.h"
#include "ir/Bind.h"
#include "ir/Program.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise {

enum class PassId { BindSizes, ScheduleColored, LayoutAuto, Check };

struct PipelineRun; // a run's state (Pipeline.cpp)

/// One pass: its name (what --dump-ir-after takes), what it does (the help
/// of --dump-ir-after and of pipeline/README.md), and its function.
struct PassInfo {
  PassId Id;
  std::string_view Name;
  std::string_view Help;
  void (*Run)(PipelineRun &);
};

/// Every pass, in the order runPipeline runs them.
const std::vector<PassInfo> &allPasses();

/// Every pass's id, in order: PipelineOptions::Passes's default.
std::vector<PassId> allPassIds();

/// "bind-sizes", "schedule-colored", "layout-auto", "check".
std::string_view passName(PassId P);

/// The passes --dump-ir-after=NAMES names: pass names separated by commas,
/// or "all". Throws UserError, naming the passes, for anything else.
std::vector<PassId> parsePassList(std::string_view Names);

struct PipelineOptions {
  /// The passes to run (in pipeline order whatever the order here).
  std::vector<PassId> Passes = allPassIds();
  /// --size: representative values for bind-sizes.
  ir::Bindings Sizes;
  LayoutChoiceOptions Layouts;
  /// What the check pass runs with (--data, analyze --kernel).
  CorrectnessOptions Checks;
  /// Print the program after these passes to DumpStream.
  std::vector<PassId> DumpAfter;
  std::ostream *DumpStream = nullptr;
  /// --dump-ir-after=Names (parsePassList) to Out; nothing for empty Names.
  void dumpAfter(std::string_view Names, std::ostream &Out);
};

/// The help line of --dump-ir-after, one for every command that takes it:
/// the passes' names from allPasses().
std::string dumpIrAfterHelp();

struct PipelineResult {
  ir::Program Program; ///< after the passes
  /// The runtime params of the program as read (Program::runtimeParams()),
  /// and the values bind-sizes gave them (empty when every size is a
  /// constant or bind-sizes did not run).
  std::vector<std::string> RuntimeParams;
  ir::Bindings RepresentativeSizes;
  std::vector<ColoredScheduleReport> Colored;
  std::vector<LayoutDecision> Layouts;
  /// With runtime params (bind-sizes bound them): the program as read, with
  /// layout-auto's decisions, for what holds over every size (the checks,
  /// analyze's all-sizes figures). nullopt otherwise.
  std::optional<ir::Program> Generic;
  /// The check pass's findings, in the checks' order: on Generic where
  /// there is one (at the representative sizes and one above), else on
  /// Program, so that the kernels a schedule generates are checked too.
  /// Checked says whether the pass ran.
  std::vector<LintFinding> Findings;
  bool Checked = false;

  /// The decisions codegen quotes and follows, in Opts: the colored
  /// schedules, the layout decisions, the runtime params and their sizes.
  void decisionsInto(codegen::CodegenOptions &Opts) const;
};

/// Runs the passes on Prog. Throws UserError, located, where a pass does
/// (a size no constraint allows, a copy schedule colored cannot move).
PipelineResult runPipeline(ir::Program Prog, const PipelineOptions &Opts = {});

} // namespace bankwise
