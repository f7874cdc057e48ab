#include "report/AnalysisPages.h"

#include "report/SiteFigures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise::report {

namespace {

std::string accessText(bool IsAtomic, ir::AtomicOp Op, bool IsWrite) {
  return IsAtomic ? std::string(ir::spelling(Op)) : IsWrite ? "write" : "read";
}

/// The layout's name as the reports print it: "raw", "pad(1)", ...
std::string layoutName(const ir::Program &P, const ir::Kernel &K, const std::string &Name) {
  const ir::Array *A = P.findArray(K, Name);
  if (!A)
    return "raw";
  return A->Lay.Kind == ir::LayoutKind::Auto ? "auto, as raw" : A->Lay.str();
}

} // namespace

std::string locationText(const SourceLoc &L) {
  if (L.Line == 0)
    return L.File;
  return fmt::format("{}:{}:{}", L.File, L.Line, L.Col);
}

Site analyzedSite(const AccessSiteReport &S, const ir::Program *Written, const ir::Kernel *WrittenK,
                  const AccessSiteReport *Before, const SiteDrawings *Drawn, std::string Id) {
  Site X;
  X.Id = std::move(Id);
  const bool Shared = S.Space == ir::MemSpace::Shared;
  X.Heading = fmt::format("{}: {} {} of '{}' ({}), {} warp execution{}", locationText(S.Loc),
                          ir::spelling(S.Space), accessText(S.IsAtomic, S.Op, S.IsWrite), S.Array, S.Layout,
                          S.WarpExecutions, S.WarpExecutions == 1 ? "" : "s");
  X.Source = sourceExcerpt(S.Loc);
  if (S.DataDependent) {
    X.Figures.push_back(fmt::format("data-dependent: the index reads '{}'; worst congestion {}, expected {:.3g} for "
                                    "random indices",
                                    S.DataSource, S.WorstCongestion, S.ExpectedRapCongestion));
  } else {
    X.Figures.push_back(fmt::format("DMM congestion {}; UMM groups {}", S.Congestion.str(), S.Groups.str()));
    X.Figures.push_back(Shared ? "sm_90 wavefronts " + S.Wavefronts.str()
                               : "sm_90 sectors " + S.Sectors.str() + ", lines " + S.Lines.str());
    if (S.IsAtomic)
      X.Figures.push_back("same-address serialization " + S.Serialization.str());
    if (Before) {
      const CostStats &Was = Shared ? Before->Wavefronts : Before->Sectors;
      X.Figures.push_back(fmt::format("as written ({}): {} {}", Before->Layout, Shared ? "wavefronts" : "sectors",
                                      Was.str()));
    }
  }
  if (S.DataGuarded)
    X.Notes.push_back(fmt::format("data-dependent branch on '{}': every lane that reaches the access is counted",
                                  S.GuardSource));
  const CostStats &Cost = Shared ? S.Wavefronts : S.Sectors;
  const bool Exact = !S.DataDependent && !S.DataGuarded && Cost.Count > 0;
  if (Exact)
    X.Costs = countsHistogram(Cost.Counts, Shared, false, "");
  if (!S.Node.Read || !Drawn) {
    X.Notes.push_back("this site is not in the program's IR (a generated pass): no warp drawn");
    return X;
  }
  std::vector<NamedDrawing> Compare;
  if (Drawn->AsWritten && Written && WrittenK) {
    Compare.push_back({"as written: " + layoutName(*Written, *WrittenK, S.Array), *Drawn->AsWritten});
    Compare.push_back({"transformed: " + S.Layout, Drawn->Now});
  } else {
    Compare.push_back({"layout " + S.Layout + " (not changed by the transformation)", Drawn->Now});
  }
  addLaneFigures(X, Drawn->Lanes, {S.Layout, Drawn->Now}, Compare,
                 Exact ? std::optional<std::int64_t>(Cost.Max) : std::nullopt);
  return X;
}

Site allSizesSite(const AllSizesSite &S, const ir::Bindings &At, const SiteDrawings *Drawn, std::string Id) {
  Site X;
  X.Id = std::move(Id);
  const bool Shared = S.Space == ir::MemSpace::Shared;
  X.Heading = fmt::format("{}: {} {} of '{}' ({})", locationText(S.Loc), ir::spelling(S.Space),
                          accessText(S.IsAtomic, S.Op, S.IsWrite), S.Array, S.Layout);
  X.Source = sourceExcerpt(S.Loc);
  if (S.DataDependent) {
    X.Figures.push_back("data-dependent: give the runtime sizes with -D and the data with --data");
  } else {
    X.Figures.push_back(fmt::format("DMM congestion {}", S.Congestion.str()));
    X.Figures.push_back(fmt::format("UMM groups {}", S.Groups.str()));
    X.Figures.push_back(Shared ? "sm_90 wavefronts " + S.Wavefronts.str()
                               : fmt::format("sm_90 sectors {}; lines {}", S.Sectors.str(), S.Lines.str()));
  }
  std::vector<std::string> Sizes;
  for (const auto &[Name, Value] : At)
    Sizes.push_back(fmt::format("{} = {}", Name, Value));
  X.Notes.push_back(fmt::format("the figures above hold {}; the warps drawn are at {}",
                                S.Sampled ? "at the sizes tried (sampled: the kernel's method line names them)"
                                          : "for every size",
                                fmt::join(Sizes, ", ")));
  if (!S.DataDependent)
    X.Costs = countsHistogram(S.WorstBySize, Shared, true, S.BySizeOf);
  if (!Drawn) {
    X.Notes.push_back("no warp drawn: the site was not found in the program at those sizes");
    return X;
  }
  addLaneFigures(X, Drawn->Lanes, {S.Layout, Drawn->Now}, {{"layout " + S.Layout, Drawn->Now}}, std::nullopt);
  return X;
}

Site lintedSite(const LintSite &S, std::string Id) {
  Site X;
  X.Id = std::move(Id);
  const bool Shared = S.Space == ir::MemSpace::Shared;
  X.Heading = fmt::format("{}: {} {} of '{}'", locationText(S.Loc), ir::spelling(S.Space),
                          S.IsAtomic ? "atomic" : S.IsWrite ? "store" : "load", S.Source);
  X.Source = sourceExcerpt(S.Loc);
  if (S.DataDependent)
    X.Figures.push_back(fmt::format("data-dependent: the index reads '{}'", S.DataSource));
  else if (Shared)
    X.Figures.push_back("sm_90 wavefronts " + S.Wavefronts.str());
  else
    X.Figures.push_back(fmt::format("sm_90 sectors {}; lines {}", S.Sectors.str(), S.Lines.str()));
  if (S.LaneStrideWords)
    X.Figures.push_back(fmt::format("lanes {:g} words apart", *S.LaneStrideWords));
  for (const FixFigure &F : S.Fixes)
    X.Figures.push_back(fmt::format("fix: {}: wavefronts {}", F.Fix, F.Wavefronts.str()));
  if (!S.Domain.empty())
    X.Notes.push_back(fmt::format("figures over every size with {}; the warps drawn at representative sizes",
                                  S.Domain));
  if (S.UncertainMask)
    X.Notes.push_back("the figures assume every lane active (a condition the lint could not evaluate)");
  if (!S.DataDependent)
    X.Costs = countsHistogram(S.Costs, Shared, !S.Domain.empty(), S.CostsOf);
  if (S.Lanes.Shape.empty() || S.Drawings.size() != 1 + S.Fixes.size()) {
    X.Notes.push_back("no warp drawn: the site's lanes were not walked");
    return X;
  }
  std::vector<NamedDrawing> Compare = {{"as written: " + S.Lanes.Layout.str(), S.Drawings[0]}};
  for (std::size_t I = 0; I < S.Fixes.size(); ++I)
    Compare.push_back({"fix: " + S.Fixes[I].Fix, S.Drawings[I + 1]});
  const SizeRange &Cost = Shared ? S.Wavefronts : S.Sectors;
  addLaneFigures(X, S.Lanes, {"the layout as written", S.Drawings[0]}, Compare,
                 S.Domain.empty() && Cost.Any && !S.DataDependent ? std::optional<std::int64_t>(Cost.Max)
                                                                  : std::nullopt);
  return X;
}

} // namespace bankwise::report
