#include "analysis/passes/ValueFacts.h"

#include "ir/Walk.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>

namespace bankwise {

bool isIntElem(ir::ElemType T) {
  const bool Float = T.Scalar == ir::ScalarType::F16 || T.Scalar == ir::ScalarType::BF16 ||
                     T.Scalar == ir::ScalarType::F32 || T.Scalar == ir::ScalarType::F64;
  return T.Lanes == 1 && !Float;
}

ValueRange elemRange(ir::ElemType T) {
  if (!isIntElem(T))
    return {};
  const int Bits = static_cast<int>(ir::byteSize(T)) * 8;
  const bool Signed = T.Scalar == ir::ScalarType::I8 || T.Scalar == ir::ScalarType::I16 ||
                      T.Scalar == ir::ScalarType::I32 || T.Scalar == ir::ScalarType::I64;
  if (Bits == 64)
    return Signed ? span(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max())
                  : ValueRange{};
  if (Signed)
    return span(-(WideInt(1) << (Bits - 1)), (WideInt(1) << (Bits - 1)) - 1);
  return span(0, (WideInt(1) << Bits) - 1);
}

namespace {

WideInt floorDivWide(WideInt A, WideInt B) {
  WideInt Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}

int bitWidth(WideInt V) {
  int B = 0;
  while (V > 0) {
    ++B;
    V >>= 1;
  }
  return B;
}

} // namespace

ValueFacts::ValueFacts(const ir::Program &Prog, const ir::Kernel &K, ValueFactsInput Input)
    : K(K), In(std::move(Input)) {
  // The first of a name wins, as Program's lookups find it: K's arrays
  // before the program's.
  for (const ir::Array *A : K.arrays())
    ArrayOf.emplace(A->Name, A);
  for (const ir::Array &A : Prog.Arrays)
    ArrayOf.emplace(A.Name, &A);
  for (const ir::Param &P : Prog.Params)
    ParamOf.emplace(P.Name, &P);
  for (const ir::Permutation &P : Prog.Perms)
    PermOf.emplace(P.Name, &P);
  WarpWidth = Prog.Mach ? Prog.Mach->warpSize() : 32;
  Threads = K.Geo.threadsPerBlock();
  Blocks = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2];
  RuntimeGrid = std::any_of(K.Geo.Grid.begin(), K.Geo.Grid.end(), [&](const ir::Expr &G) {
    return ir::anySubexpr(G, [&](const ir::Expr &X) {
      const auto *V = X.as<ir::VarRef>();
      return V && V->Kind == ir::VarKind::Param && In.Runtime.count(V->Name);
    });
  });
  Scope S(1);
  scanBlock(K.Body, S);
  solve();
}

void ValueFacts::scanExpr(const ir::Expr &E, const Scope &S) {
  ir::forEachSubexpr(E, [&](const ir::Expr &X) {
    if (const auto *At = X.as<ir::Atomic>())
      Written.insert(At->Target.Array);
    const auto *V = X.as<ir::VarRef>();
    if (!V || V->Kind == ir::VarKind::Param)
      return;
    for (auto It = S.rbegin(); It != S.rend(); ++It)
      if (auto F = It->find(V->Name); F != It->end()) {
        const auto [IsLoop, Index] = F->second;
        if (IsLoop)
          LoopOf[V] = Index;
        else {
          LetOf[V] = Index;
          Lets[static_cast<std::size_t>(Index)].Read = true;
        }
        return;
      }
    throw UserError(X.Loc, fmt::format("codegen: unresolved name '{}'", V->Name));
  });
}

void ValueFacts::scanBlock(const ir::Block &B, Scope &S) {
  for (const ir::Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      scanExpr(L->Init, S);
      LocalFacts Info;
      Info.Decl = L;
      Info.Values.push_back(&L->Init);
      Info.CtxDepth = Ctx.size();
      LetIndex[L] = static_cast<int>(Lets.size());
      S.back()[L->Name] = {false, static_cast<int>(Lets.size())};
      Lets.push_back(std::move(Info));
    } else if (const auto *A = St.as<ir::Assign>()) {
      scanExpr(A->Value, S);
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        int Index = -1;
        bool IsLoop = false;
        for (auto It = S.rbegin(); It != S.rend() && Index < 0; ++It)
          if (auto F = It->find(V->Name); F != It->end())
            std::tie(IsLoop, Index) = F->second;
        if (IsLoop || Index < 0)
          throw UserError(St.Loc, fmt::format("codegen: cannot assign '{}'", V->Name));
        LetOf[V] = Index;
        LocalFacts &Target = Lets[static_cast<std::size_t>(Index)];
        Target.Assigned = true;
        Target.Values.push_back(&A->Value);
        Target.Contexts.emplace_back(Ctx.begin() + static_cast<std::ptrdiff_t>(std::min(Target.CtxDepth, Ctx.size())),
                                     Ctx.end());
      } else {
        Written.insert(std::get<ir::ArrayRead>(A->Target).Array);
        for (const ir::Expr &I : std::get<ir::ArrayRead>(A->Target).Indices)
          scanExpr(I, S);
      }
    } else if (const auto *F = St.as<ir::For>()) {
      scanExpr(F->Begin, S);
      scanExpr(F->End, S);
      if (F->Step)
        scanExpr(*F->Step, S);
      LoopFacts Info;
      Info.Decl = F;
      LoopIndex[F] = static_cast<int>(Loops.size());
      S.emplace_back();
      S.back()[F->Var] = {true, static_cast<int>(Loops.size())};
      Loops.push_back(Info);
      const std::size_t Depth = Ctx.size();
      Ctx.push_back(&F->Begin);
      Ctx.push_back(&F->End);
      if (F->Step)
        Ctx.push_back(&*F->Step);
      scanBlock(F->Body, S);
      Ctx.resize(Depth);
      S.pop_back();
    } else if (const auto *X = St.as<ir::ExprStmt>()) {
      scanExpr(X->Value, S);
    } else if (const auto *W = St.as<ir::While>()) {
      scanExpr(W->Cond, S);
      S.emplace_back();
      Ctx.push_back(&W->Cond);
      scanBlock(W->Body, S);
      Ctx.pop_back();
      S.pop_back();
    } else if (const auto *I = St.as<ir::If>()) {
      scanExpr(I->Cond, S);
      Ctx.push_back(&I->Cond);
      S.emplace_back();
      scanBlock(I->Then, S);
      S.pop_back();
      S.emplace_back();
      scanBlock(I->Else, S);
      S.pop_back();
      Ctx.pop_back();
    }
  }
}

ValueClass joinClass(const ValueClass &A, const ValueClass &B, const SourceLoc &Loc) {
  if (A == B)
    return A;
  const bool VecA = A.K == ValueClass::Copy && A.Elem.Lanes > 1;
  const bool VecB = B.K == ValueClass::Copy && B.Elem.Lanes > 1;
  if (VecA || VecB)
    throw UserError(Loc, "codegen: a local holds both a vector element and another value");
  if (A.K == ValueClass::Int && B.K == ValueClass::Int)
    return A;
  return computeClass(wantsDouble(A) || wantsDouble(B));
}


ValueClass typedClass(ir::ElemType T) {
  return isIntElem(T) ? intClass() : computeClass(T.Scalar == ir::ScalarType::F64);
}

ValueClass ValueFacts::classOf(const ir::Expr &E) const {
  return std::visit(
      [&](const auto &N) -> ValueClass {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Lets[static_cast<std::size_t>(It->second)].Class;
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::Atomic>) {
          return classOf(ir::Expr{N.Target, E.Loc}); // the old value: an element
        } else if constexpr (std::is_same_v<T, ir::Shuffle>) {
          return classOf(*N.Value); // another lane's value of it
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ir::Array *A = array(N.Array);
          if (!A)
            throw UserError(E.Loc, fmt::format("codegen: unknown array '{}'", N.Array));
          const ir::ElemType Elem = A->Elem;
          if (isIntElem(Elem))
            return intClass();
          return {ValueClass::Copy, Elem, false};
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const ValueClass C = classOf(*N.Operand);
          if (C.K == ValueClass::Copy && C.Elem.Lanes > 1)
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (N.Op == ir::UnaryOp::Neg && isFloaty(C))
            return computeClass(wantsDouble(C));
          if (N.Op == ir::UnaryOp::BitNot && isFloaty(C))
            throw UserError(E.Loc, "codegen: '~' of a floating-point value");
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const ValueClass L = classOf(*N.Lhs), R = classOf(*N.Rhs);
          if ((L.K == ValueClass::Copy && L.Elem.Lanes > 1) || (R.K == ValueClass::Copy && R.Elem.Lanes > 1))
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (!isFloaty(L) && !isFloaty(R))
            return intClass();
          switch (N.Op) {
          case ir::BinaryOp::Add:
          case ir::BinaryOp::Sub:
          case ir::BinaryOp::Mul:
          case ir::BinaryOp::Div:
            return computeClass(wantsDouble(L) || wantsDouble(R));
          case ir::BinaryOp::Lt:
          case ir::BinaryOp::Le:
          case ir::BinaryOp::Gt:
          case ir::BinaryOp::Ge:
          case ir::BinaryOp::Eq:
          case ir::BinaryOp::Ne:
          case ir::BinaryOp::LogAnd:
          case ir::BinaryOp::LogOr:
            return intClass();
          default:
            throw UserError(E.Loc, fmt::format("codegen: '{}' of a floating-point value",
                                               ir::spelling(N.Op)));
          }
        } else if constexpr (std::is_same_v<T, ir::FloatLit>) {
          return computeClass(false); // f32, or f64 beside an f64 (joined by the operator)
        } else if constexpr (std::is_same_v<T, ir::Select>) {
          const ValueClass A = classOf(*N.Then), B = classOf(*N.Else);
          return A == B ? A : joinClass(A, B, E.Loc);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Min || N.Fn == ir::Function::Max) {
            const ValueClass L = classOf(N.Args[0]), R = classOf(N.Args[1]);
            if (isFloaty(L) || isFloaty(R))
              return computeClass(wantsDouble(L) || wantsDouble(R));
          }
          return intClass();
        } else {
          return intClass();
        }
      },
      E.Node);
}


ValueRange ValueFacts::rangeOf(const ir::Expr &E) const {
  const auto &G = K.Geo;
  return std::visit(
      [&](const auto &N) -> ValueRange {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::IntLit>) {
          return point(N.Value);
        } else if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param) {
            const ir::Param *P = param(N.Name);
            if (P && In.Runtime.count(N.Name)) // any size: at least 1 (docs/language.md)
              return P->Init ? rangeOf(*P->Init) : span(1, std::numeric_limits<std::int64_t>::max());
            return P ? point(P->Value) : unknownRange();
          }
          if (auto It = LetOf.find(&N); It != LetOf.end()) {
            const LocalFacts &L = Lets[static_cast<std::size_t>(It->second)];
            return L.Class.K == ValueClass::Int ? L.R : unknownRange();
          }
          if (auto It = LoopOf.find(&N); It != LoopOf.end())
            return Loops[static_cast<std::size_t>(It->second)].R;
          return unknownRange();
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          switch (N.Which) {
          case ir::Builtin::Tx: return span(0, G.BlockDim[0] - 1);
          case ir::Builtin::Ty: return span(0, G.BlockDim[1] - 1);
          case ir::Builtin::Tz: return span(0, G.BlockDim[2] - 1);
          case ir::Builtin::Bx: return span(0, (RuntimeGrid ? MaxGridX : G.GridDim[0]) - 1);
          case ir::Builtin::By: return span(0, (RuntimeGrid ? MaxGridYZ : G.GridDim[1]) - 1);
          case ir::Builtin::Bz: return span(0, (RuntimeGrid ? MaxGridYZ : G.GridDim[2]) - 1);
          case ir::Builtin::Tid:
            if (RuntimeGrid)
              return span(0, WideInt(MaxGridX) * MaxGridYZ * MaxGridYZ * Threads - 1);
            return span(0, WideInt(Blocks) * Threads - 1);
          case ir::Builtin::Lane: return span(0, std::min(Threads, WarpWidth) - 1);
          case ir::Builtin::Warp: return span(0, (Threads - 1) / WarpWidth);
          }
          return unknownRange();
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const ValueRange R = rangeOf(*N.Operand);
          if (N.Op == ir::UnaryOp::Not)
            return span(0, 1);
          if (!R.Known)
            return R;
          if (N.Op == ir::UnaryOp::Neg)
            return span(-R.Hi, -R.Lo);
          return span(-R.Hi - 1, -R.Lo - 1);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const ValueRange A = rangeOf(*N.Lhs), B = rangeOf(*N.Rhs);
          switch (N.Op) {
          case ir::BinaryOp::Lt: case ir::BinaryOp::Le: case ir::BinaryOp::Gt: case ir::BinaryOp::Ge:
          case ir::BinaryOp::Eq: case ir::BinaryOp::Ne: case ir::BinaryOp::LogAnd: case ir::BinaryOp::LogOr:
            return span(0, 1);
          default:
            break;
          }
          if (N.Op == ir::BinaryOp::BitAnd) {
            if (A.Known && A.Lo >= 0 && B.Known && B.Lo >= 0)
              return span(0, std::min(A.Hi, B.Hi));
            if (A.Known && A.Lo >= 0)
              return span(0, A.Hi);
            if (B.Known && B.Lo >= 0)
              return span(0, B.Hi);
            return unknownRange();
          }
          if (N.Op == ir::BinaryOp::Mod && B.Known && B.Lo >= 1) {
            if (A.Known && A.Lo >= 0 && A.Hi < B.Lo)
              return A;
            return span(0, B.Hi - 1);
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          switch (N.Op) {
          case ir::BinaryOp::Add: return span(A.Lo + B.Lo, A.Hi + B.Hi);
          case ir::BinaryOp::Sub: return span(A.Lo - B.Hi, A.Hi - B.Lo);
          case ir::BinaryOp::Mul: {
            const WideInt P[] = {A.Lo * B.Lo, A.Lo * B.Hi, A.Hi * B.Lo, A.Hi * B.Hi};
            return span(*std::min_element(P, P + 4), *std::max_element(P, P + 4));
          }
          case ir::BinaryOp::Div:
            if (B.Lo >= 1)
              return span(std::min(floorDivWide(A.Lo, B.Lo), floorDivWide(A.Lo, B.Hi)),
                          std::max(floorDivWide(A.Hi, B.Lo), floorDivWide(A.Hi, B.Hi)));
            return unknownRange();
          case ir::BinaryOp::Shl:
            if (B.Lo >= 0 && B.Hi <= 62 && A.Lo >= 0)
              return span(A.Lo << static_cast<int>(B.Lo), A.Hi << static_cast<int>(B.Hi));
            return unknownRange();
          case ir::BinaryOp::Shr:
            if (B.Lo >= 0 && B.Hi <= 63 && A.Lo >= 0)
              return span(A.Lo >> static_cast<int>(B.Hi), A.Hi >> static_cast<int>(B.Lo));
            return unknownRange();
          case ir::BinaryOp::BitOr:
          case ir::BinaryOp::BitXor:
            if (A.Lo >= 0 && B.Lo >= 0)
              return span(0, (WideInt(1) << std::max(bitWidth(A.Hi), bitWidth(B.Hi))) - 1);
            return unknownRange();
          default:
            return unknownRange();
          }
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Log2)
            return span(0, 63);
          const ValueRange A = rangeOf(N.Args[0]), B = rangeOf(N.Args[1]);
          if (N.Fn == ir::Function::Bitrev) {
            if (B.Known && B.Hi <= 62 && B.Lo >= 0)
              return span(0, (WideInt(1) << static_cast<int>(B.Hi)) - 1);
            return unknownRange();
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          if (N.Fn == ir::Function::Min)
            return span(std::min(A.Lo, B.Lo), std::min(A.Hi, B.Hi));
          return span(std::max(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ir::Array *A = array(N.Array);
          if (!A)
            return unknownRange();
          if (A->Holds) // a table: the permutation's values
            return span(0, WideInt(In.TableBound(A->Holds->Perm, A->Holds->Inverse)) - 1);
          return elemRange(A->Elem);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          const ir::Permutation *P = perm(N.Perm);
          if (P && P->Size)
            return span(0, WideInt(*P->Size) - 1);
          return span(0, WideInt(In.TableBound(N.Perm, N.Inverse)) - 1);
        } else if constexpr (std::is_same_v<T, ir::Select>) {
          return join(rangeOf(*N.Then), rangeOf(*N.Else));
        } else if constexpr (std::is_same_v<T, ir::Atomic>) {
          const ir::Array *A = array(N.Target.Array);
          return A ? elemRange(A->Elem) : unknownRange(); // any value of its type
        } else if constexpr (std::is_same_v<T, ir::Shuffle>) {
          return rangeOf(*N.Value); // a value some thread has
        } else {
          return unknownRange();
        }
      },
      E.Node);
}


bool ValueFacts::uniform(const ir::Expr &E, bool Control) const {
  auto uniform = [&](const ir::Expr &X) { return this->uniform(X, Control); };
  return std::visit(
      [&](const auto &N) -> bool {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Control ? Lets[static_cast<std::size_t>(It->second)].ControlUniform
                           : Lets[static_cast<std::size_t>(It->second)].Uniform;
          if (auto It = LoopOf.find(&N); It != LoopOf.end()) {
            const LoopFacts &L = Loops[static_cast<std::size_t>(It->second)];
            if (!Control)
              return L.Uniform;
            return uniform(L.Decl->Begin) && uniform(L.Decl->End) && (!L.Decl->Step || uniform(*L.Decl->Step));
          }
          return true;
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          return N.Which == ir::Builtin::Bx || N.Which == ir::Builtin::By || N.Which == ir::Builtin::Bz;
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          return uniform(*N.Operand);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          return uniform(*N.Lhs) && uniform(*N.Rhs);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          return std::all_of(N.Args.begin(), N.Args.end(), [&](const ir::Expr &A) { return uniform(A); });
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          return uniform(*N.Arg);
        } else if constexpr (std::is_same_v<T, ir::Select>) {
          return uniform(*N.Cond) && uniform(*N.Then) && uniform(*N.Else);
        } else if constexpr (std::is_same_v<T, ir::Shuffle>) {
          return uniform(*N.Value); // the same in every lane, whichever it reads
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          if (!Control || !std::all_of(N.Indices.begin(), N.Indices.end(), uniform))
            return false;
          const ir::Array *A = array(N.Array);
          return A && (A->Space == ir::MemSpace::Shared || !Written.count(N.Array));
        } else if constexpr (std::is_same_v<T, ir::Atomic>) {
          return false;
        } else {
          return true;
        }
      },
      E.Node);
}


void ValueFacts::solve() {
  // Value classes: a typed local's class is its type's (f16, bf16 and f32
  // compute in float, f64 in double, integers are Int); an untyped local's
  // is the join of every value it receives.
  for (LocalFacts &L : Lets)
    L.Class = L.Decl->Type ? typedClass(*L.Decl->Type) : classOf(*L.Values.front());
  for (int Round = 0; Round < 16; ++Round) {
    bool Changed = false;
    for (LocalFacts &L : Lets) {
      if (L.Decl->Type)
        continue;
      ValueClass C = L.Class;
      for (const ir::Expr *V : L.Values)
        C = joinClass(C, classOf(*V), L.Decl->Init.Loc);
      if (!(C == L.Class)) {
        L.Class = C;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Ranges: loops from their bounds, locals from all their values; a local
  // still growing after a few rounds is unknown.
  for (LocalFacts &L : Lets)
    L.R = ValueRange{true, 0, 0};
  for (LoopFacts &L : Loops)
    L.R = ValueRange{true, 0, 0};
  for (int Round = 0; Round < 12; ++Round) {
    bool Changed = false;
    for (LoopFacts &L : Loops) {
      const ValueRange B = rangeOf(L.Decl->Begin), E = rangeOf(L.Decl->End);
      const ValueRange S = L.Decl->Step ? rangeOf(*L.Decl->Step) : point(1);
      ValueRange R;
      // Values the body sees; the counter itself also reaches End + Step - 1
      // when the loop ends (Reach, checked for the index type).
      ValueRange Reach;
      if (B.Known && E.Known && S.Known && S.Lo >= 1) {
        R = span(B.Lo, std::max(B.Hi, E.Hi - 1));
        Reach = span(B.Lo, std::max(B.Hi, E.Hi + S.Hi - 1));
      } else if (B.Known && E.Known && S.Known && S.Hi <= -1) {
        R = span(std::min(B.Lo, E.Lo + 1), B.Hi);
        Reach = span(std::min(B.Lo, E.Lo + S.Lo + 1), B.Hi);
      }
      L.Reach = Reach;
      if (!(R == L.R)) {
        L.R = Round >= 8 ? unknownRange() : R;
        Changed = true;
      }
    }
    for (LocalFacts &L : Lets) {
      ValueRange R = rangeOf(*L.Values.front());
      for (const ir::Expr *V : L.Values)
        R = join(R, rangeOf(*V));
      if (L.Class.K != ValueClass::Int)
        R = unknownRange();
      else if (L.Decl->Type) // held in its type: its values stay in the type's range
        if (const ValueRange T = elemRange(*L.Decl->Type);
            T.Known && (!R.Known || R.Lo < T.Lo || R.Hi > T.Hi))
          R = T;
      if (!(R == L.R)) {
        // Still growing: any value (of its type, for a typed local).
        L.R = Round < 8 ? R : L.Decl->Type && L.Class.K == ValueClass::Int ? elemRange(*L.Decl->Type) : unknownRange();
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Uniformity (the same value in every thread of a block).
  for (int Round = 0; Round < 64; ++Round) {
    bool Changed = false;
    for (LoopFacts &L : Loops) {
      const bool U = uniform(L.Decl->Begin) && uniform(L.Decl->End) &&
                     (!L.Decl->Step || uniform(*L.Decl->Step));
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    for (LocalFacts &L : Lets) {
      const bool U = !L.Assigned && L.Class.K == ValueClass::Int && uniform(*L.Values.front());
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Uniformity for control flow: optimistic (every local uniform), then
  // lowered until stable; a counter that only depends on itself stays.
  for (int Round = 0; Round < 64; ++Round) {
    bool Changed = false;
    for (LocalFacts &L : Lets) {
      bool U = L.Class.K == ValueClass::Int;
      for (std::size_t I = 0; U && I < L.Values.size(); ++I)
        U = uniform(*L.Values[I], true);
      for (std::size_t I = 0; U && I < L.Contexts.size(); ++I)
        for (const ir::Expr *C : L.Contexts[I])
          U = U && uniform(*C, true);
      if (U != L.ControlUniform) {
        L.ControlUniform = U;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }

  // Every integer value in 32 bits (the index type is codegen's choice).
  IntsFit32 = true;
  for (const LoopFacts &L : Loops)
    IntsFit32 = IntsFit32 && fitsInt32(L.R) && fitsInt32(L.Reach);
  for (const LocalFacts &L : Lets)
    IntsFit32 = IntsFit32 && (L.Class.K != ValueClass::Int || fitsInt32(L.R));
  // A value stored into a local typed i32 or narrower is computed in that
  // type (as CUDA's `int acc; acc = acc + a[i];`): its arithmetic does not
  // widen the index type, though the indices inside it still count.
  std::set<const ir::Expr *> Narrow;
  for (const LocalFacts &L : Lets)
    if (L.Decl->Type && L.Class.K == ValueClass::Int && fitsInt32(elemRange(*L.Decl->Type)))
      Narrow.insert(L.Values.begin(), L.Values.end());
  std::function<void(const ir::Expr &, bool)> Visit = [&](const ir::Expr &E, bool InNarrow) {
    const ValueClass C = classOf(E);
    if (C.K == ValueClass::Int && !InNarrow && !fitsInt32(rangeOf(E)))
      IntsFit32 = false;
    if (C.K == ValueClass::Compute)
      HasCompute = true;
    // A float atomic add computes e + v (in any order of the lanes).
    if (const auto *A = E.as<ir::Atomic>(); A && (A->Op == ir::AtomicOp::Add || A->Op == ir::AtomicOp::Sub))
      if (const ir::Array *Arr = array(A->Target.Array); Arr && !isIntElem(Arr->Elem))
        HasCompute = true;
    const bool Index = E.is<ir::ArrayRead>() || E.is<ir::PermApply>();
    ir::forEachChild(E, [&](const ir::Expr &X) { Visit(X, InNarrow && !Index); });
  };
  ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) { Visit(Root, Narrow.count(&Root) > 0); });
}

const ir::Array *ValueFacts::array(std::string_view Name) const {
  const auto It = ArrayOf.find(Name);
  return It == ArrayOf.end() ? nullptr : It->second;
}

const ir::Param *ValueFacts::param(std::string_view Name) const {
  const auto It = ParamOf.find(Name);
  return It == ParamOf.end() ? nullptr : It->second;
}

const ir::Permutation *ValueFacts::perm(std::string_view Name) const {
  const auto It = PermOf.find(Name);
  return It == PermOf.end() ? nullptr : It->second;
}

} // namespace bankwise
