// The pipeline: every pass bankwise runs between the front end (dsl/, or the
// lint's frontend/) and its outputs (analysis reports, CUDA), in order, in
// one place. The driver's commands and the tests call runPipeline rather
// than sequencing passes themselves, and --dump-ir-after prints the program
// as .bw text after any pass. The passes, their order and their help are
// one table, allPasses() (Pipeline.cpp), which --dump-ir-after's help and
// its list of names are made from.
#pragma once

#include "analysis/checks/Checks.h"
#include "analysis/checks/LintSites.h"
#include "analysis/passes/AllSizes.h"
#include "analysis/passes/ColoredSchedule.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/LayoutChoice.h"
#include "analysis/passes/PermutationTables.h"
#include "analysis/passes/ResourceEstimate.h"
#include "analysis/passes/SharedPlacement.h"
#include "analysis/passes/ValueFacts.h"
#include "analysis/passes/WarpLanes.h"
#include "ir/Bind.h"
#include "ir/Program.h"

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise {

enum class PassId { BindSizes, ScheduleColored, LayoutAuto, PlaceShared, Check, ValueFacts, Analyze };

struct PipelineRun;    // a run's state (Pipeline.cpp)
struct PipelineResult; // below

/// What the analyze pass analyzes, and how.
struct AnalyzePassOptions {
  /// --data contents, --exhaustive.
  AnalysisOptions Analysis;
  /// analyze --kernel: only this kernel, or the kernels of the launch of
  /// this name; empty: every kernel.
  std::string OnlyKernel;
  /// With runtime params: the figures over every size, of the program as
  /// read with the layouts chosen (PipelineResult::Generic), instead of the
  /// bound program's kernels at the representative sizes.
  bool EverySize = false;
  /// analyze --transformed: also analyze the program as read
  /// (PipelineResult::AsRead), each analyzed kernel's namesake there and
  /// the kernel a launch of analyzed kernels replaced.
  bool AsWritten = false;
  /// Keep the program as read in PipelineResult::AsRead (analyze's report
  /// at fixed sizes compares with it, and its HTML draws its layouts);
  /// AsWritten keeps it too.
  bool KeepAsRead = false;
  /// analyze --html: also sample each analyzed site's warps and draw them
  /// (sampleSiteLanes, drawLanes), into PipelineResult::Drawings.
  bool Lanes = false;
  /// The lint's figures instead (analysis/checks/LintSites.h): each
  /// selected kernel's sites, merged by location and kind, over every size
  /// of the runtime params it reads or at its sizes, into
  /// PipelineResult::LintSites.
  std::optional<LintSiteOptions> Lint;
};

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

/// "bind-sizes", "schedule-colored", "layout-auto", "place-shared", "check",
/// "value-facts", "analyze".
std::string_view passName(PassId P);

/// The passes --dump-ir-after=NAMES names: pass names separated by commas,
/// or "all". Throws UserError, naming the passes, for anything else.
std::vector<PassId> parsePassList(std::string_view Names);

/// --memory-limit GB and --time-limit SECONDS: negative, the defaults of
/// defaultResourceLimits (80% of this machine's memory, 900 s); 0, no
/// limit.
struct WorkLimits {
  double MemoryGB = -1;
  double Seconds = -1;
};

struct PipelineOptions {
  /// The passes to run (in pipeline order whatever the order here).
  std::vector<PassId> Passes = allPassIds();
  /// When given, what the program's sizes would need (estimateResources,
  /// runtime params at the sizes bind-sizes will give them) is estimated
  /// before the first pass, and a UserError, located, ends the run when it
  /// passes a limit: a size too large for the machine is refused before
  /// the work starts.
  std::optional<WorkLimits> Limits;
  /// --size: representative values for bind-sizes.
  ir::Bindings Sizes;
  LayoutChoiceOptions Layouts;
  /// compile --arch: the CUDA target place-shared places shared arrays on
  /// (an unknown one: no placement; codegen names the known ones).
  std::string Arch = "sm_90";
  /// What the check pass runs with (--data, analyze --kernel).
  CorrectnessOptions Checks;
  /// Called as soon as the check pass has its findings (with the program
  /// and decisions so far), before the analysis, which may take long or
  /// throw: a command prints them then.
  std::function<void(const PipelineResult &)> AfterCheck;
  /// Stop after the check pass when one of its findings is an error
  /// (compile emits nothing then, and needs no analysis).
  bool StopOnCheckError = false;
  /// A UserError of the check or analyze pass (a size at which the program
  /// fails, an index out of bounds) goes to PipelineResult::Errors and the
  /// run goes on: the lint notes each, and keeps the figures when only the
  /// checks failed. Otherwise it ends the run.
  bool RecordErrors = false;
  /// Called before the analyze pass, with the program every earlier pass
  /// made (PipelineResult::Program): compile starts writing its side file
  /// then, while the kernels are analyzed.
  std::function<void(const PipelineResult &)> BeforeAnalyze;
  AnalyzePassOptions Analyze;
  /// Print the program after these passes to DumpStream.
  std::vector<PassId> DumpAfter;
  std::ostream *DumpStream = nullptr;
  /// --dump-ir-after=Names (parsePassList) to Out; nothing for empty Names.
  void dumpAfter(std::string_view Names, std::ostream &Out);
};

/// The help line of --dump-ir-after, one for every command that takes it:
/// the passes' names from allPasses().
std::string dumpIrAfterHelp();

/// A site's sampled warps (AnalyzePassOptions::Lanes) and their drawings:
/// under the layout its array has in the program after the passes (Now),
/// and under the one it had as read where that differs (AsWritten; only
/// with the program as read kept, at fixed sizes).
struct SiteDrawings {
  SiteLanes Lanes;
  LaneDrawing Now;
  std::optional<LaneDrawing> AsWritten;
};

/// The value-facts pass's facts of one kernel: its values' classes, ranges
/// and uniformity (codegen's index types and CPU reference), or the error
/// that says which value codegen cannot type (for codegen to throw).
struct KernelValueFacts {
  std::string Kernel;
  std::optional<ValueFacts> Facts;
  std::optional<UserError> Error;
};

/// Everything the passes decided and computed: what codegen, the reports
/// and the commands read. The analyses point into Program, Generic and
/// AsRead, so a result is moved, never copied.
struct PipelineResult {
  PipelineResult() = default;
  PipelineResult(PipelineResult &&) = default;
  PipelineResult &operator=(PipelineResult &&) = default;
  PipelineResult(const PipelineResult &) = delete;
  PipelineResult &operator=(const PipelineResult &) = delete;

  ir::Program Program; ///< after the passes
  /// The runtime params of the program as read (Program::runtimeParams()),
  /// and the values bind-sizes gave them (empty when every size is a
  /// constant or bind-sizes did not run).
  std::vector<std::string> RuntimeParams;
  ir::Bindings RepresentativeSizes;
  std::vector<ColoredScheduleReport> Colored;
  /// Seed 001's schedules, the schedule-colored pass's: the analyses, the
  /// check pass and codegen read the tables of its kernels from them.
  std::shared_ptr<SchedulePlan> Schedules = std::make_shared<SchedulePlan>();
  std::vector<LayoutDecision> Layouts;
  /// The place-shared pass's: each kernel of Program's shared arrays on
  /// PipelineOptions::Arch, in Program's order.
  std::vector<SharedPlacement> Placements;
  /// Kernel Name's placement, or nullptr.
  const SharedPlacement *placementOf(std::string_view Kernel) const;
  /// The value-facts pass's: each kernel of Program, in its order. They
  /// point into Program, which a move keeps where it is.
  std::vector<KernelValueFacts> Values;
  /// Kernel Name's facts, or nullptr.
  const KernelValueFacts *valuesOf(std::string_view Kernel) const;
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
  /// The check pass found an error (with StopOnCheckError, the run
  /// stopped after it).
  bool checkFailed() const;

  /// The analyze pass's figures: each selected kernel of Program at its
  /// sizes (the representative ones where bind-sizes bound them), in
  /// Program's order; or, with AnalyzePassOptions::EverySize and runtime
  /// params, each selected kernel of Generic over every size (EverySize).
  std::vector<KernelReport> Analyses;
  std::vector<AllSizesReport> EverySize;
  /// With AnalyzePassOptions::KeepAsRead or AsWritten: the program as read
  /// (before every pass); with AsWritten, the analyses of its kernels that
  /// analyzed kernels replace, by name.
  std::optional<ir::Program> AsRead;
  std::map<std::string, KernelReport, std::less<>> AsReadAnalyses;
  /// With AnalyzePassOptions::Lint: each selected kernel's lint sites, in
  /// Program's order.
  std::vector<std::vector<LintSite>> LintSites;
  /// With AnalyzePassOptions::Lint: the findings of the checks over each
  /// selected kernel's lint sites (CheckInfo::Run: bank conflicts,
  /// uncoalesced accesses), beside LintSites.
  std::vector<std::vector<LintFinding>> SiteFindings;
  /// Whether the analyze pass ran (and, with RecordErrors, finished).
  bool Analyzed = false;
  /// With PipelineOptions::RecordErrors: the error of each pass that threw.
  std::vector<std::pair<PassId, UserError>> Errors;
  /// The error pass P threw (RecordErrors), or nullptr.
  const UserError *errorOf(PassId P) const;
  /// The wall-clock seconds of each pass that ran, in order (lint --timing).
  std::vector<std::pair<PassId, double>> Seconds;
  double secondsOf(PassId P) const;
  /// The analysis of Program's kernel Name; nullptr when the analyze pass
  /// did not analyze it.
  const KernelReport *analysisOf(std::string_view Kernel) const;
  /// The analysis of the program as read's kernel Name, or nullptr.
  const KernelReport *asReadAnalysisOf(std::string_view Kernel) const;
  /// With AnalyzePassOptions::Lanes: each analyzed site's sampled warps and
  /// their drawings, by kernel and site id (ir/Sites.h), walked in Program
  /// (at the representative sizes where bind-sizes bound the program); a
  /// site whose array has no layout function there has none.
  std::map<std::pair<std::string, int>, SiteDrawings> Drawings;
  /// Site Site of kernel Kernel's drawings, or nullptr.
  const SiteDrawings *drawingsOf(const std::string &Kernel, int Site) const;
};

/// Runs the passes on Prog. Throws UserError, located, where a pass does
/// (a size no constraint allows, a copy schedule colored cannot move),
/// except the check and analyze passes' with PipelineOptions::RecordErrors.
PipelineResult runPipeline(ir::Program Prog, const PipelineOptions &Opts = {});

} // namespace bankwise
