#include "analysis/schedule/detail/BalancedSplit.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace bankwise::schedule_detail {

void BalanceStats::add(const BalanceStats &O) {
  Splits += O.Splits;
  Pairs += O.Pairs;
  GreedyExcess += O.GreedyExcess;
  DirectFlips += O.DirectFlips;
  PathFlips += O.PathFlips;
  Searches += O.Searches;
  Rebuilds += O.Rebuilds;
  FullRepairs += O.FullRepairs;
}

namespace {

[[noreturn]] void internalError(const char *What) {
  throw std::logic_error(std::string("bankwise internal error: ") + What);
}

/// Orients one pair whose units sit at right vertices X and Y: the unit whose
/// vertex has the lower A-minus-B count Ex goes to A (on a tie, the first
/// when Odd is 0, else the second). Returns 1 when Y goes to A. X may equal
/// Y (parallel units: either way leaves Ex unchanged). Without branches: the
/// comparison is a coin flip.
inline std::uint32_t orientPair(std::uint32_t X, std::uint32_t Y,
                                std::uint32_t Odd, std::int32_t *Ex) {
  const std::int32_t EX = Ex[X], EY = Ex[Y];
  // EX > EY, or EX == EY and Odd odd: one comparison of 2 EX + (Odd & 1)
  // with 2 EY (the counts stay far from overflow).
  const std::int32_t F =
      2 * EX + static_cast<std::int32_t>(Odd & 1u) > 2 * EY;
  const std::int32_t Sg = 1 - 2 * F;
  Ex[X] += Sg;
  Ex[Y] -= Sg;
  return static_cast<std::uint32_t>(F);
}

/// Sum of the positive A-minus-B counts after the greedy pass (recorded in
/// the statistics); every count must be even (each right vertex has an even
/// number of odd units).
std::uint64_t excessAfterGreedy(std::uint32_t NumV, BalanceScratch &S) {
  const std::int32_t *Ex = S.Excess.data();
  std::uint64_t Excess = 0;
  for (std::uint32_t V = 0; V < NumV; ++V) {
    if (Ex[V] & 1)
      internalError("balanced split of a right vertex of odd weight");
    if (Ex[V] > 0)
      Excess += static_cast<std::uint64_t>(Ex[V]);
  }
  S.Stats.GreedyExcess += Excess;
  return Excess;
}

/// Repair of a unit-form split (A and B: NumV rows of H units). Any unit of
/// A's row u may trade places with any unit of B's row u: the row keeps H
/// units in each half, the A unit's vertex loses an A unit and the B unit's
/// vertex gains one. So a vertex with too many A units (Ex > 0) is mended
/// by one trade with a vertex with too few (Ex < 0) in a row where the first
/// is in A and the second in B, or by a chain of trades through vertices
/// that give and take one each.
class UnitRepair {
public:
  UnitRepair(std::uint16_t *A, std::uint16_t *B, std::uint32_t NumV,
             std::uint32_t H, BalanceScratch &S)
      : A(A), B(B), NumV(NumV), H(H), S(S), Ex(S.Excess.data()) {}

  void run() {
    std::uint64_t Excess = excessAfterGreedy(NumV, S);
    if (!Excess)
      return;
    // Direct trades, scanning rows from the last (about 8 units per vertex
    // at most): cheap, and they mend most vertices.
    const std::uint32_t Rows = std::min<std::uint32_t>(
        NumV, static_cast<std::uint32_t>(
                  (S.RepairUnitsPerVertex * std::size_t(NumV) + H - 1) / H));
    for (std::uint32_t U = NumV; U-- > NumV - Rows && Excess;) {
      std::uint16_t *RA = A + std::size_t(U) * H, *RB = B + std::size_t(U) * H;
      for (std::uint32_t I = 0, J = 0; I < H && Excess; ++I) {
        if (Ex[RA[I]] <= 0)
          continue;
        while (J < H && Ex[RB[J]] >= 0)
          ++J;
        if (J == H)
          break;
        trade(std::size_t(U) * H + I, std::size_t(U) * H + J);
        Excess -= 2;
        ++S.Stats.DirectFlips;
      }
    }
    if (!Excess)
      return;
    // Chains, by breadth-first search from each vertex with too many A
    // units, over the same rows first, then over all rows.
    First = NumV - Rows;
    S.Seen.resize(NumV);
    S.Via.resize(NumV);
    S.From.resize(NumV);
    S.Queue.resize(NumV);
    buildIndex();
    bool Fresh = true;
    for (std::uint32_t Src = 0; Src < NumV; ++Src)
      while (Ex[Src] > 0) {
        if (chain(Src)) {
          Fresh = false;
          continue;
        }
        if (Fresh && First == 0)
          internalError("balanced split: no path to an unbalanced vertex");
        if (Fresh) {
          ++S.Stats.FullRepairs;
          First = 0;
        }
        buildIndex();
        Fresh = true;
      }
  }

private:
  std::uint16_t *A, *B;
  std::uint32_t NumV, H;
  BalanceScratch &S;
  std::int32_t *Ex;
  std::uint32_t First = 0; ///< rows First.. are searched

  /// A[PA] (too many A units) trades places with B[PB] (too few).
  void trade(std::size_t PA, std::size_t PB) {
    Ex[A[PA]] -= 2;
    Ex[B[PB]] += 2;
    std::swap(A[PA], B[PB]);
  }

  /// Positions in A of the searched rows, grouped by vertex (S.Head,
  /// S.ByTail).
  void buildIndex() {
    ++S.Stats.Rebuilds;
    const std::size_t P0 = std::size_t(First) * H, P1 = std::size_t(NumV) * H;
    S.Head.assign(std::size_t(NumV) + 1, 0);
    for (std::size_t P = P0; P < P1; ++P)
      ++S.Head[A[P] + 1];
    for (std::uint32_t V = 0; V < NumV; ++V)
      S.Head[V + 1] += S.Head[V];
    S.ByTail.resize(P1 - P0);
    std::copy(S.Head.begin(), S.Head.end() - 1, S.Queue.begin());
    for (std::size_t P = P0; P < P1; ++P)
      S.ByTail[S.Queue[A[P]]++] = static_cast<std::uint32_t>(P);
  }

  /// One chain of trades from Src to a vertex with too few A units, found by
  /// breadth-first search from Src: a vertex C reaches every vertex M with a
  /// B unit in a row where C has an A unit (From[M]: that A position, Via[M]:
  /// M's B position). Index entries whose unit changed since the index was
  /// built are skipped; false when no chain is found (the index may be
  /// stale, or cover too few rows).
  bool chain(std::uint32_t Src) {
    ++S.Stats.Searches;
    if (++S.Stamp == 0) {
      std::fill(S.Seen.begin(), S.Seen.end(), 0u);
      S.Stamp = 1;
    }
    std::uint32_t *Q = S.Queue.data();
    std::size_t QHead = 0, QTail = 0;
    Q[QTail++] = Src;
    S.Seen[Src] = S.Stamp;
    while (QHead < QTail) {
      const std::uint32_t C = Q[QHead++];
      for (std::uint32_t I = S.Head[C]; I < S.Head[C + 1]; ++I) {
        const std::uint32_t PA = S.ByTail[I];
        if (A[PA] != C)
          continue;
        const std::size_t Row = PA / H * std::size_t(H);
        for (std::size_t PB = Row; PB < Row + H; ++PB) {
          const std::uint32_t M = B[PB];
          if (S.Seen[M] == S.Stamp)
            continue;
          S.Seen[M] = S.Stamp;
          S.From[M] = PA; // C's A unit at PA trades with M's B unit at PB
          S.Via[M] = static_cast<std::uint32_t>(PB);
          if (Ex[M] >= 0) {
            Q[QTail++] = M;
            continue;
          }
          // Src -> ... -> C -> M: every trade moves one A unit one step;
          // the positions are distinct (each holds a distinct vertex).
          Ex[Src] -= 2;
          Ex[M] += 2;
          for (std::uint32_t Y = M; Y != Src;) {
            const std::uint32_t FromPos = S.From[Y], ViaPos = S.Via[Y];
            const std::uint32_t Prev = A[FromPos];
            std::swap(A[FromPos], B[ViaPos]);
            ++S.Stats.PathFlips;
            Y = Prev;
          }
          return true;
        }
      }
    }
    return false;
  }
};

} // namespace

void greedySplitUnits(const std::uint16_t *G, std::uint32_t U0,
                      std::uint32_t U1, std::uint32_t D, std::uint16_t *A,
                      std::uint16_t *B, std::int32_t *Ex) {
  if (D % 2)
    internalError("balanced split of a graph of odd degree");
  const std::uint32_t H = D / 2;
  // Pair k of a row: units k and H + k. A's row gets the A unit of every
  // pair at k, B's the B unit.
  for (std::uint32_t U = U0; U < U1; ++U) {
    const std::uint16_t *X = G + std::size_t(U) * D, *Y = X + H;
    std::uint16_t *RowA = A + std::size_t(U) * H, *RowB = B + std::size_t(U) * H;
    // Two pairs per step, so that each one's tie rule (K & 1) is a constant.
    auto Pair = [&](std::uint32_t K, std::uint32_t Odd) {
      const std::uint32_t VX = X[K], VY = Y[K];
      // Swap when F (a mask, not a branch: F is a coin flip).
      const std::uint32_t Swap =
          (VX ^ VY) & (0u - orientPair(VX, VY, Odd, Ex));
      RowA[K] = static_cast<std::uint16_t>(VX ^ Swap);
      RowB[K] = static_cast<std::uint16_t>(VY ^ Swap);
    };
    std::uint32_t K = 0;
    for (; K + 1 < H; K += 2) {
      Pair(K, 0);
      Pair(K + 1, 1);
    }
    if (K < H)
      Pair(K, K & 1u);
  }
}

void repairSplitUnits(std::uint16_t *A, std::uint16_t *B, std::uint32_t NumV,
                      std::uint32_t H, BalanceScratch &S) {
  if (S.Excess.size() != NumV)
    internalError("balanced split repair without its counts");
  ++S.Stats.Splits;
  S.Stats.Pairs += std::size_t(NumV) * H;
  UnitRepair(A, B, NumV, H, S).run();
}

void balancedSplitUnits(const std::uint16_t *G, std::uint32_t NumV,
                        std::uint32_t D, std::uint16_t *A, std::uint16_t *B,
                        BalanceScratch &S) {
  S.Excess.assign(NumV, 0);
  greedySplitUnits(G, 0, NumV, D, A, B, S.Excess.data());
  repairSplitUnits(A, B, NumV, D / 2, S);
}

void cellsToUnits(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
                  std::vector<std::uint16_t> &Out) {
  Out.resize(std::size_t(NumV) * D + 1);
  std::size_t At = 0;
  for (std::uint32_t U = 0; U < NumV; ++U) {
    for (std::uint32_t C = G.RowStart[U]; C < G.RowStart[U + 1]; ++C) {
      if (At + G.W[C] > std::size_t(U + 1) * D)
        internalError("unit form of a graph that is not regular");
      std::fill_n(Out.data() + At, G.W[C], static_cast<std::uint16_t>(G.V[C]));
      At += G.W[C];
    }
    if (At != std::size_t(U + 1) * D)
      internalError("unit form of a graph that is not regular");
  }
}

namespace {

/// Cell form (rows with V ascending, as CellRows expects) of NumV rows of D
/// units in any order: each row sorted, then equal units merged.
CellRows unitsToCells(const std::uint16_t *G, std::uint32_t NumV,
                      std::uint32_t D) {
  CellRows C;
  C.RowStart.assign(std::size_t(NumV) + 1, 0);
  std::vector<std::uint16_t> Row(D);
  for (std::uint32_t U = 0; U < NumV; ++U) {
    std::copy_n(G + std::size_t(U) * D, D, Row.begin());
    std::sort(Row.begin(), Row.end());
    for (std::uint32_t I = 0; I < D; ++I) {
      if (I && Row[I] == Row[I - 1]) {
        ++C.W.back();
        continue;
      }
      C.V.push_back(Row[I]);
      C.W.push_back(1);
    }
    C.RowStart[U + 1] = static_cast<std::uint32_t>(C.V.size());
  }
  return C;
}

/// Odd K > 1: Alon's matching through factorCellRows, each factor handed on
/// in unit form.
void factorOdd(const CellRows &G, std::uint32_t NumV, std::uint32_t D,
               std::uint32_t K, std::uint32_t Base, const UnitFactorSink &Sink,
               BalancedScratch &S) {
  std::vector<std::uint16_t> Units;
  factorCellRows(
      G, NumV, D, K, Base,
      [&](const CellRows &F, std::uint32_t Factor) {
        cellsToUnits(F, NumV, D / K, Units);
        Sink(Units.data(), D / K, Factor);
      },
      S.Euler);
}

void factorUnitsAt(const std::uint16_t *G, std::uint32_t NumV, std::uint32_t D,
                   std::uint32_t K, std::uint32_t Base,
                   const UnitFactorSink &Sink, BalancedScratch &S,
                   std::size_t Depth) {
  if (K == 1) {
    Sink(G, D, Base);
    return;
  }
  if (K % 2) {
    factorOdd(unitsToCells(G, NumV, D), NumV, D, K, Base, Sink, S);
    return;
  }
  if (Depth >= S.UnitDepth.size())
    internalError("factorization deeper than its scratch");
  auto &[A, B] = S.UnitDepth[Depth];
  const std::size_t Half = std::size_t(NumV) * (D / 2);
  A.resize(Half + 1);
  B.resize(Half + 1);
  balancedSplitUnits(G, NumV, D, A.data(), B.data(), S.Split);
  factorUnitsAt(A.data(), NumV, D / 2, K / 2, Base, Sink, S, Depth + 1);
  factorUnitsAt(B.data(), NumV, D / 2, K / 2, Base + K / 2, Sink, S,
                Depth + 1);
}

} // namespace

void factorBalancedUnits(const std::uint16_t *G, std::uint32_t NumV,
                         std::uint32_t D, std::uint32_t K, std::uint32_t Base,
                         const UnitFactorSink &Sink, BalancedScratch &S) {
  if (K == 0 || D % K != 0)
    internalError("factor count does not divide the degree");
  if (NumV > 65536)
    internalError("balanced factorization needs at most 65536 vertices");
  factorUnitsAt(G, NumV, D, K, Base, Sink, S, 0);
}

} // namespace bankwise::schedule_detail
