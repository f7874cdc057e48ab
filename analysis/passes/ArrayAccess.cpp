// Array reads and writes of one warp position for analyzeKernel: their
// bounds (lanes outside an array, as guard formulas on the fast path, an
// error on the warp-by-warp path), their addresses under the array's
// layout, the access handed to Analyzer::record, and the value read
// (permutation tables and --data arrays). Values are evaluated in
// WarpEvaluation.cpp.
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>
#include <algorithm>
#include <set>

namespace bankwise::kernel_analysis {

void Analyzer::checkBounds(const ArrayInfo &A, const std::vector<Val> &Idx,
                           Mask M, const SourceLoc &Loc) {
  const ir::Array &D = *A.Decl;
  // The lanes of X outside 0..Extent-1, as a formula (-1: none can be);
  // Chosen: every lane of M takes X (not an arm of a per-lane choice), so
  // a lane outside with no guard around is an error now.
  std::function<int(const Val &, std::size_t, bool)> Outside = [&](const Val &X, std::size_t Dim,
                                                                    bool Chosen) -> int {
    const std::int64_t Extent = D.Shape[Dim];
    if (X.Sel >= 0) {
      // Each arm's lanes outside, where the lanes chose that arm.
      const auto [Main, Alt] = selArms(X);
      PredNode Atom;
      Atom.K = PredNode::Atom;
      Atom.A = X.Sel;
      const int P = predNode(Atom);
      const int OM = Outside(Main, Dim, false), OA = Outside(Alt, Dim, false);
      return predOr(OM < 0 ? -1 : predAnd(P, OM), OA < 0 ? -1 : predAnd(predNot(P), OA));
    }
    if (X.concrete()) {
      PredNode Out;
      Out.K = PredNode::Lanes;
      for (int L = 0; L < Lanes; ++L)
        if ((M >> L) & 1 && (X.lane(L) < 0 || X.lane(L) >= Extent)) {
          if (CurPred < 0 && Chosen)
            runtimeError(Loc, fmt::format("index {} of '{}' is {}, outside 0..{}",
                                          Dim, D.Name, X.lane(L), Extent - 1),
                         L);
          Out.Bits |= Mask(1) << L; // the guard decides, per class
        }
      return Out.Bits ? predNode(Out) : -1;
    }
    // Over the box of variables the affine part is extreme at the corners;
    // opaque values contribute their known ranges, a lane table its values'.
    auto Range = rangeOf(X.U);
    if (Range && X.Lt >= 0) {
      const LaneTableDef &T = LaneTables[static_cast<std::size_t>(X.Lt)];
      Wide Top;
      if (T.IsPerm)
        Top = static_cast<Wide>(static_cast<const Permutation *>(T.Ref)->size()) - 1;
      else if (const auto *AI = static_cast<const ArrayInfo *>(T.Ref); AI->Holds)
        Top = static_cast<Wide>(AI->Holds->bound()) - 1;
      else
        throw NotAffine{"an index read from --data per lane (checked thread by thread)"};
      const Wide A1 = 0, A2 = Top * X.LtScale;
      Range = std::make_pair(Range->first + std::min(A1, A2), Range->second + std::max(A1, A2));
    }
    const bool Opaque = !Range;
    const Wide Lo = Range ? Range->first : 0, Hi = Range ? Range->second : 0;
    std::int64_t VLo = 0, VHi = 0;
    bool Any = false;
    for (int L = 0; L < Lanes; ++L)
      if ((M >> L) & 1) {
        const std::int64_t V = X.HasV ? X.V[static_cast<std::size_t>(L)] : 0;
        VLo = Any ? std::min(VLo, V) : V;
        VHi = Any ? std::max(VHi, V) : V;
        Any = true;
      }
    if (!Opaque && (!Any || (Lo + VLo >= 0 && Hi + VHi < Extent)))
      return -1;
    // Perhaps out of bounds somewhere (or guarded so it is not): the lanes
    // outside 0..Extent-1 become a formula, checked per class of warps.
    Val Above = X;
    Above.U.C -= Extent;
    const int Below = atom(X, ir::BinaryOp::Lt);
    return predOr(Below, atom(Above, ir::BinaryOp::Ge));
  };
  for (std::size_t Dim = 0; Dim < Idx.size(); ++Dim) {
    const Val &X = Idx[Dim];
    if (X.Unknown)
      continue;
    if (X.Pred >= 0)
      throw NotAffine{"a guard on block indices or loop variables used as an index"};
    PendingOob = predOr(PendingOob, Outside(X, Dim, true));
  }
}

Val Analyzer::address(const ArrayInfo &A, const std::vector<Val> &Idx, Mask M,
                      const SourceLoc &Loc) {
  const ir::Array &D = *A.Decl;
  auto Const = [](std::int64_t V) {
    Val R;
    R.U.C = V;
    return R;
  };
  for (const Val &X : Idx)
    if (X.Unknown) {
      // Uniform data in a row-major layout stays uniform data up to the
      // lanes' known parts: ((i0*D1 + i1)*...)*Pitch + j, as below. Other
      // layouts move elements within rows by their row: data per lane.
      if (!A.Layout.isAffine() ||
          !std::all_of(Idx.begin(), Idx.end(), [](const Val &Y) { return !Y.Unknown || Y.DataUniform; }))
        return plainData(X);
      Val Lin = Const(0);
      for (std::size_t Dim = 0; Dim + 1 < D.Shape.size(); ++Dim) {
        Lin = evalBinary(ir::BinaryOp::Mul, Lin, Const(D.Shape[Dim]), M, Loc);
        Lin = evalBinary(ir::BinaryOp::Add, Lin, Idx[Dim], M, Loc);
      }
      Lin = evalBinary(ir::BinaryOp::Mul, Lin, Const(D.Shape.back() + A.Layout.Pad), M, Loc);
      return evalBinary(ir::BinaryOp::Add, Lin, Idx.back(), M, Loc);
    }
  if (A.Layout.isAffine()) {
    // Row-major with the layout's row pitch: ((i0*D1 + i1)*D2 + ...)*Pitch + j,
    // kept symbolic on the fast path.
    const std::size_t Rank = D.Shape.size();
    const std::int64_t Pitch = D.Shape.back() + A.Layout.Pad;
    // Plain indices (affine uniform part, lane offsets): one weighted sum,
    // not a chain of binary operations on whole warp values.
    if (std::all_of(Idx.begin(), Idx.end(), [](const Val &X) { return X.Pred < 0 && X.Lt < 0 && X.Sel < 0; })) {
      Val R;
      std::int64_t Stride = 1;
      for (std::size_t Dim = Rank; Dim-- > 0;) {
        const Val &X = Idx[Dim];
        R.U = affineAdd(R.U, affineScale(X.U, Stride), 1);
        if (X.HasV) {
          R.HasV = true;
          for (int L = 0; L < Lanes; ++L) {
            std::int64_t P;
            if (mulOv(X.V[static_cast<std::size_t>(L)], Stride, P) ||
                addOv(R.V[static_cast<std::size_t>(L)], P, R.V[static_cast<std::size_t>(L)]))
              throw NotAffine{"overflow in a lane offset"};
          }
        }
        if (Dim > 0 && mulOv(Stride, Dim + 1 == Rank ? Pitch : D.Shape[Dim], Stride))
          throw NotAffine{"overflow in an array's strides"};
      }
      return R;
    }
    Val Lin = Const(0);
    for (std::size_t Dim = 0; Dim + 1 < Rank; ++Dim) {
      Lin = evalBinary(ir::BinaryOp::Mul, Lin, Const(D.Shape[Dim]), M, Loc);
      Lin = evalBinary(ir::BinaryOp::Add, Lin, Idx[Dim], M, Loc);
    }
    Lin = evalBinary(ir::BinaryOp::Mul, Lin, Const(Pitch), M, Loc);
    return evalBinary(ir::BinaryOp::Add, Lin, Idx.back(), M, Loc);
  }
  // Other layouts permute within rows: evaluate them lane by lane.
  for (const Val &X : Idx)
    if (!X.concrete())
      throw NotAffine{fmt::format("layout {} of '{}' indexed by block indices "
                                  "or loop variables",
                                  ir::spelling(A.Layout.Kind), D.Name)};
  Val R;
  R.HasV = true;
  std::vector<std::int64_t> Index(Idx.size());
  for (int L = 0; L < Lanes; ++L) {
    if (!((M >> L) & 1))
      continue;
    bool Inside = Index.size() == D.Shape.size();
    std::int64_t RowMajor = 0;
    for (std::size_t Dim = 0; Dim < Idx.size(); ++Dim) {
      Index[Dim] = Idx[Dim].lane(L);
      Inside = Inside && Index[Dim] >= 0 && Index[Dim] < D.Shape[Dim];
      RowMajor = RowMajor * (Dim < D.Shape.size() ? D.Shape[Dim] : 1) + Index[Dim];
    }
    // A lane outside the array (checkBounds made it a formula: an error
    // where the lane runs, nothing where a guard stops it) has no place in
    // the layout, whose tables a stray index would read out of bounds.
    R.V[static_cast<std::size_t>(L)] = Inside ? A.Layout.map(Index) : RowMajor;
  }
  return R;
}

Val Analyzer::readArray(const ir::ArrayRead &R, const SourceLoc &Loc, Mask M,
                        bool IsWrite) {
  const bool Unobserved = ValueUnobserved; // this read's, not its indices' reads'
  ValueUnobserved = false;
  auto It = Arrays.find(R.Array);
  // A site left out (AnalysisOptions::OnlySites) whose value is data: its
  // indices need no evaluation.
  if (It != Arrays.end() && !It->second.Holds && !It->second.Data && !Opts.OnlySites.empty()) {
    const auto Site = static_cast<std::size_t>(SiteOf.at(&R));
    if (Site >= Opts.OnlySites.size() || !Opts.OnlySites[Site]) {
      if (IsWrite)
        return {};
      // Whether every lane reads one element, as the full run would find,
      // from indices that read no memory (those evaluate nothing else).
      bool Alike = It->second.Decl->Space != ir::MemSpace::Local;
      for (const ir::Expr &I : R.Indices) {
        if (!Alike || readsSite(I)) {
          Alike = false;
          break;
        }
        try {
          Alike = sameInLanes(eval(I, M), M);
        } catch (const UserError &) {
          Alike = false;
        } catch (const NotAffine &E) {
          Run->warpPositionDecides(E.Reason); // the run per warp position decides (sameInLanes)
          Alike = false;
        }
      }
      if (Alike)
        return uniformData(R.Array);
      Val V;
      V.Unknown = true;
      V.UnknownSrc = R.Array;
      return V;
    }
  }
  std::vector<Val> Idx;
  Idx.reserve(R.Indices.size());
  for (const ir::Expr &I : R.Indices)
    Idx.push_back(eval(I, M));
  if (It == Arrays.end()) {
    // A local (per-thread) array: no memory-model cost; its values are data.
    Val V;
    V.Unknown = true;
    V.UnknownSrc = R.Array;
    return V;
  }
  const ArrayInfo &A = It->second;
  checkBounds(A, Idx, M, Loc);
  Val Addr = address(A, Idx, M, Loc);
  if (Addr.Unknown && !Addr.DataUniform) {
    // One index is data and the others are known: what the warp can reach.
    std::size_t Data = Idx.size(), Known = 0;
    for (std::size_t D = 0; D < Idx.size(); ++D) {
      if (Idx[D].Unknown)
        Data = D;
      else if (Idx[D].concrete())
        ++Known;
    }
    if (Data < Idx.size() && Known + 1 != Idx.size())
      // A known index in the warp position is a number in a run per warp
      // position, where the reach is computed.
      Run->warpPositionDecides("an address data decides beside an index in the warp's position in its block");
    if (Data < Idx.size() && Known + 1 == Idx.size()) {
      if (CurPred >= 0) // M holds lanes a warp's guard may leave off
        Run->warpPositionDecides("an address data decides under a guard on the warp's position in its block");
      Addr.ReachWorst = reachWorst(A, Idx, Data, M, Loc);
    }
  }
  Run->record(SiteOf.at(&R), Addr, M);
  if (IsWrite)
    return {};
  // The value read: known for permutation tables and --data arrays.
  if (A.Holds || A.Data) {
    const std::int64_t N = A.Decl->numElements();
    // Holds and data index the logical element (row-major), not the layout.
    Val Logical;
    Logical.U.C = 0;
    for (std::size_t D = 0; D < Idx.size(); ++D) {
      Val Dim;
      Dim.U.C = A.Decl->Shape[D];
      Logical = evalBinary(ir::BinaryOp::Add,
                           evalBinary(ir::BinaryOp::Mul, Logical, Dim, M, Loc), Idx[D], M, Loc);
    }
    if (!Logical.concrete() && !Logical.HasV) {
      OpaqueDef D;
      D.K = OpaqueDef::Table;
      D.Args = {Logical.U};
      D.Ref = &A;
      return opaque(std::move(D));
    }
    if (auto V = laneTable(Logical, M, &A, false,
                           A.Holds ? std::min<std::int64_t>(N, static_cast<std::int64_t>(A.Holds->size())) : N))
      return *V;
    return lookupTable(Logical, M, Loc, fmt::format("'{}'", R.Array),
                       [&](std::int64_t I) -> std::optional<std::int64_t> {
                         if (I < 0 || I >= N)
                           return std::nullopt;
                         if (A.Holds)
                           return I < static_cast<std::int64_t>(A.Holds->size())
                                      ? std::optional<std::int64_t>((*A.Holds)(static_cast<std::uint64_t>(I)))
                                      : std::nullopt;
                         return (*A.Data)[static_cast<std::size_t>(I)];
                       });
  }
  // Data, but one element for every lane (`ids[bx]`): one value in all
  // (a warp's read of one address gives every lane the same word). Not
  // asked for a value no figure depends on (evalReads).
  if (!Unobserved && A.Decl->Space != ir::MemSpace::Local &&
      std::all_of(Idx.begin(), Idx.end(), [&](const Val &X) { return sameInLanes(X, M); }))
    return uniformData(R.Array);
  Val V;
  V.Unknown = true;
  V.UnknownSrc = R.Array;
  return V;
}

std::int64_t Analyzer::reachWorst(const ArrayInfo &A, std::vector<Val> Idx, std::size_t Dim, Mask M,
                                  const SourceLoc &Loc) {
  // Each lane reaches the addresses of Idx[Dim] = 0 .. extent - 1. Bank b
  // then gets at most min(distinct addresses of b reached, lanes that reach
  // b) distinct addresses (equal when the lanes reach one set, such as a
  // row every lane indexes). Bounded work: extents up to 1024.
  const std::int64_t Extent = A.Decl->Shape[Dim];
  if (Extent > 1024)
    return 0;
  // The answer depends only on the array, the data's dimension, the lanes
  // and the other (concrete) indices' lane values: a data-indexed access
  // in a loop asks the same question every trip and every warp.
  std::vector<std::int64_t> Key{static_cast<std::int64_t>(Dim), Lanes, static_cast<std::int64_t>(M)};
  for (std::size_t D = 0; D < Idx.size(); ++D)
    if (D != Dim)
      for (int L = 0; L < Lanes; ++L)
        if ((M >> L) & 1)
          Key.push_back(Idx[D].lane(L));
  auto &Memo = ReachWorstMemo[&A];
  if (const auto It = Memo.find(Key); It != Memo.end())
    return It->second;
  std::vector<std::vector<Address>> Reach(static_cast<std::size_t>(Lanes));
  for (std::int64_t X = 0; X < Extent; ++X) {
    Val V;
    V.U.C = X;
    Idx[Dim] = V;
    const Val Addr = address(A, Idx, M, Loc);
    if (!Addr.concrete())
      return Memo[Key] = 0;
    for (int L = 0; L < Lanes; ++L)
      if ((M >> L) & 1)
        Reach[static_cast<std::size_t>(L)].push_back(Addr.lane(L));
  }
  // Per bank: its distinct addresses, and the lanes that reach it.
  std::vector<std::int64_t> Distinct(static_cast<std::size_t>(W), 0), LanesOf(static_cast<std::size_t>(W), 0);
  std::vector<char> Hit(static_cast<std::size_t>(W));
  Address Lo = 0, Hi = 0;
  bool Any = false;
  for (const std::vector<Address> &R : Reach) {
    std::fill(Hit.begin(), Hit.end(), 0);
    for (Address X : R) {
      const auto B = static_cast<std::size_t>(floorMod(X, W));
      LanesOf[B] += Hit[B] ? 0 : 1;
      Hit[B] = 1;
      Lo = Any ? std::min(Lo, X) : X;
      Hi = Any ? std::max(Hi, X) : X;
      Any = true;
    }
  }
  if (Any && Hi - Lo < (Address(1) << 24)) {
    // Addresses in a window (a shared array): marked once each.
    std::vector<bool> Seen(static_cast<std::size_t>(Hi - Lo + 1));
    for (const std::vector<Address> &R : Reach)
      for (Address X : R)
        if (!Seen[static_cast<std::size_t>(X - Lo)]) {
          Seen[static_cast<std::size_t>(X - Lo)] = true;
          ++Distinct[static_cast<std::size_t>(floorMod(X, W))];
        }
  } else {
    std::vector<Address> All;
    for (const std::vector<Address> &R : Reach)
      All.insert(All.end(), R.begin(), R.end());
    std::sort(All.begin(), All.end());
    All.erase(std::unique(All.begin(), All.end()), All.end());
    for (Address X : All)
      ++Distinct[static_cast<std::size_t>(floorMod(X, W))];
  }
  std::int64_t Worst = 0;
  for (std::size_t B = 0; B < Distinct.size(); ++B)
    Worst = std::max(Worst, std::min(Distinct[B], LanesOf[B]));
  return Memo[Key] = Worst;
}

} // namespace bankwise::kernel_analysis
