// Internal engine of the edge colorings: regular bipartite multigraphs stored
// as weighted cells. A cell (u, v, w, id) stands for w parallel edges between
// left vertex u and right vertex v; Id names the caller's cell (or, inside
// Alon's matching, the source entry). Parallel edges cost one entry, so a dense
// multigraph (the 32 x 32 bank graph of a DMM block with degree 1024, the
// R x R row graph of a permutation) is split at the cost of its distinct cells.
//
// Not part of the public API: EdgeColoring.h, ConflictFree.h and
// HmmSchedule.h are.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace bankwise::schedule_detail {

/// Weighted bipartite multigraph: entry e has W[e] parallel edges U[e]--V[e].
struct CellGraph {
  std::vector<std::uint32_t> U, V, W, Id;

  std::size_t size() const { return U.size(); }
  void clear() {
    U.clear();
    V.clear();
    W.clear();
    Id.clear();
  }
  void reserve(std::size_t N) {
    U.reserve(N);
    V.reserve(N);
    W.reserve(N);
    Id.reserve(N);
  }
  void push(std::uint32_t Uu, std::uint32_t Vv, std::uint32_t Ww,
            std::uint32_t I) {
    U.push_back(Uu);
    V.push_back(Vv);
    W.push_back(Ww);
    Id.push_back(I);
  }
  void swap(CellGraph &O) {
    U.swap(O.U);
    V.swap(O.V);
    W.swap(O.W);
    Id.swap(O.Id);
  }
};

/// Scratch buffers reused across splits (one per thread).
struct SplitScratch {
  std::vector<std::uint32_t> Odd, Start, ByLeft, ByRight, LeftMate, RightMate;
  std::vector<std::uint8_t> Side;
};

/// Euler partition: G has every vertex (of NumV per side) of even weight;
/// afterwards A and B hold halves in which every vertex has half its weight.
/// Even cells split evenly; the odd unit of each odd cell is 2-coloured along
/// the closed trails formed by pairing odd cells consecutively at every
/// vertex (cell order at a left vertex, then at a right vertex).
/// Example: cells (0,0,w=2), (1,1,2) -> A = B = {(0,0,1), (1,1,1)}.
void eulerSplit(const CellGraph &G, std::uint32_t NumV, CellGraph &A,
                CellGraph &B, SplitScratch &S);

/// Called once per factor with the cells of that factor (weights = how many
/// of the cell's edges the factor takes).
using FactorSink = std::function<void(const CellGraph &, std::uint32_t Factor)>;

/// Splits the D-regular G into K factors, each (D/K)-regular, reported to
/// Sink as factors Base .. Base+K-1. K must divide D. Euler splits while K is
/// even; for odd K with D/K = 1 one perfect matching is peeled off by Alon's
/// method; for odd K with D/K > 1 G is fully coloured (D colours) and colour
/// c goes to factor Base + c / (D/K).
void factorizeCells(CellGraph G, std::uint32_t NumV, std::uint32_t D,
                    std::uint32_t K, std::uint32_t Base, const FactorSink &Sink,
                    SplitScratch &S);

/// Alon (2003): a perfect matching of the D-regular G (D odd). Returned as
/// cells of weight 1 whose Id is the index of the entry of G it uses.
CellGraph alonPerfectMatching(const CellGraph &G, std::uint32_t NumV,
                              std::uint32_t D, SplitScratch &S);

} // namespace bankwise::schedule_detail
