// König colourings through weighted cells (see detail/CellGraph.h).

#include "analysis/schedule/EdgeColoring.h"

#include "analysis/schedule/detail/CellGraph.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>

namespace bankwise {

using schedule_detail::CellGraph;

std::uint32_t regularDegree(std::uint32_t NumVertices,
                            std::span<const BipartiteEdge> Edges) {
  if (NumVertices == 0) {
    if (!Edges.empty())
      throw UserError("edge colouring: edges given on a graph of 0 vertices");
    return 0;
  }
  std::vector<std::uint64_t> DegL(NumVertices, 0), DegR(NumVertices, 0);
  for (std::size_t E = 0; E < Edges.size(); ++E) {
    const BipartiteEdge &X = Edges[E];
    if (X.Left >= NumVertices || X.Right >= NumVertices)
      throw UserError(fmt::format(
          "edge colouring: edge {} = ({}, {}) has an endpoint outside 0..{}", E,
          X.Left, X.Right, NumVertices - 1));
    ++DegL[X.Left];
    ++DegR[X.Right];
  }
  const std::uint64_t Delta = DegL[0];
  for (std::uint32_t V = 0; V < NumVertices; ++V)
    if (DegL[V] != Delta)
      throw UserError(fmt::format(
          "edge colouring: graph is not regular: left vertex {} has degree {} "
          "but left vertex 0 has degree {}",
          V, DegL[V], Delta));
  for (std::uint32_t V = 0; V < NumVertices; ++V) {
    if (DegR[V] != Delta)
      throw UserError(fmt::format(
          "edge colouring: graph is not regular: right vertex {} has degree {} "
          "but left vertex 0 has degree {}",
          V, DegR[V], Delta));
  }
  if (Delta > 0xFFFFFFFFull)
    throw UserError("edge colouring: degree beyond 2^32");
  return static_cast<std::uint32_t>(Delta);
}

std::vector<std::uint32_t>
factorRegularBipartite(std::uint32_t NumVertices,
                       std::span<const BipartiteEdge> Edges,
                       std::uint32_t NumFactors) {
  const std::uint32_t Delta = regularDegree(NumVertices, Edges);
  if (Delta == 0)
    return {};
  if (NumFactors == 0 || Delta % NumFactors != 0)
    throw UserError(fmt::format(
        "edge colouring: {} factors do not divide the degree {}", NumFactors,
        Delta));
  const std::size_t E = Edges.size();
  // Sort edges by (left, right, index) with two stable counting sorts, then
  // merge runs into cells.
  std::vector<std::uint32_t> Start(static_cast<std::size_t>(NumVertices) + 1);
  std::vector<std::uint32_t> ByRight(E), Order(E);
  for (const BipartiteEdge &X : Edges)
    ++Start[X.Right + 1];
  for (std::uint32_t V = 0; V < NumVertices; ++V)
    Start[V + 1] += Start[V];
  for (std::size_t I = 0; I < E; ++I)
    ByRight[Start[Edges[I].Right]++] = static_cast<std::uint32_t>(I);
  std::fill(Start.begin(), Start.end(), 0);
  for (const BipartiteEdge &X : Edges)
    ++Start[X.Left + 1];
  for (std::uint32_t V = 0; V < NumVertices; ++V)
    Start[V + 1] += Start[V];
  for (std::uint32_t I : ByRight)
    Order[Start[Edges[I].Left]++] = I;
  CellGraph G;
  std::vector<std::uint32_t> CellBegin; // index into Order of each cell
  for (std::size_t I = 0; I < E; ++I) {
    const BipartiteEdge &X = Edges[Order[I]];
    if (I == 0 || !(Edges[Order[I - 1]] == X)) {
      CellBegin.push_back(static_cast<std::uint32_t>(I));
      G.push(X.Left, X.Right, 0, static_cast<std::uint32_t>(G.size()));
    }
    ++G.W.back();
  }
  CellBegin.push_back(static_cast<std::uint32_t>(E));
  // Factors of each cell, listed at the cell's place in Order.
  std::vector<std::uint32_t> CellFactors(E), Fill(CellBegin.begin(),
                                                  CellBegin.end() - 1);
  schedule_detail::SplitScratch S;
  schedule_detail::factorizeCells(
      std::move(G), NumVertices, Delta, NumFactors, 0,
      [&](const CellGraph &Cells, std::uint32_t Factor) {
        for (std::size_t I = 0; I < Cells.size(); ++I)
          for (std::uint32_t K = 0; K < Cells.W[I]; ++K)
            CellFactors[Fill[Cells.Id[I]]++] = Factor;
      },
      S);
  // Within a cell, edges in index order take the cell's factors in
  // increasing order.
  std::vector<std::uint32_t> Result(E);
  for (std::size_t C = 0; C + 1 < CellBegin.size(); ++C) {
    std::sort(CellFactors.begin() + CellBegin[C],
              CellFactors.begin() + CellBegin[C + 1]);
    for (std::uint32_t I = CellBegin[C]; I < CellBegin[C + 1]; ++I)
      Result[Order[I]] = CellFactors[I];
  }
  return Result;
}

std::vector<std::uint32_t>
colorRegularBipartite(std::uint32_t NumVertices,
                      std::span<const BipartiteEdge> Edges) {
  const std::uint32_t Delta = regularDegree(NumVertices, Edges);
  if (Delta == 0)
    return {};
  return factorRegularBipartite(NumVertices, Edges, Delta);
}

ColoringCheck checkRegularFactorization(std::uint32_t NumVertices,
                                        std::span<const BipartiteEdge> Edges,
                                        std::span<const std::uint32_t> Factors,
                                        std::uint32_t NumFactors) {
  ColoringCheck R;
  auto Fail = [&](std::string Msg) {
    R.Ok = false;
    R.Problem = std::move(Msg);
    return R;
  };
  if (Factors.size() != Edges.size())
    return Fail(fmt::format("{} colours for {} edges", Factors.size(),
                            Edges.size()));
  if (NumVertices == 0)
    return Edges.empty() ? R : Fail("edges on a graph of 0 vertices");
  if (Edges.size() % NumVertices != 0)
    return Fail("edge count is not a multiple of the vertex count");
  const std::uint64_t Delta = Edges.size() / NumVertices;
  if (NumFactors == 0 || Delta % NumFactors != 0)
    return Fail(fmt::format("{} classes do not divide degree {}", NumFactors,
                            Delta));
  const std::uint64_t Per = Delta / NumFactors;
  std::vector<std::uint32_t> L(static_cast<std::size_t>(NumVertices) *
                               NumFactors),
      Rt(L.size());
  for (std::size_t E = 0; E < Edges.size(); ++E) {
    const BipartiteEdge &X = Edges[E];
    if (X.Left >= NumVertices || X.Right >= NumVertices)
      return Fail(fmt::format("edge {} has an endpoint out of range", E));
    if (Factors[E] >= NumFactors)
      return Fail(fmt::format("edge {} has class {} >= {}", E, Factors[E],
                              NumFactors));
    const std::size_t KL = std::size_t(X.Left) * NumFactors + Factors[E];
    const std::size_t KR = std::size_t(X.Right) * NumFactors + Factors[E];
    if (++L[KL] > Per)
      return Fail(fmt::format("left vertex {} meets class {} more than {} "
                              "time(s) (edge {})",
                              X.Left, Factors[E], Per, E));
    if (++Rt[KR] > Per)
      return Fail(fmt::format("right vertex {} meets class {} more than {} "
                              "time(s) (edge {})",
                              X.Right, Factors[E], Per, E));
  }
  // Counts cannot exceed Per and sum to Delta per vertex, so all equal Per.
  return R;
}

ColoringCheck checkEdgeColoring(std::uint32_t NumVertices,
                                std::span<const BipartiteEdge> Edges,
                                std::span<const std::uint32_t> Colors,
                                std::uint32_t NumColors) {
  if (NumVertices != 0 && static_cast<std::uint64_t>(NumColors) * NumVertices !=
                              Edges.size()) {
    ColoringCheck R;
    R.Ok = false;
    R.Problem = fmt::format("{} colours on {} vertices cannot be perfect "
                            "matchings covering {} edges",
                            NumColors, NumVertices, Edges.size());
    return R;
  }
  return checkRegularFactorization(NumVertices, Edges, Colors,
                                   NumColors == 0 ? 1 : NumColors);
}

} // namespace bankwise
