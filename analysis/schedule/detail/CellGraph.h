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

#include <array>
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

/// One odd unit (odd cell or edge) of an Euler split's trail walk: its
/// partner at the right vertex, and who coloured it (0: nobody yet, else
/// (walker + 1) << 1 | provisional side). Interleaved so that one step of a
/// walk touches one cache line.
struct TrailNode {
  std::uint32_t Mate, Tag;
};

/// Scratch buffers reused across splits (one per thread).
struct SplitScratch {
  /// Trail walk (colorTrails): units, and per walker a union-find parent
  /// and the parity of its flip relative to that parent.
  std::vector<TrailNode> Trail;
  std::vector<std::uint32_t> WalkerParent;
  std::vector<std::uint8_t> WalkerRel;
  std::vector<std::uint32_t> Odd, Start, ByLeft, ByRight, LeftMate, RightMate;
  std::vector<std::uint8_t> Side;
  /// Bit matrices of eulerSplitRows' dense mode: odd cells by row and by
  /// column, visited and half-A marks by row, and the parity of the set bits
  /// before each word of a row (of OddRows) or column (of OddCols).
  std::vector<std::uint64_t> OddRows, OddCols, Visited, HalfA;
  std::vector<std::uint8_t> RowPar, ColPar;
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

namespace bankwise::schedule_detail {

/// A bipartite multigraph stored row by row: left vertex u owns the cells
/// [RowStart[u], RowStart[u+1]); cell c stands for W[c] parallel edges
/// u -- V[c]. The split below keeps the order of the cells of a row, so a
/// graph built with V increasing in every row stays that way.
struct CellRows {
  std::vector<std::uint32_t> RowStart, V, W;
  std::size_t size() const { return V.size(); }
};

/// A D-regular bipartite multigraph as explicit edges, both ways: left
/// vertex u owns edges [u*D, (u+1)*D) (Adj[e] = right vertex of e), right
/// vertex v owns positions [v*D, (v+1)*D) of Col (Col[p] = an edge), and
/// Pos[e] is the position of edge e in Col. Used once cells are mostly
/// single edges: an Euler split is then one trail walk and sequential
/// copies.
struct EdgeRows {
  std::vector<std::uint32_t> Adj, Col, Pos;
};

/// Proper 2-colouring of the closed trails of an Euler split: units
/// 0..K-1 (K even) are paired a <-> a^1 at their left vertex and
/// a <-> Trail[a].Mate at their right vertex; the pairs form even cycles.
/// Writes Side[a] in {0, 1} with Side[a] != Side[a^1] and Side[a] !=
/// Side[Mate[a]]. Walks several trails at once (their cache misses
/// overlap); segments of one trail met by different walkers are made
/// consistent by a union-find over walkers. Deterministic: depends only on
/// the pairing, and the first unit gets side 0. Trail[a].Tag must be 0.
void colorTrails(std::size_t K, std::uint8_t *Side, SplitScratch &S);

/// Buffers of one worker: the split scratch and one pair of halves per
/// recursion depth, reused from split to split (no allocation once warm).
struct RowScratch {
  SplitScratch Split;
  std::vector<std::array<CellRows, 2>> Depth =
      std::vector<std::array<CellRows, 2>>(40);
  std::vector<std::array<EdgeRows, 2>> EdgeDepth =
      std::vector<std::array<EdgeRows, 2>>(40);
  EdgeRows Top;
  CellRows Leaf;
};

/// Euler partition of the D-regular G (D even) in edge form: edges 2i and
/// 2i+1 of a left vertex are paired, positions 2m and 2m+1 of a right
/// vertex; the closed trails these pairs form are 2-coloured A, B, A, ...
/// by colorTrails (edge 0 in A). Every pair splits one to each half, so edge e
/// becomes edge e / 2 of its half and position p becomes p / 2: the halves
/// are built by sequential copies.
void eulerSplitEdges(const EdgeRows &G, std::uint32_t NumV, std::uint32_t D,
                     EdgeRows &A, EdgeRows &B, SplitScratch &S);

/// Euler partition of G (NumV vertices per side, every vertex of even
/// weight) into A and B with half of every vertex's weight in each. Even
/// cells give half their weight to each side; the odd units are paired at a
/// left vertex in cell order and at a right vertex in (u, cell) order, and
/// each closed trail alternates A, B, A, ... (the first odd cell in A; bit
/// matrices walk one trail at a time, from both ends at once; lists go
/// through colorTrails). Example:
/// cells (0,0,w=3), (0,1,1), (1,0,1), (1,1,3) -> A = {(0,0,2), (1,1,2)}, B =
/// {(0,0,1), (0,1,1), (1,0,1), (1,1,1)}.
void eulerSplitRows(const CellRows &G, std::uint32_t NumV, CellRows &A,
                    CellRows &B, SplitScratch &S);

/// The halves of an Euler split of G, row by row in G's cell order: every
/// cell gives half its weight to A and half to B, and the unit left over by
/// an odd cell goes to B when OddToB(u, v, k) is 1 (k counts the odd cells in
/// row order), else to A. Cells of weight 0 are dropped.
template <class OddToB>
void writeCellHalves(const CellRows &G, std::uint32_t NumV, CellRows &A,
                     CellRows &B, OddToB &&ToB) {
  const std::size_t N = G.size();
  // Writes go one past the last kept cell and are overwritten when the
  // weight is 0 (without branches: the parity of a weight is a coin flip).
  A.RowStart.resize(static_cast<std::size_t>(NumV) + 1);
  B.RowStart.resize(static_cast<std::size_t>(NumV) + 1);
  A.V.resize(N + 1);
  A.W.resize(N + 1);
  B.V.resize(N + 1);
  B.W.resize(N + 1);
  std::size_t NA = 0, NB = 0, OddIdx = 0;
  for (std::uint32_t U = 0; U < NumV; ++U) {
    A.RowStart[U] = static_cast<std::uint32_t>(NA);
    B.RowStart[U] = static_cast<std::uint32_t>(NB);
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C) {
      const std::uint32_t W = G.W[C], V = G.V[C], Odd = W & 1u;
      const std::uint32_t ToBit =
          Odd & static_cast<std::uint32_t>(ToB(U, V, OddIdx));
      OddIdx += Odd;
      const std::uint32_t WA = (W >> 1) + Odd - ToBit, WB = (W >> 1) + ToBit;
      A.V[NA] = V;
      A.W[NA] = WA;
      NA += WA != 0;
      B.V[NB] = V;
      B.W[NB] = WB;
      NB += WB != 0;
    }
  }
  A.RowStart[NumV] = static_cast<std::uint32_t>(NA);
  B.RowStart[NumV] = static_cast<std::uint32_t>(NB);
  A.V.resize(NA);
  A.W.resize(NA);
  B.V.resize(NB);
  B.W.resize(NB);
}

/// Receives each factor once: the cells (by row) of factor Factor.
using RowFactorSink =
    std::function<void(const CellRows &Cells, std::uint32_t Factor)>;

/// Splits the D-regular G into K factors, each (D/K)-regular, reported to
/// Sink as factors Base .. Base+K-1, depth first. K must divide D. Euler
/// splits while K is even (eulerSplitRows); an odd K > 1 goes through
/// factorizeCells (Alon's matching) and each factor is reported once. The
/// result depends only on G, D, K and Base.
void factorCellRows(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
                    std::uint32_t K, std::uint32_t Base,
                    const RowFactorSink &Sink, RowScratch &S);

} // namespace bankwise::schedule_detail
