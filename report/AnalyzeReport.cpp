#include "report/AnalyzeReport.h"

#include "report/AnalysisPages.h"
#include "report/Findings.h"
#include "report/SiteJson.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace bankwise::report {

namespace {

std::string spaceName(ir::MemSpace S) { return std::string(ir::spelling(S)); }

/// Warp executions over every site of a kernel.
std::int64_t warpAccesses(const KernelReport &R) {
  std::int64_t N = 0;
  for (const AccessSiteReport &S : R.Sites)
    N += S.WarpExecutions;
  return N;
}

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

/// The fixed-size report's lines and JSON of each `schedule` the pipeline
/// lowered: auto's choice, seed 001's shape and passes, bits' one pass,
/// colored's edge coloring.
void scheduleLines(const std::vector<ColoredScheduleReport> &Colored, std::string &Text, nlohmann::json &J) {
  for (const ColoredScheduleReport &C : Colored) {
    if (C.Auto) {
      Text += fmt::format("{}: {}\n", locationText(C.Loc), autoScheduleNote(C));
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
                          locationText(C.Loc), C.Kernel, C.Dst, C.Src, C.N, Sh.Rows, Sh.Cols, Sh.StripCols,
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
                          locationText(C.Loc), C.Kernel, C.Dst, C.Src, C.N, describe(C.Bits->Bpc), C.N / 1024);
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
                        locationText(C.Loc), C.Kernel, C.N, C.Dst, C.Src, C.W, C.N / C.W);
    J["schedules"].push_back({{"kernel", C.Kernel},
                              {"schedule", "colored"},
                              {"n", C.N},
                              {"w", C.W},
                              {"src", C.Src},
                              {"dst", C.Dst}});
  }
}

/// The fixed-size report's line and JSON of each `layout auto` decision:
/// the chosen layout's cost per warp access against the candidates'.
void layoutDecisionLines(const std::vector<LayoutDecision> &Decisions, const AnalyzeReportOptions &O, std::string &Text,
                         nlohmann::json &J) {
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
                        locationText(D.Loc), decidedArray(D, Decisions), C.Name, Per, D.Metric, Others,
                        C.Layout.Kind == ir::LayoutKind::Rap
                            ? fmt::format("; RAP seed {}", D.Seed)
                            : "");
    J["layout_decisions"].push_back({{"array", D.Array},
                                     {"kernels", D.Kernels},
                                     {"location", locationText(D.Loc)},
                                     {"chosen", C.Name},
                                     {"metric", D.Metric},
                                     {"cost_per_access", Per},
                                     {"candidates", JC}});
  }
}

} // namespace

AnalyzeReport everySizeReport(const PipelineResult &P, const AnalyzeReportOptions &O, nlohmann::json J) {
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
      Text += fmt::format("{}: layout auto of {} -> {} (chosen at {})\n", locationText(D.Loc), decidedArray(D, Decisions),
                        D.Candidates.empty() ? std::string("raw") : D.Candidates[D.Chosen].Name,
                        D.MeasuredAt.empty() ? fmt::format("{}", fmt::join(At, ", ")) : D.MeasuredAt);
  Document Html;
  Html.Summary = textLines(Text);
  for (const AllSizesReport &R : P.EverySize) {
    Text += fmt::format("kernel '{}' ({}): every size with {}\n  {}\n", R.Kernel, locationText(R.Loc), R.Domain,
                        R.Method);
    if (!R.FallbackReason.empty())
      Text += fmt::format("  some sizes were evaluated warp by warp ({})\n", R.FallbackReason);
    Section HtmlKernel;
    if (O.Html) {
      HtmlKernel.Heading = fmt::format("kernel '{}' ({}): every size with {}", R.Kernel, locationText(R.Loc), R.Domain);
      HtmlKernel.Lines.push_back(R.Method);
      for (std::size_t I = 0; I < R.Sites.size(); ++I)
        HtmlKernel.Sites.push_back(
            allSizesSite(R.Sites[I], P.RepresentativeSizes,
                         R.Sites[I].Node ? P.drawingsOf(R.Kernel, R.Sites[I].Node->Site) : nullptr,
                         fmt::format("{}-site{}", R.Kernel, I)));
      Html.Sections.push_back(std::move(HtmlKernel));
    }
    nlohmann::json JK = {{"kernel", R.Kernel},     {"location", locationText(R.Loc)},
                         {"domain", R.Domain},     {"period", R.Period},
                         {"sizes_evaluated", R.Bindings}, {"all_classes", R.AllClasses},
                         {"periodic", R.Periodic}, {"proven", R.Proven}, {"method", R.Method}};
    for (const AllSizesSite &S : R.Sites) {
      Text += fmt::format("  {}: {} {} of '{}' ({}){}\n", locationText(S.Loc), spaceName(S.Space),
                          S.IsAtomic ? std::string(ir::spelling(S.Op)) : S.IsWrite ? "write" : "read", S.Array,
                          S.Layout,
                          S.BoundOnly.empty() ? ""
                                              : fmt::format("; {} only bound{} it", fmt::join(S.BoundOnly, ", "),
                                                            S.BoundOnly.size() == 1 ? "s" : ""));
      nlohmann::json JS = {{"location", locationText(S.Loc)},
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
  return {std::move(Text), std::move(J), std::move(Html)};
}

AnalyzeReport fixedSizeReport(const PipelineResult &P, const AnalyzeReportOptions &O, nlohmann::json J) {
  const ir::Program &Prog = P.Program;
  const ir::Program &Written = *P.AsRead;

  J["file"] = O.File;
  J["seed"] = O.Seed;
  std::string Text = fmt::format("{}: seed {} (RAP tables of layout auto)\n", O.File, O.Seed);
  scheduleLines(P.Colored, Text, J);
  layoutDecisionLines(P.Layouts, O, Text, J);
  Document Html;
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
                         {"location", locationText(R.Loc)},
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
                        R.Kernel, locationText(R.Loc), R.Threads, R.Warps, R.WarpSize,
                        R.FastPath ? (R.TableWalk ? "counted by class; sites reading a table per lane "
                                                    "evaluated warp by warp (compiled)"
                                                  : "counted by class, no warp visited")
                                   : "evaluated warp by warp (" + R.FallbackReason + ")");
    Section HtmlKernel;
    HtmlKernel.Heading = fmt::format("kernel '{}' ({}): {} threads in {} warps of {}", R.Kernel, locationText(R.Loc),
                                     R.Threads, R.Warps, R.WarpSize);
    for (std::size_t SiteIdx = 0; SiteIdx < R.Sites.size(); ++SiteIdx) {
      const AccessSiteReport &S = R.Sites[SiteIdx];
      if (O.Html)
        HtmlKernel.Sites.push_back(analyzedSite(
            S, &Written, AsWritten, O.Transformed && SiteIdx < Before.Sites.size() ? &Before.Sites[SiteIdx] : nullptr,
            S.Node.Read ? P.drawingsOf(R.Kernel, S.Node.Read->Site) : nullptr, fmt::format("{}-site{}", R.Kernel, SiteIdx)));
      nlohmann::json JS = siteJson(S, locationText(S.Loc));
      Text += fmt::format("  {}: {} {} of '{}' ({}), {} warp execution{}\n",
                          locationText(S.Loc), spaceName(S.Space),
                          accessName(S), S.Array, S.Layout,
                          S.WarpExecutions, S.WarpExecutions == 1 ? "" : "s");
      if (S.DataGuarded)
        Text += fmt::format("    data-dependent branch: whether a lane makes the access depends on '{}' "
                            "(the {} at {}; give --data {}=FILE for exact costs); the figures count "
                            "every lane that reaches it, the worst case{}\n",
                            S.GuardSource, S.GuardIsLoop ? "loop bounds, counted over their first 32 iterations," : "condition", locationText(S.GuardLoc), S.GuardSource,
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
                                          warpAccesses(R), O.TimeWorkLimit),
                        R.TimeMachine,
                        R.TimeUsesWorstCase ? " (data-dependent sites at worst case)" : "",
                        R.LowerBoundFormula, R.LowerBound);
    J["kernels"].push_back(JK);
    if (O.Html) {
      HtmlKernel.Lines.push_back(textLines(Text).back());
      Html.Sections.push_back(std::move(HtmlKernel));
    }
  }
  return {std::move(Text), std::move(J), std::move(Html)};
}

bool analyzeChecks(const PipelineResult &P, bool Json, nlohmann::json &J, std::ostream &Err) {
  const std::vector<LintFinding> Findings = sortedFindings(P.Findings);
  J["diagnostics"] = findingsJson(Findings);
  if (Json)
    return std::any_of(Findings.begin(), Findings.end(), [](const LintFinding &F) { return F.Sev == Severity::Error; });
  return printFindings(Err, Findings);
}

void scheduleTimeNotes(const PipelineResult &P, bool Json, std::ostream &Err) {
  if (Json)
    return;
  for (const ColoredScheduleReport &C : P.Colored)
    if (C.Hmm)
      Err << fmt::format("{}:{}:{}: note: {}\n", C.Loc.File, C.Loc.Line, C.Loc.Col, scheduleCostNote(C));
}

} // namespace bankwise::report
