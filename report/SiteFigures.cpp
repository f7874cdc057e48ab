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

BankMap warpBankMap(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout, std::string Caption) {
  BankMap M;
  M.Caption = std::move(Caption);
  M.Shared = S.Shared;
  M.ElemBytes = S.ElemBytes;
  M.CostName = costName(S);
  const std::vector<Address> A = laneAddresses(S, W, Layout);
  for (std::size_t L = 0; L < 32; ++L)
    M.ByteAddrs[L] = W.Elems[L] == UnknownElement ? -2 : A[L] == NoAccess ? -1 : A[L] * S.ElemBytes;
  M.Cost = warpCost(S, W, Layout);
  return M;
}

std::optional<Histogram> costHistogram(const SiteLanes &S, const LayoutFn &Layout) {
  if (S.Executions.empty())
    return std::nullopt;
  std::map<std::int64_t, std::int64_t> Count;
  for (const WarpLanes &W : S.Executions)
    ++Count[warpCost(S, W, Layout)];
  Histogram H;
  H.Bars.assign(Count.begin(), Count.end());
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

ElementGrid elementGrid(const SiteLanes &S, const LayoutFn &Layout, std::string Caption) {
  ElementGrid G;
  G.Caption = std::move(Caption);
  if (S.Shape.empty())
    return G;
  const bool OneDim = S.Shape.size() == 1;
  std::int64_t Rows = 1;
  for (std::size_t D = 0; D + 1 < S.Shape.size(); ++D)
    Rows *= S.Shape[D];
  const std::int64_t Inner = S.Shape.back();
  G.Cols = std::min<std::int64_t>(Inner, 32);
  const std::int64_t ShownRows = OneDim ? std::min<std::int64_t>((Inner + 31) / 32, 4) : std::min<std::int64_t>(Rows, 8);
  std::vector<std::int64_t> Index(S.Shape.size());
  for (std::int64_t R = 0; R < ShownRows; ++R)
    for (std::int64_t J = 0; J < G.Cols; ++J) {
      std::int64_t Flat = OneDim ? R * 32 + J : R * Inner + J;
      if (OneDim && Flat >= Inner) {
        G.Banks.push_back(-1);
        continue;
      }
      for (std::size_t D = S.Shape.size(); D-- > 0;) {
        Index[D] = Flat % S.Shape[D];
        Flat /= S.Shape[D];
      }
      G.Banks.push_back(Layout.map(Index) * S.ElemBytes / 4 % 32);
    }
  return G;
}

void addLaneFigures(Site &X, const SiteLanes &S, const NamedLayout &Now, const std::vector<NamedLayout> &Compare,
                    std::optional<std::int64_t> AnalysisMax) {
  const std::optional<std::size_t> Worst = worstExecution(S, Now.Fn);
  if (!Worst) {
    X.Notes.push_back("no warp execution of this site was sampled (the walk of block 0 and the last block did not "
                      "reach it, or its condition reads data): no bank map");
    return;
  }
  const WarpLanes &W = S.Executions[*Worst];
  const BankMap M = warpBankMap(
      S, W, Now.Fn,
      fmt::format("the worst warp sampled under {}: block {}, warp {}, execution {} of each lane; {} {}", Now.Name,
                  blockText(W.Block), W.Warp, W.Trip + 1, warpCost(S, W, Now.Fn), costName(S)));
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
    X.Costs = costHistogram(S, Now.Fn);
  for (const NamedLayout &L : Compare) {
    LayoutPanel P;
    P.Name = L.Name;
    if (const std::optional<std::size_t> LW = worstExecution(S, L.Fn)) {
      const WarpLanes &V = S.Executions[*LW];
      P.Map = warpBankMap(S, V, L.Fn,
                          fmt::format("{}: worst warp sampled (block {}, warp {}, execution {}): {} {}", L.Name,
                                      blockText(V.Block), V.Warp, V.Trip + 1, warpCost(S, V, L.Fn), costName(S)));
      X.Rank = std::max(X.Rank, P.Map->Cost - idealCost(S));
    }
    if (S.Shared)
      P.Grid = elementGrid(S, L.Fn, fmt::format("{}: the bank of each element of the first rows", L.Name));
    X.Layouts.push_back(std::move(P));
  }
}

} // namespace bankwise::report
