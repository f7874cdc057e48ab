#include "report/CompileReport.h"

#include "report/Findings.h"
#include "report/SiteJson.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace bankwise::report {

namespace {

/// The sites of the copies codegen adds for E's staged arrays: in (and
/// back, when written), each on its global and its shared side.
void addStagingSites(nlohmann::json &JK, const codegen::EmittedKernel &E) {
  for (const codegen::EmittedKernel::Staging &A : E.Staged) {
    const StagingCost &C = A.Copy;
    auto Point = [](std::int64_t V) { return nlohmann::json{{"min", V}, {"mean", V}, {"max", V}}; };
    for (int Back = 0; Back < (A.Written ? 2 : 1); ++Back) {
      for (int Global = 0; Global < 2; ++Global) {
        nlohmann::json JS = {{"location", Back ? "staging-out" : "staging-in"},
                             {"array", A.Array},
                             {"space", Global ? "global" : "shared"},
                             {"access", (Global != 0) == (Back != 0) ? "write" : "read"},
                             {"layout", A.Layout},
                             {"elem_bytes", A.ElemBytes},
                             {"warp_executions", C.WarpExecutions},
                             {"data_dependent", false},
                             {"added_by_codegen", true}};
        if (Global)
          JS["sm90_sectors"] = Point(C.Sectors), JS["sm90_lines"] = Point(C.Lines);
        else
          JS["sm90_wavefronts"] = Point(C.Wavefronts);
        JK["sites"].push_back(JS);
      }
    }
  }
}

/// Kernel E's entry: its geometry, model time and sites.
nlohmann::json kernelJson(const PipelineResult &P, const codegen::EmittedKernel &E, const CompileReportOptions &O) {
  const KernelReport *R = P.analysisOf(E.Name);
  if (!R)
    throw std::logic_error(fmt::format("compileReportJson: kernel '{}' has no analysis", E.Name));
  nlohmann::json JK = {{"kernel", E.Name},
                       {"threads", R->Threads},
                       {"threads_per_block", E.ThreadsPerBlock},
                       {"blocks", E.Blocks},
                       {"index_type", E.IndexType},
                       {"shared_bytes", E.SharedBytes},
                       {"dynamic_shared", E.DynamicShared},
                       {"model_time", R->TimeSimulated ? nlohmann::json(R->Time) : nlohmann::json()},
                       {"time_machine", R->TimeMachine},
                       {"sites", nlohmann::json::array()}};
  if (!E.InLaunch.empty()) // a stage: gpu-verify groups it under its launch
    JK["program_kernel"] = E.InLaunch;
  for (const AccessSiteReport &S : R->Sites) {
    nlohmann::json JS = siteJson(S, fmt::format("{}:{}:{}", O.SourceName, S.Loc.Line, S.Loc.Col));
    JS["added_by_codegen"] = false;
    if (std::find(E.Demoted.begin(), E.Demoted.end(), S.Array) != E.Demoted.end())
      JS["device_space"] = "global";
    JK["sites"].push_back(JS);
  }
  addStagingSites(JK, E);
  return JK;
}

} // namespace

bool printCompileChecks(std::ostream &OS, const PipelineResult &P) {
  if (printFindings(OS, sortedFindings(P.Findings)))
    return true;
  for (const ColoredScheduleReport &C : P.Colored) {
    // schedule auto's choice, with the estimates behind it.
    if (C.Auto)
      OS << fmt::format("{}:{}:{}: note: {}\n", C.Loc.File, C.Loc.Line, C.Loc.Col, autoScheduleNote(C));
    // The offline schedule's CPU time beside the kernels' estimates: the
    // number of runs that repay it.
    if (C.Hmm)
      OS << fmt::format("{}:{}:{}: note: {}\n", C.Loc.File, C.Loc.Line, C.Loc.Col, scheduleCostNote(C));
  }
  return false;
}

std::string compileReportJson(const PipelineResult &P, const codegen::CompileResult &C,
                              const CompileReportOptions &O) {
  nlohmann::json J;
  J["program"] = O.SourceName;
  J["arch"] = O.Arch;
  J["namespace"] = C.Namespace;
  if (!P.RuntimeParams.empty()) {
    J["runtime_params"] = P.RuntimeParams;
    J["predicted_at"] = nlohmann::json::object();
    for (const auto &[Name, Value] : P.RepresentativeSizes)
      J["predicted_at"][Name] = Value;
  }
  J["kernels"] = nlohmann::json::array();
  for (const codegen::EmittedKernel &E : C.Kernels)
    J["kernels"].push_back(kernelJson(P, E, O));
  return J.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; // paths may not be UTF-8
}

} // namespace bankwise::report
