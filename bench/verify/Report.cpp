#include "Report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace bankwise::verify {

bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream S;
  S << In.rdbuf();
  Out = S.str();
  return true;
}

namespace {

std::string num(double V) {
  if (std::isnan(V))
    return "–";
  if (std::fabs(V) < 1e15 && std::fabs(V - std::round(V)) <= 1e-6 * std::max(1.0, std::fabs(V)))
    return fmt::format("{}", static_cast<long long>(std::round(V)));
  return fmt::format("{:.4g}", V);
}

nlohmann::json jnum(double V) { return std::isnan(V) ? nlohmann::json(nullptr) : nlohmann::json(V); }

std::string cell(std::string S) {
  std::string O;
  for (char C : S)
    O += C == '|' ? std::string("\\|") : std::string(1, C);
  return O;
}

std::string predictedCell(const GroupResult &G) {
  if (G.Sites.empty())
    return "–";
  if (std::isnan(G.PredictedTotal))
    return "–";
  std::string S = num(G.predictedPerRequest());
  if (G.Sites.size() == 1 && !G.Uniform)
    S += fmt::format(" ({}..{})", num(G.Sites[0].Min), num(G.Sites[0].Max));
  return S;
}

} // namespace

nlohmann::json toJson(const GroupResult &G) {
  nlohmann::json Sites = nlohmann::json::array();
  for (const auto &S : G.Sites)
    Sites.push_back({{"location", S.Location},
                     {"array", S.Array},
                     {"access", S.Access},
                     {"space", S.Space},
                     {"layout", S.Layout},
                     {"added_by_codegen", S.AddedByCodegen},
                     {"data_dependent", S.DataDependent},
                     {"exact", S.exact()},
                     {"predicted", S.HasPrediction ? nlohmann::json{{"min", S.Min}, {"max", S.Max}, {"mean", S.Mean}}
                                                   : nlohmann::json(nullptr)},
                     {"warp_executions", S.WarpExecutions}});
  return {{"kernel", G.Kernel},
          {"cu_lines", {G.FirstLine, G.LastLine}},
          {"space", spaceName(G.AddressSpace)},
          {"operation", opName(G.Operation)},
          {"unit", G.AddressSpace == Space::Shared ? "wavefronts per instruction" : "sectors per request"},
          {"group", G.isGroup()},
          {"sites", Sites},
          {"exact", G.Exact},
          {"predicted", jnum(G.Sites.empty() ? NAN : G.predictedPerRequest())},
          {"predicted_total", jnum(G.Sites.empty() ? NAN : G.PredictedTotal)},
          {"predicted_executions", G.PredictedExecutions},
          {"measured", jnum(G.measuredPerRequest())},
          {"measured_total", G.Measured ? nlohmann::json(G.MeasuredTotal) : nlohmann::json(nullptr)},
          {"measured_executions", G.Measured ? nlohmann::json(G.MeasuredExecutions) : nlohmann::json(nullptr)},
          {"measured_instructions", G.MeasuredInstructions},
          {"l1_tag_requests", G.Measured ? nlohmann::json(G.MeasuredTagRequests) : nlohmann::json(nullptr)},
          {"sass", G.Sass},
          {"match", verdictName(G.V)},
          {"note", G.Note}};
}

std::vector<KernelResult> verifySample(const std::string &Dir, const std::string &Sample,
                                       std::vector<std::string> *Errors) {
  auto Error = [&](std::string E) {
    if (Errors)
      Errors->push_back(std::move(E));
  };
  std::string ReportText, CuText, CsvText;
  if (!readFile(Dir + "/" + Sample + ".report.json", ReportText))
    throw std::runtime_error(Sample + ".report.json is missing (bankwise compile failed?)");
  nlohmann::json Report;
  try {
    Report = nlohmann::json::parse(ReportText);
  } catch (const std::exception &E) {
    throw std::runtime_error(Sample + ".report.json: " + E.what());
  }
  const auto Kernels = readReport(Report);
  CuMarkers Cu;
  if (readFile(Dir + "/" + Sample + ".cu", CuText))
    Cu = parseCuMarkers(CuText);
  else
    Error(Sample + ".cu is missing: no site can be located");
  for (const auto &W : Cu.Warnings)
    Error(Sample + ".cu: " + W);
  NcuSource Ncu;
  bool HaveNcu = false;
  if (readFile(Dir + "/" + Sample + ".cuda-sass.csv", CsvText)) {
    try {
      Ncu = parseNcuSource(CsvText);
      HaveNcu = true;
    } catch (const NcuSourceError &E) {
      Error(Sample + ".cuda-sass.csv: " + E.what());
    }
  } else
    Error(Sample + ".cuda-sass.csv is missing: no measured counters");
  std::vector<KernelResult> Out;
  for (const auto &K : Kernels) {
    const FunctionSource *F = HaveNcu ? Ncu.find(K.Name) : nullptr;
    if (HaveNcu && !F)
      Error(fmt::format("{}: ncu's source page has no function '{}'", Sample, K.Name));
    const auto Sections = std::count_if(Ncu.Functions.begin(), Ncu.Functions.end(),
                                        [&](const FunctionSource &Fn) { return Fn.Name == K.Name; });
    if (Sections > 1)
      Error(fmt::format("{}: '{}' has {} sections on ncu's source page (profiled more than once?); the first is used",
                        Sample, K.Name, Sections));
    Out.push_back(matchKernel(K, Cu, F));
  }
  return Out;
}

ReportOutput buildReport(const ReportInput &In) {
  ReportOutput Out;
  nlohmann::json &J = Out.Json;
  J = {{"gpu", In.Gpu}, {"driver", In.Driver}, {"date", In.Date}, {"samples", nlohmann::json::array()}};
  std::ostringstream Kt, St, Notes;
  Kt << "| sample | kernel | correct | median ms | GB/s | exact sites matched |\n|---|---|---|---|---|---|\n";
  St << "| sample | kernel | site (.bw) | array | access | space | predicted | measured | total (pred / meas) "
        "| warp executions (pred / meas) | match | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string &S : In.Samples) {
    nlohmann::json JS = {{"sample", S}, {"kernels", nlohmann::json::array()}, {"notes", nlohmann::json::array()}};
    // The harness's verdict (full-size run).
    nlohmann::json Run;
    std::string RunText;
    if (readFile(In.Dir + "/" + S + ".run.json", RunText))
      if (auto P = RunText.rfind("{\"program\""); P != std::string::npos) {
        try {
          const auto E = RunText.find('\n', P);
          Run = nlohmann::json::parse(RunText.substr(P, E == std::string::npos ? std::string::npos : E - P));
        } catch (const std::exception &) {
        }
      }
    std::vector<std::string> Errors;
    // Runtime sizes: the predictions hold at "predicted_at" only, so the harness line and the
    // profiled launch (its line in S.prof.log) must be at those sizes.
    nlohmann::json PredictedAt;
    std::string Text;
    if (readFile(In.Dir + "/" + S + ".report.json", Text))
      try {
        PredictedAt = nlohmann::json::parse(Text).value("predicted_at", nlohmann::json());
      } catch (const std::exception &) {
      }
    const bool Sized = PredictedAt.is_object() && !PredictedAt.empty();
    std::string SizesLabel;
    if (Sized) {
      JS["sizes"] = PredictedAt;
      for (const auto &[K, V] : PredictedAt.items())
        SizesLabel += fmt::format("{}{} = {}", SizesLabel.empty() ? "" : ", ", K, V.dump());
      auto CheckSizes = [&](const nlohmann::json &Line, const std::string &What) {
        if (!Line.is_object() || !Line.contains("sizes"))
          return;
        if (Line["sizes"] != PredictedAt) {
          ++Out.SizeMismatches;
          Errors.push_back(fmt::format("the {} ran at {}, the predictions are for {}", What, Line["sizes"].dump(),
                                       PredictedAt.dump()));
        }
      };
      CheckSizes(Run, "harness");
      if (readFile(In.Dir + "/" + S + ".prof.log", Text))
        if (auto P = Text.rfind("{\"program\""); P != std::string::npos)
          try {
            const auto E = Text.find('\n', P);
            CheckSizes(nlohmann::json::parse(Text.substr(P, E == std::string::npos ? std::string::npos : E - P)),
                       "profiled launch");
          } catch (const std::exception &) {
          }
      ++Out.SizedLaunches;
    }
    std::vector<KernelResult> Results;
    try {
      Results = verifySample(In.Dir, S, &Errors);
    } catch (const std::exception &E) {
      JS["error"] = E.what();
      Out.AllCorrect = false;
      Kt << "| " << S << " | – | **" << cell(E.what()) << "** | | | |\n";
    }
    if (Run.is_null() && !JS.contains("error")) {
      Errors.push_back("the harness did not print its result; see " + S + ".run.log");
    }
    for (const auto &K : Results) {
      // The harness reports program kernels: the passes of a schedule share their kernel's line
      // (correctness of the whole, time of all passes together).
      nlohmann::json KR;
      if (Run.is_object())
        for (const std::string &Name : {K.Name, K.ProgramKernel})
          for (const auto &R : Run.value("kernels", nlohmann::json::array()))
            if (KR.is_null() && R.value("kernel", "") == Name)
              KR = R;
      const std::string Label =
          K.ProgramKernel == K.Name ? K.Name : fmt::format("{} (pass of {})", K.Name, K.ProgramKernel);
      const bool Correct = KR.is_object() && KR.value("correct", false);
      if (!Correct)
        Out.AllCorrect = false;
      const int Ex = K.exactSites(), Mt = K.exactSitesMatched();
      Out.ExactSites += Ex;
      Out.ExactMatched += Mt;
      if (Sized) {
        Out.SizedExact += Ex;
        Out.SizedMatched += Mt;
      }
      Out.ExactFailed += K.exactSitesFailed();
      Out.Removed += K.removedSites();
      nlohmann::json JK = {{"kernel", K.Name},
                           {"program_kernel", K.ProgramKernel},
                           {"correct", KR.is_object() ? KR["correct"] : nlohmann::json(nullptr)},
                           {"median_ms", KR.is_object() ? KR["median_ms"] : nlohmann::json(nullptr)},
                           {"gbps", KR.is_object() ? KR["gbps"] : nlohmann::json(nullptr)},
                           {"profiled", K.Profiled},
                           {"exact_sites", Ex},
                           {"exact_sites_matched", Mt},
                           {"groups", nlohmann::json::array()},
                           {"notes", K.Notes}};
      Kt << "| " << S << (Sized && S.find('@') == std::string::npos ? " (at " + SizesLabel + ")" : "") << " | " << Label << " | "
         << (KR.is_null() ? "no result" : Correct ? "yes" : "**no**") << " | "
         << (KR.is_null() ? "–" : num(KR.value("median_ms", NAN))) << " | "
         << (KR.is_null() ? "–" : num(KR.value("gbps", NAN))) << " | " << Mt << " / " << Ex
         << (K.Profiled ? "" : " (not profiled)") << " |\n";
      for (const auto &G : K.Groups) {
        JK["groups"].push_back(toJson(G));
        if (G.V == Verdict::NotExact)
          Out.NotExact += static_cast<int>(G.Sites.size());
        for (const auto &Site : G.Sites)
          if (Site.exact()) {
            Out.Uniform += Site.uniform();
            Out.InGroups += G.isGroup();
          }
        std::string Where, Arrays, Access;
        for (const auto &Site : G.Sites) {
          Where += (Where.empty() ? "" : ", ") + (Site.AddedByCodegen ? Site.Key : Site.Key);
          Arrays += (Arrays.empty() ? "" : ", ") + Site.Array;
          if (Access.find(Site.Access) == std::string::npos)
            Access += (Access.empty() ? "" : ", ") + Site.Access;
        }
        if (G.isGroup())
          Where = fmt::format("group of {}: {}", G.Sites.size(), Where);
        if (G.Sites.empty()) {
          Where = fmt::format("(none; .cu line {})", G.FirstLine);
          Arrays = "–";
          Access = opName(G.Operation);
        }
        const std::string Unit = G.AddressSpace == Space::Shared ? " wf/inst" : G.AddressSpace == Space::Global ? " sect/req" : "";
        const std::string Match = G.V == Verdict::Mismatch || G.V == Verdict::NotFound ? fmt::format("**{}**", verdictName(G.V))
                                                                                       : verdictName(G.V);
        St << "| " << S << " | " << K.Name << " | " << cell(Where) << " | " << cell(Arrays) << " | " << Access << " | "
           << spaceName(G.AddressSpace) << " | " << predictedCell(G) << (G.Sites.empty() || std::isnan(G.PredictedTotal) ? "" : Unit) << " | "
           << num(G.measuredPerRequest()) << (G.Measured && G.MeasuredExecutions > 0 ? Unit : "") << " | "
           << (G.Sites.empty() ? "–" : num(G.PredictedTotal)) << " / " << (G.Measured ? num(G.MeasuredTotal) : "–")
           << " | " << (G.Sites.empty() ? "–" : num(G.PredictedExecutions)) << " / "
           << (G.Measured ? num(G.MeasuredExecutions) : "–") << " | " << Match << " | " << cell(G.Note) << " |\n";
      }
      for (const auto &N : K.Notes)
        Notes << "- " << S << " / " << K.Name << ": " << N << "\n";
      JS["kernels"].push_back(JK);
    }
    for (const auto &E : Errors) {
      JS["notes"].push_back(E);
      Notes << "- " << S << ": " << E << "\n";
    }
    J["samples"].push_back(JS);
  }
  J["all_correct"] = Out.AllCorrect;
  J["exact_sites"] = Out.ExactSites;
  J["exact_sites_matched"] = Out.ExactMatched;
  J["exact_sites_failed"] = Out.ExactFailed;
  J["removed_by_nvcc"] = Out.Removed;
  J["runtime_sized_launches"] = Out.SizedLaunches;
  J["runtime_sized_exact_sites"] = Out.SizedExact;
  J["runtime_sized_exact_sites_matched"] = Out.SizedMatched;
  J["size_mismatches"] = Out.SizeMismatches;
  J["ok"] = Out.ok();

  std::ostringstream Md;
  Md << "# gpu-verify\n\n"
     << "GPU: " << In.Gpu << "; driver " << In.Driver << "; " << In.Date << ".\n\n"
     << "`bench/gpu-verify.sh`: every sample compiled by `bankwise compile --harness`, run (every output element "
        "checked against the CPU reference; median of 21 timed runs after 3 warm-ups), and profiled once on a "
        "small launch with `ncu --clock-control none --section SourceCounters` (nvcc `-lineinfo`). Each SASS "
        "memory instruction is attributed to the CUDA line ncu lists it under, and each CUDA statement to the "
        ".bw access sites whose markers codegen wrote above it (`bench/verify/`). Measured per site: shared "
        "wavefronts (`L1 Wavefronts Shared`, summed over a kernel the "
        "`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum` of HARDWARE.md) and global sectors (`L2 "
        "Theoretical Sectors Global`, summed the `l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum`), per "
        "executed instruction (`Instructions Executed`, which also counts executions with every lane predicated "
        "off). A site is exact when it is not data-dependent (`docs/analysis.md`: every other figure is computed "
        "over every warp execution); an exact site matches when its measured total equals the predicted mean "
        "times its warp executions (per request where the model's warps are not 32 lanes wide). Sites of one "
        "statement with the same space and operation share their instructions and are compared as a group, "
        "the sum of their predictions weighted by warp executions.\n\n"
     << "**Exact sites matched: " << Out.ExactMatched << " of " << Out.ExactSites << "** (" << Out.Uniform
     << " of them uniform, min == max; " << Out.InGroups << " compared within a group); " << Out.Removed
     << " site(s) removed by nvcc; " << Out.NotExact << " not exact. All kernels correct: "
     << (Out.AllCorrect ? "yes" : "**no**") << ".\n\n";
  if (Out.SizedLaunches > 0)
    Md << "Runtime sizes: " << Out.SizedLaunches
       << " profiled launches of runtime-sized samples (one binary per sample; `S@R=..,C=..` is the binary run and "
          "profiled at those sizes, compared with `bankwise compile --size ... --report` at the same sizes), "
          "**exact sites matched "
       << Out.SizedMatched << " of " << Out.SizedExact << "**"
       << (Out.SizeMismatches ? fmt::format("; **{} run(s) at other sizes than predicted**", Out.SizeMismatches) : "")
       << ".\n\n";
  Md << "## Kernels\n\n"
     << Kt.str() << "\n## Access sites\n\n"
     << "Predicted and measured figures are per warp request (instruction): wavefronts for shared memory, "
        "32-byte sectors for global memory; a range (min..max) follows a prediction that varies across warp "
        "executions. \"no site\" rows are memory instructions no access site predicts.\n\n"
     << St.str();
  if (!Notes.str().empty())
    Md << "\n## Notes\n\n" << Notes.str();
  Out.Markdown = Md.str();
  return Out;
}

} // namespace bankwise::verify
