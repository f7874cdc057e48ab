// The facts of one kernel: the scan (arrays, locals, loops, tables) and
// the dataflow facts (value classes, ranges, uniformity) codegen decides by.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

KernelFacts::KernelFacts(const ir::Program &Prog, const ir::Kernel &K, ModuleState &M)
    : Prog(Prog), K(K), Mod(M) {
  WarpWidth = Prog.Mach ? Prog.Mach->warpSize() : 32;
  Threads = K.Geo.threadsPerBlock();
  Blocks = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2];
  CudaThreads = std::min<std::int64_t>(Threads, 1024);
  Virtual = Threads > 1024;
  if (Virtual && !K.Geo.IsThreads)
    throw UserError(K.Geo.Loc, fmt::format("kernel '{}' has {} threads in a block; CUDA allows "
                                           "at most 1024",
                                           K.Name, Threads));
  for (const ir::Array &A : K.Params)
    addArray(A, Origin::Param);
  Scope S(1);
  scanBlock(K.Body, S);
  collectRuntime();
  if (Virtual && HasSync)
    throw UserError(K.Geo.Loc, fmt::format("kernel '{}' has {} threads and a 'sync': CUDA blocks hold at most "
                                           "1024 threads, and codegen runs several program threads per CUDA "
                                           "thread only in kernels without 'sync'",
                                           K.Name, Threads));
  solve();
}

void KernelFacts::collectRuntime() {
  if (Mod.Runtime.empty())
    return;
  std::set<std::string, std::less<>> Need(ParamsUsed.begin(), ParamsUsed.end());
  for (const ArrayPlan &A : Arrays)
    if (A.isDeviceParam())
      for (const Expr &D : A.Decl->Dims)
        paramNames(D, Need);
  for (const Expr &G : K.Geo.Grid)
    paramNames(G, Need);
  // A param's Init and `where` name only earlier params: one pass backwards.
  for (auto It = Prog.Params.rbegin(); It != Prog.Params.rend(); ++It) {
    if (!Need.count(It->Name) || !Mod.Runtime.count(It->Name))
      continue;
    if (It->Init)
      paramNames(*It->Init, Need);
    if (It->Where)
      paramNames(*It->Where, Need);
  }
  for (const ir::Param &P : Prog.Params)
    if (Need.count(P.Name) && Mod.Runtime.count(P.Name))
      RuntimeUsed.push_back(&P);
  if (RuntimeUsed.empty())
    return;
  ParamsUsed.insert(Need.begin(), Need.end());
  RuntimeGrid = std::any_of(K.Geo.Grid.begin(), K.Geo.Grid.end(), [&](const Expr &G) { return Mod.runtime(G); });
  for (const ArrayPlan &A : Arrays)
    if (runtimeShape(*A.Decl) && A.Lay.Kind != LayoutKind::Raw)
      throw UserError(A.Decl->Loc, fmt::format("codegen: array '{}' has runtime dimensions and layout {}; "
                                               "such arrays must be raw (bind the sizes with -D for another layout)",
                                               A.Decl->Name, A.LayoutName));
}

bool KernelFacts::runtimeShape(const ir::Array &A) const {
  return std::any_of(A.Dims.begin(), A.Dims.end(), [&](const Expr &D) { return Mod.runtime(D); });
}

void KernelFacts::addArray(const ir::Array &A, Origin From) {
  if (ArrayIndex.count(A.Name)) {
    if (From == Origin::Body)
      throw UserError(A.Loc, fmt::format("codegen needs distinct names for the arrays of a kernel; "
                                         "'{}' is declared twice",
                                         A.Name));
    return;
  }
  ArrayPlan P;
  P.Decl = &A;
  P.Name = cName(A.Name);
  P.From = From;
  P.Local = A.Space == ir::MemSpace::Local;
  P.InShared = A.Space == ir::MemSpace::Shared;
  P.Staged = P.InShared && From != Origin::Body;
  P.Lay = arrayLayout(A);
  P.LayoutName = P.Lay.str();
  if (A.Holds && From != Origin::Body && !P.Local)
    P.Table = Mod.table(A.Holds->Perm, A.Holds->Inverse, devType(A.Elem), false);
  ArrayIndex[A.Name] = Arrays.size();
  Arrays.push_back(std::move(P));
}

std::pair<bool, int> KernelFacts::lookup(const Scope &S, const std::string &Name) const {
  for (auto It = S.rbegin(); It != S.rend(); ++It)
    if (auto F = It->find(Name); F != It->end())
      return F->second;
  return {false, -1};
}

void KernelFacts::scanExpr(const Expr &E, Scope &S) {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param) {
            ParamsUsed.insert(N.Name);
          } else {
            const auto [IsLoop, Index] = lookup(S, N.Name);
            if (Index < 0)
              throw UserError(E.Loc, fmt::format("codegen: unresolved name '{}'", N.Name));
            if (IsLoop)
              LoopOf[&N] = Index;
            else {
              LetOf[&N] = Index;
              Lets[static_cast<std::size_t>(Index)].Read = true;
            }
          }
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          Builtins.insert(N.Which);
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          scanExpr(*N.Operand, S);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          scanExpr(*N.Lhs, S);
          scanExpr(*N.Rhs, S);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (const Expr &A : N.Args)
            scanExpr(A, S);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          if (!ArrayIndex.count(N.Array)) {
            const ir::Array *A = Prog.findArray(N.Array);
            if (!A)
              throw UserError(E.Loc, fmt::format("codegen: unknown array '{}'", N.Array));
            addArray(*A, Origin::TopLevel);
          }
          Arrays[ArrayIndex.at(N.Array)].Read = true;
          for (const Expr &I : N.Indices)
            scanExpr(I, S);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          scanExpr(*N.Arg, S);
          if (!isClosedForm(Prog, N.Perm) && !permUse(N.Perm, N.Inverse)) {
            PermUse U;
            U.Perm = N.Perm;
            U.Inverse = N.Inverse;
            U.Table = Mod.table(N.Perm, N.Inverse, "", true);
            U.CName = "bw_perm_" + N.Perm + (N.Inverse ? "_inv" : "");
            PermUses.push_back(std::move(U));
          }
        }
      },
      E.Node);
}

void KernelFacts::scanBlock(const ir::Block &B, Scope &S) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      scanExpr(L->Init, S);
      LetInfo Info;
      Info.Decl = L;
      Info.Name = cName(L->Name);
      Info.Values.push_back(&L->Init);
      LetIndex[L] = static_cast<int>(Lets.size());
      S.back()[L->Name] = {false, static_cast<int>(Lets.size())};
      Lets.push_back(std::move(Info));
    } else if (const auto *A = St.as<ir::Assign>()) {
      scanExpr(A->Value, S);
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const auto [IsLoop, Index] = lookup(S, V->Name);
        if (IsLoop || Index < 0)
          throw UserError(St.Loc, fmt::format("codegen: cannot assign '{}'", V->Name));
        LetOf[V] = Index;
        Lets[static_cast<std::size_t>(Index)].Assigned = true;
        Lets[static_cast<std::size_t>(Index)].Values.push_back(&A->Value);
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        if (!ArrayIndex.count(R.Array)) {
          const ir::Array *Arr = Prog.findArray(R.Array);
          if (!Arr)
            throw UserError(St.Loc, fmt::format("codegen: unknown array '{}'", R.Array));
          addArray(*Arr, Origin::TopLevel);
        }
        Arrays[ArrayIndex.at(R.Array)].Written = true;
        for (const Expr &I : R.Indices)
          scanExpr(I, S);
      }
    } else if (const auto *F = St.as<ir::For>()) {
      scanExpr(F->Begin, S);
      scanExpr(F->End, S);
      if (F->Step)
        scanExpr(*F->Step, S);
      LoopInfo Info;
      Info.Decl = F;
      LoopIndex[F] = static_cast<int>(Loops.size());
      S.emplace_back();
      S.back()[F->Var] = {true, static_cast<int>(Loops.size())};
      Loops.push_back(Info);
      scanBlock(F->Body, S);
      S.pop_back();
    } else if (const auto *I = St.as<ir::If>()) {
      scanExpr(I->Cond, S);
      S.emplace_back();
      scanBlock(I->Then, S);
      S.pop_back();
      S.emplace_back();
      scanBlock(I->Else, S);
      S.pop_back();
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      addArray(D->Decl, Origin::Body);
    } else if (St.is<ir::Sync>()) {
      HasSync = true;
    }
  }
}

void KernelFacts::forEachExpr(const ir::Block &B, const std::function<void(const Expr &)> &F) const {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>())
      F(L->Init);
    else if (const auto *A = St.as<ir::Assign>()) {
      F(A->Value);
      if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target))
        for (const Expr &I : R->Indices)
          F(I);
    } else if (const auto *Fo = St.as<ir::For>()) {
      F(Fo->Begin);
      F(Fo->End);
      if (Fo->Step)
        F(*Fo->Step);
      forEachExpr(Fo->Body, F);
    } else if (const auto *I = St.as<ir::If>()) {
      F(I->Cond);
      forEachExpr(I->Then, F);
      forEachExpr(I->Else, F);
    }
  }
}

VClass joinClass(const VClass &A, const VClass &B, const SourceLoc &Loc) {
  if (A == B)
    return A;
  const bool VecA = A.K == VClass::Copy && A.Elem.Lanes > 1;
  const bool VecB = B.K == VClass::Copy && B.Elem.Lanes > 1;
  if (VecA || VecB)
    throw UserError(Loc, "codegen: a local holds both a vector element and another value");
  if (A.K == VClass::Int && B.K == VClass::Int)
    return A;
  return computeClass(wantsDouble(A) || wantsDouble(B));
}

VClass KernelFacts::classOf(const Expr &E) const {
  return std::visit(
      [&](const auto &N) -> VClass {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Lets[static_cast<std::size_t>(It->second)].Class;
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ir::ElemType Elem = array(N.Array).Decl->Elem;
          if (isIntElem(Elem))
            return intClass();
          return {VClass::Copy, Elem, false};
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const VClass C = classOf(*N.Operand);
          if (C.K == VClass::Copy && C.Elem.Lanes > 1)
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (N.Op == ir::UnaryOp::Neg && isFloaty(C))
            return computeClass(wantsDouble(C));
          if (N.Op == ir::UnaryOp::BitNot && isFloaty(C))
            throw UserError(E.Loc, "codegen: '~' of a floating-point value");
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const VClass L = classOf(*N.Lhs), R = classOf(*N.Rhs);
          if ((L.K == VClass::Copy && L.Elem.Lanes > 1) || (R.K == VClass::Copy && R.Elem.Lanes > 1))
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (!isFloaty(L) && !isFloaty(R))
            return intClass();
          switch (N.Op) {
          case BinaryOp::Add:
          case BinaryOp::Sub:
          case BinaryOp::Mul:
          case BinaryOp::Div:
            return computeClass(wantsDouble(L) || wantsDouble(R));
          case BinaryOp::Lt:
          case BinaryOp::Le:
          case BinaryOp::Gt:
          case BinaryOp::Ge:
          case BinaryOp::Eq:
          case BinaryOp::Ne:
          case BinaryOp::LogAnd:
          case BinaryOp::LogOr:
            return intClass();
          default:
            throw UserError(E.Loc, fmt::format("codegen: '{}' of a floating-point value",
                                               ir::spelling(N.Op)));
          }
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Min || N.Fn == ir::Function::Max) {
            const VClass L = classOf(N.Args[0]), R = classOf(N.Args[1]);
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

Range KernelFacts::rangeOf(const Expr &E) const {
  const auto &G = K.Geo;
  return std::visit(
      [&](const auto &N) -> Range {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::IntLit>) {
          return point(N.Value);
        } else if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param) {
            const ir::Param *P = Prog.findParam(N.Name);
            if (P && Mod.Runtime.count(N.Name)) // any size: at least 1 (docs/language.md)
              return P->Init ? rangeOf(*P->Init) : span(1, std::numeric_limits<std::int64_t>::max());
            return P ? point(P->Value) : unknownRange();
          }
          if (auto It = LetOf.find(&N); It != LetOf.end()) {
            const LetInfo &L = Lets[static_cast<std::size_t>(It->second)];
            return L.Class.K == VClass::Int ? L.R : unknownRange();
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
              return span(0, Wide(MaxGridX) * MaxGridYZ * MaxGridYZ * Threads - 1);
            return span(0, Wide(Blocks) * Threads - 1);
          case ir::Builtin::Lane: return span(0, std::min(Threads, WarpWidth) - 1);
          case ir::Builtin::Warp: return span(0, (Threads - 1) / WarpWidth);
          }
          return unknownRange();
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const Range R = rangeOf(*N.Operand);
          if (N.Op == ir::UnaryOp::Not)
            return span(0, 1);
          if (!R.Known)
            return R;
          if (N.Op == ir::UnaryOp::Neg)
            return span(-R.Hi, -R.Lo);
          return span(-R.Hi - 1, -R.Lo - 1);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const Range A = rangeOf(*N.Lhs), B = rangeOf(*N.Rhs);
          switch (N.Op) {
          case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
          case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::LogAnd: case BinaryOp::LogOr:
            return span(0, 1);
          default:
            break;
          }
          if (N.Op == BinaryOp::BitAnd) {
            if (A.Known && A.Lo >= 0 && B.Known && B.Lo >= 0)
              return span(0, std::min(A.Hi, B.Hi));
            if (A.Known && A.Lo >= 0)
              return span(0, A.Hi);
            if (B.Known && B.Lo >= 0)
              return span(0, B.Hi);
            return unknownRange();
          }
          if (N.Op == BinaryOp::Mod && B.Known && B.Lo >= 1) {
            if (A.Known && A.Lo >= 0 && A.Hi < B.Lo)
              return A;
            return span(0, B.Hi - 1);
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          switch (N.Op) {
          case BinaryOp::Add: return span(A.Lo + B.Lo, A.Hi + B.Hi);
          case BinaryOp::Sub: return span(A.Lo - B.Hi, A.Hi - B.Lo);
          case BinaryOp::Mul: {
            const Wide P[] = {A.Lo * B.Lo, A.Lo * B.Hi, A.Hi * B.Lo, A.Hi * B.Hi};
            return span(*std::min_element(P, P + 4), *std::max_element(P, P + 4));
          }
          case BinaryOp::Div:
            if (B.Lo >= 1)
              return span(std::min(floorDivWide(A.Lo, B.Lo), floorDivWide(A.Lo, B.Hi)),
                          std::max(floorDivWide(A.Hi, B.Lo), floorDivWide(A.Hi, B.Hi)));
            return unknownRange();
          case BinaryOp::Shl:
            if (B.Lo >= 0 && B.Hi <= 62 && A.Lo >= 0)
              return span(A.Lo << static_cast<int>(B.Lo), A.Hi << static_cast<int>(B.Hi));
            return unknownRange();
          case BinaryOp::Shr:
            if (B.Lo >= 0 && B.Hi <= 63 && A.Lo >= 0)
              return span(A.Lo >> static_cast<int>(B.Hi), A.Hi >> static_cast<int>(B.Lo));
            return unknownRange();
          case BinaryOp::BitOr:
          case BinaryOp::BitXor:
            if (A.Lo >= 0 && B.Lo >= 0)
              return span(0, (Wide(1) << std::max(bitWidth(A.Hi), bitWidth(B.Hi))) - 1);
            return unknownRange();
          default:
            return unknownRange();
          }
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Log2)
            return span(0, 63);
          const Range A = rangeOf(N.Args[0]), B = rangeOf(N.Args[1]);
          if (N.Fn == ir::Function::Bitrev) {
            if (B.Known && B.Hi <= 62 && B.Lo >= 0)
              return span(0, (Wide(1) << static_cast<int>(B.Hi)) - 1);
            return unknownRange();
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          if (N.Fn == ir::Function::Min)
            return span(std::min(A.Lo, B.Lo), std::min(A.Hi, B.Hi));
          return span(std::max(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ArrayPlan &A = array(N.Array);
          if (A.Table >= 0)
            return span(0, Wide(Mod.Tables[static_cast<std::size_t>(A.Table)].Size) - 1);
          return elemRange(A.Decl->Elem);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          const ir::Permutation *P = Prog.findPerm(N.Perm);
          if (P && P->Size)
            return span(0, Wide(*P->Size) - 1);
          return span(0, Wide(Mod.Perms.get(N.Perm, N.Inverse).size()) - 1);
        } else {
          return unknownRange();
        }
      },
      E.Node);
}

bool KernelFacts::uniform(const Expr &E) const {
  return std::visit(
      [&](const auto &N) -> bool {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Lets[static_cast<std::size_t>(It->second)].Uniform;
          if (auto It = LoopOf.find(&N); It != LoopOf.end())
            return Loops[static_cast<std::size_t>(It->second)].Uniform;
          return true;
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          return N.Which == ir::Builtin::Bx || N.Which == ir::Builtin::By || N.Which == ir::Builtin::Bz;
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          return uniform(*N.Operand);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          return uniform(*N.Lhs) && uniform(*N.Rhs);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          return std::all_of(N.Args.begin(), N.Args.end(), [&](const Expr &A) { return uniform(A); });
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          return uniform(*N.Arg);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          return false;
        } else {
          return true;
        }
      },
      E.Node);
}

void KernelFacts::solve() {
  // Value classes: a local's class is the join of every value it receives.
  for (LetInfo &L : Lets)
    L.Class = classOf(*L.Values.front());
  for (int Round = 0; Round < 16; ++Round) {
    bool Changed = false;
    for (LetInfo &L : Lets) {
      VClass C = L.Class;
      for (const Expr *V : L.Values)
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
  for (LetInfo &L : Lets)
    L.R = Range{true, 0, 0};
  for (LoopInfo &L : Loops)
    L.R = Range{true, 0, 0};
  for (int Round = 0; Round < 12; ++Round) {
    bool Changed = false;
    for (LoopInfo &L : Loops) {
      const Range B = rangeOf(L.Decl->Begin), E = rangeOf(L.Decl->End);
      const Range S = L.Decl->Step ? rangeOf(*L.Decl->Step) : point(1);
      Range R;
      // Values the body sees; the counter itself also reaches End + Step - 1
      // when the loop ends (Reach, checked for the index type).
      Range Reach;
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
    for (LetInfo &L : Lets) {
      Range R = rangeOf(*L.Values.front());
      for (const Expr *V : L.Values)
        R = join(R, rangeOf(*V));
      if (L.Class.K != VClass::Int)
        R = unknownRange();
      if (!(R == L.R)) {
        L.R = Round >= 8 ? unknownRange() : R;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Uniformity (the same value in every thread of a block).
  for (int Round = 0; Round < 64; ++Round) {
    bool Changed = false;
    for (LoopInfo &L : Loops) {
      const bool U = uniform(L.Decl->Begin) && uniform(L.Decl->End) &&
                     (!L.Decl->Step || uniform(*L.Decl->Step));
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    for (LetInfo &L : Lets) {
      const bool U = !L.Assigned && L.Class.K == VClass::Int && uniform(*L.Values.front());
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // The index type: int when every integer value of the kernel fits.
  bool Fits = Wide(Blocks) * Threads < (Wide(1) << 31);
  for (const ArrayPlan &A : Arrays)
    if (A.footprint() >= (std::int64_t(1) << 31))
      Fits = false;
  for (const LoopInfo &L : Loops)
    Fits = Fits && fitsInt32(L.R) && fitsInt32(L.Reach);
  for (const LetInfo &L : Lets)
    Fits = Fits && (L.Class.K != VClass::Int || fitsInt32(L.R));
  forEachExpr(K.Body, [&](const Expr &Root) {
    ir::forEachSubexpr(Root, [&](const Expr &E) {
      if (classOf(E).K == VClass::Int && !fitsInt32(rangeOf(E)))
        Fits = false;
      if (classOf(E).K == VClass::Compute)
        HasCompute = true;
    });
  });
  for (const ir::Param &P : Prog.Params)
    if (ParamsUsed.count(P.Name) && !fitsInt32(point(P.Value)))
      Fits = false;
  // Runtime sizes are not bounded at compile time.
  LongIndex = !Fits || !RuntimeUsed.empty();
}


std::vector<std::string> KernelFacts::dimTexts(const ir::Array &A, Mode M) const {
  std::vector<std::string> Out;
  const ExprEmitter E(*this, M);
  for (std::size_t D = 0; D < A.Shape.size(); ++D)
    Out.push_back(D < A.Dims.size() && Mod.runtime(A.Dims[D]) ? E.index(A.Dims[D], UnaryPrec)
                                                              : literal(A.Shape[D], false));
  return Out;
}

std::string KernelFacts::countText(const ir::Array &A, Mode M) const {
  if (!runtimeShape(A))
    return fmt::format("{}", A.numElements());
  return fmt::format("{}", fmt::join(dimTexts(A, M), " * "));
}


} // namespace bankwise::codegen::detail
