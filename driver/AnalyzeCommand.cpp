// bankwise analyze: per-access-site costs of every kernel of a .bw program
// under the memory-machine models, the model time and the lower bound.
//
//   bankwise analyze samples/transpose_tiled.bw [-D N=4096] [--json]
//            [--machine "umm(w: 32, l: 400)"] [--data p=p.bin] [--kernel K]

#include "analysis/passes/AllSizes.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/SiteJson.h"
#include "driver/Commands.h"
#include "driver/Findings.h"
#include "driver/Output.h"
#include "driver/ProgramInput.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "report/AnalysisPages.h"
#include "ir/Printer.h"
#include "support/Diagnostic.h"
#include "support/Progress.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace bankwise::driver {

namespace {

/// Warp executions over every site of a kernel.
std::int64_t warpAccesses(const KernelReport &R) {
  std::int64_t N = 0;
  for (const AccessSiteReport &S : R.Sites)
    N += S.WarpExecutions;
  return N;
}

struct AnalyzeOptions {
  std::string File;
  std::vector<std::string> Defines;
  std::vector<std::string> Data;
  std::string MachineSpec;
  std::string Kernel;
  bool Json = false;
  bool Exhaustive = false;
  bool Transformed = false;
  std::string DumpAfter;
  std::string Html; ///< --html FILE
  std::uint64_t Seed = 1;
  LimitOptions Limits;
};

/// The lines of Text, for the HTML report's summary.
std::vector<std::string> textLines(const std::string &Text) {
  std::vector<std::string> Out;
  std::size_t From = 0;
  for (std::size_t To; (To = Text.find('\n', From)) != std::string::npos; From = To + 1)
    Out.push_back(Text.substr(From, To - From));
  if (From < Text.size())
    Out.push_back(Text.substr(From));
  return Out;
}

/// Writes the HTML report of --html (nothing without it).
void writeHtml(const AnalyzeOptions &O, report::Document &D) {
  if (O.Html.empty())
    return;
  D.Title = fmt::format("bankwise analyze {}", O.File);
  writeTextAtomically(O.Html, report::renderHtml(D));
}

/// The pipeline's options for analyze: its seed and analysis options, the
/// kernels it analyzes, and --dump-ir-after to stderr. AO outlives the run.
PipelineOptions pipelineOptions(const AnalyzeOptions &O, const AnalysisOptions &AO) {
  PipelineOptions PO;
  PO.Layouts.Seed = O.Seed;
  PO.Layouts.Analysis = AO;
  PO.Checks.OnlyKernel = O.Kernel;
  PO.Checks.Data = &AO.Data;
  PO.Analyze.Analysis = AO;
  PO.Analyze.OnlyKernel = O.Kernel;
  PO.Analyze.AsWritten = O.Transformed;
  PO.Analyze.KeepAsRead = true; // --html draws the layouts as written
  PO.dumpAfter(O.DumpAfter, std::cerr);
  return PO;
}

/// "sm_90", "dmm(w: 32, l: 1)", ...: dsl::parseMachineSpec, so the command
/// line and a file accept and reject the same specs.
ir::Machine parseMachineSpec(const std::string &Spec) {
  std::string Why;
  if (std::optional<ir::Machine> M = dsl::parseMachineSpec(Spec, Why))
    return *M;
  throw UserError(fmt::format("--machine '{}': {} (expected sm_90, dmm(w: 32, l: 1), umm(w: 32, l: 400) "
                              "or hmm(d: 132, w: 32, L: 400))",
                              Spec, Why));
}

std::string spaceName(ir::MemSpace S) { return std::string(ir::spelling(S)); }

nlohmann::json autoScheduleJson(const ColoredScheduleReport &C) {
  nlohmann::json E = nlohmann::json::array();
  for (const StrategyEstimate &X : C.Auto->Estimates) {
    nlohmann::json O{{"strategy", spelling(X.Kind)}, {"applies", X.Applies}, {"detail", X.Detail}};
    if (X.Applies) {
      O["estimated_us"] = X.Us;
      O["passes"] = X.Passes;
      O["stream_bytes"] = X.StreamBytes;
      O["resident"] = X.Resident;
      O["sectors"] = {{"full", X.Traffic.Full},
                      {"first", X.Traffic.First},
                      {"reused", X.Traffic.Reused},
                      {"refetched", X.Traffic.Refetched},
                      {"fetched_lines", X.Traffic.FetchedLines}};
    }
    E.push_back(std::move(O));
  }
  return {{"kernel", C.Kernel}, {"n", C.N}, {"src", C.Src}, {"dst", C.Dst},
          {"chosen", spelling(C.Auto->Chosen)}, {"estimates", std::move(E)}};
}

std::string locText(const SourceLoc &L) {
  return fmt::format("{}:{}:{}", L.File, L.Line, L.Col);
}

/// "'tile'", or "'tile' in kernel 'transpose_f32'" when another decision
/// is for the same declaration (a generic kernel's instances).
std::string decidedArray(const LayoutDecision &D, const std::vector<LayoutDecision> &All) {
  const bool Shared = std::any_of(All.begin(), All.end(), [&](const LayoutDecision &X) {
    return &X != &D && X.Array == D.Array && X.Loc.File == D.Loc.File && X.Loc.Line == D.Loc.Line &&
           X.Loc.Col == D.Loc.Col;
  });
  if (!Shared || D.Kernels.size() != 1)
    return fmt::format("'{}'", D.Array);
  return fmt::format("'{}' in kernel '{}'", D.Array, D.Kernels.front());
}

nlohmann::json rangeJson(const SizeRange &R) {
  if (!R.Any)
    return nullptr;
  return {{"min", R.Min},         {"max", R.Max},        {"max_when", R.MaxWhen},
          {"min_when", R.MinWhen}, {"sampled", R.Sampled}};
}

/// The findings of the pipeline's check pass (analysis/checks/Checks.h),
/// under "diagnostics" in the JSON report and, without --json (whose
/// readers take stdout and stderr together as often as not), on stderr;
/// true when one is an error.
bool reportChecks(const AnalyzeOptions &O, const PipelineResult &P, nlohmann::json &J) {
  const std::vector<LintFinding> Findings = sortedFindings(P.Findings);
  J["diagnostics"] = findingsJson(Findings);
  if (O.Json)
    return std::any_of(Findings.begin(), Findings.end(), [](const LintFinding &F) { return F.Sev == Severity::Error; });
  return printFindings(std::cerr, Findings);
}

/// analyze without -D for the runtime sizes: figures over every size.
int runAllSizes(const AnalyzeOptions &O, ir::Program Read, const AnalysisOptions &AO) {
  // Layout choice needs sizes: it runs at the representative sizes compile
  // uses, and the generic program takes its decisions; the analyze pass
  // then takes every size of the generic program.
  PipelineOptions PO = pipelineOptions(O, AO);
  PO.Passes = {PassId::BindSizes, PassId::LayoutAuto, PassId::Check, PassId::Analyze};
  PO.Analyze.EverySize = true;
  nlohmann::json J;
  bool CheckErrors = false;
  PO.AfterCheck = [&](const PipelineResult &R) { CheckErrors = reportChecks(O, R, J); };
  const PipelineResult P = runPipeline(std::move(Read), PO);
  const std::vector<LayoutDecision> &Decisions = P.Layouts;
  const ir::Program &Prog = *P.Generic; // as read, with the layouts chosen
  std::vector<std::string> At;
  for (const auto &[Name, Value] : P.RepresentativeSizes)
    At.push_back(fmt::format("{} = {}", Name, Value));

  J["file"] = O.File;
  J["seed"] = O.Seed;
  J["runtime_params"] = Prog.runtimeParams();
  std::string Text = fmt::format("{}: runtime sizes {}; figures over every size (give them with -D for "
                                 "one size's counts and model time)\n",
                                 O.File, fmt::join(Prog.runtimeParams(), ", "));
  for (const LayoutDecision &D : Decisions)
    if (O.Kernel.empty() || std::find(D.Kernels.begin(), D.Kernels.end(), O.Kernel) != D.Kernels.end())
      Text += fmt::format("{}: layout auto of {} -> {} (chosen at {})\n", locText(D.Loc), decidedArray(D, Decisions),
                        D.Candidates.empty() ? std::string("raw") : D.Candidates[D.Chosen].Name,
                        D.MeasuredAt.empty() ? fmt::format("{}", fmt::join(At, ", ")) : D.MeasuredAt);
  report::Document Html;
  Html.Summary = textLines(Text);
  for (const AllSizesReport &R : P.EverySize) {
    const ir::Kernel &K = *Prog.findKernel(R.Kernel);
    Text += fmt::format("kernel '{}' ({}): every size with {}\n  {}\n", R.Kernel, locText(R.Loc), R.Domain,
                        R.Method);
    if (!R.FallbackReason.empty())
      Text += fmt::format("  some sizes were evaluated warp by warp ({})\n", R.FallbackReason);
    report::Section HtmlKernel;
    if (!O.Html.empty()) {
      HtmlKernel.Heading = fmt::format("kernel '{}' ({}): every size with {}", R.Kernel, locText(R.Loc), R.Domain);
      HtmlKernel.Lines.push_back(R.Method);
      for (std::size_t I = 0; I < R.Sites.size(); ++I)
        HtmlKernel.Sites.push_back(
            report::allSizesSite(R.Sites[I], K, P.Program, P.RepresentativeSizes,
                                 fmt::format("{}-site{}", R.Kernel, I)));
      Html.Sections.push_back(std::move(HtmlKernel));
    }
    nlohmann::json JK = {{"kernel", R.Kernel},     {"location", locText(R.Loc)},
                         {"domain", R.Domain},     {"period", R.Period},
                         {"sizes_evaluated", R.Bindings}, {"all_classes", R.AllClasses},
                         {"periodic", R.Periodic}, {"proven", R.Proven}, {"method", R.Method}};
    for (const AllSizesSite &S : R.Sites) {
      Text += fmt::format("  {}: {} {} of '{}' ({}){}\n", locText(S.Loc), spaceName(S.Space),
                          S.IsAtomic ? std::string(ir::spelling(S.Op)) : S.IsWrite ? "write" : "read", S.Array,
                          S.Layout,
                          S.BoundOnly.empty() ? ""
                                              : fmt::format("; {} only bound{} it", fmt::join(S.BoundOnly, ", "),
                                                            S.BoundOnly.size() == 1 ? "s" : ""));
      nlohmann::json JS = {{"location", locText(S.Loc)},
                           {"array", S.Array},
                           {"bound_only", S.BoundOnly},
                           {"space", spaceName(S.Space)},
                           {"access", S.IsAtomic ? "atomic" : S.IsWrite ? "write" : "read"},
                           {"layout", S.Layout},
                           {"data_dependent", S.DataDependent},
                           {"congestion", rangeJson(S.Congestion)},
                           {"groups", rangeJson(S.Groups)}};
      if (S.DataGuarded) {
        JS["data_guard"] = {{"source", S.GuardSource}};
        Text += fmt::format("    data-dependent branch: whether a lane makes the access depends on '{}'; the "
                            "figures count every lane that reaches it, the worst case\n",
                            S.GuardSource);
      }
      if (S.DataDependent) {
        Text += "    data-dependent: give the runtime sizes with -D and the data with --data\n";
      } else if (S.Space == ir::MemSpace::Shared) {
        JS["sm90_wavefronts"] = rangeJson(S.Wavefronts);
        Text += fmt::format("    sm_90 wavefronts {}\n    DMM congestion {}; UMM groups {}\n",
                            S.Wavefronts.str(), S.Congestion.str(), S.Groups.str());
      } else {
        JS["sm90_sectors"] = rangeJson(S.Sectors);
        JS["sm90_lines"] = rangeJson(S.Lines);
        Text += fmt::format("    sm_90 sectors {}\n    lines {}; DMM congestion {}; UMM groups {}\n",
                            S.Sectors.str(), S.Lines.str(), S.Congestion.str(), S.Groups.str());
      }
      if (S.IsAtomic && !S.DataDependent) {
        JS["atomic"] = std::string(ir::spelling(S.Op));
        JS["same_address_serialization"] = rangeJson(S.Serialization);
        Text += fmt::format("    same-address serialization {}\n", S.Serialization.str());
      }
      JK["sites"].push_back(JS);
    }
    J["kernels"].push_back(JK);
  }
  if (P.EverySize.empty())
    throw UserError(fmt::format("no kernel named '{}' in {}", O.Kernel, O.File));
  writeHtml(O, Html);
  const int Rc = emitReport(O.Json, J, Text);
  return CheckErrors ? 2 : Rc;
}

int runAnalyze(const AnalyzeOptions &O) {
  std::optional<ir::Program> Read = readProgram(O.File, O.Defines);
  if (!Read)
    return 2;
  if (!O.MachineSpec.empty())
    Read->Mach = parseMachineSpec(O.MachineSpec);

  checkResources(*Read, {}, O.Limits);
  AnalysisOptions AO;
  AO.Exhaustive = O.Exhaustive;
  loadDataOptions(O.Data, *Read, AO);

  if (!Read->runtimeParams().empty())
    return runAllSizes(O, std::move(*Read), AO);

  // Every pass; the program as read stays in the result for --transformed
  // (a colored kernel as written is the copy it describes) and the HTML.
  PipelineOptions PO = pipelineOptions(O, AO);
  nlohmann::json J;
  bool CheckErrors = false;
  PO.AfterCheck = [&](const PipelineResult &R) {
    CheckErrors = reportChecks(O, R, J);
    // A schedule's wall time: on stderr, so that stdout stays the same bytes
    // run after run (and not at all with --json, whose readers take stdout
    // and stderr together as often as not).
    for (const ColoredScheduleReport &C : R.Colored)
      if (C.Hmm && !O.Json)
        std::cerr << fmt::format("{}: note: {}\n", locText(C.Loc), scheduleCostNote(C));
  };
  const PipelineResult P = runPipeline(std::move(*Read), PO);
  const ir::Program &Prog = P.Program;
  const ir::Program &Written = *P.AsRead;
  const std::vector<ColoredScheduleReport> &Colored = P.Colored;
  const std::vector<LayoutDecision> &Decisions = P.Layouts;

  J["file"] = O.File;
  J["seed"] = O.Seed;
  std::string Text = fmt::format("{}: seed {} (RAP tables of layout auto)\n", O.File, O.Seed);
  for (const ColoredScheduleReport &C : Colored) {
    if (C.Auto) {
      Text += fmt::format("{}: {}\n", locText(C.Loc), autoScheduleNote(C));
      J["auto_schedules"].push_back(autoScheduleJson(C));
      if (!C.Hmm && !C.Bits)
        continue;
    }
    if (C.Hmm) {
      const HmmShape &Sh = C.Hmm->Shape;
      Text += fmt::format("{}: schedule colored of '{}': {}[P(i)] = {}[i] for n = {} as seed 001's "
                          "scheduled permutation of global memory: shape {} x {} (R x C), StripCols {}, "
                          "w = {}; three passes (row, strip, row), s and d 12 bytes per element; "
                          "launch {} = {}\n",
                          locText(C.Loc), C.Kernel, C.Dst, C.Src, C.N, Sh.Rows, Sh.Cols, Sh.StripCols,
                          Sh.Banks, C.Kernel, fmt::join(C.Hmm->PassKernels, ", "));
      J["schedules"].push_back({{"kernel", C.Kernel},
                                {"schedule", "colored"},
                                {"lowering", "seed 001 scheduled permutation"},
                                {"n", C.N},
                                {"w", C.W},
                                {"src", C.Src},
                                {"dst", C.Dst},
                                {"shape",
                                 {{"rows", Sh.Rows}, {"cols", Sh.Cols}, {"strip_cols", Sh.StripCols}, {"banks", Sh.Banks}}},
                                {"kernels", C.Hmm->PassKernels}});
      continue;
    }
    if (C.Bits) {
      Text += fmt::format("{}: schedule bits of '{}': {}[P(i)] = {}[i] for n = {}, P a bit permutation ({}); "
                          "one tiled pass: 32 x 32 shared tile, {} blocks of 32 x 8 threads, every warp reads "
                          "and writes 32 consecutive elements\n",
                          locText(C.Loc), C.Kernel, C.Dst, C.Src, C.N, describe(C.Bits->Bpc), C.N / 1024);
      J["schedules"].push_back({{"kernel", C.Kernel},
                                {"schedule", "bits"},
                                {"lowering", "one tiled pass"},
                                {"n", C.N},
                                {"src", C.Src},
                                {"dst", C.Dst},
                                {"bits_to", C.Bits->Bpc.To},
                                {"xor", C.Bits->Bpc.Xor}});
      continue;
    }
    Text += fmt::format("{}: schedule colored of '{}': {} pairs {}[...] <- {}[...] "
                        "reassigned by a Koenig edge coloring of the {}-bank graph "
                        "({} colors, one per warp)\n",
                        locText(C.Loc), C.Kernel, C.N, C.Dst, C.Src, C.W, C.N / C.W);
    J["schedules"].push_back({{"kernel", C.Kernel},
                              {"schedule", "colored"},
                              {"n", C.N},
                              {"w", C.W},
                              {"src", C.Src},
                              {"dst", C.Dst}});
  }
  for (const LayoutDecision &D : Decisions) {
    const LayoutCandidate &C = D.Candidates[D.Chosen];
    const double Per = D.Executions ? C.Cost / static_cast<double>(D.Executions) : 0;
    std::string Others;
    nlohmann::json JC = nlohmann::json::array();
    for (const LayoutCandidate &X : D.Candidates) {
      const double XPer = D.Executions ? X.Cost / static_cast<double>(D.Executions) : 0;
      Others += fmt::format("{}{} {:.3g}{}", Others.empty() ? "" : ", ", X.Name, XPer,
                            X.Fits ? "" : " (too large)");
      JC.push_back({{"layout", X.Name}, {"cost_per_access", XPer}, {"fits", X.Fits}});
    }
    const bool Shown = O.Kernel.empty() || std::find(D.Kernels.begin(), D.Kernels.end(), O.Kernel) != D.Kernels.end();
    if (D.Candidates.size() > 1 && Shown) // one-dimensional arrays have no choice
      Text += fmt::format("{}: layout auto of {} -> {}: {:.3g} {} per warp access "
                        "(candidates: {}){}\n",
                        locText(D.Loc), decidedArray(D, Decisions), C.Name, Per, D.Metric, Others,
                        C.Layout.Kind == ir::LayoutKind::Rap
                            ? fmt::format("; RAP seed {}", D.Seed)
                            : "");
    J["layout_decisions"].push_back({{"array", D.Array},
                                     {"kernels", D.Kernels},
                                     {"location", locText(D.Loc)},
                                     {"chosen", C.Name},
                                     {"metric", D.Metric},
                                     {"cost_per_access", Per},
                                     {"candidates", JC}});
  }
  report::Document Html;
  Html.Summary = textLines(Text);
  // A launch's kernels, summed for --transformed against the kernel as
  // written (seed 001's passes against the one scatter).
  struct LaunchTotals {
    std::uint64_t Sectors = 0, DataRequests = 0;
    std::int64_t MaxShared = 0;
  };
  std::map<std::string, LaunchTotals> Launched;
  for (const KernelReport &R : P.Analyses) {
    const ir::Kernel &K = *Prog.findKernel(R.Kernel);
    const ir::Launch *InLaunch = Prog.launchOf(K.Name);
    const ir::Kernel *AsWritten = Written.findKernel(K.Name);
    static const KernelReport None;
    const KernelReport &Before = O.Transformed && AsWritten ? *P.asReadAnalysisOf(K.Name) : None;
    nlohmann::json JK = {{"kernel", R.Kernel},
                         {"location", locText(R.Loc)},
                         {"threads", R.Threads},
                         {"warps", R.Warps},
                         {"warp_size", R.WarpSize},
                         {"fast_path", R.FastPath},
                         {"table_walk", R.TableWalk},
                         {"time", R.TimeSimulated ? nlohmann::json(R.Time) : nlohmann::json()},
                         {"time_simulated", R.TimeSimulated},
                         {"time_machine", R.TimeMachine},
                         {"time_uses_worst_case", R.TimeUsesWorstCase},
                         {"requests", R.Requests},
                         {"lower_bound", R.LowerBound},
                         {"lower_bound_formula", R.LowerBoundFormula}};
    if (!R.FastPath)
      JK["fallback_reason"] = R.FallbackReason;
    Text += fmt::format("kernel '{}' ({}): {} threads in {} warps of {}; {}\n",
                        R.Kernel, locText(R.Loc), R.Threads, R.Warps, R.WarpSize,
                        R.FastPath ? (R.TableWalk ? "counted by class; sites reading a table per lane "
                                                    "evaluated warp by warp (compiled)"
                                                  : "counted by class, no warp visited")
                                   : "evaluated warp by warp (" + R.FallbackReason + ")");
    report::Section HtmlKernel;
    HtmlKernel.Heading = fmt::format("kernel '{}' ({}): {} threads in {} warps of {}", R.Kernel, locText(R.Loc),
                                     R.Threads, R.Warps, R.WarpSize);
    for (std::size_t SiteIdx = 0; SiteIdx < R.Sites.size(); ++SiteIdx) {
      const AccessSiteReport &S = R.Sites[SiteIdx];
      if (!O.Html.empty())
        HtmlKernel.Sites.push_back(report::analyzedSite(
            S, Prog, K, &Written, AsWritten, O.Transformed && SiteIdx < Before.Sites.size() ? &Before.Sites[SiteIdx] : nullptr,
            fmt::format("{}-site{}", R.Kernel, SiteIdx)));
      nlohmann::json JS = siteJson(S, locText(S.Loc));
      Text += fmt::format("  {}: {} {} of '{}' ({}), {} warp execution{}\n",
                          locText(S.Loc), spaceName(S.Space),
                          accessName(S), S.Array, S.Layout,
                          S.WarpExecutions, S.WarpExecutions == 1 ? "" : "s");
      if (S.DataGuarded)
        Text += fmt::format("    data-dependent branch: whether a lane makes the access depends on '{}' "
                            "(the {} at {}; give --data {}=FILE for exact costs); the figures count "
                            "every lane that reaches it, the worst case{}\n",
                            S.GuardSource, S.GuardIsLoop ? "loop bounds, counted over their first 32 iterations," : "condition", locText(S.GuardLoc), S.GuardSource,
                            S.DataDependent ? ""
                                            : fmt::format(", and DMM congestion {:.3g} is expected when each "
                                                          "lane takes the branch with probability 1/2",
                                                          S.ExpectedGuardCongestion));
      if (S.DataDependent) {
        Text += fmt::format("    data-dependent: the index reads '{}' (give "
                            "--data {}=FILE for exact costs); worst congestion "
                            "{}, expected {:.3g} for random indices under any "
                            "layout, RAP included\n",
                            S.DataSource, S.DataSource, S.WorstCongestion,
                            S.ExpectedRapCongestion);
      } else {
        const std::string Sm90 = S.Space == ir::MemSpace::Shared
                                     ? "sm_90 wavefronts " + S.Wavefronts.str()
                                     : "sm_90 sectors " + S.Sectors.str() + ", lines " + S.Lines.str();
        Text += fmt::format("    DMM congestion {}{}; UMM groups {}; {}{}\n", S.Congestion.str(),
                            S.IsAtomic ? " (lanes per bank, repeats counted)" : "",
                            S.Groups.str(), Sm90,
                            S.IsAtomic ? "; same-address serialization " + S.Serialization.str() : "");
        if (O.Transformed && SiteIdx < Before.Sites.size()) {
          const AccessSiteReport &B = Before.Sites[SiteIdx];
          const bool Shared = S.Space == ir::MemSpace::Shared;
          const CostStats &Was = Shared ? B.Wavefronts : B.Sectors;
          const CostStats &Now = Shared ? S.Wavefronts : S.Sectors;
          Text += fmt::format("    as written ({}): DMM congestion {}, {} {}; "
                              "transformed ({}): DMM congestion {}, {} {}\n",
                              B.Layout, B.Congestion.str(),
                              Shared ? "wavefronts" : "sectors", Was.str(), S.Layout,
                              S.Congestion.str(), Shared ? "wavefronts" : "sectors",
                              Now.str());
          JS["before"] = {{"layout", B.Layout},
                          {"congestion", statsJson(B.Congestion)},
                          {"groups", statsJson(B.Groups)},
                          {Shared ? "sm90_wavefronts" : "sm90_sectors", statsJson(Was)}};
        }
      }
      JK["sites"].push_back(JS);
    }
    // Seed 001: after the last pass of a launch, the passes against the
    // scatter as written.
    if (InLaunch && O.Transformed) {
      LaunchTotals &T = Launched[InLaunch->Name];
      for (const AccessSiteReport &S : R.Sites) {
        if (S.Space == ir::MemSpace::Shared) {
          T.MaxShared = std::max(T.MaxShared, S.Congestion.Max);
          continue;
        }
        T.Sectors += static_cast<std::uint64_t>(S.Sectors.Sum);
        const ir::Array *A = Prog.findArray(K, S.Array);
        if (!A || !A->Holds)
          T.DataRequests += static_cast<std::uint64_t>(S.Sectors.Count);
      }
      const ir::Kernel *Scatter = Written.findKernel(InLaunch->Name);
      if (K.Name == InLaunch->Kernels.back() && Scatter) {
        const KernelReport &W = *P.asReadAnalysisOf(InLaunch->Name);
        std::uint64_t BeforeSectors = 0, BeforeRequests = 0;
        for (const AccessSiteReport &S : W.Sites)
          if (S.Space == ir::MemSpace::Global && !S.DataDependent) {
            BeforeSectors += static_cast<std::uint64_t>(S.Sectors.Sum);
            BeforeRequests += static_cast<std::uint64_t>(S.Sectors.Count);
          }
        Text += fmt::format("  launch '{}' as written (kernel '{}'): {} global requests, {} sectors ({:.3g} per "
                            "request); as its kernels {}: {} data requests, {} sectors with the s and d loads "
                            "({:.3g} per data request), every shared access congestion {}\n",
                            InLaunch->Name, InLaunch->Name, BeforeRequests, BeforeSectors,
                            BeforeRequests ? double(BeforeSectors) / double(BeforeRequests) : 0.0,
                            fmt::join(InLaunch->Kernels, ", "), T.DataRequests, T.Sectors,
                            T.DataRequests ? double(T.Sectors) / double(T.DataRequests) : 0.0, T.MaxShared);
        JK["transformed_launch"] = {{"launch", InLaunch->Name},
                                    {"before", {{"global_requests", BeforeRequests}, {"sectors", BeforeSectors}}},
                                    {"after", {{"global_requests", T.DataRequests}, {"sectors", T.Sectors}}}};
      }
    }
    Text += fmt::format("  time: {} on {}{}; lower bound {} = {:.6g}\n",
                        R.TimeSimulated
                            ? fmt::format("{} time units", R.Time)
                            : fmt::format("not simulated ({} warp accesses, above the "
                                          "simulator's limit of {}; the figures above "
                                          "are exact)",
                                          warpAccesses(R), AO.TimeWorkLimit),
                        R.TimeMachine,
                        R.TimeUsesWorstCase ? " (data-dependent sites at worst case)" : "",
                        R.LowerBoundFormula, R.LowerBound);
    J["kernels"].push_back(JK);
    if (!O.Html.empty()) {
      HtmlKernel.Lines.push_back(textLines(Text).back());
      Html.Sections.push_back(std::move(HtmlKernel));
    }
  }
  if (P.Analyses.empty())
    throw UserError(fmt::format("no kernel named '{}' in {}", O.Kernel, O.File));
  writeHtml(O, Html);
  const int Rc = emitReport(O.Json, J, Text);
  return CheckErrors ? 2 : Rc;
}

} // namespace

void registerAnalyzeCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<AnalyzeOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "analyze", "Per-access-site costs of a .bw program's kernels under the models");
  Cmd->add_option("file", O->File, "the .bw program")->required();
  Cmd->add_option("-D", O->Defines, "override a param: -D N=4096 (repeatable)");
  Cmd->add_option("--machine", O->MachineSpec,
                  "analyze on another machine: sm_90, \"dmm(w: 32, l: 1)\", ... (read as a .bw file's "
                  "`target`/`machine` line: every parameter given)");
  Cmd->add_option("--data", O->Data,
                  "NAME=FILE: the values of integer array NAME (little endian), "
                  "for data-dependent indices");
  Cmd->add_option("--kernel", O->Kernel, "analyze only this kernel");
  Cmd->add_flag("--transformed", O->Transformed,
                "show each site's cost as written and after layout auto");
  Cmd->add_option("--seed", O->Seed, "seed of a RAP layout that auto chooses")
      ->capture_default_str();
  Cmd->add_flag("--exhaustive", O->Exhaustive,
                "evaluate every warp, without the affine fast path");
  Cmd->add_flag("--json", O->Json, "print JSON instead of text");
  Cmd->add_option("--html", O->Html,
                  "also write a self-contained HTML report to FILE: per site, the worst warp's bank map, the "
                  "cost's histogram, the layouts before and after, the source lines");
  Cmd->add_option("--dump-ir-after", O->DumpAfter, dumpIrAfterHelp());
  addLimitOptions(Cmd, O->Limits);
  addThreadsOption(*Cmd);
  Cmd->callback([O, &Run] { Run = [O] { return runAnalyze(*O); }; });
}

} // namespace bankwise::driver
