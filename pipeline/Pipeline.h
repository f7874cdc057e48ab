// The pipeline: every pass bankwise runs between the front end (dsl/, or the
// lint's frontend/) and its outputs (analysis reports, CUDA), in order, in
// one place. The driver's commands and the tests call runPipeline rather
// than sequencing passes themselves, and --dump-ir-after prints the program
// as .bw text after any pass.
//
//   bind-sizes        runtime params (`param R`) bound to representative
//                     sizes (--size, else the smallest the constraints
//                     allow), so that the passes below see concrete shapes;
//                     the generated code keeps them as arguments
//   schedule-colored  `schedule colored` copies: shared ones rewritten
//                     through seed 003's S and D tables; global ones
//                     replaced by seed 001's three pass kernels and a
//                     `launch` of them under the kernel's name
//   layout-auto       every `layout auto` array given its chosen layout
#pragma once

#include "analysis/passes/ColoredSchedule.h"
#include "analysis/passes/LayoutChoice.h"
#include "codegen/Codegen.h"
#include "ir/Bind.h"
#include "ir/Program.h"

#include <array>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise {

enum class PassId { BindSizes, ScheduleColored, LayoutAuto };

/// Every pass, in the order runPipeline runs them.
inline constexpr std::array<PassId, 3> AllPasses = {PassId::BindSizes, PassId::ScheduleColored,
                                                    PassId::LayoutAuto};

/// "bind-sizes", "schedule-colored", "layout-auto".
std::string_view passName(PassId P);

/// The passes --dump-ir-after=NAMES names: pass names separated by commas,
/// or "all". Throws UserError, naming the passes, for anything else.
std::vector<PassId> parsePassList(std::string_view Names);

struct PipelineOptions {
  /// The passes to run (in pipeline order whatever the order here).
  std::vector<PassId> Passes{AllPasses.begin(), AllPasses.end()};
  /// --size: representative values for bind-sizes.
  ir::Bindings Sizes;
  LayoutChoiceOptions Layouts;
  /// Print the program after these passes to DumpStream.
  std::vector<PassId> DumpAfter;
  std::ostream *DumpStream = nullptr;
  /// --dump-ir-after=Names (parsePassList) to Out; nothing for empty Names.
  void dumpAfter(std::string_view Names, std::ostream &Out);
};

/// The help line of --dump-ir-after, one for every command that takes it.
inline constexpr const char *DumpIrAfterHelp =
    "print the program as .bw text to stderr after these passes: bind-sizes, "
    "schedule-colored, layout-auto (comma-separated), or all";

struct PipelineResult {
  ir::Program Program; ///< after the passes
  /// The runtime params of the program as read (Program::runtimeParams()),
  /// and the values bind-sizes gave them (empty when every size is a
  /// constant or bind-sizes did not run).
  std::vector<std::string> RuntimeParams;
  ir::Bindings RepresentativeSizes;
  std::vector<ColoredScheduleReport> Colored;
  std::vector<LayoutDecision> Layouts;

  /// The decisions codegen quotes and follows, in Opts: the colored
  /// schedules, the layout decisions, the runtime params and their sizes.
  void decisionsInto(codegen::CodegenOptions &Opts) const;
};

/// Runs the passes on Prog. Throws UserError, located, where a pass does
/// (a size no constraint allows, a copy schedule colored cannot move).
PipelineResult runPipeline(ir::Program Prog, const PipelineOptions &Opts = {});

} // namespace bankwise
