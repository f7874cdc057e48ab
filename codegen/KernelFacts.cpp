// The facts of one kernel: the scan (arrays, locals, loops, tables) and
// the dataflow facts (value classes, ranges, uniformity) codegen decides by.

#include "codegen/detail/Emit.h"

#include <stdexcept>

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
  scanBlock(K.Body);
  collectRuntime();
  if (Virtual && (HasSync || HasShuffle))
    throw UserError(K.Geo.Loc, fmt::format("kernel '{}' has {} threads and a '{}': CUDA blocks hold at most "
                                           "1024 threads, and codegen runs several program threads per CUDA "
                                           "thread only in kernels without 'sync' or warp shuffles",
                                           K.Name, Threads, HasSync ? "sync" : "warp shuffle"));
  // The value-facts pass's (codegen reads them; an error is what codegen
  // cannot type).
  const KernelValueFacts *V = Mod.Pipe.valuesOf(K.Name);
  if (!V)
    throw std::logic_error(fmt::format("compileToCuda: kernel '{}' has no value facts (run the pipeline's "
                                       "value-facts pass)",
                                       K.Name));
  if (V->Error)
    throw *V->Error;
  Values = &*V->Facts;
  RuntimeGrid = Values->RuntimeGrid;
  markLoopBounds(K.Body);
  chooseIndexType();
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
  P.InShared = A.Space == ir::MemSpace::Shared && !A.ViewOf; // a view allocates nothing
  P.Staged = P.InShared && From != Origin::Body;
  P.Lay = arrayLayout(A);
  P.LayoutName = P.Lay.str();
  if (A.Holds && From != Origin::Body && !P.Local)
    P.Table = Mod.table(A.Holds->Perm, A.Holds->Inverse, devType(A.Elem), false);
  ArrayIndex[A.Name] = Arrays.size();
  Arrays.push_back(std::move(P));
}

ArrayPlan &KernelFacts::touch(const std::string &Name, const SourceLoc &Loc, bool Read, bool Written) {
  if (!ArrayIndex.count(Name)) {
    const ir::Array *A = Prog.findArray(Name);
    if (!A)
      throw UserError(Loc, fmt::format("codegen: unknown array '{}'", Name));
    addArray(*A, Origin::TopLevel);
  }
  ArrayPlan &A = Arrays[ArrayIndex.at(Name)];
  A.Read = A.Read || Read;
  A.Written = A.Written || Written;
  if (A.Decl->ViewOf) // what a view reads or writes is its array's
    touch(*A.Decl->ViewOf, Loc, Read, Written);
  return Arrays[ArrayIndex.at(Name)];
}

void KernelFacts::scanExpr(const Expr &E) {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param)
            ParamsUsed.insert(N.Name);
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          Builtins.insert(N.Which);
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          scanExpr(*N.Operand);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          scanExpr(*N.Lhs);
          scanExpr(*N.Rhs);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (const Expr &A : N.Args)
            scanExpr(A);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          touch(N.Array, E.Loc, true, false);
          for (const Expr &I : N.Indices)
            scanExpr(I);
        } else if constexpr (std::is_same_v<T, ir::Select>) {
          scanExpr(*N.Cond);
          scanExpr(*N.Then);
          scanExpr(*N.Else);
        } else if constexpr (std::is_same_v<T, ir::Shuffle>) {
          HasShuffle = true;
          scanExpr(*N.Value);
          scanExpr(*N.Lane);
        } else if constexpr (std::is_same_v<T, ir::Atomic>) {
          // Read and written: the harness fills it and checks it.
          touch(N.Target.Array, E.Loc, true, true);
          for (const Expr &I : N.Target.Indices)
            scanExpr(I);
          for (const Expr &V : N.Args)
            scanExpr(V);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          scanExpr(*N.Arg);
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

void KernelFacts::scanBlock(const ir::Block &B) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      scanExpr(L->Init);
    } else if (const auto *X = St.as<ir::ExprStmt>()) {
      scanExpr(X->Value);
    } else if (const auto *A = St.as<ir::Assign>()) {
      scanExpr(A->Value);
      if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target)) {
        touch(R->Array, St.Loc, false, true);
        for (const Expr &I : R->Indices)
          scanExpr(I);
      }
    } else if (const auto *F = St.as<ir::For>()) {
      scanExpr(F->Begin);
      scanExpr(F->End);
      if (F->Step)
        scanExpr(*F->Step);
      scanBlock(F->Body);
    } else if (const auto *W = St.as<ir::While>()) {
      scanExpr(W->Cond);
      scanBlock(W->Body);
    } else if (const auto *I = St.as<ir::If>()) {
      scanExpr(I->Cond);
      scanBlock(I->Then);
      scanBlock(I->Else);
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      if (D->Decl.ViewOf) // its array first: the view points into it
        touch(*D->Decl.ViewOf, D->Decl.Loc, false, false).HasView = true;
      addArray(D->Decl, Origin::Body);
    } else if (St.is<ir::Sync>()) {
      HasSync = true;
    }
  }
}

void KernelFacts::markLoopBounds(const ir::Block &B) {
  std::set<const ir::Let *> Seen;
  std::function<void(const Expr &)> Mark = [&](const Expr &E) {
    ir::forEachSubexpr(E, [&](const Expr &X) {
      const ir::ArrayRead *R = X.as<ir::ArrayRead>();
      if (!R)
        R = ir::atomicTarget(X); // its old value
      if (R) {
        if (auto It = ArrayIndex.find(R->Array); It != ArrayIndex.end())
          Arrays[It->second].BoundsLoop = true;
      } else if (const auto *V = X.as<ir::VarRef>()) {
        const auto L = Values->LetOf.find(V);
        if (L == Values->LetOf.end())
          return;
        const LetInfo &Info = Values->Lets[static_cast<std::size_t>(L->second)];
        if (Seen.insert(Info.Decl).second)
          for (const Expr *Y : Info.Values)
            Mark(*Y);
      }
    });
  };
  for (const Stmt &St : B) {
    if (const auto *F = St.as<ir::For>()) {
      Mark(F->Begin);
      Mark(F->End);
      if (F->Step)
        Mark(*F->Step);
      markLoopBounds(F->Body);
    } else if (const auto *Wh = St.as<ir::While>()) {
      Mark(Wh->Cond);
      markLoopBounds(Wh->Body);
    } else if (const auto *I = St.as<ir::If>()) {
      markLoopBounds(I->Then);
      markLoopBounds(I->Else);
    }
  }
}

void KernelFacts::chooseIndexType() {
  // The index type: int when every integer value of the kernel fits.
  bool Fits = Wide(Blocks) * Threads < (Wide(1) << 31);
  for (const ArrayPlan &A : Arrays)
    if (A.footprint() >= (std::int64_t(1) << 31))
      Fits = false;
  Fits = Fits && Values->IntsFit32;
  HasCompute = Values->HasCompute;
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
