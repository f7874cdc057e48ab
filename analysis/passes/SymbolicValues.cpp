// Opaque uniform values and guard atoms (the fast path of analyzeKernel):
// what the symbolic run of a warp position builds when a value leaves the
// affine domain (an opaque uniform value: a division, a table read, a
// bitrev of block indices) or decides lanes by block indices and loop
// variables (a guard: atoms and their formulas); their values at given
// variables and their ranges, which ClassCounting.cpp's counting uses.
#include "analysis/passes/detail/Analyzer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace bankwise::kernel_analysis {
Val Analyzer::opaque(OpaqueDef D) {
  int Id = -1;
  for (std::size_t I = Opaques.size(); I-- > 0;)
    if (Opaques[I] == D) {
      Id = static_cast<int>(I);
      break;
    }
  if (Id < 0) {
    if (Opaques.size() >= 4096)
      throw NotAffine{"more than 4096 distinct opaque values of block indices "
                      "or loop variables"};
    Opaques.push_back(std::move(D));
    Id = static_cast<int>(Opaques.size()) - 1;
  }
  Val R;
  R.U.Terms.push_back({OpaqueBase + Id, 1});
  return R;
}

int Analyzer::predNode(PredNode N) {
  if (Preds.size() >= (std::size_t(1) << 20))
    throw NotAffine{"too many guard formulas"};
  Preds.push_back(N);
  return static_cast<int>(Preds.size()) - 1;
}

int Analyzer::atom(const Val &Diff, ir::BinaryOp Op) {
  AtomDef D;
  D.U = Diff.U;
  D.HasG = Diff.HasV;
  D.G = Diff.V;
  D.Op = Op;
  if (D.HasG) {
    D.GMin = *std::min_element(D.G.begin(), D.G.begin() + W);
    D.GMax = *std::max_element(D.G.begin(), D.G.begin() + W);
  }
  Atoms.push_back(std::move(D));
  PredNode N;
  N.K = PredNode::Atom;
  N.A = static_cast<int>(Atoms.size()) - 1;
  return predNode(N);
}

Val Analyzer::laneSelect(int AtomId, const Val &Main, const Val &Alt) {
  Val R;
  R.U = Main.U;
  R.HasV = true;
  if (Main.HasV)
    R.V = Main.V;
  R.SelD = affineAdd(Main.U, Alt.U, -1);
  if (Alt.HasV)
    R.SelV = Alt.V;
  const AtomDef &D = Atoms[static_cast<std::size_t>(AtomId)];
  if (D.U.isConst() && R.SelD.isConst()) {
    // The lanes' choice and the arms' distance are the same in every
    // warp: one plain value.
    const Mask Chosen = atomAt(AtomId, {});
    for (int L = 0; L < Lanes; ++L)
      if (!((Chosen >> L) & 1) &&
          __builtin_sub_overflow(R.SelV[static_cast<std::size_t>(L)], R.SelD.C, &R.V[static_cast<std::size_t>(L)]))
        throw NotAffine{"overflow in a lane offset"};
    R.SelD = Affine{};
    R.SelV = LaneArr{};
    return R;
  }
  R.Sel = AtomId;
  return R;
}

std::pair<Val, Val> Analyzer::selArms(const Val &S) const {
  Val Main, Alt;
  Main.U = S.U;
  Main.HasV = S.HasV;
  Main.V = S.V;
  Alt.U = affineAdd(S.U, S.SelD, -1);
  Alt.HasV = true;
  Alt.V = S.SelV;
  return {Main, Alt};
}

Val Analyzer::selectBinary(ir::BinaryOp Op, const Val &A, const Val &B, Mask M, const SourceLoc &Loc) {
  if (A.Sel >= 0 && B.Sel >= 0)
    throw NotAffine{"two per-lane choices (min, max, a wrapping % or /, a '?:' per lane) in one operation"};
  const bool Left = A.Sel >= 0;
  const Val &S = Left ? A : B, &O = Left ? B : A;
  const auto [Main, Alt] = selArms(S);
  const Val RMain = Left ? evalBinary(Op, Main, O, M, Loc) : evalBinary(Op, O, Main, M, Loc);
  const Val RAlt = Left ? evalBinary(Op, Alt, O, M, Loc) : evalBinary(Op, O, Alt, M, Loc);
  PredNode Chosen;
  Chosen.K = PredNode::Atom;
  Chosen.A = S.Sel;
  switch (Op) {
  case ir::BinaryOp::Lt:
  case ir::BinaryOp::Le:
  case ir::BinaryOp::Gt:
  case ir::BinaryOp::Ge:
  case ir::BinaryOp::Eq:
  case ir::BinaryOp::Ne: {
    // Each lane's truth is its arm's: (chosen and main's) or (not chosen
    // and alt's).
    const int P = predNode(Chosen);
    Val R;
    R.Pred = predOr(predAnd(P, toPred(RMain, M)), predAnd(predNot(P), toPred(RAlt, M)));
    return R;
  }
  default:
    break;
  }
  auto Plain = [](const Val &X) { return !X.Unknown && X.Pred < 0 && X.Lt < 0 && X.Sel < 0; };
  if (!Plain(RMain) || !Plain(RAlt))
    throw NotAffine{"an operation on a per-lane choice (min, max, a wrapping % or /, a '?:' per lane) that "
                    "leaves the affine domain"};
  return laneSelect(S.Sel, RMain, RAlt);
}

Val Analyzer::wrappingDivMod(const Val &X, std::int64_t C, bool WantDiv) {
  Affine Den;
  Den.C = C;
  auto Opaque = [&](ir::BinaryOp Op) {
    OpaqueDef D;
    D.K = OpaqueDef::Bin;
    D.Op = Op;
    D.Args = {X.U, Den};
    return opaque(std::move(D));
  };
  const Val R = Opaque(ir::BinaryOp::Mod);
  Val Wraps; // r + b_l - C < 0: the lanes that do not wrap
  Wraps.U = affineAdd(R.U, Den, -1);
  Wraps.HasV = true;
  Val Main;
  Main.HasV = true;
  for (int L = 0; L < Lanes; ++L) {
    const std::int64_t V = X.HasV ? X.V[static_cast<std::size_t>(L)] : 0;
    Wraps.V[static_cast<std::size_t>(L)] = floorMod(V, C);
    Main.V[static_cast<std::size_t>(L)] = WantDiv ? floorDiv(V, C) : floorMod(V, C);
  }
  const int P = atom(Wraps, ir::BinaryOp::Lt);
  Main.U = WantDiv ? Opaque(ir::BinaryOp::Div).U : R.U;
  Val Alt = Main; // a wrapping lane's quotient is one more, its remainder C less
  Alt.U.C += WantDiv ? 1 : -C;
  return laneSelect(Preds[static_cast<std::size_t>(P)].A, Main, Alt);
}

int Analyzer::predCombine(PredNode::Kind K, int A, int B) {
  if (A < 0)
    return B;
  if (B < 0)
    return A;
  PredNode N;
  N.K = K;
  N.A = A;
  N.B = B;
  return predNode(N);
}

int Analyzer::predAnd(int A, int B) { return predCombine(PredNode::And, A, B); }
int Analyzer::predOr(int A, int B) { return predCombine(PredNode::Or, A, B); }

int Analyzer::predNot(int A) {
  PredNode N;
  N.K = PredNode::Not;
  N.A = A;
  return predNode(N);
}

int Analyzer::toPred(const Val &V, Mask M) {
  if (V.Pred >= 0)
    return V.Pred;
  if (V.Lt >= 0)
    throw NotAffine{"a table read per lane used as a condition"};
  if (V.Sel >= 0) // a per-lane choice as a truth: != 0 on each arm
    return selectBinary(ir::BinaryOp::Ne, V, Val{}, M, SourceLoc{}).Pred;
  if (V.concrete()) {
    PredNode N;
    N.K = PredNode::Lanes;
    for (int L = 0; L < Lanes; ++L)
      if ((M >> L) & 1 && V.lane(L) != 0)
        N.Bits |= Mask(1) << L;
    return predNode(N);
  }
  return atom(V, ir::BinaryOp::Ne); // a value used as a truth: != 0
}

std::optional<Affine> Analyzer::selectUniform(int P, const Affine &A, const Affine &B, Mask M) {
  if (A == B)
    return A;
  const PredNode N = Preds[static_cast<std::size_t>(P)];
  switch (N.K) {
  case PredNode::Atom: {
    const AtomDef &D = Atoms[static_cast<std::size_t>(N.A)];
    Affine Cond = D.U;
    if (D.HasG) { // uniform when every lane of M has the same offset
      std::optional<std::int64_t> G;
      for (int L = 0; L < Lanes; ++L)
        if ((M >> L) & 1) {
          if (G && *G != D.G[static_cast<std::size_t>(L)])
            return std::nullopt;
          G = D.G[static_cast<std::size_t>(L)];
        }
      if (G && addOv(Cond.C, *G, Cond.C))
        return std::nullopt;
    }
    OpaqueDef O;
    O.K = OpaqueDef::Select;
    O.Op = D.Op;
    O.Args = {std::move(Cond), A, B};
    return opaque(std::move(O)).U;
  }
  case PredNode::Lanes:
    if ((N.Bits & M) == M)
      return A;
    if ((N.Bits & M) == 0)
      return B;
    return std::nullopt;
  case PredNode::And: { // P1 && P2 ? A : B = P1 ? (P2 ? A : B) : B
    const auto Inner = selectUniform(N.B, A, B, M);
    return Inner ? selectUniform(N.A, *Inner, B, M) : std::nullopt;
  }
  case PredNode::Or: { // P1 || P2 ? A : B = P1 ? A : (P2 ? A : B)
    const auto Inner = selectUniform(N.B, A, B, M);
    return Inner ? selectUniform(N.A, A, *Inner, M) : std::nullopt;
  }
  case PredNode::Not:
    return selectUniform(N.A, B, A, M);
  }
  return std::nullopt;
}

bool Analyzer::readsSite(const ir::Expr &E) const {
  return ir::accessesMemory(E);
}

std::int64_t Analyzer::valueAt(const Affine &A, const std::vector<std::int64_t> &Vals) const {
  std::int64_t R = A.C;
  for (auto [Var, Coef] : A.Terms) {
    const std::int64_t X = Var >= OpaqueBase ? opaqueAt(Var - OpaqueBase, Vals)
                                             : Vals[static_cast<std::size_t>(Var)];
    std::int64_t P;
    if (mulOv(Coef, X, P) || addOv(R, P, R))
      throw NotAffine{"overflow in a uniform value"};
  }
  return R;
}

std::int64_t Analyzer::opaqueAt(int Id, const std::vector<std::int64_t> &Vals) const {
  const OpaqueDef &D = Opaques[static_cast<std::size_t>(Id)];
  std::array<std::int64_t, 3> Args{};
  for (std::size_t I = 0; I < D.Args.size() && I < Args.size(); ++I)
    Args[I] = valueAt(D.Args[I], Vals);
  ir::EvalResult R;
  switch (D.K) {
  case OpaqueDef::Bin:
    if (std::int64_t V = 0; ir::tryApplyBinary(D.Op, Args[0], Args[1], V))
      return V;
    R = ir::applyBinary(D.Op, Args[0], Args[1]);
    break;
  case OpaqueDef::Fn:
    if (D.F == ir::Function::Min || D.F == ir::Function::Max)
      return D.F == ir::Function::Min ? std::min(Args[0], Args[1]) : std::max(Args[0], Args[1]);
    R = ir::applyCall(D.F, std::vector<std::int64_t>(Args.begin(), Args.begin() + static_cast<std::ptrdiff_t>(D.Args.size())));
    break;
  case OpaqueDef::Perm: {
    const auto &P = *static_cast<const Permutation *>(D.Ref);
    if (Args[0] < 0 || static_cast<std::uint64_t>(Args[0]) >= P.size())
      throw NotAffine{"a permutation applied outside its range"};
    return static_cast<std::int64_t>(P(static_cast<std::uint64_t>(Args[0])));
  }
  case OpaqueDef::Select: {
    const ir::EvalResult C = ir::applyBinary(D.Op, Args[0], 0);
    return C.ok() && C.Value != 0 ? Args[1] : Args[2];
  }
  case OpaqueDef::Table: {
    const auto &A = *static_cast<const ArrayInfo *>(D.Ref);
    const std::int64_t I = Args[0];
    if (I < 0 || I >= A.Decl->numElements() ||
        (A.Holds && static_cast<std::uint64_t>(I) >= A.Holds->size()))
      throw NotAffine{"a table read outside its array"};
    return A.Holds ? static_cast<std::int64_t>((*A.Holds)(static_cast<std::uint64_t>(I)))
                   : (*A.Data)[static_cast<std::size_t>(I)];
  }
  }
  if (!R.ok())
    throw NotAffine{"an operation on block indices or loop variables that "
                    "fails for some block (checked thread by thread)"};
  return R.Value;
}

Mask Analyzer::atomAt(int A, const std::vector<std::int64_t> &Vals) const {
  const AtomDef &D = Atoms[static_cast<std::size_t>(A)];
  const std::int64_t U = valueAt(D.U, Vals);
  // Lane l holds when U + G[l] Op 0, i.e. G[l] Op -U (G is small, and U is
  // compared in 128 bits so nothing overflows).
  const Wide NegU = -static_cast<Wide>(U);
  const Mask All = W >= 64 ? ~Mask(0) : (Mask(1) << W) - 1;
  // Every lane alike when -U lies outside [GMin, GMax]: the usual case away
  // from the crossings.
  const bool Below = NegU < D.GMin, Above = NegU > D.GMax;
  if (Below || Above) {
    bool Holds = false; // at any G: G Op -U
    switch (D.Op) {
    case ir::BinaryOp::Lt:
    case ir::BinaryOp::Le: Holds = Above; break;
    case ir::BinaryOp::Gt:
    case ir::BinaryOp::Ge: Holds = Below; break;
    case ir::BinaryOp::Eq: Holds = false; break;
    default: Holds = true; break;
    }
    return Holds ? All : 0;
  }
  Mask Out = 0;
  auto Scan = [&](auto Holds) {
    for (int L = 0; L < W; ++L)
      if (Holds(static_cast<Wide>(D.HasG ? D.G[static_cast<std::size_t>(L)] : 0)))
        Out |= Mask(1) << L;
  };
  switch (D.Op) {
  case ir::BinaryOp::Lt: Scan([&](Wide G) { return G < NegU; }); break;
  case ir::BinaryOp::Le: Scan([&](Wide G) { return G <= NegU; }); break;
  case ir::BinaryOp::Gt: Scan([&](Wide G) { return G > NegU; }); break;
  case ir::BinaryOp::Ge: Scan([&](Wide G) { return G >= NegU; }); break;
  case ir::BinaryOp::Eq: Scan([&](Wide G) { return G == NegU; }); break;
  default: Scan([&](Wide G) { return G != NegU; }); break;
  }
  return Out;
}

Mask Analyzer::predAt(int P, const std::vector<Mask> &AtomMasks) const {
  const PredNode &N = Preds[static_cast<std::size_t>(P)];
  switch (N.K) {
  case PredNode::Atom:
    return AtomMasks[static_cast<std::size_t>(N.A)];
  case PredNode::Lanes:
    return N.Bits;
  case PredNode::And:
    return predAt(N.A, AtomMasks) & predAt(N.B, AtomMasks);
  case PredNode::Or:
    return predAt(N.A, AtomMasks) | predAt(N.B, AtomMasks);
  case PredNode::Not:
    return ~predAt(N.A, AtomMasks);
  }
  return 0;
}

void Analyzer::collectAtoms(int P, std::vector<int> &Out) const {
  if (P < 0)
    return;
  const PredNode &N = Preds[static_cast<std::size_t>(P)];
  if (N.K == PredNode::Atom) {
    if (std::find(Out.begin(), Out.end(), N.A) == Out.end())
      Out.push_back(N.A);
  } else if (N.K != PredNode::Lanes) {
    collectAtoms(N.A, Out);
    collectAtoms(N.B, Out);
  }
}

void Analyzer::depsOf(const Affine &A, std::vector<int> &Out) const {
  for (auto [Var, Coef] : A.Terms) {
    if (Var >= OpaqueBase) {
      for (const Affine &Arg : Opaques[static_cast<std::size_t>(Var - OpaqueBase)].Args)
        depsOf(Arg, Out);
    } else if (std::find(Out.begin(), Out.end(), Var) == Out.end()) {
      Out.push_back(Var);
    }
  }
}

std::optional<std::pair<Wide, Wide>> Analyzer::rangeOf(const Affine &A) const {
  Wide Lo = A.C, Hi = A.C;
  for (auto [Var, Coef] : A.Terms) {
    Wide VLo, VHi;
    if (Var >= OpaqueBase) {
      const auto R = opaqueRange(Var - OpaqueBase);
      if (!R)
        return std::nullopt;
      std::tie(VLo, VHi) = *R;
    } else {
      const VarDomain &Dom = Domains[static_cast<std::size_t>(Var)];
      VLo = Dom.Lo;
      VHi = Dom.Hi;
    }
    const Wide A1 = VLo * Coef, A2 = VHi * Coef;
    Lo += std::min(A1, A2);
    Hi += std::max(A1, A2);
  }
  return std::make_pair(Lo, Hi);
}

std::optional<std::pair<Wide, Wide>> Analyzer::opaqueRange(int Id) const {
  const OpaqueDef &D = Opaques[static_cast<std::size_t>(Id)];
  auto ConstArg = [&](std::size_t I) -> std::optional<std::int64_t> {
    if (I < D.Args.size() && D.Args[I].isConst())
      return D.Args[I].C;
    return std::nullopt;
  };
  switch (D.K) {
  case OpaqueDef::Fn:
    if (D.F == ir::Function::Bitrev) {
      if (auto Bits = ConstArg(1); Bits && *Bits >= 0 && *Bits < 63) {
        // The low K bits of the argument are 0 (every coefficient and the
        // constant are multiples of 2^K), so its reversal is below 2^(m-K).
        int K = 62;
        auto Zeros = [&](std::int64_t V) {
          if (V != 0)
            K = std::min(K, std::countr_zero(static_cast<std::uint64_t>(V)));
        };
        Zeros(D.Args[0].C);
        for (auto [Var, Coef] : D.Args[0].Terms)
          Zeros(Coef);
        const std::int64_t Top = std::max<std::int64_t>(0, *Bits - K);
        return std::make_pair(Wide(0), (Wide(1) << Top) - 1);
      }
      return std::nullopt;
    }
    if (D.F == ir::Function::Log2)
      return std::make_pair(Wide(0), Wide(62));
    {
      const auto A = rangeOf(D.Args[0]), B = rangeOf(D.Args[1]);
      if (!A || !B)
        return std::nullopt;
      if (D.F == ir::Function::Min)
        return std::make_pair(std::min(A->first, B->first), std::min(A->second, B->second));
      return std::make_pair(std::max(A->first, B->first), std::max(A->second, B->second));
    }
  case OpaqueDef::Perm: {
    const auto &P = *static_cast<const Permutation *>(D.Ref);
    return std::make_pair(Wide(0), static_cast<Wide>(P.size()) - 1);
  }
  case OpaqueDef::Select: {
    const auto A = rangeOf(D.Args[1]), B = rangeOf(D.Args[2]);
    if (!A || !B)
      return std::nullopt;
    return std::make_pair(std::min(A->first, B->first), std::max(A->second, B->second));
  }
  case OpaqueDef::Table: {
    const auto &A = *static_cast<const ArrayInfo *>(D.Ref);
    if (A.Holds)
      return std::make_pair(Wide(0), static_cast<Wide>(A.Holds->bound()) - 1);
    return std::nullopt;
  }
  case OpaqueDef::Bin: {
    const auto Rhs = ConstArg(1);
    if ((D.Op == ir::BinaryOp::Mod) && Rhs && *Rhs > 0)
      return std::make_pair(Wide(0), Wide(*Rhs - 1));
    if (D.Op == ir::BinaryOp::BitAnd && Rhs && *Rhs >= 0)
      return std::make_pair(Wide(0), Wide(*Rhs));
    if ((D.Op == ir::BinaryOp::Div || D.Op == ir::BinaryOp::Shr) && Rhs && *Rhs > 0) {
      const auto A = rangeOf(D.Args[0]);
      if (!A || (D.Op == ir::BinaryOp::Shr && *Rhs > 62))
        return std::nullopt;
      const Wide Den = D.Op == ir::BinaryOp::Div ? Wide(*Rhs) : (Wide(1) << *Rhs);
      auto FDiv = [&](Wide X) {
        Wide Q = X / Den;
        return (X % Den != 0 && X < 0) ? Q - 1 : Q;
      };
      return std::make_pair(FDiv(A->first), FDiv(A->second));
    }
    return std::nullopt;
  }
  }
  return std::nullopt;
}

std::optional<Val> Analyzer::splitBitrev(const Val &X, std::int64_t Bits, Mask M) {
  // bitrev(U + V, m) with U a multiple of 2^k, 0 <= V < 2^k on every lane
  // and U >= 0: U + V = U | V, so the reversal splits into bitrev(U, m)
  // (uniform, opaque) + bitrev(V, m) (per lane).
  if (Bits < 0 || Bits > 62 || X.Unknown || X.Pred >= 0 || X.Lt >= 0 || X.Sel >= 0)
    return std::nullopt;
  std::int64_t VMax = 0;
  bool VOk = true;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1) {
      const std::int64_t V = X.HasV ? X.V[static_cast<std::size_t>(L)] : 0;
      VOk = VOk && V >= 0;
      VMax = std::max(VMax, V);
    }
  int K = 0;
  while (K < 62 && (std::int64_t(1) << K) <= VMax)
    ++K;
  bool UOk = VOk && X.U.C >= 0 && X.U.C % (std::int64_t(1) << K) == 0;
  for (auto [Var, Coef] : X.U.Terms)
    UOk = UOk && Var < OpaqueBase && Coef > 0 && Coef % (std::int64_t(1) << K) == 0 &&
          Domains[static_cast<std::size_t>(Var)].Lo >= 0;
  if (!UOk)
    return std::nullopt;
  OpaqueDef D;
  D.K = OpaqueDef::Fn;
  D.F = ir::Function::Bitrev;
  Affine B;
  B.C = Bits;
  D.Args = {X.U, B};
  Val R = opaque(std::move(D));
  R.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1)
      R.V[static_cast<std::size_t>(L)] =
          ir::applyCall(ir::Function::Bitrev, {X.HasV ? X.V[static_cast<std::size_t>(L)] : 0, Bits}).Value;
  return R;
}

} // namespace bankwise::kernel_analysis
