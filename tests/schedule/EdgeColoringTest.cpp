// König colourings: every colour class of colorRegularBipartite is a perfect
// matching (checked by checkEdgeColoring) on random, adversarial and
// degenerate regular bipartite multigraphs; the checker itself rejects broken
// colourings; non-regular input is a UserError naming a vertex.

#include "analysis/schedule/EdgeColoring.h"
#include "support/Diagnostic.h"
#include "support/Random.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <numeric>
#include <string>

using namespace bankwise;

namespace {

/// Union of Delta random perfect matchings on V + V vertices.
std::vector<BipartiteEdge> randomRegular(std::uint32_t V, std::uint32_t Delta,
                                         std::uint64_t Seed) {
  Rng R(Seed);
  std::vector<BipartiteEdge> E;
  std::vector<std::uint32_t> Perm(V);
  for (std::uint32_t K = 0; K < Delta; ++K) {
    std::iota(Perm.begin(), Perm.end(), 0u);
    for (std::uint32_t I = V; I > 1; --I)
      std::swap(Perm[I - 1], Perm[R.below(I)]);
    for (std::uint32_t U = 0; U < V; ++U)
      E.push_back({U, Perm[U]});
  }
  // Shuffle the edge order too.
  for (std::size_t I = E.size(); I > 1; --I)
    std::swap(E[I - 1], E[R.below(I)]);
  return E;
}

void checkColoring(std::uint32_t V, const std::vector<BipartiteEdge> &E) {
  const std::uint32_t Delta = V ? static_cast<std::uint32_t>(E.size() / V) : 0;
  const std::vector<std::uint32_t> C = colorRegularBipartite(V, E);
  const ColoringCheck Check = checkEdgeColoring(V, E, C, Delta);
  INFO("V = " << V << ", Delta = " << Delta << ": " << Check.Problem);
  CHECK(Check.Ok);
  CHECK(colorRegularBipartite(V, E) == C); // deterministic
}

std::string errorOf(std::uint32_t V, const std::vector<BipartiteEdge> &E) {
  try {
    colorRegularBipartite(V, E);
  } catch (const UserError &Err) {
    return Err.diagnostic().Message;
  }
  return "";
}

} // namespace

TEST_CASE("K22 is coloured as the contract example says") {
  const std::vector<BipartiteEdge> E = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  CHECK(colorRegularBipartite(2, E) == std::vector<std::uint32_t>{0, 1, 1, 0});
  CHECK(regularDegree(2, std::vector<BipartiteEdge>{{0, 1}, {1, 0}}) == 1);
}

TEST_CASE("random regular multigraphs, powers of two and not") {
  for (std::uint32_t Delta : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 12u, 16u, 64u, 100u})
    for (std::uint32_t V : {1u, 2u, 7u, 32u, 100u})
      for (std::uint64_t Seed : {1u, 2u})
        checkColoring(V, randomRegular(V, Delta, Seed * 1000 + Delta * 7 + V));
}

TEST_CASE("larger random graphs") {
  checkColoring(1000, randomRegular(1000, 256, 5));
  checkColoring(513, randomRegular(513, 99, 6));
  checkColoring(64, randomRegular(64, 1024, 7)); // heavy multiplicities
}

TEST_CASE("degenerate graphs: one vertex, all edges parallel, degree 1") {
  for (std::uint32_t Delta : {1u, 2u, 3u, 5u, 6u, 12u, 100u, 128u}) {
    // V = 1: every edge is the same pair.
    checkColoring(1, std::vector<BipartiteEdge>(Delta, {0, 0}));
    // V = 5, each left vertex sends all Delta edges to one right vertex.
    std::vector<BipartiteEdge> E;
    for (std::uint32_t K = 0; K < Delta; ++K)
      for (std::uint32_t U = 0; U < 5; ++U)
        E.push_back({U, (U + 2) % 5});
    checkColoring(5, E);
  }
  // Delta = 1: the graph is its own perfect matching.
  checkColoring(6, {{0, 3}, {1, 4}, {2, 5}, {3, 0}, {4, 1}, {5, 2}});
  // Empty graphs.
  CHECK(colorRegularBipartite(3, {}).empty());
  CHECK(colorRegularBipartite(0, {}).empty());
}

TEST_CASE("adversarial graphs: complete bipartite, cycles, mixed multiplicity") {
  for (std::uint32_t V : {3u, 5u, 6u, 16u, 33u}) {
    std::vector<BipartiteEdge> K;
    for (std::uint32_t U = 0; U < V; ++U)
      for (std::uint32_t X = 0; X < V; ++X)
        K.push_back({U, X});
    checkColoring(V, K); // K_{V,V}: Delta = V
    // One long even cycle, doubled into a 2-regular / 4-regular multigraph.
    std::vector<BipartiteEdge> Cyc;
    for (std::uint32_t U = 0; U < V; ++U) {
      Cyc.push_back({U, U});
      Cyc.push_back({U, (U + 1) % V});
    }
    checkColoring(V, Cyc);
    std::vector<BipartiteEdge> Cyc2 = Cyc;
    Cyc2.insert(Cyc2.end(), Cyc.begin(), Cyc.end());
    checkColoring(V, Cyc2);
    // Multiplicity 7 on the diagonal plus a 5-regular random part: Delta 12.
    std::vector<BipartiteEdge> Mix = randomRegular(V, 5, V);
    for (std::uint32_t R = 0; R < 7; ++R)
      for (std::uint32_t U = 0; U < V; ++U)
        Mix.push_back({U, U});
    checkColoring(V, Mix);
  }
}

TEST_CASE("regular factorizations into equal-degree factors") {
  const std::vector<BipartiteEdge> E = randomRegular(50, 48, 11);
  for (std::uint32_t K : {1u, 2u, 3u, 4u, 6u, 8u, 12u, 16u, 24u, 48u}) {
    const std::vector<std::uint32_t> F = factorRegularBipartite(50, E, K);
    const ColoringCheck Check = checkRegularFactorization(50, E, F, K);
    INFO("K = " << K << ": " << Check.Problem);
    CHECK(Check.Ok);
  }
  CHECK_THROWS_AS(factorRegularBipartite(50, E, 5), UserError);
}

TEST_CASE("the checker rejects broken colourings") {
  const std::vector<BipartiteEdge> E = randomRegular(8, 4, 3);
  std::vector<std::uint32_t> C = colorRegularBipartite(8, E);
  REQUIRE(checkEdgeColoring(8, E, C, 4).Ok);
  // Recolour one edge with the colour of another edge at its left vertex.
  std::size_t Other = 0;
  while (Other == 0 || E[Other].Left != E[0].Left)
    ++Other;
  std::vector<std::uint32_t> Bad = C;
  Bad[0] = C[Other];
  const ColoringCheck Check = checkEdgeColoring(8, E, Bad, 4);
  CHECK_FALSE(Check.Ok);
  CHECK(Check.Problem.find("left vertex") != std::string::npos);
  // Out-of-range colour, wrong length, wrong colour count.
  Bad = C;
  Bad[3] = 4;
  CHECK_FALSE(checkEdgeColoring(8, E, Bad, 4).Ok);
  CHECK_FALSE(checkEdgeColoring(8, E, std::vector<std::uint32_t>(3, 0), 4).Ok);
  CHECK_FALSE(checkEdgeColoring(8, E, C, 2).Ok);
}

TEST_CASE("non-regular input is a user error naming a vertex and its degree") {
  const std::string Msg = errorOf(3, {{0, 0}, {0, 1}, {1, 2}, {2, 2}});
  INFO(Msg);
  CHECK(Msg.find("left vertex 1 has degree 1") != std::string::npos);
  const std::string MsgR = errorOf(2, {{0, 0}, {1, 0}});
  CHECK(MsgR.find("right vertex 0 has degree 2") != std::string::npos);
  CHECK(errorOf(2, {{0, 0}, {1, 5}}).find("outside") != std::string::npos);
}
