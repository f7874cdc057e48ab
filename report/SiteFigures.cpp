#include "report/SiteFigures.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace bankwise::report {

namespace {

std::string blockText(const std::array<std::int64_t, 3> &B) { return fmt::format("({}, {}, {})", B[0], B[1], B[2]); }

std::string costName(const SiteLanes &S) { return S.Shared ? "wavefronts" : "sectors"; }

/// The least cost of a warp of 32 active lanes: one wavefront per 128
/// bytes, or one sector per 32.
std::int64_t idealCost(const SiteLanes &S) {
  return std::max<std::int64_t>(1, 32 * S.ElemBytes / (S.Shared ? 128 : 32));
}

} // namespace

SourceExcerpt sourceExcerpt(const SourceLoc &Loc, int Around) {
  SourceExcerpt X;
  X.File = Loc.File;
  X.Line = Loc.Line;
  X.Col = Loc.Col;
  X.FirstLine = std::max(1, Loc.Line - Around);
  std::ifstream In(Loc.File);
  std::string Line;
  for (int N = 1; In && std::getline(In, Line) && N <= Loc.Line + Around; ++N)
    if (N >= X.FirstLine)
      X.Lines.push_back(Line);
  return X;
}

BankMap bankMap(const SiteLanes &S, const LaneDrawing &D, std::string Caption) {
  BankMap M;
  M.Caption = std::move(Caption);
  M.Shared = S.Shared;
  M.ElemBytes = S.ElemBytes;
  M.CostName = costName(S);
  M.ByteAddrs = D.ByteAddrs;
  M.Cost = D.Cost;
  return M;
}

std::optional<Histogram> costHistogram(const SiteLanes &S, const LaneDrawing &D) {
  if (D.Costs.empty())
    return std::nullopt;
  Histogram H;
  H.Bars = D.Costs;
  H.XLabel = fmt::format("sm_90 {} per warp", costName(S));
  H.YLabel = "warp executions";
  H.Caption = fmt::format("{} over the {} warp executions sampled ({})", costName(S), S.Executions.size(), S.Sample);
  return H;
}

std::optional<Histogram> countsHistogram(const CostCounts &Counts, bool Shared, bool BySize, const std::string &Of) {
  if (Counts.Bars.empty())
    return std::nullopt;
  const char *Cost = Shared ? "wavefronts" : "sectors";
  Histogram H;
  H.Bars = Counts.Bars;
  if (BySize) {
    H.XLabel = fmt::format("sm_90 {} of the worst warp", Cost);
    H.YLabel = "size classes";
    H.Caption = fmt::format("the worst warp's {} at each size: {}", Cost, Of);
  } else {
    H.XLabel = fmt::format("sm_90 {} per warp", Cost);
    H.YLabel = "warp executions";
    H.Caption = fmt::format("{} over all {} warp executions of the launch", Cost, Counts.total());
  }
  return H;
}

ElementGrid elementGrid(const LaneDrawing &D, std::string Caption) {
  ElementGrid G;
  G.Caption = std::move(Caption);
  G.Cols = D.GridCols;
  G.Banks = D.GridBanks;
  return G;
}

void addLaneFigures(Site &X, const SiteLanes &S, const NamedDrawing &Now, const std::vector<NamedDrawing> &Compare,
                    std::optional<std::int64_t> AnalysisMax) {
  if (!Now.D.Worst) {
    X.Notes.push_back("no warp execution of this site was sampled (the walk of block 0 and the last block did not "
                      "reach it, or its condition reads data): no bank map");
    return;
  }
  const WarpLanes &W = S.Executions[*Now.D.Worst];
  const BankMap M = bankMap(S, Now.D,
                            fmt::format("the worst warp sampled under {}: block {}, warp {}, execution {} of each "
                                        "lane; {} {}",
                                        Now.Name, blockText(W.Block), W.Warp, W.Trip + 1, Now.D.Cost, costName(S)));
  X.Worst = M;
  X.Rank = std::max(X.Rank, M.Cost - idealCost(S));
  if (AnalysisMax && *AnalysisMax > M.Cost)
    X.Notes.push_back(fmt::format("the analysis's worst warp over the whole launch costs {} {}; the worst in the "
                                  "sample drawn here costs {}",
                                  *AnalysisMax, costName(S), M.Cost));
  else if (AnalysisMax)
    X.Notes.push_back(fmt::format("the warp drawn reaches the analysis's worst over the whole launch ({} {})",
                                  *AnalysisMax, costName(S)));
  if (S.Unknown)
    X.Notes.push_back("some lanes' indices read data the walk does not know; they are drawn as 'index not known'");
  if (!X.Costs)
    X.Costs = costHistogram(S, Now.D);
  for (const NamedDrawing &L : Compare) {
    LayoutPanel P;
    P.Name = L.Name;
    if (L.D.Worst) {
      const WarpLanes &V = S.Executions[*L.D.Worst];
      P.Map = bankMap(S, L.D,
                      fmt::format("{}: worst warp sampled (block {}, warp {}, execution {}): {} {}", L.Name,
                                  blockText(V.Block), V.Warp, V.Trip + 1, L.D.Cost, costName(S)));
      X.Rank = std::max(X.Rank, P.Map->Cost - idealCost(S));
    }
    if (S.Shared)
      P.Grid = elementGrid(L.D, fmt::format("{}: the bank of each element of the first rows", L.Name));
    X.Layouts.push_back(std::move(P));
  }
}

} // namespace bankwise::report
