// Edge colouring of regular bipartite multigraphs (König's theorem, seed 000
// Thm 6.1 / seed 001 Thm 6 / seed 003 Thm 1): a Delta-regular bipartite
// multigraph splits into Delta perfect matchings.
//
//   Delta = 2^k:   k rounds of Euler partitions (pair the edges at every
//                  vertex, walk the closed trails, alternate halves);
//                  O(E log Delta).
//   Delta odd:     one perfect matching by Alon's method (N. Alon, "A simple
//                  algorithm for edge-coloring bipartite multigraphs", IPL 85,
//                  2003): add copies, Euler-split t = ceil(log2 E) times
//                  keeping the half with fewer added edges; O(E log E). The
//                  rest is (Delta-1)-regular, and Delta-1 is even.
//   Delta even:    Euler split into two (Delta/2)-regular halves, recurse.
//
// Parallel edges are merged into weighted cells first, so a multigraph costs
// its distinct (left, right) pairs at the top levels of the recursion.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bankwise {

/// One edge of a bipartite multigraph with NumVertices left and NumVertices
/// right vertices (0 .. NumVertices-1 on each side).
struct BipartiteEdge {
  std::uint32_t Left = 0;
  std::uint32_t Right = 0;
  bool operator==(const BipartiteEdge &) const = default;
};

/// Delta = E / NumVertices when every left and right vertex has degree Delta;
/// throws UserError naming the first vertex whose degree differs (or an
/// endpoint out of range). {(0,1),(1,0)} on 2 vertices -> 1.
std::uint32_t regularDegree(std::uint32_t NumVertices,
                            std::span<const BipartiteEdge> Edges);

/// König colouring: Colors[e] in [0, Delta) such that every colour class is a
/// perfect matching. Deterministic. K_{2,2} = {(0,0),(0,1),(1,0),(1,1)} ->
/// {0,1,1,0}. Throws UserError for non-regular input.
std::vector<std::uint32_t>
colorRegularBipartite(std::uint32_t NumVertices,
                      std::span<const BipartiteEdge> Edges);

/// Splits a Delta-regular multigraph into NumFactors spanning subgraphs, each
/// (Delta / NumFactors)-regular: Factors[e] in [0, NumFactors). NumFactors
/// must divide Delta (UserError otherwise). NumFactors = Delta is
/// colorRegularBipartite; NumFactors = 1 puts every edge in factor 0.
std::vector<std::uint32_t>
factorRegularBipartite(std::uint32_t NumVertices,
                       std::span<const BipartiteEdge> Edges,
                       std::uint32_t NumFactors);

/// Verdict of a checker: Ok, or the first problem found, in words.
struct ColoringCheck {
  bool Ok = true;
  std::string Problem;
  explicit operator bool() const { return Ok; }
};

/// Confirms Colors is a proper NumColors-edge-colouring in which every colour
/// class is a perfect matching: each vertex meets each colour exactly once.
ColoringCheck checkEdgeColoring(std::uint32_t NumVertices,
                                std::span<const BipartiteEdge> Edges,
                                std::span<const std::uint32_t> Colors,
                                std::uint32_t NumColors);

/// Confirms every factor class is a spanning (Delta / NumFactors)-regular
/// subgraph: each vertex meets each factor exactly Delta / NumFactors times.
ColoringCheck checkRegularFactorization(std::uint32_t NumVertices,
                                        std::span<const BipartiteEdge> Edges,
                                        std::span<const std::uint32_t> Factors,
                                        std::uint32_t NumFactors);

} // namespace bankwise
