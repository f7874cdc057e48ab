#include "report/LintReport.h"

#include "report/AnalysisPages.h"
#include "report/HtmlReport.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace bankwise::report {

namespace {

const char *severityName(Severity S) {
  return S == Severity::Error ? "error" : S == Severity::Warning ? "warning" : "note";
}

} // namespace

/// The template a kernel is an instantiation of ("reduce" of
/// "reduce<256>"), or "" for a kernel that is not one.
std::string templateOf(const std::string &Display) {
  const std::size_t Open = Display.find('<');
  return Open == std::string::npos || Open == 0 ? std::string() : Display.substr(0, Open);
}

/// A finding's message as reported: an unanalyzed note of several
/// instantiations of one template says how many.
std::string shownMessage(const FileFinding &F) {
  if (F.F.Check != "bankwise-unanalyzed" || F.Kernels.size() < 2)
    return F.F.Message;
  const std::string Template = templateOf(F.Kernels.front());
  if (Template.empty() ||
      !std::all_of(F.Kernels.begin(), F.Kernels.end(), [&](const std::string &K) { return templateOf(K) == Template; }))
    return F.F.Message;
  return fmt::format("{} (in {} instantiations)", F.F.Message, F.Kernels.size());
}

namespace {

/// The text of line N (1-based) of File; empty when unreadable.
std::string sourceLine(const std::string &File, int N, std::map<std::string, std::vector<std::string>> &Cache) {
  auto It = Cache.find(File);
  if (It == Cache.end()) {
    std::vector<std::string> Lines;
    std::ifstream In(File);
    std::string S;
    while (std::getline(In, S))
      Lines.push_back(S);
    It = Cache.emplace(File, std::move(Lines)).first;
  }
  return N >= 1 && static_cast<std::size_t>(N) <= It->second.size() ? It->second[static_cast<std::size_t>(N - 1)]
                                                                     : "";
}

} // namespace

std::string lintText(const std::vector<FileResult> &Results) {
  std::string Out;
  std::map<std::string, std::vector<std::string>> Cache;
  for (const FileResult &R : Results) {
    for (const FileFinding &F : R.Findings) {
      Out += fmt::format("{}: {}: {} [{}]\n", locationText(F.F.Loc), severityName(F.F.Sev), shownMessage(F), F.F.Check);
      const std::string Line = sourceLine(F.F.Loc.File, F.F.Loc.Line, Cache);
      if (!Line.empty() && F.F.Loc.Col > 0) {
        std::string Caret;
        for (int I = 1; I < F.F.Loc.Col && static_cast<std::size_t>(I) <= Line.size(); ++I)
          Caret += Line[static_cast<std::size_t>(I - 1)] == '\t' ? '\t' : ' ';
        Out += Line + "\n" + Caret + "^\n";
      }
      for (const LintFinding::Note &N : F.F.Notes)
        Out += fmt::format("{}: note: {}\n", locationText(N.Loc), N.Message);
      if (F.Kernels.size() > 1)
        Out += fmt::format("{}: note: in kernels {}\n", locationText(F.F.Loc), fmt::join(F.Kernels, ", "));
    }
    if (!R.FixSummary.empty())
      Out += R.FixSummary + "\n";
  }
  return Out;
}

namespace {

nlohmann::json rangeJson(const SizeRange &R) {
  if (!R.Any)
    return nullptr;
  return {{"min", R.Min}, {"max", R.Max}, {"max_when", R.MaxWhen}, {"min_when", R.MinWhen}};
}

} // namespace

nlohmann::json lintJson(const std::vector<FileResult> &Results) {
  nlohmann::json J;
  J["files"] = nlohmann::json::array();
  for (const FileResult &R : Results) {
    nlohmann::json JF = {{"file", R.File}, {"readable", R.Readable}};
    JF["kernels"] = nlohmann::json::array();
    for (const KernelResult &K : R.Kernels) {
      nlohmann::json JK = {{"name", K.Display}, {"ir_name", K.Name}, {"location", locationText(K.Loc)},
                           {"launch", K.Launch}, {"launch_from", K.LaunchFrom}, {"analyzed", K.Analyzed}};
      if (!K.Analyzed)
        JK["why"] = K.Why;
      if (!K.FiguresOf.empty())
        JK["figures_of"] = K.FiguresOf; // the same IR, analyzed once
      JK["sites"] = nlohmann::json::array();
      for (const LintSite &S : K.Sites) {
        nlohmann::json JS = {{"location", locationText(S.Loc)},
                             {"array", S.Source},
                             {"space", std::string(ir::spelling(S.Space))},
                             {"access", S.IsWrite ? "store" : "load"},
                             {"elem_bytes", S.ElemBytes},
                             {"data_dependent", S.DataDependent},
                             {"uncertain_mask", S.UncertainMask}};
        if (S.LaneStrideWords)
          JS["lane_stride_words"] = *S.LaneStrideWords;
        if (S.IsAtomic) {
          JS["atomic"] = true;
          if (!S.DataDependent)
            JS["same_address_serialization"] = rangeJson(S.Serialization);
        }
        if (S.Space == ir::MemSpace::Shared)
          JS["sm90_wavefronts"] = rangeJson(S.Wavefronts);
        else {
          JS["sm90_sectors"] = rangeJson(S.Sectors);
          JS["sm90_lines"] = rangeJson(S.Lines);
        }
        if (S.Requests >= 0) { // fixed sizes: what a profiler sums over the launch
          JS["requests"] = S.Requests;
          if (S.Space == ir::MemSpace::Shared)
            JS["sm90_wavefronts_total"] = S.WavefrontsTotal;
          else
            JS["sm90_sectors_total"] = S.SectorsTotal;
        }
        for (const FixFigure &X : S.Fixes)
          JS["fixes"].push_back({{"fix", X.Fix}, {"layout", X.Layout.str()}, {"sm90_wavefronts", rangeJson(X.Wavefronts)}});
        JK["sites"].push_back(JS);
      }
      JF["kernels"].push_back(JK);
    }
    JF["diagnostics"] = nlohmann::json::array();
    for (const FileFinding &F : R.Findings) {
      nlohmann::json JD = {{"check", F.F.Check},      {"severity", severityName(F.F.Sev)},
                           {"location", locationText(F.F.Loc)}, {"file", F.F.Loc.File},
                           {"line", F.F.Loc.Line},     {"column", F.F.Loc.Col},
                           {"message", shownMessage(F)}, {"kernels", F.Kernels}};
      JD["notes"] = nlohmann::json::array();
      for (const LintFinding::Note &N : F.F.Notes)
        JD["notes"].push_back({{"location", locationText(N.Loc)}, {"message", N.Message}});
      JF["diagnostics"].push_back(JD);
    }
    J["files"].push_back(JF);
  }
  return J;
}

namespace {

nlohmann::json sarifLocation(const SourceLoc &L) {
  nlohmann::json Region = {{"startLine", std::max(1, L.Line)}};
  if (L.Col > 0)
    Region["startColumn"] = L.Col;
  return {{"physicalLocation", {{"artifactLocation", {{"uri", L.File}}}, {"region", Region}}}};
}

} // namespace

/// SARIF 2.1.0 (OASIS): one run, the checks as rules, findings as results
/// with their notes as related locations.
nlohmann::json lintSarif(const std::vector<FileResult> &Results, std::string_view ToolVersion) {
  nlohmann::json Rules = nlohmann::json::array();
  std::vector<std::string> Ids;
  for (const CheckInfo &C : allChecks()) {
    Ids.push_back(C.Name);
    Rules.push_back({{"id", C.Name}, {"shortDescription", {{"text", C.Summary}}},
                     {"helpUri", "docs/lint.md"}});
  }
  for (const auto &[Extra, Text] : {std::pair<const char *, const char *>{"bankwise-unanalyzed",
                                                                          "code the lint could not analyze"},
                                     {"bankwise-vector-merge",
                                      "accesses nvcc -O3 merges into vector ones, priced so (--as-written: not)"},
                                     {"clang-diagnostic-error", "errors Clang reported while parsing"}}) {
    Ids.push_back(Extra);
    Rules.push_back({{"id", Extra}, {"shortDescription", {{"text", Text}}}});
  }
  nlohmann::json Out = nlohmann::json::array();
  for (const FileResult &R : Results)
    for (const FileFinding &F : R.Findings) {
      const auto Id = std::find(Ids.begin(), Ids.end(), F.F.Check);
      nlohmann::json Res = {{"ruleId", F.F.Check},
                            {"ruleIndex", Id - Ids.begin()},
                            {"level", F.F.Sev == Severity::Error ? "error"
                                      : F.F.Sev == Severity::Warning ? "warning" : "note"},
                            {"message", {{"text", shownMessage(F)}}},
                            {"locations", nlohmann::json::array({sarifLocation(F.F.Loc)})}};
      int Id2 = 0;
      for (const LintFinding::Note &N : F.F.Notes) {
        nlohmann::json Rel = sarifLocation(N.Loc);
        Rel["id"] = Id2++;
        Rel["message"] = {{"text", N.Message}};
        Res["relatedLocations"].push_back(Rel);
      }
      Out.push_back(Res);
    }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           nlohmann::json::array({{{"tool",
                                    {{"driver",
                                      {{"name", "bankwise"},
                                       {"informationUri", "https://github.com/bankwise/bankwise"},
                                       {"version", ToolVersion},
                                       {"rules", Rules}}}}},
                                   {"results", Out}}})}};
}

/// The HTML report of --html: per file its findings, per kernel its sites
/// with their warps drawn (report/AnalysisPages.h).
std::string lintHtml(const std::vector<FileResult> &Results) {
  Document D;
  D.Title = "bankwise lint";
  std::size_t Next = 0; // site anchors
  for (const FileResult &R : Results) {
    Section F;
    F.Heading = R.File;
    if (!R.Readable)
      F.Lines.push_back("not readable");
    for (const FileFinding &X : R.Findings)
      F.Lines.push_back(fmt::format("{}: {}: {} [{}]", locationText(X.F.Loc), severityName(X.F.Sev), X.F.Message,
                                    X.F.Check));
    if (R.Findings.empty() && R.Readable)
      F.Lines.push_back("no findings");
    D.Sections.push_back(std::move(F));
    for (const KernelResult &K : R.Kernels) {
      Section S;
      S.Heading = fmt::format("kernel '{}' ({}) with {}", K.Display, locationText(K.Loc), K.Launch);
      if (!K.Analyzed)
        S.Lines.push_back("not analyzed: " + K.Why);
      for (const LintSite &X : K.Sites) {
        Site Site = lintedSite(X, fmt::format("site{}", Next++));
        for (const FileFinding &Y : R.Findings)
          if (Y.F.Loc.Line == X.Loc.Line && Y.F.Loc.Col == X.Loc.Col && Y.F.Loc.File == X.Loc.File)
            Site.Figures.insert(Site.Figures.begin(), fmt::format("{}: {} [{}]", severityName(Y.F.Sev),
                                                                  Y.F.Message, Y.F.Check));
        S.Sites.push_back(std::move(Site));
      }
      D.Sections.push_back(std::move(S));
    }
  }
  return renderHtml(D);
}

/// --timing: where one file's wall time went, the slowest kernels first.
std::string lintTiming(const FileResult &R) {
  std::vector<std::tuple<std::string, double, double>> K = R.KernelSeconds;
  double Analysis = 0;
  for (const auto &[Name, Figures, Checks] : K)
    Analysis += Figures + Checks;
  std::string Out = fmt::format("timing: {}: Clang {:.2f} s, lowering {:.2f} s, {} kernels {:.2f} s\n", R.File,
                                R.ClangSeconds, R.LowerSeconds, K.size(), Analysis);
  std::stable_sort(K.begin(), K.end(), [](const auto &A, const auto &B) {
    return std::get<1>(A) + std::get<2>(A) > std::get<1>(B) + std::get<2>(B);
  });
  for (std::size_t I = 0; I < K.size() && I < 10; ++I)
    Out += fmt::format("timing:   {:.2f} s figures, {:.2f} s checks: {}\n", std::get<1>(K[I]), std::get<2>(K[I]),
                       std::get<0>(K[I]));
  return Out;
}


} // namespace bankwise::report
