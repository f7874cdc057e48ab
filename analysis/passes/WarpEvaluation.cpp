// Evaluation of one warp position's kernel body for analyzeKernel: values as
// uniform part + per-lane part (symbolic on the fast path: affine terms,
// opaque values, guard atoms, lane tables; concrete on the warp-by-warp
// path). Array reads and writes, with their bounds and addresses, are in
// ArrayAccess.cpp, and each access is handed to Analyzer::record
// (KernelAnalysis.cpp); the statements run in StatementExecution.cpp, and
// data that is the same in every lane of a warp is combined in
// UniformData.cpp.
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>
#include <set>

namespace bankwise::kernel_analysis {

Val *Analyzer::findLocal(const std::string &Name) {
  for (auto It = Locals.rbegin(); It != Locals.rend(); ++It)
    if (It->first == Name)
      return &It->second;
  return nullptr;
}

Affine Analyzer::euclid(Affine A) const {
  // Per Mod term K (X % T): a Div term K T (X / T) of the same X and T.
  for (bool Again = true; Again;) {
    Again = false;
    for (const auto &[ModId, K] : A.Terms) {
      if (ModId < OpaqueBase)
        continue;
      const OpaqueDef &M = Opaques[static_cast<std::size_t>(ModId - OpaqueBase)];
      if (M.K != OpaqueDef::Bin || M.Op != ir::BinaryOp::Mod || M.Args.size() != 2 || !M.Args[1].isConst() ||
          M.Args[1].C <= 0)
        continue;
      const std::int64_t T = M.Args[1].C;
      std::int64_t KT;
      if (mulOv(K, T, KT))
        continue;
      for (const auto &[DivId, C] : A.Terms) {
        if (DivId < OpaqueBase || C != KT)
          continue;
        const OpaqueDef &D = Opaques[static_cast<std::size_t>(DivId - OpaqueBase)];
        if (D.K != OpaqueDef::Bin || D.Op != ir::BinaryOp::Div || D.Args != M.Args)
          continue;
        // K T (X / T) + K (X % T) = K X, whatever the signs: ir's / and %
        // round together (toward minus infinity), X = T (X / T) + X % T.
        Affine Pair;
        Pair.Terms.push_back(DivId < ModId ? std::pair{DivId, KT} : std::pair{ModId, K});
        Pair.Terms.push_back(DivId < ModId ? std::pair{ModId, K} : std::pair{DivId, KT});
        A = affineAdd(affineAdd(A, Pair, -1), affineScale(M.Args[0], K), 1);
        Again = true;
        break;
      }
      if (Again)
        break;
    }
  }
  return A;
}

Val Analyzer::evalBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M,
                         const SourceLoc &Loc) {
  using ir::BinaryOp;
  if (A.Unknown || B.Unknown) {
    if (std::optional<Val> R = uniformDataOp(Op, A, B, M))
      return *R;
    Val R;
    R.Unknown = true;
    R.UnknownSrc = A.Unknown ? A.UnknownSrc : B.UnknownSrc;
    return R;
  }
  if (A.Pred >= 0 || B.Pred >= 0)
    throw NotAffine{"a guard on block indices or loop variables used as a number"};
  if (A.Sel >= 0 || B.Sel >= 0) {
    if (A.Lt >= 0 || B.Lt >= 0)
      throw NotAffine{"a table read per lane combined with a per-lane choice"};
    return selectBinary(Op, A, B, M, Loc);
  }
  if (A.Lt >= 0 || B.Lt >= 0)
    return laneTableBinary(Op, A, B);
  if (A.concrete() && B.concrete())
    return concreteBinary(Op, A, B, M, Loc);
  return symbolicBinary(Op, A, B, M, Loc);
}

/// A Op B where one operand is a table value per lane: sums and constant
/// multiples keep it; anything else leaves the affine domain.
Val Analyzer::laneTableBinary(ir::BinaryOp Op, const Val &A, const Val &B) {
  auto IsConstV = [](const Val &X) { return X.concrete() && !X.HasV; };
  if ((Op == ir::BinaryOp::Add || Op == ir::BinaryOp::Sub) && (A.Lt < 0 || B.Lt < 0)) {
    const std::int64_t Sign = Op == ir::BinaryOp::Add ? 1 : -1;
    Val R;
    R.U = affineAdd(A.U, B.U, Sign);
    R.HasV = true;
    for (int L = 0; L < Lanes; ++L) {
      const std::int64_t X = A.Lt < 0 && A.HasV ? A.V[static_cast<std::size_t>(L)] : 0;
      const std::int64_t Y = B.Lt < 0 && B.HasV ? B.V[static_cast<std::size_t>(L)] : 0;
      if (addOv(X, Y * Sign, R.V[static_cast<std::size_t>(L)]))
        throw NotAffine{"overflow in a lane offset"};
    }
    R.Lt = A.Lt >= 0 ? A.Lt : B.Lt;
    R.LtScale = A.Lt >= 0 ? A.LtScale : B.LtScale * Sign;
    // The lane-table operand's own V is the additive part: keep it.
    const Val &T = A.Lt >= 0 ? A : B;
    const std::int64_t TSign = A.Lt >= 0 ? 1 : Sign;
    for (int L = 0; L < Lanes; ++L)
      if (addOv(R.V[static_cast<std::size_t>(L)], T.V[static_cast<std::size_t>(L)] * TSign,
                R.V[static_cast<std::size_t>(L)]))
        throw NotAffine{"overflow in a lane offset"};
    return R;
  }
  if (Op == ir::BinaryOp::Mul && (IsConstV(A) || IsConstV(B))) {
    const Val &T = A.Lt >= 0 ? A : B;
    const std::int64_t K = A.Lt >= 0 ? B.U.C : A.U.C;
    Val R;
    R.U = affineScale(T.U, K);
    R.HasV = true;
    for (int L = 0; L < Lanes; ++L)
      if (mulOv(T.V[static_cast<std::size_t>(L)], K, R.V[static_cast<std::size_t>(L)]))
        throw NotAffine{"overflow in a lane offset"};
    R.Lt = T.Lt;
    if (mulOv(T.LtScale, K, R.LtScale))
      throw NotAffine{"overflow in a lane offset"};
    return R;
  }
  throw NotAffine{"a table read per lane used in a non-affine operation"};
}

/// A Op B of known values, per active lane (a failing lane is a runtime
/// error at Loc).
Val Analyzer::concreteBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc) {
  int Lane = 0;
  auto Apply = [&](std::int64_t X, std::int64_t Y) {
    // The common operations without building a result (applyBinary
    // words the error when there is one).
    std::int64_t Fast = 0;
    if (ir::tryApplyBinary(Op, X, Y, Fast))
      return Fast;
    const ir::EvalResult R = ir::applyBinary(Op, X, Y, Loc);
    if (!R.ok())
      runtimeError(R.Loc.Line ? R.Loc : Loc, R.Message, Lane);
    return R.Value;
  };
  if (!A.HasV && !B.HasV) {
    Val R;
    Lane = -1;
    R.U.C = Apply(A.U.C, B.U.C);
    return R;
  }
  Val R;
  R.HasV = true;
  for (Lane = 0; Lane < Lanes; ++Lane)
    R.V[static_cast<std::size_t>(Lane)] =
        (M >> Lane) & 1 ? Apply(A.lane(Lane), B.lane(Lane)) : 0;
  return R;
}

/// X + Sign * Y in the lane parts only (the uniform part left 0).
Val Analyzer::lanePartSum(const Val &X, const Val &Y, std::int64_t Sign) const {
  Val R;
  R.HasV = X.HasV || Y.HasV;
  for (int L = 0; L < Lanes && R.HasV; ++L) {
    const std::int64_t XV = X.HasV ? X.V[static_cast<std::size_t>(L)] : 0;
    const std::int64_t YV = Y.HasV ? Y.V[static_cast<std::size_t>(L)] : 0;
    if (addOv(XV, YV * Sign, R.V[static_cast<std::size_t>(L)]))
      throw NotAffine{"overflow in a lane offset"};
  }
  return R;
}

/// K * X, uniform and lane parts.
Val Analyzer::scaleLanes(const Val &X, std::int64_t K) const {
  Val R;
  R.U = affineScale(X.U, K);
  R.HasV = X.HasV;
  for (int L = 0; L < Lanes && X.HasV; ++L)
    if (mulOv(X.V[static_cast<std::size_t>(L)], K, R.V[static_cast<std::size_t>(L)]))
      throw NotAffine{"overflow in a lane offset"};
  return R;
}

/// (U + V) / C and (U + V) % C with C dividing every symbolic coefficient:
/// write U = C*U' + Q*C + Rm, then the quotient is U' + Q + (Rm + V) / C;
/// where C does not divide a coefficient and X has lanes, wrappingDivMod.
Val Analyzer::affineDivMod(const Val &X, std::int64_t C, bool WantDiv) {
  for (auto [Var, Coef] : X.U.Terms)
    if (Coef % C != 0) {
      if (X.HasV)
        return wrappingDivMod(X, C, WantDiv);
      throw NotAffine{fmt::format("division by {} of a value whose block or "
                                  "loop coefficient {} it does not divide",
                                  C, Coef)};
    }
  Val R;
  const std::int64_t Q = floorDiv(X.U.C, C), Rm = floorMod(X.U.C, C);
  if (WantDiv) {
    for (auto [Var, Coef] : X.U.Terms)
      R.U.Terms.push_back({Var, Coef / C});
    R.U.C = Q;
    R.HasV = X.HasV;
    for (int L = 0; L < Lanes && X.HasV; ++L)
      R.V[static_cast<std::size_t>(L)] = floorDiv(Rm + X.V[static_cast<std::size_t>(L)], C);
  } else {
    R.U.C = X.HasV ? 0 : Rm;
    R.HasV = X.HasV;
    for (int L = 0; L < Lanes && X.HasV; ++L)
      R.V[static_cast<std::size_t>(L)] = floorMod(Rm + X.V[static_cast<std::size_t>(L)], C);
  }
  return R;
}

/// A Op B of symbolic operands (block indices, loop variables, opaque
/// values): affine where it stays so, a guard for a comparison, an opaque
/// value for a uniform result outside the affine domain.
Val Analyzer::symbolicBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc) {
  using ir::BinaryOp;
  // Symbolic operands: stay affine or give up.
  // A lane part the same in every lane is uniform: folded into the uniform
  // part, an operation that leaves the affine domain gives one opaque value
  // per warp, not a per-lane choice (llm.c's softmax: `idx % T` with idx =
  // bx * 8 + tx / 32, whose lane part tx / 32 is 0 in every lane of a warp
  // of the block's family).
  auto SameLanes = [&](const Val &X) {
    if (!X.HasV || X.Sel >= 0 || X.Lt >= 0 || X.Pred >= 0 || X.Unknown)
      return false;
    for (int L = 1; L < Lanes; ++L)
      if (X.V[static_cast<std::size_t>(L)] != X.V[0])
        return false;
    return true;
  };
  if (SameLanes(A) || SameLanes(B)) {
    auto Fold = [&](const Val &X) {
      Val R = X;
      if (SameLanes(X)) {
        if (addOv(R.U.C, X.V[0], R.U.C))
          throw NotAffine{"overflow in a symbolic constant"};
        R.HasV = false;
        R.V = LaneArr{};
      }
      return R;
    };
    return evalBinary(Op, Fold(A), Fold(B), M, Loc);
  }
  auto IsConst = [](const Val &X) { return X.concrete() && !X.HasV; };
  const bool Uniform = !A.HasV && !B.HasV;
  switch (Op) {
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne: {
    // A guard: lane l holds when (A - B)(l) Op 0; the mask is decided per
    // class of warps when counting.
    Val D = lanePartSum(A, B, -1);
    D.U = affineAdd(A.U, B.U, -1);
    Val R;
    R.Pred = atom(D, Op);
    return R;
  }
  default:
    break;
  }
  try {
    switch (Op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      const std::int64_t Sign = Op == BinaryOp::Add ? 1 : -1;
      Val R = lanePartSum(A, B, Sign);
      R.U = euclid(affineAdd(A.U, B.U, Sign));
      return R;
    }
    case BinaryOp::Mul:
      if (IsConst(B))
        return scaleLanes(A, B.U.C);
      if (IsConst(A))
        return scaleLanes(B, A.U.C);
      break;
    case BinaryOp::Shl:
      if (IsConst(B) && B.U.C >= 0 && B.U.C < 62)
        return scaleLanes(A, std::int64_t(1) << B.U.C);
      break;
    case BinaryOp::Div:
    case BinaryOp::Mod:
      if (IsConst(B) && B.U.C > 0)
        return affineDivMod(A, B.U.C, Op == BinaryOp::Div);
      break;
    case BinaryOp::Shr:
      if (IsConst(B) && B.U.C >= 0 && B.U.C < 62)
        return affineDivMod(A, std::int64_t(1) << B.U.C, true);
      break;
    case BinaryOp::BitAnd:
      if (IsConst(B) && B.U.C >= 0 && std::has_single_bit(static_cast<std::uint64_t>(B.U.C) + 1))
        return affineDivMod(A, B.U.C + 1, false);
      if (IsConst(A) && A.U.C >= 0 && std::has_single_bit(static_cast<std::uint64_t>(A.U.C) + 1))
        return affineDivMod(B, A.U.C + 1, false);
      break;
    default:
      break;
    }
  } catch (const NotAffine &) {
    if (!Uniform)
      throw;
  }
  // A uniform value outside the affine domain (a product of two block
  // indices, a division that does not divide, a shift or mask): opaque,
  // computed per block from the variables it depends on when counting.
  if (Uniform) {
    OpaqueDef D;
    D.K = OpaqueDef::Bin;
    D.Op = Op;
    D.Args = {A.U, B.U};
    return opaque(std::move(D));
  }
  throw NotAffine{"a non-affine operation on block indices or loop variables"};
}


Val Analyzer::lookupTable(const Val &Index, Mask M, const SourceLoc &Loc,
                          const std::string &What,
                          const std::function<std::optional<std::int64_t>(std::int64_t)> &F) {
  if (Index.Unknown) // one entry for every lane when the index is alike in all
    return sameInLanes(Index, M) ? uniformData(Index.UnknownSrc) : plainData(Index);
  if (!Index.concrete())
    throw NotAffine{fmt::format("{} indexed by block indices or loop variables", What)};
  Val R;
  auto One = [&](std::int64_t I, int Lane) {
    const auto V = F(I);
    if (!V)
      runtimeError(Loc, fmt::format("index {} is outside {}", I, What), Lane);
    return *V;
  };
  if (!Index.HasV) {
    R.U.C = One(Index.U.C, -1);
    return R;
  }
  R.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1)
      R.V[static_cast<std::size_t>(L)] = One(Index.lane(L), L);
  return R;
}

Val Analyzer::unobserved() {
  Val U;
  U.Unknown = true;
  U.UnknownSrc = "a value no access depends on";
  return U;
}

void Analyzer::evalReads(const ir::Expr &E, Mask M) {
  using namespace ir;
  if (!accessesMemory(E))
    return;
  const auto *B = E.as<Binary>();
  if (const auto *R = E.as<ArrayRead>()) { // its indices are observed, its value not
    ValueUnobserved = true; // readArray takes it before its indices' reads
    readArray(*R, E.Loc, M, false);
    return;
  }
  if (E.is<Atomic>() || E.is<Select>() || E.is<Shuffle>() ||
      (B && (B->Op == BinaryOp::LogAnd || B->Op == BinaryOp::LogOr))) {
    eval(E, M); // UnobservedLocals.cpp's Marker::reads observes what this reads
    return;
  }
  forEachChild(E, [&](const Expr &C) { evalReads(C, M); });
}

Val Analyzer::eval(const ir::Expr &E, Mask M) {
  using namespace ir;
  ++Operations;
  return std::visit(
      [&](const auto &N) -> Val {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, IntLit>) {
          Val R;
          R.U.C = N.Value;
          return R;
        } else if constexpr (std::is_same_v<T, VarRef>) {
          return evalVarRef(N, E.Loc);
        } else if constexpr (std::is_same_v<T, BuiltinRef>) {
          return evalBuiltin(N.Which);
        } else if constexpr (std::is_same_v<T, Unary>) {
          return evalUnary(N, M, E.Loc);
        } else if constexpr (std::is_same_v<T, Binary>) {
          const Val A = eval(*N.Lhs, M);
          if (N.Op == BinaryOp::LogAnd || N.Op == BinaryOp::LogOr)
            return evalShortCircuit(N, A, M);
          const Val B = eval(*N.Rhs, M);
          return evalBinary(N.Op, A, B, M, E.Loc);
        } else if constexpr (std::is_same_v<T, Call>) {
          return evalCall(N, M, E.Loc);
        } else if constexpr (std::is_same_v<T, ArrayRead>) {
          return readArray(N, E.Loc, M, false);
        } else if constexpr (std::is_same_v<T, PermApply>) {
          return evalPermApply(N, M, E.Loc);
        } else if constexpr (std::is_same_v<T, FloatLit>) {
          // Data arithmetic only (Sema keeps it out of indices, bounds and
          // conditions): no integer value.
          Val R;
          R.Unknown = true;
          R.UnknownSrc = "a floating-point value";
          return R;
        } else if constexpr (std::is_same_v<T, Select>) {
          return evalSelect(N, M, E.Loc);
        } else if constexpr (std::is_same_v<T, Atomic>) {
          return evalAtomic(N, E.Loc, M);
        } else if constexpr (std::is_same_v<T, Shuffle>) {
          return evalShuffle(N, E.Loc, M);
        }
      },
      E.Node);
}


/// A variable's value: a param's, or a local's (not one a while loop left
/// poisoned).
Val Analyzer::evalVarRef(const ir::VarRef &N, const SourceLoc &Loc) {
  using namespace ir;
if (N.Kind == VarKind::Param) {
  Val R;
  R.U.C = Prog.findParam(N.Name)->Value;
  return R;
}
if (Val *V = findLocal(N.Name)) {
  if (V->Poison)
    throw NotAffine{"a while loop's counter read after lanes left it at trips that depend on "
                    "block indices or loop variables"};
  return *V;
}
throw UserError(Loc, fmt::format("unknown name '{}'", N.Name));
}

/// A built-in index (threadIdx, blockIdx, the warp, the lane, tid): its
/// lanes, and the run's part of it (a number in a run warp by warp, terms
/// in the block and warp-position variables in a symbolic run).
Val Analyzer::evalBuiltin(ir::Builtin Which) {
  using namespace ir;
Val R;
// A thread index is the warp's per lane plus, in a warp family's run,
// terms in the warp position variables.
auto Lanes3 = [&](const LaneArr &A, int Dim) {
  R.HasV = true;
  R.V = A;
  Run->threadTerms(Dim, R);
};
auto Block = [&](int Dim) { Run->blockIndex(Dim, R); };
switch (Which) {
case Builtin::Tx:
  Lanes3(Tx, 0);
  break;
case Builtin::Ty:
  Lanes3(Ty, 1);
  break;
case Builtin::Tz:
  Lanes3(Tz, 2);
  break;
case Builtin::Bx:
  Block(0);
  break;
case Builtin::By:
  Block(1);
  break;
case Builtin::Bz:
  Block(2);
  break;
case Builtin::Warp:
  R.U.C = CurWib;
  Run->warpIndexTerms(1, R);
  break;
case Builtin::Lane:
  R.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    R.V[static_cast<std::size_t>(L)] = L;
  break;
case Builtin::Tid: {
  // tid = block * threadsPerBlock + t, block = bx + by*Gx + bz*Gx*Gy.
  R.HasV = true;
  R.V = LinT;
  Run->blockOffset(R);
  Run->warpIndexTerms(W, R); // after the block terms: terms stay sorted by variable
  break;
}
}
return R;
}

/// -X, !X and ~X, as the binary operations they are (0 - X, X == 0, -1 - X).
Val Analyzer::evalUnary(const ir::Unary &N, Mask M, const SourceLoc &Loc) {
  using namespace ir;
Val X = eval(*N.Operand, M);
Val Zero;
if (X.Pred >= 0 && N.Op == UnaryOp::Not) {
  Val R;
  R.Pred = predNot(X.Pred);
  return R;
}
switch (N.Op) {
case UnaryOp::Neg:
  return evalBinary(BinaryOp::Sub, Zero, X, M, Loc);
case UnaryOp::Not:
  return evalBinary(BinaryOp::Eq, X, Zero, M, Loc);
case UnaryOp::BitNot: {
  Val MinusOne;
  MinusOne.U.C = -1;
  return evalBinary(BinaryOp::Sub, MinusOne, X, M, Loc);
}
}
return X;
}

/// `&&` and `||`, short-circuit per lane: the right side is evaluated only
/// on the lanes that need it (on every lane when the left is a guard on
/// block indices or loop variables, where that is exact).
Val Analyzer::evalShortCircuit(const ir::Binary &N, const Val &A, Mask M) {
  using namespace ir;
// Short-circuit per lane: evaluate the right side only on the
// lanes that need it.
if (A.Unknown)
  return plainData(A);
const bool IsAnd = N.Op == BinaryOp::LogAnd;
auto Combine = [&](int PA, int PB) {
  PredNode C;
  C.K = IsAnd ? PredNode::And : PredNode::Or;
  C.A = PA;
  C.B = PB;
  Val R;
  R.Pred = predNode(C);
  return R;
};
if (!A.concrete()) {
  // A guard on the left: the right side runs on every lane here,
  // which is exact only when it reads no memory and cannot fail.
  if (readsSite(*N.Rhs))
    throw NotAffine{"memory read behind a guard on block indices "
                    "or loop variables"};
  Val B;
  try {
    B = eval(*N.Rhs, M);
  } catch (const UserError &) {
    throw NotAffine{"a guarded operand that fails on some lanes"};
  }
  if (B.Unknown)
    return plainData(B);
  return Combine(toPred(A, M), toPred(B, M));
}
Mask Need = 0;
for (int L = 0; L < Lanes; ++L)
  if ((M >> L) & 1 && ((A.lane(L) != 0) == (N.Op == BinaryOp::LogAnd)))
    Need |= Mask(1) << L;
Val B;
if (Need)
  B = eval(*N.Rhs, Need);
if (B.Unknown) {
  // Data decides the lanes that reach the right side; the
  // others are known (`i < N && f[i] > 0` is 0 where i >= N).
  B = plainData(B);
  B.KnownZero = B.KnownOne = 0;
  (IsAnd ? B.KnownZero : B.KnownOne) = M & ~Need;
  return B;
}
if (!B.concrete()) {
  // Lanes where A decides are constant; the rest follow B.
  Mask ADecides = 0;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1 && (A.lane(L) != 0) != IsAnd)
      ADecides |= Mask(1) << L;
  PredNode Known;
  Known.K = PredNode::Lanes;
  Known.Bits = IsAnd ? Need : ADecides; // && : A true; || : A true
  return Combine(predNode(Known), toPred(B, Need));
}
Val R;
R.HasV = true;
for (int L = 0; L < Lanes; ++L) {
  const bool Av = A.lane(L) != 0;
  const bool Bv = (Need >> L) & 1 ? B.lane(L) != 0 : false;
  R.V[static_cast<std::size_t>(L)] =
      N.Op == BinaryOp::LogAnd ? (Av && Bv) : (Av || Bv);
}
return R;
}

/// A built-in function (min, max, log2, bitrev): per lane where its
/// arguments are known, an opaque or per-lane choice where symbolic.
Val Analyzer::evalCall(const ir::Call &N, Mask M, const SourceLoc &Loc) {
  using namespace ir;
std::vector<Val> Args;
for (const Expr &A : N.Args)
  Args.push_back(eval(A, M));
for (const Val &A : Args)
  if (A.Unknown) {
    // min, max, log2, bitrev of values alike in every lane.
    const bool Alike = std::all_of(Args.begin(), Args.end(),
                                   [&](const Val &X) { return sameInLanes(X, M); });
    return Alike ? uniformData(A.UnknownSrc) : plainData(A);
  }
bool AllConcrete = true, AnyLanes = false;
for (const Val &A : Args) {
  if (A.Pred >= 0)
    throw NotAffine{"a guard on block indices or loop variables used as a number"};
  if (A.Sel >= 0 || A.Lt >= 0)
    throw NotAffine{"a built-in function of a per-lane choice or a table read per lane"};
  AllConcrete = AllConcrete && A.concrete();
  AnyLanes = AnyLanes || A.HasV;
}
if (!AllConcrete) {
  if (!AnyLanes) {
    // Uniform: opaque, computed per block when counting.
    OpaqueDef D;
    D.K = OpaqueDef::Fn;
    D.F = N.Fn;
    for (const Val &A : Args)
      D.Args.push_back(A.U);
    return opaque(std::move(D));
  }
  if (N.Fn == Function::Bitrev && Args[1].concrete() && !Args[1].HasV)
    if (auto R = splitBitrev(Args[0], Args[1].U.C, M))
      return *R;
  if (N.Fn == Function::Min || N.Fn == Function::Max) {
    // Per lane: min(A, B) is A where A - B < 0, max where > 0.
    Val Diff;
    Diff.U = affineAdd(Args[0].U, Args[1].U, -1);
    Diff.HasV = true;
    for (int L = 0; L < Lanes; ++L)
      if (__builtin_sub_overflow(Args[0].HasV ? Args[0].V[static_cast<std::size_t>(L)] : 0,
                                 Args[1].HasV ? Args[1].V[static_cast<std::size_t>(L)] : 0,
                                 &Diff.V[static_cast<std::size_t>(L)]))
        throw NotAffine{"overflow in a lane offset"};
    const int P = atom(Diff, N.Fn == Function::Min ? BinaryOp::Lt : BinaryOp::Gt);
    return laneSelect(Preds[static_cast<std::size_t>(P)].A, Args[0], Args[1]);
  }
  throw NotAffine{"a built-in function of block indices or loop variables"};
}
int Lane = -1;
auto F = [&](std::int64_t X, std::int64_t Y) -> std::int64_t {
  switch (N.Fn) {
  case Function::Min:
    return std::min(X, Y);
  case Function::Max:
    return std::max(X, Y);
  case Function::Log2:
  case Function::Bitrev: {
    const ir::EvalResult R =
        N.Fn == Function::Log2 ? ir::applyCall(N.Fn, {X}, Loc)
                               : ir::applyCall(N.Fn, {X, Y}, Loc);
    if (!R.ok())
      runtimeError(Loc, R.Message, Lane);
    return R.Value;
  }
  }
  return 0;
};
const Val &A = Args[0];
const Val B = Args.size() > 1 ? Args[1] : Val{};
if (!A.HasV && !B.HasV) {
  Val R;
  R.U.C = F(A.U.C, B.U.C);
  return R;
}
Val R;
R.HasV = true;
for (Lane = 0; Lane < Lanes; ++Lane)
  if ((M >> Lane) & 1)
    R.V[static_cast<std::size_t>(Lane)] = F(A.lane(Lane), B.lane(Lane));
return R;
}

/// A permutation applied to an index: closed forms (identity, bit
/// reversal) keep the lanes, a uniform index is opaque, else a table.
Val Analyzer::evalPermApply(const ir::PermApply &N, Mask M, const SourceLoc &Loc) {
  using namespace ir;
const Val X = eval(*N.Arg, M);
const bankwise::Permutation &P = permutation(N.Perm, N.Inverse);
if (!X.Unknown && !X.concrete() && X.HasV && X.Pred < 0) {
  // Closed forms keep the lanes: identity, and bitreverse(n) as
  // bitrev of log2(n) bits (its own inverse).
  const ir::Permutation *Decl = Prog.findPerm(N.Perm);
  bool InRange = Decl && Decl->Size;
  if (InRange) { // every active lane's index in 0..n-1, provably
    const auto Rg = rangeOf(X.U);
    InRange = Rg.has_value();
    for (int L = 0; L < Lanes && InRange; ++L)
      if ((M >> L) & 1)
        InRange = Rg->first + X.V[static_cast<std::size_t>(L)] >= 0 &&
                  Rg->second + X.V[static_cast<std::size_t>(L)] < *Decl->Size;
  }
  if (InRange) {
    if (Decl->Kind == ir::PermKind::Identity)
      return X;
    if (Decl->Kind == ir::PermKind::Bitreverse)
      if (auto R = splitBitrev(X, std::countr_zero(static_cast<std::uint64_t>(*Decl->Size)), M))
        return *R;
  }
}
if (!X.Unknown && !X.concrete() && !X.HasV && X.Pred < 0) {
  OpaqueDef D;
  D.K = OpaqueDef::Perm;
  D.Args = {X.U};
  D.Ref = &P;
  return opaque(std::move(D));
}
if (auto R = laneTable(X, M, &P, true, static_cast<std::int64_t>(P.size())))
  return *R;
return lookupTable(X, M, Loc, fmt::format("permutation '{}' of size {}", N.Perm, P.size()),
                   [&](std::int64_t I) -> std::optional<std::int64_t> {
                     if (I < 0 || static_cast<std::uint64_t>(I) >= P.size())
                       return std::nullopt;
                     return static_cast<std::int64_t>(P(static_cast<std::uint64_t>(I)));
                   });
}

/// `C ? A : B`: each lane evaluates only the arm it chooses.
Val Analyzer::evalSelect(const ir::Select &N, Mask M, const SourceLoc &Loc) {
  using namespace ir;
// Each lane evaluates only the arm it chooses, so an arm's reads
// are accesses of the lanes that choose it.
const Val C = eval(*N.Cond, M);
if (C.Unknown) {
  // Data chooses: each arm runs on every lane that may choose it
  // (a data guard, as an `if`), and the value is data.
  Guards.push_back({C.UnknownSrc, Loc, Locals.size(), false, false, {}});
  if (const Mask Then = M & ~C.KnownZero)
    eval(*N.Then, Then);
  if (const Mask Else = M & ~C.KnownOne)
    eval(*N.Else, Else);
  Guards.pop_back();
  Val R;
  R.Unknown = true;
  R.UnknownSrc = C.UnknownSrc;
  return R;
}
if (!C.concrete())
  return symbolicChoice(C, M, [&] { return eval(*N.Then, M); }, [&] { return eval(*N.Else, M); });
Mask Then = 0;
for (int L = 0; L < Lanes; ++L)
  if ((M >> L) & 1 && C.lane(L) != 0)
    Then |= Mask(1) << L;
if (Then == M)
  return eval(*N.Then, M);
if (Then == 0)
  return eval(*N.Else, M);
const Val A = eval(*N.Then, Then), B = eval(*N.Else, M & ~Then);
if (A.Unknown || B.Unknown) // lanes take different arms
  return plainData(A.Unknown ? A : B);
if (!A.concrete() || !B.concrete()) {
  auto Plain = [](const Val &X) { return X.Pred < 0 && X.Lt < 0 && X.Sel < 0; };
  if (!Plain(A) || !Plain(B))
    throw NotAffine{"a '?:' whose lanes choose guards, table reads or per-lane choices"};
  // A fixed choice of lanes: the atom 0 + G[l] < 0 with G[l] = -1
  // on the lanes that take the first arm.
  Val Which;
  Which.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    Which.V[static_cast<std::size_t>(L)] = (Then >> L) & 1 ? -1 : 0;
  const int P = atom(Which, BinaryOp::Lt);
  return laneSelect(Preds[static_cast<std::size_t>(P)].A, A, B);
}
Val R;
R.HasV = true;
for (int L = 0; L < Lanes; ++L)
  R.V[static_cast<std::size_t>(L)] = (Then >> L) & 1 ? A.lane(L) : B.lane(L);
return R;
}

Val Analyzer::symbolicChoice(const Val &C, Mask M, const std::function<Val()> &Then,
                             const std::function<Val()> &Else) {
  using namespace ir;
  const int P = toPred(C, M);
  const int Outer = CurPred;
  CurPred = predAnd(Outer, P);
  const Val A = Then();
  CurPred = predAnd(Outer, predNot(P));
  const Val B = Else();
  CurPred = Outer;
  if (A.Unknown || B.Unknown)
    return A.Unknown ? A : B;
  if (A.Pred >= 0 || B.Pred >= 0 || A.Lt >= 0 || B.Lt >= 0 || A.Sel >= 0 || B.Sel >= 0)
    throw NotAffine{"a '?:' on block indices or loop variables that chooses a guard, a table read "
                    "or a per-lane choice"};
  bool SameLanes = true;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1 && (A.HasV ? A.V[static_cast<std::size_t>(L)] : 0) !=
                            (B.HasV ? B.V[static_cast<std::size_t>(L)] : 0))
      SameLanes = false;
  if (SameLanes)
    if (const auto U = selectUniform(P, A.U, B.U, M)) {
      Val R = A.HasV ? A : B;
      R.U = *U;
      return R;
    }
  // Lanes may take different arms: a per-lane choice, when one
  // atom decides it.
  const PredNode &Cond = Preds[static_cast<std::size_t>(P)];
  if (Cond.K == PredNode::Atom)
    return laneSelect(Cond.A, A, B);
  if (Cond.K == PredNode::Not && Preds[static_cast<std::size_t>(Cond.A)].K == PredNode::Atom)
    return laneSelect(Preds[static_cast<std::size_t>(Cond.A)].A, B, A);
  throw NotAffine{"a '?:' whose condition on block indices or loop variables is not one comparison and "
                  "differs between the lanes of a warp"};
}

Val Analyzer::evalShuffle(const ir::Shuffle &S, const SourceLoc &Loc, Mask M) {
  const Val V = eval(*S.Value, M);
  const Val L = eval(*S.Lane, M);
  // Uniform data moves as a known value does: each lane takes its source
  // lane's known part.
  if (V.Unknown && (!V.DataUniform || L.Unknown))
    return plainData(V);
  if (L.Unknown) { // which lane is data: so is the value
    Val R;
    R.Unknown = true;
    R.UnknownSrc = L.UnknownSrc;
    return R;
  }
  if (V.Pred >= 0 || L.Pred >= 0)
    throw NotAffine{"a guard on block indices or loop variables passed through a warp shuffle"};
  if (!L.concrete())
    throw NotAffine{"a shuffle lane that depends on block indices or loop variables"};
  if (V.Lt >= 0 || V.Sel >= 0)
    throw NotAffine{"a table read per lane or a per-lane choice passed through a warp shuffle"};
  if (CurPred >= 0) // only a symbolic run has guards
    throw NotAffine{"a warp shuffle under a guard on block indices or loop variables"};
  Val R = V;
  bool FromIdle = false;
  for (int Ln = 0; Ln < Lanes; ++Ln) {
    if (!((M >> Ln) & 1))
      continue;
    const std::int64_t Arg = L.lane(Ln);
    if (Arg < 0 && S.Op != ir::ShuffleOp::Idx)
      runtimeError(Loc, fmt::format("the {} of '{}' is {}, negative", S.Op == ir::ShuffleOp::Xor ? "lane mask" : "distance",
                                    ir::spelling(S.Op), Arg),
                   Ln);
    const std::int64_t Src = ir::shuffleSource(S.Op, Ln, Arg);
    // A source lane the warp lacks or that does not run here: undefined in
    // CUDA (bankwise-divergent-shuffle reports it); its value is data.
    if (Src >= Lanes || !((M >> Src) & 1)) {
      FromIdle = true;
      continue;
    }
    if (V.HasV)
      R.V[static_cast<std::size_t>(Ln)] = V.V[static_cast<std::size_t>(Src)];
  }
  if (FromIdle) {
    Val U;
    U.Unknown = true;
    U.UnknownSrc = V.Unknown ? V.UnknownSrc
                             : fmt::format("'{}' from a lane that does not run it", ir::spelling(S.Op));
    return U;
  }
  return R;
}

Val Analyzer::evalAtomic(const ir::Atomic &A, const SourceLoc &Loc, Mask M) {
  for (const ir::Expr &V : A.Args)
    eval(V, M); // the values' reads come first
  readArray(A.Target, Loc, M, true);
  // The old value: whatever the lanes before it left there, data.
  Val R;
  R.Unknown = true;
  R.UnknownSrc = A.Target.Array;
  return R;
}

} // namespace bankwise::kernel_analysis
