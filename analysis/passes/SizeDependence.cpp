#include "analysis/passes/SizeDependence.h"

#include "ir/Walk.h"

#include <algorithm>
#include <map>

namespace bankwise {

namespace {

/// A set of base runtime params, one bit each (at most 64 are tracked; a
/// program with more has every param reach every site through its value).
using ParamSet = std::uint64_t;

/// What a value depends on: params through their values, and the lane.
struct Deps {
  ParamSet Params = 0;
  bool Lane = false;
  Deps &operator|=(const Deps &O) {
    Params |= O.Params;
    Lane = Lane || O.Lane;
    return *this;
  }
  bool operator==(const Deps &) const = default;
};

class DependenceWalk {
public:
  DependenceWalk(const ir::Program &Prog, const ir::Kernel &K) : Prog(Prog), K(K) {
    for (const ir::Param &P : Prog.Params)
      if (P.Runtime && !P.Init)
        Base.push_back(P.Name);
    Everything = Base.size() > 64;
    All = Base.size() >= 64 ? ~ParamSet(0) : (ParamSet(1) << Base.size()) - 1;
    for (std::size_t I = 0; I < Base.size() && I < 64; ++I)
      ParamBits[Base[I]] = ParamSet(1) << I;
    // Derived runtime params: the base params their expressions use, in
    // declaration order (each uses only params declared before it).
    for (const ir::Param &P : Prog.Params)
      if (P.Runtime && P.Init)
        ParamBits[P.Name] = paramsOf(*P.Init);
    for (const ir::Permutation &P : Prog.Perms) {
      ParamSet S = 0;
      for (const ir::Expr &A : P.Args)
        S |= paramsOf(A);
      if (auto It = PermBits.find(P.Base); !P.Base.empty() && It != PermBits.end())
        S |= It->second;
      PermBits[P.Name] = S;
    }
    // Which thread indices vary inside a warp (lanes are consecutive
    // threads, x fastest): ty is uniform when a row of the block is whole
    // warps, tz when a plane is.
    const auto &B = K.Geo.BlockDim;
    ParamSet BlockParams = 0;
    for (const ir::Expr &E : K.Geo.Block)
      BlockParams |= paramsOf(E);
    const std::int64_t W = Prog.Mach ? Prog.Mach->warpSize() : 32;
    const bool Known = BlockParams == 0;
    LaneTx = !Known || B[0] > 1;
    LaneTy = !Known || (B[1] > 1 && B[0] % W != 0);
    LaneTz = !Known || (B[2] > 1 && (B[0] * B[1]) % W != 0);
    KernelValue = BlockParams;
    for (const ir::Expr &E : K.Geo.Grid)
      if (!monotone(E))
        KernelValue |= paramsOf(E);
    for (const ir::Array *A : K.arrays())
      ArraysByName.emplace(A->Name, A);
    for (const ir::Array &A : Prog.Arrays)
      ArraysByName.emplace(A.Name, &A);
  }

  std::vector<SiteSizeDependence> run() {
    // Locals and stored values: iterate to a fixed point (each step only
    // adds bits, so it ends).
    for (int Round = 0; Round < 200; ++Round) {
      Changed = false;
      startWalk();
      flow(K.Body, Deps{});
      if (!Changed)
        break;
    }
    startWalk();
    sites(K.Body, 0);
    std::stable_sort(Out.begin(), Out.end(), [](const auto &A, const auto &B) {
      return std::pair(A.first.Loc.Line, A.first.Loc.Col) < std::pair(B.first.Loc.Line, B.first.Loc.Col);
    });
    std::vector<SiteSizeDependence> R;
    for (auto &[S, Value] : Out) {
      const ParamSet V = Everything ? All : (Value | KernelValue);
      for (std::size_t I = 0; I < Base.size(); ++I)
        ((I < 64 && !((V >> I) & 1)) ? S.BoundOnly : S.ThroughValue).push_back(Base[I]);
      R.push_back(std::move(S));
    }
    return R;
  }

private:
  const ir::Program &Prog;
  const ir::Kernel &K;
  std::vector<std::string> Base;
  bool Everything = false;
  ParamSet All = 0, KernelValue = 0;
  std::map<std::string, ParamSet> ParamBits, PermBits;
  /// Locals by declaration (a `let` or a loop variable, numbered in walk
  /// order, so two `let r` in different loops are different values).
  std::map<int, Deps> Locals;
  std::vector<std::map<std::string, int>> Scopes;
  int NextId = 0;
  std::map<std::string, Deps> Stored; ///< per array: what its stored values depend on
  std::map<std::string, const ir::Array *> ArraysByName;
  bool LaneTx = true, LaneTy = true, LaneTz = true, Changed = false;
  std::vector<std::pair<SiteSizeDependence, ParamSet>> Out;

  ParamSet paramsOf(const ir::Expr &E) { return of(E).Params; }

  Deps of(const ir::Expr &E) {
    Deps D;
    if (const auto *V = E.as<ir::VarRef>()) {
      if (V->Kind == ir::VarKind::Let || V->Kind == ir::VarKind::Loop) {
        const int Id = lookup(V->Name);
        if (Id < 0) { // not in scope (never for a checked program): anything
          D.Params = All;
          D.Lane = true;
        } else if (auto It = Locals.find(Id); It != Locals.end()) {
          D = It->second;
        }
      } else if (auto It = ParamBits.find(V->Name); It != ParamBits.end()) {
        D.Params = It->second;
      }
      return D;
    }
    if (const auto *B = E.as<ir::BuiltinRef>()) {
      switch (B->Which) {
      case ir::Builtin::Tid:
      case ir::Builtin::Lane: D.Lane = true; break;
      case ir::Builtin::Tx: D.Lane = LaneTx; break;
      case ir::Builtin::Ty: D.Lane = LaneTy; break;
      case ir::Builtin::Tz: D.Lane = LaneTz; break;
      default: break;
      }
      return D;
    }
    if (const auto *R = E.as<ir::ArrayRead>()) {
      // A value in memory: its indices, the array's shape, and whatever was
      // stored in it; it may differ per lane.
      for (const ir::Expr &I : R->Indices)
        D |= of(I);
      if (auto It = Stored.find(R->Array); It != Stored.end())
        D |= It->second;
      if (auto It = ArraysByName.find(R->Array); It != ArraysByName.end())
        D.Params |= shapeParams(*It->second, true);
      D.Lane = true;
      return D;
    }
    if (const auto *A = E.as<ir::Atomic>()) {
      // The old value: an element, as a read of it is, and the values.
      D = of(ir::Expr{A->Target, E.Loc});
      for (const ir::Expr &V : A->Args)
        D |= of(V);
      return D;
    }
    if (const auto *P = E.as<ir::PermApply>()) {
      D = of(*P->Arg);
      if (auto It = PermBits.find(P->Perm); It != PermBits.end())
        D.Params |= It->second;
      return D;
    }
    ir::forEachChild(E, [&](const ir::Expr &C) { D |= of(C); });
    return D;
  }

  /// Params of the dimensions that place an element (all but the outermost
  /// for raw and pad; every one when Whole or for the other layouts) and of
  /// the layout's argument.
  ParamSet shapeParams(const ir::Array &A, bool Whole) {
    ParamSet S = 0;
    const bool Outer = Whole || (A.Lay.Kind != ir::LayoutKind::Raw && A.Lay.Kind != ir::LayoutKind::Pad);
    for (std::size_t I = Outer ? 0 : 1; I < A.Dims.size(); ++I)
      S |= paramsOf(A.Dims[I]);
    if (A.Lay.Arg)
      S |= paramsOf(*A.Lay.Arg);
    return S;
  }

  /// Non-decreasing in every param it uses, the same for every lane: sums,
  /// products and quotients by non-negative constants, `p - constant`.
  bool monotone(const ir::Expr &E) {
    const Deps D = of(E);
    if (D.Lane)
      return false;
    if (D.Params == 0)
      return true;
    if (const auto *V = E.as<ir::VarRef>())
      return V->Kind == ir::VarKind::Param && ParamBits.count(V->Name) &&
             std::find(Base.begin(), Base.end(), V->Name) != Base.end();
    const auto *B = E.as<ir::Binary>();
    if (!B)
      return false;
    auto NonNegConst = [&](const ir::Expr &X) {
      const auto *L = X.as<ir::IntLit>();
      return L && L->Value >= 0;
    };
    switch (B->Op) {
    case ir::BinaryOp::Add: return monotone(*B->Lhs) && monotone(*B->Rhs);
    case ir::BinaryOp::Sub: return monotone(*B->Lhs) && of(*B->Rhs).Params == 0 && !of(*B->Rhs).Lane;
    case ir::BinaryOp::Mul:
      return (monotone(*B->Lhs) && NonNegConst(*B->Rhs)) || (NonNegConst(*B->Lhs) && monotone(*B->Rhs));
    case ir::BinaryOp::Div: {
      const auto *L = B->Rhs->as<ir::IntLit>();
      return L && L->Value > 0 && monotone(*B->Lhs);
    }
    default: return false;
    }
  }

  int lookup(const std::string &Name) const {
    for (std::size_t I = Scopes.size(); I-- > 0;)
      if (auto It = Scopes[I].find(Name); It != Scopes[I].end())
        return It->second;
    return -1;
  }
  int declare(const std::string &Name) {
    Scopes.back()[Name] = NextId;
    return NextId++;
  }
  void startWalk() {
    Scopes.assign(1, {});
    NextId = 0;
  }

  template <class Key> void merge(std::map<Key, Deps> &M, const Key &Name, const Deps &D) {
    Deps &Slot = M[Name];
    Deps New = Slot;
    New |= D;
    if (!(New == Slot)) {
      Slot = New;
      Changed = true;
    }
  }

  /// What the atomics in E store: their values, their indices, the control.
  void flowAtomics(const ir::Expr &E, const Deps &Ctx) {
    ir::forEachSubexpr(E, [&](const ir::Expr &X) {
      if (const auto *A = X.as<ir::Atomic>()) {
        Deps D = Ctx;
        for (const ir::Expr &I : A->Target.Indices)
          D |= of(I);
        for (const ir::Expr &V : A->Args)
          D |= of(V);
        merge(Stored, A->Target.Array, D);
      }
    });
  }

  /// Pass 1: what each local and each array's stored values depend on,
  /// control included (a local set under `if c` depends on c).
  void flow(const ir::Block &B, const Deps &Ctx) {
    for (const ir::Stmt &S : B) {
      if (const auto *L = S.as<ir::Let>()) {
        flowAtomics(L->Init, Ctx);
        Deps D = of(L->Init);
        D |= Ctx;
        merge(Locals, declare(L->Name), D);
      } else if (const auto *X = S.as<ir::ExprStmt>()) {
        flowAtomics(X->Value, Ctx);
      } else if (const auto *A = S.as<ir::Assign>()) {
        flowAtomics(A->Value, Ctx);
        Deps D = of(A->Value);
        D |= Ctx;
        if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
          const int Id = lookup(V->Name);
          if (Id >= 0)
            merge(Locals, Id, D);
        } else {
          const auto &T = std::get<ir::ArrayRead>(A->Target);
          for (const ir::Expr &I : T.Indices)
            D |= of(I);
          merge(Stored, T.Array, D);
        }
      } else if (const auto *F = S.as<ir::For>()) {
        Deps Var = of(F->Begin);
        if (F->Step)
          Var |= of(*F->Step);
        Var |= Ctx;
        Var.Lane = Var.Lane || of(F->End).Lane;
        Deps Inner = Var;
        Inner |= of(F->End); // a local updated per iteration counts them
        Scopes.emplace_back();
        merge(Locals, declare(F->Var), Var);
        flow(F->Body, Inner);
        Scopes.pop_back();
      } else if (const auto *W = S.as<ir::While>()) {
        Deps Inner = Ctx;
        Inner |= of(W->Cond);
        Scopes.emplace_back();
        flow(W->Body, Inner);
        Scopes.pop_back();
      } else if (const auto *I = S.as<ir::If>()) {
        Deps Inner = Ctx;
        Inner |= of(I->Cond);
        Scopes.emplace_back();
        flow(I->Then, Inner);
        Scopes.pop_back();
        Scopes.emplace_back();
        flow(I->Else, Inner);
        Scopes.pop_back();
      }
    }
  }

  void site(const ir::ArrayRead &R, const SourceLoc &Loc, bool IsWrite, ParamSet Ctx) {
    auto It = ArraysByName.find(R.Array);
    if (It == ArraysByName.end() || It->second->Space == ir::MemSpace::Local)
      return;
    ParamSet V = Ctx | shapeParams(*It->second, false);
    for (const ir::Expr &I : R.Indices)
      V |= paramsOf(I);
    SiteSizeDependence S;
    S.Loc = Loc;
    S.Array = R.Array;
    S.IsWrite = IsWrite;
    S.Node = &R;
    Out.push_back({std::move(S), V});
  }

  void sitesIn(const ir::Expr &E, ParamSet Ctx) {
    if (const auto *Sel = E.as<ir::Select>()) { // an arm runs under its condition
      sitesIn(*Sel->Cond, Ctx);
      sitesIn(*Sel->Then, Ctx | paramsOf(*Sel->Cond));
      sitesIn(*Sel->Else, Ctx | paramsOf(*Sel->Cond));
      return;
    }
    ir::forEachChild(E, [&](const ir::Expr &C) { sitesIn(C, Ctx); });
    if (const auto *R = E.as<ir::ArrayRead>())
      site(*R, E.Loc, false, Ctx);
    if (const auto *T = ir::atomicTarget(E)) // after its values, as it runs
      site(*T, E.Loc, true, Ctx);
  }

  /// The params a guard uses through their values; a conjunct `e < g` or
  /// `e <= g` (`g > e`, `g >= e`) with e and g warp-uniform, g monotone and
  /// sharing no param with e only bounds what it guards.
  ParamSet guardValue(const ir::Expr &C) {
    const auto *B = C.as<ir::Binary>();
    if (B && B->Op == ir::BinaryOp::LogAnd)
      return guardValue(*B->Lhs) | guardValue(*B->Rhs);
    if (B) {
      const ir::Expr *E = nullptr, *G = nullptr;
      if (B->Op == ir::BinaryOp::Lt || B->Op == ir::BinaryOp::Le) {
        E = &*B->Lhs;
        G = &*B->Rhs;
      } else if (B->Op == ir::BinaryOp::Gt || B->Op == ir::BinaryOp::Ge) {
        E = &*B->Rhs;
        G = &*B->Lhs;
      }
      if (E) {
        const Deps De = of(*E), Dg = of(*G);
        if (!De.Lane && monotone(*G) && (De.Params & Dg.Params) == 0)
          return De.Params;
      }
    }
    return paramsOf(C);
  }

  /// Pass 2: each site, with the params that reach it through enclosing
  /// guards and loops.
  void sites(const ir::Block &B, ParamSet Ctx) {
    for (const ir::Stmt &S : B) {
      if (const auto *A = S.as<ir::Assign>()) {
        sitesIn(A->Value, Ctx);
        if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
          for (const ir::Expr &I : T->Indices)
            sitesIn(I, Ctx);
          site(*T, S.Loc, true, Ctx);
        }
      } else if (const auto *L = S.as<ir::Let>()) {
        sitesIn(L->Init, Ctx);
        declare(L->Name);
      } else if (const auto *X = S.as<ir::ExprStmt>()) {
        sitesIn(X->Value, Ctx);
      } else if (const auto *F = S.as<ir::For>()) {
        sitesIn(F->Begin, Ctx);
        sitesIn(F->End, Ctx);
        if (F->Step)
          sitesIn(*F->Step, Ctx);
        ParamSet Inner = Ctx | paramsOf(F->Begin);
        const Deps Begin = of(F->Begin);
        bool UpCount = !F->Step;
        if (F->Step)
          if (const auto *L = F->Step->as<ir::IntLit>())
            UpCount = L->Value > 0;
        if (F->Step)
          Inner |= paramsOf(*F->Step);
        // An upward loop whose end grows with a size, the same for every
        // lane, only bounds its body by that size.
        if (!(UpCount && !Begin.Lane && monotone(F->End) && (Begin.Params & paramsOf(F->End)) == 0))
          Inner |= paramsOf(F->End);
        Scopes.emplace_back();
        declare(F->Var);
        sites(F->Body, Inner);
        Scopes.pop_back();
      } else if (const auto *W = S.as<ir::While>()) {
        // The condition runs once per trip, and decides every trip.
        const ParamSet Inner = Ctx | paramsOf(W->Cond);
        sitesIn(W->Cond, Inner);
        Scopes.emplace_back();
        sites(W->Body, Inner);
        Scopes.pop_back();
      } else if (const auto *I = S.as<ir::If>()) {
        sitesIn(I->Cond, Ctx);
        const ParamSet Then = Ctx | guardValue(I->Cond);
        Scopes.emplace_back();
        sites(I->Then, Then);
        Scopes.pop_back();
        Scopes.emplace_back();
        sites(I->Else, Ctx | paramsOf(I->Cond));
        Scopes.pop_back();
      }
    }
  }
};

} // namespace

std::vector<SiteSizeDependence> siteSizeDependence(const ir::Program &Prog, const ir::Kernel &K) {
  return DependenceWalk(Prog, K).run();
}

} // namespace bankwise
