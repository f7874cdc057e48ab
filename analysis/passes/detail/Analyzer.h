// The analyzer behind analyzeKernel (analysis/passes/KernelAnalysis.h), shared by
// its source files: KernelAnalysis.cpp (setup, costs, the choice of run,
// the report), WarpEvaluation.cpp (the warp evaluator: a warp position's
// expressions, reads and addresses, symbolic or concrete),
// StatementExecution.cpp (its statements, data-dependent control flow
// included), LoopExecution.cpp (its loops: counted, symbolic, trip by trip,
// with data bounds), SymbolicValues.cpp (opaque values and guard atoms),
// LaneTables.cpp, and the two runs over the evaluator (detail/WarpRun.h):
// ExhaustiveRun.cpp (warp by warp) and ClassCounting.cpp (the counting of
// warps by class on the fast path), with ClassCosts.cpp (a class's costs,
// the fast path's time walk; the types these two share in
// detail/ClassCounting.h). Internal: nothing outside analysis/ includes it.
#pragma once

#include "analysis/models/Layout.h"
#include "analysis/models/Permutation.h"
#include "analysis/models/Simulator.h"
#include "analysis/passes/ArrayLayout.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/PermutationTables.h"
#include "analysis/passes/UnobservedLocals.h"
#include "ir/Eval.h"
#include "ir/Walk.h"
#include "support/Random.h"
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <thread>
#include <exception>
#include <unordered_map>
#include <unordered_set>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace bankwise::kernel_analysis {

__extension__ using Wide = __int128; // exact sums of 64-bit products

constexpr int MaxLanes = 64;
/// Loops of at most this many trips are unrolled on the fast path.
constexpr int SymbolicUnrollTrips = 64;
/// A loop whose end reads unknown data runs its first iterations only: 32
/// cover every residue of an affine index mod 32 elements, on which warp
/// costs depend (docs/analysis.md).
constexpr int DataLoopSamples = 32;
/// A while loop without a counter (docs/analysis.md) runs on the fast path
/// trip by trip while its condition is concrete, up to this many trips.
constexpr std::int64_t SymbolicWhileTrips = 256;
/// A loop of at most SymbolicUnrollTrips trips whose first trip ran this
/// many statements or more, times its other trips, runs those other trips
/// as one symbolic trip where it can (a tiled GEMM's `for (bk = 0; bk < K;
/// bk += 32)` around 16 x 24 unrolled reads: 33 copies of its templates
/// became one); otherwise trip by trip as before.
constexpr std::int64_t HeavyUnrollWork = 1024;
/// A while loop that runs more often than this in one warp is an error
/// (docs/language.md): the analysis never hangs on one that does not end.
constexpr std::int64_t MaxWhileTrips = std::int64_t(1) << 20;
using LaneArr = std::array<std::int64_t, MaxLanes>;
using Mask = std::uint64_t;

/// A value per lane, MaxLanes of them, as a LaneArr holds them (0 in
/// every lane never written), storing only the lanes up to the last one
/// written: a Val is made and copied per operation, and copying or zeroing
/// MaxLanes lanes of two of these per Val was most of the analysis' time
/// on real kernels (a warp has 32 lanes, and uniform values none).
class LaneVals {
public:
  LaneVals() {} // NOLINT: leaves the storage beyond N unset on purpose
  LaneVals(const LaneArr &A) { *this = A; } // NOLINT: implicit, as a LaneArr
  LaneVals(const LaneVals &O) : N(O.N) { std::copy_n(O.Data.begin(), N, Data.begin()); }
  LaneVals &operator=(const LaneVals &O) {
    N = O.N;
    std::copy_n(O.Data.begin(), N, Data.begin());
    return *this;
  }
  LaneVals &operator=(const LaneArr &A) {
    std::size_t Last = A.size();
    while (Last > 0 && A[Last - 1] == 0)
      --Last;
    N = Last;
    std::copy_n(A.begin(), N, Data.begin());
    return *this;
  }
  std::int64_t operator[](std::size_t I) const { return I < N ? Data[I] : 0; }
  std::int64_t &operator[](std::size_t I) {
    if (I >= N) {
      std::fill(Data.begin() + static_cast<std::ptrdiff_t>(N), Data.begin() + static_cast<std::ptrdiff_t>(I) + 1, 0);
      N = I + 1;
    }
    return Data[I];
  }
  operator LaneArr() const { // NOLINT: implicit, as a LaneArr
    LaneArr R{};
    std::copy_n(Data.begin(), N, R.begin());
    return R;
  }
  bool operator==(const LaneVals &O) const {
    for (std::size_t I = 0; I < std::max(N, O.N); ++I)
      if ((*this)[I] != O[I])
        return false;
    return true;
  }

private:
  std::size_t N = 0; ///< lanes stored; the others are 0
  std::array<std::int64_t, MaxLanes> Data; // NOLINT: only the first N are set
};

/// Symbolic variables: block indices, a block's warp position when its
/// warps run as one family (Analyzer::WarpFamily), and (on the fast path)
/// loop variables.
enum : int { VarBx = 0, VarBy = 1, VarBz = 2, VarWx = 3, VarWy = 4, VarWz = 5, FirstLoopVar = 6 };

/// The terms of an affine value: (var id, coefficient) pairs, the first
/// few kept inline. The symbolic run makes and copies a value per operation
/// (the all-sizes analysis, thousands of runs), and a heap vector per value
/// was a fifth of its time.
class TermList {
public:
  using value_type = std::pair<int, std::int64_t>;
  TermList() = default;
  TermList(const TermList &O) { *this = O; }
  TermList &operator=(const TermList &O) {
    if (this == &O)
      return *this;
    N = O.N;
    if (N <= Inline) {
      std::copy(O.begin(), O.end(), Small.begin());
      Big.clear();
    } else {
      Big = O.Big;
    }
    return *this;
  }
  TermList(TermList &&O) noexcept { *this = std::move(O); }
  TermList &operator=(TermList &&O) noexcept {
    N = O.N;
    if (N <= Inline)
      std::copy(O.Small.begin(), O.Small.begin() + static_cast<std::ptrdiff_t>(N), Small.begin());
    else
      Big = std::move(O.Big);
    O.N = 0;
    return *this;
  }
  void push_back(const value_type &V) {
    if (N < Inline) {
      Small[N++] = V;
      return;
    }
    if (N == Inline)
      Big.assign(Small.begin(), Small.end());
    Big.push_back(V);
    ++N;
  }
  std::size_t size() const { return N; }
  bool empty() const { return N == 0; }
  void clear() {
    N = 0;
    Big.clear();
  }
  const value_type *begin() const { return N <= Inline ? Small.data() : Big.data(); }
  const value_type *end() const { return begin() + N; }
  value_type *begin() { return N <= Inline ? Small.data() : Big.data(); }
  value_type *end() { return begin() + N; }
  const value_type &operator[](std::size_t I) const { return begin()[I]; }
  value_type &operator[](std::size_t I) { return begin()[I]; }
  bool operator==(const TermList &O) const { return std::equal(begin(), end(), O.begin(), O.end()); }

private:
  static constexpr std::size_t Inline = 6;
  std::size_t N = 0;
  std::array<value_type, Inline> Small{};
  std::vector<value_type> Big; ///< every term, once there are more than Inline
};

/// C + sum Coef * var: a warp-uniform value affine in symbolic variables.
struct Affine {
  std::int64_t C = 0;
  TermList Terms; // by var id, coef != 0
  bool isConst() const { return Terms.empty(); }
  bool operator==(const Affine &) const = default;
};

/// A value in a warp: uniform part U plus, when HasV, a per-lane part V.
/// Unknown when it came from memory whose contents the analysis lacks.
struct Val {
  Affine U;
  bool HasV = false;
  LaneVals V;
  bool Unknown = false;
  std::string UnknownSrc;
  /// With Unknown, as an address: the most distinct addresses one bank can
  /// receive from the warp given the indices that are known (one row when
  /// only the column is data); 0 when not computed (then every lane).
  std::int64_t ReachWorst = 0;
  /// With Unknown: data that is the same in every active lane up to a known
  /// lane part. Lane l holds X * DataStep + U.C + V[l] (V when HasV) for one
  /// integer X that data decides, the same in every lane; U.C lies in
  /// 0..DataStep-1 and U has no terms. `ids[bx]` is X (step 1); then
  /// `ids[bx] * 64 + tx` is X * 64 + tx: its lanes' banks are known up to a
  /// rotation. Without DataUniform an unknown value is any value per lane.
  bool DataUniform = false;
  std::int64_t DataStep = 1;
  /// With Unknown, as a condition: lanes where it is known false (the left
  /// side of `i < N && f[i] > 0` fails) or known true (of `||`).
  Mask KnownZero = 0, KnownOne = 0;
  /// A symbolic boolean (a guard on block indices or loop variables): the
  /// id of its formula; U and V are unused then.
  int Pred = -1;
  /// A per-lane table value: lane l adds LtScale * T(IU + IV[l]), T the
  /// table Lt names (a permutation or a holds/--data array read at a
  /// block-dependent index). Such values are evaluated warp by warp.
  int Lt = -1;
  std::int64_t LtScale = 0;
  /// A while loop's counter after a loop whose lanes left at trips that
  /// depend on block indices or loop variables: no affine value, so a read
  /// sends the kernel to the warp-by-warp path.
  bool Poison = false;
  /// A per-lane choice between two affine values (min or max of a lane
  /// value and another, a remainder or quotient whose lanes wrap at
  /// different places, a `?:` whose lanes take different arms): lane l
  /// holds U + V[l] where atom Sel holds at l, and U - SelD + SelV[l]
  /// elsewhere. HasV is then always set. -1: none.
  int Sel = -1;
  Affine SelD;
  LaneVals SelV;

  bool concrete() const { return U.isConst() && Pred < 0 && Lt < 0 && Sel < 0; }
  std::int64_t lane(int L) const { return U.C + (HasV ? V[static_cast<std::size_t>(L)] : 0); }
};

/// Thrown on the fast path when a value leaves the affine domain; the
/// kernel is then analyzed exhaustively.
struct NotAffine {
  std::string Reason;
};

inline bool addOv(std::int64_t A, std::int64_t B, std::int64_t &R) {
  return __builtin_add_overflow(A, B, &R);
}
inline bool mulOv(std::int64_t A, std::int64_t B, std::int64_t &R) {
  return __builtin_mul_overflow(A, B, &R);
}

inline std::int64_t floorDiv(std::int64_t A, std::int64_t B) {
  std::int64_t Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}
inline std::int64_t floorMod(std::int64_t A, std::int64_t B) { return A - floorDiv(A, B) * B; }

inline Affine affineAdd(const Affine &A, const Affine &B, std::int64_t Sign) {
  Affine R;
  std::int64_t Scaled;
  if (mulOv(B.C, Sign, Scaled) || addOv(A.C, Scaled, R.C))
    throw NotAffine{"overflow in a symbolic constant"};
  std::size_t I = 0, J = 0;
  while (I < A.Terms.size() || J < B.Terms.size()) {
    if (J == B.Terms.size() || (I < A.Terms.size() && A.Terms[I].first < B.Terms[J].first)) {
      R.Terms.push_back(A.Terms[I++]);
    } else if (I == A.Terms.size() || B.Terms[J].first < A.Terms[I].first) {
      R.Terms.push_back({B.Terms[J].first, B.Terms[J].second * Sign});
      ++J;
    } else {
      std::int64_t Sum;
      if (addOv(A.Terms[I].second, B.Terms[J].second * Sign, Sum))
        throw NotAffine{"overflow in a symbolic coefficient"};
      if (Sum != 0)
        R.Terms.push_back({A.Terms[I].first, Sum});
      ++I;
      ++J;
    }
  }
  return R;
}

inline Affine affineScale(const Affine &A, std::int64_t K) {
  Affine R;
  if (K == 0)
    return R;
  if (mulOv(A.C, K, R.C))
    throw NotAffine{"overflow in a symbolic constant"};
  for (auto [Var, Coef] : A.Terms) {
    std::int64_t C;
    if (mulOv(Coef, K, C))
      throw NotAffine{"overflow in a symbolic coefficient"};
    R.Terms.push_back({Var, C});
  }
  return R;
}

/// Domain of a symbolic variable: Lo, Lo + Step, ..., Hi.
struct VarDomain {
  std::int64_t Lo = 0, Hi = 0;
};

/// A shared or global array as the analysis sees it.
struct ArrayInfo {
  const ir::Array *Decl = nullptr;
  std::int64_t ElemBytes = 4;
  LayoutFn Layout;
  const std::vector<std::int64_t> *Data = nullptr; ///< --data values
  std::optional<TableView> Holds;                  ///< p[i] = P(i) or P^-1(i), or a plane
};

/// An access site: one ArrayRead of the source (an element read or
/// written, or an atomic's element).
struct SiteInfo {
  const ir::ArrayRead *Read = nullptr;
  SourceLoc Loc;
  bool IsWrite = false;
  const ArrayInfo *Arr = nullptr;
  const ir::Atomic *Atomic = nullptr; ///< the atomic whose element Read is
  /// How nvcc issues it (CUDA targets; PerLane on the abstract machines).
  AtomicIssue Issue = AtomicIssue::PerLane;
};

/// A site's atomic whose lanes take turns one by one (docs/analysis.md,
/// "Atomics"); a combined one (AtomicIssue) costs what a read of its
/// remaining lanes costs.
inline bool perLaneAtomic(const SiteInfo &S) { return S.Atomic && S.Issue == AtomicIssue::PerLane; }

/// The shift, in elements, under which every model's cost of Site's warp
/// accesses repeats: w banks (DMM) or groups (UMM), 128 bytes (sm_90 banks,
/// sectors and lines). W = 32, f64: 32.
inline std::int64_t costPeriod(const SiteInfo &S, std::int64_t W) {
  return std::lcm(W, std::max<std::int64_t>(1, 128 / S.Arr->ElemBytes));
}

/// The addresses Value(l) of the lanes of Active among the first N, lifted
/// by whole Periods until none is negative (the models take non-negative
/// addresses, and their costs do not change), NoAccess on the other lanes.
/// The lift comes before the marking: a lane at -1 (a known part below a
/// data-chosen row) is an address, not NoAccess.
template <class ValueFn>
std::vector<Address> liftedLanes(int N, Mask Active, std::int64_t Period, ValueFn Value) {
  Address Lowest = 0;
  for (int L = 0; L < N; ++L)
    if ((Active >> L) & 1)
      Lowest = std::min<Address>(Lowest, Value(L));
  const Address Lift = Lowest < 0 ? (-Lowest + Period - 1) / Period * Period : 0;
  std::vector<Address> Out(static_cast<std::size_t>(N), NoAccess);
  for (int L = 0; L < N; ++L)
    if ((Active >> L) & 1)
      Out[static_cast<std::size_t>(L)] = Value(L) + Lift;
  return Out;
}

/// A recorded warp access on the fast path: the address as an affine
/// function of the symbolic variables plus a lane part.
/// Ids at and above this in Affine terms are opaque uniform values (a
/// bitrev, min, table entry, ... of block indices and loop variables), not
/// variables: their value is computed from the variables they depend on.
constexpr int OpaqueBase = 1 << 20;

/// An opaque uniform value: Op applied to uniform affine arguments. A
/// Select is `Args[0] Op 0 ? Args[1] : Args[2]` (a `?:` whose condition is
/// the same in every lane of a warp), Op a comparison.
struct OpaqueDef {
  enum Kind { Bin, Fn, Perm, Table, Select } K = Bin;
  ir::BinaryOp Op = ir::BinaryOp::Add;
  ir::Function F = ir::Function::Min;
  std::vector<Affine> Args;
  const void *Ref = nullptr; ///< Perm: the Permutation; Table: the ArrayInfo
  bool operator==(const OpaqueDef &) const = default;
};

/// A table read per lane at a block-dependent index: T(IU + IV[l]).
struct LaneTableDef {
  const void *Ref = nullptr; ///< the Permutation, or the ArrayInfo
  bool IsPerm = true;
  Affine IU;
  LaneArr IV{};
};

/// A guard atom: lane l is true when (U + G[l]) Op 0, Op a comparison.
struct AtomDef {
  Affine U;
  bool HasG = false;
  LaneArr G{};
  ir::BinaryOp Op = ir::BinaryOp::Lt;
  /// The least and greatest G[l] over the machine's lanes (atomAt decides
  /// every lane at once when -U lies outside them).
  std::int64_t GMin = 0, GMax = 0;
};

/// The DMM congestion of one warp execution whose addresses data decides:
/// the most distinct addresses one bank can receive, and their expected
/// number (docs/analysis.md, "Data-dependent indices").
struct DataCongestion {
  std::int64_t Worst = 0;
  double Expected = 0;
};

/// X as data with nothing known of it per lane (its source kept): what a
/// value built from X by an operation that mixes lanes is.
inline Val plainData(const Val &X) {
  Val R;
  R.Unknown = true;
  R.UnknownSrc = X.UnknownSrc;
  R.KnownZero = X.KnownZero;
  R.KnownOne = X.KnownOne;
  return R;
}

/// Data that every active lane holds alike (Val::DataUniform, step 1).
inline Val uniformData(std::string Src) {
  Val R;
  R.Unknown = true;
  R.UnknownSrc = std::move(Src);
  R.DataUniform = true;
  return R;
}

/// A formula over atoms and constant lane masks.
struct PredNode {
  enum Kind { Atom, Lanes, And, Or, Not } K = Atom;
  int A = -1, B = -1; ///< Atom: A is the atom id; And/Or/Not: operands
  Mask Bits = 0;      ///< Lanes
};

/// A symbolic loop or block variable: values Begin + Step * t, t < Trips.
struct LoopDom {
  int Var = 0;
  std::int64_t Begin = 0, Step = 1, Trips = 1;
};

struct Template {
  int Site = 0;
  Affine U;
  bool HasV = false;
  LaneArr V{};
  Mask Active = 0;
  bool Unknown = false;
  std::string UnknownSrc;
  std::int64_t ReachWorst = 0; ///< Val::ReachWorst of an unknown address
  /// Val::DataUniform of an unknown address: U.C, HasV and V hold its
  /// known parts, DataStep its step.
  bool DataUniform = false;
  std::int64_t DataStep = 1;
  int Pred = -1; ///< the guard the access runs under, -1: none
  int Oob = -1;  ///< lanes whose index leaves the array, -1: none can
  int Lt = -1;   ///< a per-lane table term of the address (Val::Lt)
  std::int64_t LtScale = 0;
  /// A per-lane choice of the address (Val::Sel): lanes where atom Sel
  /// holds are at U + V[l], the others at U - SelD + SelV[l].
  int Sel = -1;
  Affine SelD;
  LaneArr SelV{};
  std::vector<LoopDom> Loops; ///< enclosing symbolic loops, outermost first
  /// Under a condition or loop bound that reads unknown data (DataGuard).
  bool Guarded = false;
  std::string GuardSrc;
  SourceLoc GuardLoc;
  bool GuardIsLoop = false;
};

/// The fast path records per warp position a tree of accesses, loops and
/// barriers.
struct TraceNode {
  enum Kind { Access, Loop, Barrier } K = Access;
  int TemplateId = 0;   // Access
  int Var = 0;          // Loop
  std::int64_t Begin = 0, Step = 1, Trips = 0;
  std::vector<TraceNode> Body;
};

/// The per-warp costs of one access, all models.
using AccessCosts = WarpAccessCosts;

class Analyzer {
public:
  Analyzer(const ir::Program &Prog, const ir::Kernel &K,
           const AnalysisOptions &Opts);
  ~Analyzer();
  Analyzer(const Analyzer &) = delete;
  Analyzer &operator=(const Analyzer &) = delete;
  KernelReport run();

private:
  // Setup.
  void collectArrays();
  void collectSites(const ir::Block &B);
  void collectSitesInExpr(const ir::Expr &E);
  const Permutation &permutation(const std::string &Name, bool Inverse);

  // Evaluation, shared by both paths.
  Val eval(const ir::Expr &E, Mask M);
  // eval's cases (WarpEvaluation.cpp).
  Val evalVarRef(const ir::VarRef &N, const SourceLoc &Loc);
  Val evalBuiltin(ir::Builtin Which);
  Val evalUnary(const ir::Unary &N, Mask M, const SourceLoc &Loc);
  /// `&&` or `||` whose left side evaluated to A.
  Val evalShortCircuit(const ir::Binary &N, const Val &A, Mask M);
  Val evalCall(const ir::Call &N, Mask M, const SourceLoc &Loc);
  Val evalPermApply(const ir::PermApply &N, Mask M, const SourceLoc &Loc);
  Val evalSelect(const ir::Select &N, Mask M, const SourceLoc &Loc);
  /// E's accesses, in eval's order and with its masks, where E's value is
  /// not observed (unobservedLocals): arithmetic around the accesses is
  /// skipped; a choice of lanes around one (`?:`, `&&`, `||`, a shuffle)
  /// or an access itself is evaluated whole.
  void evalReads(const ir::Expr &E, Mask M);
  /// The value of a local whose value is never observed.
  static Val unobserved();
  Val evalBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M,
                 const SourceLoc &Loc);
  // evalBinary's cases by operand kind (WarpEvaluation.cpp).
  Val laneTableBinary(ir::BinaryOp Op, const Val &A, const Val &B);
  Val concreteBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc);
  Val symbolicBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc);
  Val lanePartSum(const Val &X, const Val &Y, std::int64_t Sign) const;
  Val scaleLanes(const Val &X, std::int64_t K) const;
  Val affineDivMod(const Val &X, std::int64_t C, bool WantDiv);
  /// A with every pair K T (X / T) + K (X % T) of opaque values (one X, one
  /// number T) written K X: the index `b * T * C + t * C` of a row `b = idx
  /// / T`, `t = idx % T` is `idx * C`, affine where its parts are opaque.
  Affine euclid(Affine A) const;
  /// A Op B when one of them is data: uniform data (Val::DataUniform) when
  /// each is uniform data or known, and the result is again (sums, constant
  /// multiples, or any operation on values the same in every active lane);
  /// nullopt otherwise (data per lane).
  std::optional<Val> uniformDataOp(ir::BinaryOp Op, const Val &A, const Val &B, Mask M) const;
  /// Every active lane of M holds the same value of X (known or data).
  bool sameInLanes(const Val &X, Mask M) const;
  Val readArray(const ir::ArrayRead &R, const SourceLoc &Loc, Mask M,
                bool IsWrite);
  /// An atomic: its values, then its element's access (a site of its
  /// own); the old value is data.
  Val evalAtomic(const ir::Atomic &A, const SourceLoc &Loc, Mask M);
  /// `C ? Then() : Else()` for a condition C on block indices or loop
  /// variables: each arm runs under its guard, as the branches of an `if`
  /// do, and the value is chosen per warp (an opaque uniform value) when C
  /// is the same in all its lanes and the arms differ only in their uniform
  /// parts, else per lane (Val::Sel) when one atom decides.
  Val symbolicChoice(const Val &C, Mask M, const std::function<Val()> &Then, const std::function<Val()> &Else);
  /// A warp shuffle: each active lane takes the value's lane part at its
  /// source lane (ir::shuffleSource); the uniform part is every lane's.
  /// Data when the value or the lane is, or when a source lane is idle.
  Val evalShuffle(const ir::Shuffle &S, const SourceLoc &Loc, Mask M);
  Val address(const ArrayInfo &A, const std::vector<Val> &Idx, Mask M,
              const SourceLoc &Loc);
  void checkBounds(const ArrayInfo &A, const std::vector<Val> &Idx, Mask M,
                   const SourceLoc &Loc);
  Val lookupTable(const Val &Index, Mask M, const SourceLoc &Loc,
                  const std::string &What,
                  const std::function<std::optional<std::int64_t>(std::int64_t)> &F);
  void exec(const ir::Block &B, Mask M);
  void execStmt(const ir::Stmt &S, Mask M);
  // execStmt's cases (StatementExecution.cpp).
  void execAssign(const ir::Assign &Stmt, const SourceLoc &Loc, Mask M);
  void execLet(const ir::Let &Stmt, Mask M);
  void execFor(const ir::For &Stmt, const SourceLoc &Loc, Mask M);
  /// A `for` with per-lane loop variables, lanes leaving as their
  /// condition fails (the exhaustive run's).
  void execLaneFor(const ir::For &Stmt, const SourceLoc &Loc, const Val &Begin, const Val &End,
                   const Val &Step, Mask M);
  void execSymbolicFor(const ir::For &Stmt, const SourceLoc &Loc, const Val &Begin, const Val &End,
                       const Val &Step, Mask M);
  void execIf(const ir::If &Stmt, const SourceLoc &Loc, Mask M);
  void execSymbolicIf(const ir::If &Stmt, const Val &C, Mask M);
  void execWhile(const ir::While &Stmt, const SourceLoc &Loc, Mask M);
  /// A `while` whose lanes leave as their condition fails; a condition
  /// that reads data samples its trips (the exhaustive run's).
  void execLaneWhile(const ir::While &Wh, const SourceLoc &Loc, Mask M);
  /// A while loop on the fast path: a counter loop (`while k < E { ...; k
  /// += S }`) runs as a counted loop, its trips guarded by the condition
  /// where they differ between lanes or warps; another runs trip by trip
  /// while its condition is concrete.
  void execSymbolicWhile(const ir::While &Wh, const SourceLoc &Loc, Mask M);
  void execUnrolledWhile(const ir::While &Wh, Mask M);
  /// A loop whose counter k (Locals[KIndex], starting at K0) moves by a
  /// uniform Step while `k Op Bound` (Op Lt, Le, Gt or Ge): a while loop's
  /// counter, or a `for` whose start or end differs between lanes or
  /// depends on block indices or loop variables. Every lane of every warp
  /// runs the trips all run; the trips only some run are guarded by the
  /// condition (Cond at the current counter).
  struct CounterLoop {
    std::size_t KIndex = 0;
    Val K0, Step, Bound;
    ir::BinaryOp Op = ir::BinaryOp::Lt;
    bool Subtract = false; ///< k -= Step
    bool Conjunct = false; ///< the condition is `Other && k Op Bound`
    std::function<Val(Mask)> Cond;
    const ir::Block *Body = nullptr;
    /// Runs the loop trip by trip when the counter moves away from its
    /// bound (empty: refuse).
    std::function<void(Mask)> Unrolled;
  };
  void runCounterLoop(const CounterLoop &L, const SourceLoc &Loc, Mask M);
  /// A counter loop's step (signed as the counter moves) and trip bounds.
  struct CounterTrips {
    std::int64_t S = 0;
    Wide TMin = 0, TMax = 0;
  };
  std::optional<CounterTrips> counterTrips(const CounterLoop &L, const SourceLoc &Loc, Mask M);
  Val counterAfter(const Val &K0, std::int64_t S, const LaneArr &Trips, bool Exact) const;
  /// Runs Fn on the fast path; where it leaves the affine domain
  /// (NotAffine), puts every part of the symbolic state back as it was
  /// before and returns false, so that the caller can run the same
  /// statements another way (a short loop trip by trip).
  bool attemptSymbolic(const std::function<void()> &Fn);
  /// A `for` loop's Trips trips from B by St as one symbolic trip: a loop
  /// variable over their values.
  void symbolicFor(const ir::For &F, std::int64_t B, std::int64_t St, std::int64_t Trips, Mask M);
  /// A local from outside a loop that its body steps by By once per trip
  /// (`A += 32` in a tiled GEMM's K loop), Entry its value as the trips
  /// begin: in one symbolic trip t of trips T0.. it holds Entry + By (t -
  /// T0), and after them Entry + By * trips.
  struct Induction {
    std::size_t Index = 0; ///< in Locals
    std::int64_t By = 0;
    Val Entry;
  };
  /// The locals Body steps per trip (not Locals[Skip], a counter the loop
  /// sets itself; LoopVar: a `for` loop's variable, which no step may read)
  /// whose step is a number, the same in the lanes of M.
  std::vector<Induction> inductions(const ir::Block &Body, const std::string *LoopVar, std::size_t Skip, Mask M);
  /// Sets each to its value at trip variable Var (trips from T0).
  void enterInductions(const std::vector<Induction> &Ind, int Var, std::int64_t T0);
  /// Checks that the body stepped each once, and sets each (in Locals and
  /// in Before, the values the loop-carried check compares) to its value
  /// after Trips trips.
  void leaveInductions(const std::vector<Induction> &Ind, int Var, std::int64_t T0, std::int64_t Trips,
                       std::vector<Val> &Before);
  /// Whether a short loop is worth a symbolic try for its trips after the
  /// first: Rest more trips of the First statements the first one ran.
  static bool heavyUnroll(std::int64_t First, std::int64_t Rest) {
    return Rest > 0 && First * Rest >= HeavyUnrollWork;
  }
  /// Ends a loop whose trips were sampled (DataGuard::Sampled): a lane may
  /// have left at any trip, so the locals it assigned are unknown; pops its
  /// guard.
  void leaveSampledLoop();
  void execDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End,
                   const Val &Step, Mask M);
  /// execDataFor's sampled trips, Within the lanes of a counter still
  /// before the known ends: per-lane counters (the exhaustive run's), or
  /// each lane from its own start by one uniform step (the symbolic run's).
  void sampleLaneDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step, Mask M,
                         const std::function<Mask(const Val &)> &Within);
  void sampleSymbolicDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step,
                             Mask M, const std::function<Mask(const Val &)> &Within);
  void markGuarded(AccessSiteReport &R) const;
  void assignLocal(const std::string &Name, const Val &V, Mask M);
  Val *findLocal(const std::string &Name);
  /// Slot's index in Locals.
  std::size_t localIndex(const Val *Slot) const;
  [[noreturn]] void runtimeError(const SourceLoc &Loc, const std::string &Msg,
                                 int Lane = -1);
  void spend(std::int64_t Work);

  // Models.
  AccessCosts costsOf(const SiteInfo &S, const std::vector<Address> &Lanes) const;
  std::int64_t timeCost(const SiteInfo &S, const AccessCosts &C, bool Unknown,
                        int Active) const;
  /// Data: the congestion of a warp execution whose address data decides
  /// (null: C holds the costs); its expected figure the caller counts in
  /// DataExpected.
  void addStats(AccessSiteReport &R, const AccessCosts &C, const DataCongestion *Data,
                int Active, std::int64_t Times) const;
  /// The DMM congestion of an access whose index reads data, with Active
  /// lanes: worst, every active lane in one bank (at most Reach distinct
  /// addresses when the known indices bound it, Val::ReachWorst, 0: no
  /// bound; an atomic counts every lane); expected, E[max load] of Active
  /// balls in W bins (random banks), at most the worst.
  DataCongestion dataCongestion(const SiteInfo &S, int Active, std::int64_t Reach);
  /// The costs of an access whose lanes' addresses are Known[l] + Shift for
  /// one Shift that data picks among the multiples of Step: every model's
  /// cost at each residue of Shift (costs repeat with the period of
  /// ClassCounting's Period). Exact when every residue gives the same costs
  /// (a row read at a data index: `table[ids[bx] * 64 + tx]`); otherwise
  /// Worst holds each model's most. Known holds NoAccess on lanes that are off.
  struct UniformDataCosts {
    AccessCosts Worst;
    bool Exact = true;
  };
  UniformDataCosts uniformDataCosts(const SiteInfo &S, const std::vector<Address> &Known,
                                    std::int64_t Step) const;
  /// uniformDataCosts by site and lanes less a multiple of the step's gcd
  /// with the period (the step's gcd last).
  mutable std::map<std::pair<const void *, std::vector<Address>>, UniformDataCosts> UniformCostsCache;
  /// Val::ReachWorst of an access whose index Idx[Dim] alone is data.
  std::int64_t reachWorst(const ArrayInfo &A, std::vector<Val> Idx, std::size_t Dim, Mask M,
                          const SourceLoc &Loc);
  /// reachWorst's answers by array, then by the data's dimension, the lanes
  /// and the other indices' lane values.
  std::unordered_map<const ArrayInfo *, std::map<std::vector<std::int64_t>, std::int64_t>> ReachWorstMemo;

  // Symbolic guards and opaque uniform values (fast path).
  Val opaque(OpaqueDef D);
  /// bitrev(X, Bits) as opaque uniform + per-lane part when X's uniform
  /// part has only zeros in the bits its lanes use; nullopt otherwise.
  std::optional<Val> splitBitrev(const Val &X, std::int64_t Bits, Mask M);
  /// T(Index) per lane for a block-dependent Index with a lane part, when
  /// every active lane's index is provably in 0..Size-1.
  std::optional<Val> laneTable(const Val &Index, Mask M, const void *Ref, bool IsPerm,
                               std::int64_t Size);
  std::int64_t laneTableAt(const LaneTableDef &D, std::int64_t Index) const;
  /// The word addresses of template T's active lanes at the variables Vals.
  std::vector<Address> laneTableAddresses(const Template &T, const std::vector<std::int64_t> &Vals,
                                          Mask Active) const;
  /// Counts a lane-table template warp by warp over its variables (compiled
  /// evaluation, no interpretation; split over the cores) into Site.
  void countLaneTable(int TId, const std::vector<LoopDom> &Vars, const std::vector<int> &TAtoms,
                      AccessSiteReport &Site);
  int atom(const Val &Diff, ir::BinaryOp Op);
  /// A per-lane choice (Val::Sel): Main where atom AtomId holds, Alt
  /// elsewhere. Main and Alt are plain symbolic values (no guard, table or
  /// choice of their own, not data).
  Val laneSelect(int AtomId, const Val &Main, const Val &Alt);
  /// The two arms of a choice: what its lanes hold where the atom holds
  /// (first) and where it does not (second).
  std::pair<Val, Val> selArms(const Val &S) const;
  /// A Op B where one of them is a per-lane choice: the operation on each
  /// arm, chosen again per lane (a comparison: the guard formula that
  /// takes each arm's guard where its lanes chose it).
  Val selectBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc);
  /// X / C or X % C (C > 0) for X = U + V[l] whose uniform part C does not
  /// divide: with U = C q + r (q and r opaque, per warp) and V[l] = C a_l +
  /// b_l, 0 <= b_l < C, lane l wraps where r + b_l >= C, a per-lane choice.
  Val wrappingDivMod(const Val &X, std::int64_t C, bool WantDiv);
  int predNode(PredNode N);
  /// A and B combined by K (And or Or); -1 (no formula) leaves the other.
  int predCombine(PredNode::Kind K, int A, int B);
  int predAnd(int A, int B);
  int predOr(int A, int B);
  /// The formula `not A`.
  int predNot(int A);
  int toPred(const Val &V, Mask M);
  bool readsSite(const ir::Expr &E) const;
  std::int64_t valueAt(const Affine &A, const std::vector<std::int64_t> &Vals) const;
  std::int64_t opaqueAt(int Id, const std::vector<std::int64_t> &Vals) const;
  Mask predAt(int P, const std::vector<Mask> &AtomMasks) const;
  Mask atomAt(int A, const std::vector<std::int64_t> &Vals) const;
  void collectAtoms(int P, std::vector<int> &Out) const;
  void depsOf(const Affine &A, std::vector<int> &Out) const;
  /// The uniform value `P ? A : B` as nested Select opaque values, when P
  /// is the same in every lane of M; nullopt when a lane decides it.
  std::optional<Affine> selectUniform(int P, const Affine &A, const Affine &B, Mask M);
  /// Bounds of a uniform value over the variables' domains (corners for the
  /// affine part, known ranges for opaque values); nullopt when unknown.
  std::optional<std::pair<Wide, Wide>> rangeOf(const Affine &A) const;
  std::optional<std::pair<Wide, Wide>> opaqueRange(int Id) const;

  // The two runs over the evaluator (detail/WarpRun.h): the exhaustive
  // one (ExhaustiveRun.cpp) and the class-counting one (ClassCounting.cpp).
  class WarpRun;
  class ExhaustiveRun;
  class ClassCountingRun;
  /// The run the evaluator serves, where the two runs differ.
  WarpRun *Run = nullptr;
  // The class-counting run's steps: the symbolic runs' output, a class's
  // costs, the counting of templates by class, the time walk
  // (detail/ClassCounting.h; ClassCounting.cpp and ClassCosts.cpp).
  struct SymbolicRuns;
  class ClassCosts;
  class ClassCounter;
  class TimeWalk;
  /// The evaluator's state for warp Wib of block BlockLin (the symbolic
  /// runs: block 0, its indices variables).
  void setupWarp(std::int64_t BlockLin, std::int64_t Wib);
  /// The fast path's symbolic state, emptied for another try.
  void resetFast();

  /// A block's warps as one family: warp w = wx + N[0] (wy + N[1] wz) (wx,
  /// wy, wz the variables VarWx.. over 0..N[k]-1) has at lane l the thread
  /// index d = Coef[d] . (wx, wy, wz) + warp 0's at lane l, for every warp
  /// and lane (checked at setup). Then one symbolic run stands for every
  /// warp of the block, where a run per warp was made: a 32 x 32 block's 32
  /// runs become one, and its templates 32 times fewer. Blocks whose width
  /// is a multiple or a divisor of the warp's with whole warps qualify
  /// (32 x 8, 16 x 16, 128, 8 x 4 x 8); others (24 x 4, a partial warp)
  /// run warp by warp position as before.
  struct WarpFamily {
    std::array<std::int64_t, 3> N{1, 1, 1};
    std::array<std::array<std::int64_t, 3>, 3> Coef{}; ///< [tx, ty, tz][wx, wy, wz]
    /// The warp position variables' values of warp Wib.
    std::array<std::int64_t, 3> vars(std::int64_t Wib) const {
      return {Wib % N[0], Wib / N[0] % N[1], Wib / (N[0] * N[1])};
    }
  };
  static std::optional<WarpFamily> warpFamily(const std::array<std::int64_t, 3> &BlockDim, std::int64_t W);
  /// readArray's caller needs no value (evalReads): the read is only its
  /// access. Set just before that call; readArray clears it on entry, so
  /// the reads in its indices are not taken for it.
  bool ValueUnobserved = false;

  const ir::Program &Prog;
  const ir::Kernel &Kern;
  const AnalysisOptions &Opts;
  std::int64_t W = 32;
  std::int64_t Tpb = 1, NumBlocks = 1, WarpsPerBlock = 1;
  std::array<std::int64_t, 3> Grid{1, 1, 1}, BlockDim{1, 1, 1};
  Machine TimeModel = Dmm{};
  std::string TimeModelName;

  std::map<std::string, ArrayInfo, std::less<>> Arrays;
  /// How nvcc issues each atomic of the kernel (CUDA targets only).
  std::map<const ir::Atomic *, AtomicIssue> AtomicIssues;
  PermutationTables Perms;
  std::vector<SiteInfo> Sites;
  std::unordered_map<const ir::ArrayRead *, int> SiteOf;
  /// With AnalysisOptions::OnlySites: loops and conditionals that hold no
  /// kept site and assign no local, which the run then steps over.
  std::unordered_set<const ir::Stmt *> SkipStmts;
  /// Locals whose values no figure depends on (unobservedLocals): held as
  /// data, their assignments only evaluate the accesses they hold.
  std::unordered_set<std::string> Unobserved;
  /// Marks B's skippable statements; true when B itself holds a kept site
  /// or assigns a local.
  bool markSkippable(const ir::Block &B);
  /// Marks the statements of the kernel's body after the last one that
  /// holds a kept site.
  void skipAfterLastKept(const ir::Block &Body);
  /// With AnalysisOptions::OnlySites: whether R is a kept site, and whether
  /// E reads (or atomically updates) one.
  bool keptSite(const ir::ArrayRead &R) const;
  bool readsKeptSite(const ir::Expr &E) const;

  // Per-warp state.
  int Lanes = 0;       // threads in this warp
  Mask Full = 0;       // all its lanes
  std::int64_t CurBlock = 0, CurWib = 0;
  std::array<std::int64_t, 3> CurBlockIdx{0, 0, 0};
  LaneArr Tx{}, Ty{}, Tz{}, LinT{};
  std::vector<std::pair<std::string, Val>> Locals;
  /// Locals a `let` declared on part of the warp (under `if tx == 0`): their
  /// index in Locals and the lanes they exist on. An assignment on all of
  /// those lanes is whole, though it is not on all of the warp's. Entries
  /// at or past Locals' size are stale (a `let` at an index drops them).
  std::vector<std::pair<std::size_t, Mask>> DeclMasks;
  /// The conditions and loop bounds around the current statement that read
  /// data the analysis does not know, outermost first: which lanes run
  /// what they guard is unknown, so both branches run on every lane that
  /// reaches them (the worst case), and a local assigned under one that
  /// was declared outside it (Locals below LocalsMark) becomes unknown.
  struct DataGuard {
    std::string Source;
    SourceLoc Loc;
    std::size_t LocalsMark = 0;
    bool Loop = false;
    /// A `while` whose trips are sampled: a lane still in runs the body,
    /// so assignments hold until the loop ends (Assigned: their Locals).
    bool Sampled = false;
    std::vector<std::size_t> Assigned;
  };
  std::vector<DataGuard> Guards;
  std::vector<VarDomain> Domains;
  /// Per site: the executions whose address is data, by their expected
  /// congestion (DataCongestion::Expected).
  std::vector<std::map<double, std::int64_t>> DataExpected;
  /// expectedMaxLoad(K, W) by K, filled as needed (-1: not yet).
  std::vector<double> MaxLoadOf;
  std::int64_t WorkDone = 0;
  /// Expressions evaluated, statements run and steps spent (spend), over
  /// every path tried (KernelReport::Operations).
  std::int64_t Operations = 0;
  /// Statements run on the fast path (what a short loop's first trip cost).
  std::int64_t StmtsRun = 0;
  /// Why the kernel is evaluated warp by warp (for the step limit's error).
  std::string WalkReason;

  // Fast path output.
  std::vector<Template> Templates;
  std::vector<TraceNode> *CurTree = nullptr;
  std::vector<OpaqueDef> Opaques;
  std::vector<LaneTableDef> LaneTables;
  std::vector<AtomDef> Atoms;
  std::vector<PredNode> Preds;
  int CurPred = -1;   ///< the symbolic part of the current mask
  /// Locals.size() when CurPred took its value: a local from below it was
  /// declared outside the guard, and one from above inside it, where every
  /// warp that has the local runs its assignments alike.
  std::size_t PredMark = 0;
  int PendingOob = -1; ///< set by checkBounds for the next record
  std::vector<LoopDom> LoopStack;
  /// Locals (indices into Locals) that are the counters of the while loops
  /// running symbolically: their assignment sets them in every lane.
  std::vector<std::size_t> WhileCounters;

  /// Buffers an analysis hands to the next one on its thread.
  struct Spares {
    std::vector<AtomDef> Atoms;
    std::vector<PredNode> Preds;
    std::vector<Template> Templates;
  };
  static Spares &spares();
};

/// One report per site with its identity filled and no costs yet.
inline std::vector<AccessSiteReport> emptyReports(const std::vector<SiteInfo> &Sites) {
  std::vector<AccessSiteReport> Out;
  for (const SiteInfo &S : Sites) {
    AccessSiteReport R;
    R.Node.Read = S.Read;
    R.Loc = S.Loc;
    R.Array = S.Arr->Decl->Name;
    R.Space = S.Arr->Decl->Space;
    R.IsWrite = S.IsWrite;
    R.IsAtomic = S.Atomic != nullptr;
    if (S.Atomic)
      R.Op = S.Atomic->Op;
    R.Issue = S.Issue;
    R.ElemBytes = S.Arr->ElemBytes;
    // `auto` that no chooseLayouts resolved is analyzed as raw.
    R.Layout = S.Arr->Decl->Lay.Kind == ir::LayoutKind::Auto ? "auto, as raw" : S.Arr->Decl->Lay.str();
    Out.push_back(std::move(R));
  }
  return Out;
}

inline Space spaceOf(const SiteInfo &S) {
  return S.Arr->Decl->Space == ir::MemSpace::Shared ? Space::Shared : Space::Global;
}

} // namespace bankwise::kernel_analysis
