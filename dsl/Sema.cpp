#include "dsl/Sema.h"

#include "ir/Eval.h"
#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>

namespace bankwise::dsl {

using namespace ir;

namespace {

// Words that start declarations, statements or special expressions. The
// contextual words (in, step, grid, block, threads, element types, layout and
// permutation kinds) stay free: `in` is a fine array name.
constexpr std::array<std::string_view, 54> ReservedWords{
    "target", "machine", "param", "permutation", "kernel", "let", "fn", "instance",
    "for",    "if",      "else",  "sync",        "global", "shared",
    "local",  "layout",  "holds", "inverse",     "tid",    "lane",
    "warp",   "tx",      "ty",    "tz",          "bx",     "by",
    "bz",     "min",     "max",   "log2",        "bitrev", "while",
    "bdx",    "bdy",     "bdz",   "gdx",         "gdy",    "gdz",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_exch", "atomic_inc", "atomic_dec", "atomic_cas",
    "shfl", "shfl_xor", "shfl_up", "shfl_down", "view"};

const char *kindName(int K) {
  static const char *Names[] = {"parameter", "permutation",   "array",   "kernel",
                                "local",     "loop variable", "function"};
  return Names[K];
}

/// Largest value an integer element type holds; nullopt for floats.
std::optional<std::int64_t> maxValue(ElemType T) {
  if (T.Lanes != 1)
    return std::nullopt;
  switch (T.Scalar) {
  case ScalarType::I8:
    return INT8_MAX;
  case ScalarType::I16:
    return INT16_MAX;
  case ScalarType::I32:
    return INT32_MAX;
  case ScalarType::I64:
    return INT64_MAX;
  case ScalarType::U8:
    return UINT8_MAX;
  case ScalarType::U16:
    return UINT16_MAX;
  case ScalarType::U32:
    return UINT32_MAX;
  case ScalarType::U64:
    return INT64_MAX;
  default:
    return std::nullopt;
  }
}

bool isPowerOfTwo(std::int64_t N) { return N > 0 && (N & (N - 1)) == 0; }

void collectShared(const Block &B, std::vector<const Array *> &Out) {
  for (const Stmt &S : B) {
    if (const auto *D = S.as<ArrayDecl>()) {
      if (D->Decl.Space == MemSpace::Shared && !D->Decl.ViewOf) // a view's bytes are its array's
        Out.push_back(&D->Decl);
    } else if (const auto *F = S.as<For>()) {
      collectShared(F->Body, Out);
    } else if (const auto *W = S.as<While>()) {
      collectShared(W->Body, Out);
    } else if (const auto *I = S.as<If>()) {
      collectShared(I->Then, Out);
      collectShared(I->Else, Out);
    }
  }
}

} // namespace

std::optional<std::pair<bool, int>> geometryWord(std::string_view Name) {
  if (Name.size() != 3 || (Name[0] != 'b' && Name[0] != 'g') || Name[1] != 'd' || Name[2] < 'x' ||
      Name[2] > 'z')
    return std::nullopt;
  return std::pair<bool, int>{Name[0] == 'g', Name[2] - 'x'};
}

bool isGeometryWord(std::string_view Name) { return geometryWord(Name).has_value(); }

SourceLoc startOf(const Expr &E) {
  if (const auto *B = E.as<Binary>())
    return startOf(*B->Lhs);
  return E.Loc;
}

bool isReserved(std::string_view Name) {
  return std::find(ReservedWords.begin(), ReservedWords.end(), Name) !=
         ReservedWords.end();
}

Sema::Sema(const SourceFile &Src, DiagnosticEngine &Diags,
           const ParamOverrides &Overrides, Program &Out)
    : Src(Src), Diags(Diags), Overrides(Overrides), Out(Out) {}

void Sema::error(const SourceLoc &L, std::string Msg) const {
  Src.error(Diags, L, std::move(Msg));
}

const Sema::Symbol *Sema::lookup(std::string_view Name) const {
  for (auto It = Locals.rbegin(); It != Locals.rend(); ++It)
    if (auto F = It->find(Name); F != It->end())
      return &F->second;
  if (auto F = Globals.find(Name); F != Globals.end())
    return &F->second;
  return nullptr;
}

bool Sema::declare(const std::string &Name, const SourceLoc &Loc, Symbol Sym) {
  if (isReserved(Name)) {
    error(Loc,
          fmt::format("'{}' is a reserved word and cannot be declared", Name));
    return false;
  }
  if (const Symbol *Prev = lookup(Name)) {
    error(Loc, fmt::format("redefinition of '{}'", Name));
    Src.note(Diags, Prev->Loc, "previous definition is here");
    return false;
  }
  Sym.Loc = Loc;
  (Locals.empty() ? Globals : Locals.back()).emplace(Name, Sym);
  return true;
}

//===-- Expressions
//----------------------------------------------------------===//

bool Sema::substituteGeometry(Expr &E) {
  const auto *V = E.as<VarRef>();
  const auto Word = V ? geometryWord(V->Name) : std::nullopt;
  if (!Word)
    return false;
  if (!CurGeo) {
    error(E.Loc, fmt::format("'{}' is the kernel's {}; it is defined only in a kernel body", V->Name,
                             Word->first ? "grid" : "block"));
    E = makeInt(1, E.Loc);
    return true;
  }
  const std::vector<Expr> &Dims = Word->first ? CurGeo->Grid : CurGeo->Block;
  const auto Axis = static_cast<std::size_t>(Word->second);
  NodeLoc L = E.Loc;
  E = Axis < Dims.size() ? Dims[Axis] : makeInt(1);
  E.Loc = L; // the value is the launch's; where it was written is the word
  return true;
}

bool Sema::resolveConstant(Expr &E) {
  if (substituteGeometry(E))
    return resolveConstant(E);
  if (auto *V = E.as<VarRef>()) {
    const Symbol *S = lookup(V->Name);
    if (!S) {
      error(E.Loc, fmt::format("unknown name '{}'", V->Name));
      return false;
    }
    if (S->Kind != SymKind::Param) {
      error(E.Loc, fmt::format("{} '{}' is not a constant",
                               kindName(static_cast<int>(S->Kind)), V->Name));
      return false;
    }
    V->Kind = VarKind::Param;
    return true;
  }
  if (const auto *B = E.as<BuiltinRef>()) {
    error(E.Loc, fmt::format("thread built-in '{}' is not a constant",
                             spelling(B->Which)));
    return false;
  }
  if (const auto *A = E.as<ArrayRead>()) {
    error(E.Loc, fmt::format("read of array '{}' is not a constant", A->Array));
    return false;
  }
  if (const auto *P = E.as<PermApply>()) {
    error(E.Loc, fmt::format("permutation '{}' is not a constant", P->Perm));
    return false;
  }
  if (const auto *A = E.as<Atomic>()) {
    error(E.Loc, fmt::format("'{}' updates memory; it is not a constant", spelling(A->Op)));
    return false;
  }
  if (const auto *S = E.as<Shuffle>()) {
    error(E.Loc, fmt::format("'{}' reads another lane; it is not a constant", spelling(S->Op)));
    return false;
  }
  if (auto *U = E.as<Unary>())
    return resolveConstant(*U->Operand);
  if (auto *B = E.as<Binary>()) {
    const bool L = resolveConstant(*B->Lhs);
    return resolveConstant(*B->Rhs) && L;
  }
  if (auto *C = E.as<Call>()) {
    bool Ok = true;
    for (Expr &A : C->Args)
      Ok = resolveConstant(A) && Ok;
    return Ok;
  }
  if (auto *Sel = E.as<Select>()) {
    const bool C = resolveConstant(*Sel->Cond), T = resolveConstant(*Sel->Then);
    return resolveConstant(*Sel->Else) && C && T;
  }
  if (const auto *F = E.as<FloatLit>()) {
    error(E.Loc, fmt::format("floating-point literal '{}' in a constant expression, which is an integer",
                             floatSpelling(F->Value)));
    return false;
  }
  return true; // IntLit
}

bool Sema::resolveRuntime(Expr &E) {
  if (substituteGeometry(E))
    return resolveRuntime(E);
  if (auto *V = E.as<VarRef>()) {
    const Symbol *S = lookup(V->Name);
    if (!S) {
      error(E.Loc, fmt::format("unknown name '{}'", V->Name));
      return false;
    }
    switch (S->Kind) {
    case SymKind::Param:
      V->Kind = VarKind::Param;
      return true;
    case SymKind::Let:
      V->Kind = VarKind::Let;
      return true;
    case SymKind::Loop:
      V->Kind = VarKind::Loop;
      return true;
    case SymKind::Array:
      error(E.Loc, fmt::format("array '{}' needs {} ind{}", V->Name, S->Rank,
                               S->Rank == 1 ? "ex" : "ices"));
      return false;
    case SymKind::Perm:
      error(E.Loc, fmt::format("permutation '{}' must be applied to an "
                               "index, as in '{}(i)'",
                               V->Name, V->Name));
      return false;
    case SymKind::Kernel:
      error(E.Loc, fmt::format("kernel '{}' is not a value", V->Name));
      return false;
    case SymKind::Function:
      error(E.Loc, fmt::format("function '{}' must be called, as in '{}(...)'", V->Name, V->Name));
      return false;
    }
    return false;
  }
  if (auto *A = E.as<ArrayRead>()) {
    bool Ok = true;
    for (Expr &I : A->Indices)
      Ok = resolveRuntime(I) && Ok;
    const Symbol *S = lookup(A->Array);
    if (!S) {
      error(E.Loc, fmt::format("unknown name '{}'", A->Array));
      return false;
    }
    if (S->Kind != SymKind::Array) {
      error(E.Loc, fmt::format("{} '{}' is not an array",
                               kindName(static_cast<int>(S->Kind)), A->Array));
      return false;
    }
    const int Given = static_cast<int>(A->Indices.size());
    if (Given != S->Rank) {
      error(E.Loc,
            fmt::format("array '{}' has {} dimension{} but {} ind{} {} given",
                        A->Array, S->Rank, S->Rank == 1 ? "" : "s", Given,
                        Given == 1 ? "ex" : "ices",
                        Given == 1 ? "was" : "were"));
      return false;
    }
    return Ok;
  }
  if (auto *P = E.as<PermApply>()) {
    const bool Ok = resolveRuntime(*P->Arg);
    const Symbol *S = lookup(P->Perm);
    if (!S) {
      error(E.Loc,
            fmt::format("unknown function or permutation '{}'", P->Perm));
      return false;
    }
    if (S->Kind != SymKind::Perm) {
      error(E.Loc, fmt::format("{} '{}' is not a permutation",
                               kindName(static_cast<int>(S->Kind)), P->Perm));
      return false;
    }
    return Ok;
  }
  if (auto *U = E.as<Unary>())
    return resolveRuntime(*U->Operand);
  if (auto *B = E.as<Binary>()) {
    const bool L = resolveRuntime(*B->Lhs);
    return resolveRuntime(*B->Rhs) && L;
  }
  if (auto *C = E.as<Call>()) {
    bool Ok = true;
    for (Expr &A : C->Args)
      Ok = resolveRuntime(A) && Ok;
    return Ok;
  }
  if (auto *Sel = E.as<Select>()) {
    const bool C = resolveRuntime(*Sel->Cond), T = resolveRuntime(*Sel->Then);
    return resolveRuntime(*Sel->Else) && C && T;
  }
  if (auto *A = E.as<Atomic>())
    return resolveAtomic(*A, E.Loc);
  if (auto *S = E.as<Shuffle>())
    return resolveShuffle(*S, E.Loc);
  return true; // IntLit, FloatLit, BuiltinRef
}

bool Sema::isConstant(const Expr &E) const {
  if (E.is<IntLit>())
    return true;
  if (const auto *V = E.as<VarRef>())
    return V->Kind == VarKind::Param;
  if (const auto *U = E.as<Unary>())
    return isConstant(*U->Operand);
  if (const auto *B = E.as<Binary>())
    return isConstant(*B->Lhs) && isConstant(*B->Rhs);
  if (const auto *C = E.as<Call>())
    return std::all_of(C->Args.begin(), C->Args.end(),
                       [&](const Expr &A) { return isConstant(A); });
  if (const auto *Sel = E.as<Select>())
    return isConstant(*Sel->Cond) && isConstant(*Sel->Then) &&
           isConstant(*Sel->Else);
  return false; // FloatLit: not an integer constant
}

std::optional<std::int64_t> Sema::evalResolved(const Expr &E) {
  bool Poisoned = false;
  EvalHooks Hooks;
  Hooks.Var = [&](const VarRef &V) -> std::optional<std::int64_t> {
    if (auto It = ParamValues.find(V.Name); It != ParamValues.end())
      return It->second;
    Poisoned = true;
    return std::nullopt;
  };
  EvalResult R = evaluate(E, Hooks);
  if (R.ok())
    return R.Value;
  if (!Poisoned)
    error(R.Loc, R.Message);
  return std::nullopt;
}

std::optional<std::int64_t> Sema::constant(Expr &E) {
  if (!resolveConstant(E))
    return std::nullopt;
  return evalResolved(E);
}

std::optional<std::int64_t> Sema::positive(Expr &E, std::string_view What) {
  auto V = constant(E);
  if (V && *V <= 0) {
    error(startOf(E), fmt::format("{} must be positive, got {}", What, *V));
    return std::nullopt;
  }
  return V;
}

void Sema::foldCheck(const Expr &E) {
  if (isConstant(E)) {
    evalResolved(E);
    return;
  }
  if (const auto *B = E.as<Binary>()) {
    foldCheck(*B->Lhs);
    foldCheck(*B->Rhs);
    if ((B->Op == BinaryOp::Div || B->Op == BinaryOp::Mod) &&
        isConstant(*B->Rhs)) {
      EvalHooks Hooks;
      Hooks.Var = [&](const VarRef &V) -> std::optional<std::int64_t> {
        if (auto It = ParamValues.find(V.Name); It != ParamValues.end())
          return It->second;
        return std::nullopt;
      };
      EvalResult R = evaluate(*B->Rhs, Hooks);
      if (R.ok() && R.Value == 0)
        error(E.Loc,
              B->Op == BinaryOp::Div ? "division by zero" : "modulo by zero");
    }
  } else if (const auto *U = E.as<Unary>()) {
    foldCheck(*U->Operand);
  } else if (const auto *C = E.as<Call>()) {
    for (const Expr &A : C->Args)
      foldCheck(A);
  } else if (const auto *A = E.as<ArrayRead>()) {
    for (const Expr &I : A->Indices)
      foldCheck(I);
  } else if (const auto *P = E.as<PermApply>()) {
    foldCheck(*P->Arg);
  } else if (const auto *Sel = E.as<Select>()) {
    foldCheck(*Sel->Cond);
    foldCheck(*Sel->Then);
    foldCheck(*Sel->Else);
  } else if (E.is<Atomic>() || E.is<Shuffle>()) {
    forEachChild(E, [&](const Expr &C) { foldCheck(C); });
  }
}

//===-- Declarations
//---------------------------------------------------------===//

void Sema::actOnMachine(Machine M) {
  if (SawMachine) {
    error(M.Loc, "redefinition of the machine");
    Src.note(Diags, Out.Mach->Loc, "previous definition is here");
    return;
  }
  if (!Out.Kernels.empty()) {
    error(M.Loc, "the machine must be declared before the first kernel");
    return;
  }
  SawMachine = true;
  if (M.Kind == MachineKind::Target) {
    if (!targetInfo(M.Target)) {
      error(M.Loc, fmt::format("unknown target '{}'", M.Target));
      std::string Known;
      for (std::string_view T : knownTargets())
        Known += (Known.empty() ? "" : ", ") + std::string(T);
      Src.note(Diags, M.Loc, "known targets: " + Known);
    }
    Out.Mach = std::move(M);
    return;
  }
  const std::vector<std::string_view> Needed =
      M.Kind == MachineKind::Hmm ? std::vector<std::string_view>{"d", "w", "L"}
                                 : std::vector<std::string_view>{"w", "l"};
  const char *KindName = M.Kind == MachineKind::Dmm   ? "dmm"
                         : M.Kind == MachineKind::Umm ? "umm"
                                                      : "hmm";
  std::set<std::string, std::less<>> Seen;
  for (MachineArg &A : M.Args) {
    if (std::find(Needed.begin(), Needed.end(), A.Name) == Needed.end()) {
      std::string List;
      for (std::size_t I = 0; I < Needed.size(); ++I)
        List += fmt::format("{}'{}'",
                            I == 0                   ? ""
                            : I + 1 == Needed.size() ? " and "
                                                     : ", ",
                            Needed[I]);
      error(A.Loc, fmt::format("unknown parameter '{}' for machine {}; it "
                               "takes {}",
                               A.Name, KindName, List));
      continue;
    }
    if (!Seen.insert(A.Name).second) {
      error(A.Loc, fmt::format("duplicate machine parameter '{}'", A.Name));
      continue;
    }
    A.Evaluated =
        positive(A.Value, "machine parameter '" + A.Name + "'").value_or(1);
  }
  for (std::string_view N : Needed)
    if (!Seen.count(N))
      error(M.Loc, fmt::format("machine {} needs parameter '{}'", KindName, N));
  Out.Mach = std::move(M);
}

bool Sema::usesRuntime(const Expr &E) const {
  if (const auto *V = E.as<VarRef>())
    return V->Kind == VarKind::Param && RuntimeParams.count(V->Name);
  if (const auto *U = E.as<Unary>())
    return usesRuntime(*U->Operand);
  if (const auto *B = E.as<Binary>())
    return usesRuntime(*B->Lhs) || usesRuntime(*B->Rhs);
  if (const auto *C = E.as<Call>())
    return std::any_of(C->Args.begin(), C->Args.end(),
                       [&](const Expr &A) { return usesRuntime(A); });
  return false;
}

void Sema::actOnParam(Param P) {
  declare(P.Name, P.Loc, {SymKind::Param, {}, 0});
  std::optional<std::int64_t> V;
  bool Runtime = !P.Init;
  if (P.Init) {
    const bool Resolved = resolveConstant(*P.Init);
    Runtime = Resolved && usesRuntime(*P.Init);
    if (Resolved && !Runtime)
      V = evalResolved(*P.Init);
  }
  if (auto It = Overrides.find(P.Name); It != Overrides.end()) {
    UsedOverrides.insert(P.Name);
    V = It->second;
    P.Overridden = true;
    Runtime = false;
  }
  P.Runtime = Runtime;
  if (V) {
    P.Value = *V;
    ParamValues[P.Name] = *V;
  } else if (Runtime) {
    RuntimeParams.insert(P.Name);
  } else {
    PoisonedParams.insert(P.Name);
  }
  if (P.Where && resolveConstant(*P.Where) && !usesRuntime(*P.Where)) {
    // Every name has a value: the constraint is checked now.
    if (auto Holds = evalResolved(*P.Where); Holds && *Holds == 0)
      error(startOf(*P.Where),
            fmt::format("param '{}' = {} does not satisfy its constraint "
                        "'{}'",
                        P.Name, P.Value, print(*P.Where)));
  }
  Out.Params.push_back(std::move(P));
}

void Sema::actOnPermutation(Permutation P) {
  declare(P.Name, P.Loc, {SymKind::Perm, {}, 1});
  bool Ok = true;
  P.ArgValues.clear();
  const auto Arg = [&](std::size_t I, std::string_view What,
                       bool MustBePositive) {
    auto V = MustBePositive ? positive(P.Args[I], What) : constant(P.Args[I]);
    if (isConstant(P.Args[I]) && usesRuntime(P.Args[I]))
      error(startOf(P.Args[I]),
            fmt::format("permutation '{}' needs a constant {}; this one "
                        "depends on a runtime param (bind it with -D)",
                        P.Name, What));
    Ok = Ok && V.has_value();
    P.ArgValues.push_back(V.value_or(0));
    return V.value_or(0);
  };
  switch (P.Kind) {
  case PermKind::Identity:
  case PermKind::Shuffle:
  case PermKind::Bitreverse: {
    const std::int64_t N = Arg(0, "permutation length", true);
    if (Ok && P.Kind != PermKind::Identity && !isPowerOfTwo(N)) {
      error(startOf(P.Args[0]),
            fmt::format("{}(n) needs n a power of two, got {}",
                        spelling(P.Kind), N));
      Ok = false;
    }
    P.Size = N;
    break;
  }
  case PermKind::Transpose: {
    const std::int64_t R = Arg(0, "row count", true);
    const std::int64_t C = Arg(1, "column count", true);
    std::int64_t N = 0;
    if (Ok && __builtin_mul_overflow(R, C, &N)) {
      error(P.Loc,
            fmt::format("transpose({}, {}) has more than 2^63 elements", R, C));
      Ok = false;
    }
    P.Size = N;
    break;
  }
  case PermKind::Stride: {
    const std::int64_t N = Arg(0, "permutation length", true);
    const std::int64_t S = Arg(1, "stride", true);
    if (Ok && N % S != 0) {
      error(startOf(P.Args[1]),
            fmt::format("stride {} does not divide the length {}", S, N));
      Ok = false;
    }
    P.Size = N;
    break;
  }
  case PermKind::Random:
    P.Size = Arg(0, "permutation length", true);
    Arg(1, "seed", false);
    break;
  case PermKind::List: {
    const std::int64_t N = static_cast<std::int64_t>(P.Args.size());
    std::vector<bool> Seen(static_cast<std::size_t>(N), false);
    for (std::size_t I = 0; I < P.Args.size(); ++I) {
      auto V = constant(P.Args[I]);
      P.ArgValues.push_back(V.value_or(0));
      if (!V) {
        Ok = false;
        continue;
      }
      if (*V < 0 || *V >= N) {
        error(startOf(P.Args[I]),
              fmt::format("value {} is out of range [0, {})", *V, N));
        Ok = false;
      } else if (Seen[static_cast<std::size_t>(*V)]) {
        error(startOf(P.Args[I]),
              fmt::format("value {} appears twice, so '{}' is "
                          "not a permutation",
                          *V, P.Name));
        Ok = false;
      } else {
        Seen[static_cast<std::size_t>(*V)] = true;
      }
    }
    P.Size = N;
    break;
  }
  case PermKind::File:
    P.Size.reset();
    break;
  case PermKind::ScheduleSrc:
  case PermKind::ScheduleDst:
  case PermKind::HmmSrc:
  case PermKind::HmmDst: {
    const bool Hmm = isBlockLocalTable(P.Kind);
    const std::int64_t W = Arg(0, Hmm ? "pass" : "schedule width", !Hmm);
    const Permutation *Base = Out.findPerm(P.Base);
    const Symbol *S = lookup(P.Base);
    if (!S) {
      error(P.Loc, fmt::format("unknown permutation '{}'", P.Base));
    } else if (S->Kind != SymKind::Perm || !Base) {
      error(P.Loc, fmt::format("{} '{}' is not a permutation",
                               kindName(static_cast<int>(S->Kind)), P.Base));
    } else if (Hmm && isBlockLocalTable(Base->Kind)) {
      error(P.Loc, fmt::format("'{}' is a table of block-local indices, not "
                               "a permutation to schedule",
                               P.Base));
    } else if (Hmm) {
      // Seed 001's three passes: row, strip, row.
      P.Size = Base->Size;
      if (Ok && (W < 0 || W > 2))
        error(startOf(P.Args[0]),
              fmt::format("pass {} does not exist: seed 001's schedule has "
                          "passes 0, 1 and 2",
                          W));
      if (P.Args.size() > 1) {
        const std::int64_t Bytes = Arg(1, "element size", true);
        if (Ok && Bytes != 4 && Bytes != 8)
          error(startOf(P.Args[1]),
                fmt::format("bytes: {} has no sm_90 shape; seed 001's schedule "
                            "moves elements of 4 or 8 bytes",
                            Bytes));
      }
    } else {
      P.Size = Base->Size;
      if (Ok && Base->Size && *Base->Size % W != 0)
        error(startOf(P.Args[0]),
              fmt::format("schedule width {} does not divide the length {} of "
                          "'{}'",
                          W, *Base->Size, P.Base));
    }
    break;
  }
  }
  Out.Perms.push_back(std::move(P));
}

void Sema::checkArray(Array &A, bool InKernel) {
  declare(A.Name, A.Loc,
          {SymKind::Array, {}, static_cast<int>(A.Dims.size()), A.Elem, A.Space, A.Holds.has_value(),
           InKernel ? &A : nullptr});
  if (A.Space == MemSpace::Local && !InKernel)
    error(A.Loc, fmt::format("local array '{}' must be declared inside a "
                             "kernel",
                             A.Name));
  A.Shape.clear();
  bool ShapeOk = true;
  for (Expr &D : A.Dims) {
    auto V = positive(D, "array dimension");
    if (A.Space != MemSpace::Global && isConstant(D) && usesRuntime(D))
      error(startOf(D), fmt::format("{} array '{}' needs constant dimensions; "
                                    "this one depends on a runtime param "
                                    "(bind it with -D)",
                                    spelling(A.Space), A.Name));
    ShapeOk = ShapeOk && V.has_value();
    A.Shape.push_back(V.value_or(1));
  }
  if (A.Lay.Arg) {
    if (A.Lay.Kind == LayoutKind::Pad) {
      auto V = positive(*A.Lay.Arg, "padding");
      A.Lay.ArgValue = V.value_or(0);
    } else {
      A.Lay.ArgValue = constant(*A.Lay.Arg).value_or(0);
    }
  }
  if (ShapeOk && !A.allocatedBytes())
    error(A.Loc, fmt::format("array '{}' is too large: its size in bytes "
                             "overflows 64 bits",
                             A.Name));
  if (!A.Holds)
    return;
  const Symbol *S = lookup(A.Holds->Perm);
  const Permutation *P = Out.findPerm(A.Holds->Perm);
  if (!S) {
    error(A.Loc, fmt::format("unknown permutation '{}'", A.Holds->Perm));
    return;
  }
  if (S->Kind != SymKind::Perm || !P) {
    error(A.Loc,
          fmt::format("{} '{}' is not a permutation",
                      kindName(static_cast<int>(S->Kind)), A.Holds->Perm));
    return;
  }
  if (A.Dims.size() != 1) {
    error(A.Loc, fmt::format("array '{}' holds a permutation, so it must have "
                             "one dimension, not {}",
                             A.Name, A.Dims.size()));
    return;
  }
  if (isBlockLocalTable(P->Kind)) {
    // The planes' values are below a block's words (at most 2^15 on sm_90):
    // codegen stores them as 16-bit words.
    if (A.Dims.size() == 1 && A.Elem != ElemType{ScalarType::U16, 1})
      error(A.Loc, fmt::format("array '{}' holds {}, whose entries are "
                               "16-bit block-local indices: declare it u16, "
                               "not {}",
                               A.Name, spelling(P->Kind), spelling(A.Elem)));
    if (A.Dims.size() == 1 && ShapeOk && P->Size && A.Shape[0] != *P->Size)
      error(A.Loc, fmt::format("array '{}' has {} elements but table '{}' "
                               "has {}",
                               A.Name, A.Shape[0], P->Name, *P->Size));
    if (A.Holds->Inverse)
      error(A.Loc, fmt::format("'{}' is a table of block-local indices, not "
                               "a permutation: it has no inverse",
                               P->Name));
    return;
  }
  const auto Max = maxValue(A.Elem);
  if (!Max) {
    error(A.Loc, fmt::format("array '{}' holds a permutation, so its element "
                             "type must be a scalar integer, not {}",
                             A.Name, spelling(A.Elem)));
    return;
  }
  if (!ShapeOk || !P->Size)
    return;
  if (A.Shape[0] != *P->Size)
    error(A.Loc, fmt::format("array '{}' has {} elements but permutation "
                             "'{}' has length {}",
                             A.Name, A.Shape[0], P->Name, *P->Size));
  else if (*P->Size - 1 > *Max)
    error(A.Loc, fmt::format("element type {} of array '{}' cannot hold "
                             "index {}",
                             spelling(A.Elem), A.Name, *P->Size - 1));
}

void Sema::actOnArray(Array A) {
  checkArray(A, /*InKernel=*/false);
  Out.Arrays.push_back(std::move(A));
}

void Sema::checkGeometry(Kernel &K) {
  Geometry &G = K.Geo;
  const Machine Default{MachineKind::Target, "sm_90", {}, {}};
  const Machine &M = Out.Mach ? *Out.Mach : Default;
  const std::string MachineName = M.Kind == MachineKind::Target ? M.Target
                                  : M.Kind == MachineKind::Dmm  ? "the dmm"
                                  : M.Kind == MachineKind::Umm  ? "the umm"
                                                                : "the hmm";
  G.GridDim = {1, 1, 1};
  G.BlockDim = {1, 1, 1};
  bool Ok = true;
  for (Expr &B : G.Block)
    if (resolveConstant(B) && usesRuntime(B)) {
      error(startOf(B), fmt::format("the block of kernel '{}' must be a "
                                    "constant; this one depends on a runtime "
                                    "param (bind it with -D)",
                                    K.Name));
      return;
    }
  if (G.IsThreads) {
    auto P = positive(G.Block[0], "thread count");
    Ok = P.has_value();
    G.BlockDim[0] = P.value_or(1);
    // The papers' machines have no block limit: p threads form one block.
    if (Ok && M.Kind == MachineKind::Target && *P > 1024)
      error(startOf(G.Block[0]),
            fmt::format("block of {} threads exceeds the limit of 1024 on {}",
                        *P, MachineName));
    return;
  }
  static const std::array<std::int64_t, 3> GridMax{2147483647, 65535, 65535};
  static const std::array<std::int64_t, 3> BlockMax{1024, 1024, 64};
  static const char *Axis[] = {"x", "y", "z"};
  for (std::size_t I = 0; I < G.Grid.size(); ++I) {
    auto V = positive(G.Grid[I], "grid dimension");
    Ok = Ok && V.has_value();
    G.GridDim[I] = V.value_or(1);
    if (V && *V > GridMax[I])
      error(startOf(G.Grid[I]),
            fmt::format("grid dimension {} of {} exceeds the "
                        "limit of {}",
                        Axis[I], *V, GridMax[I]));
  }
  for (std::size_t I = 0; I < G.Block.size(); ++I) {
    auto V = positive(G.Block[I], "block dimension");
    Ok = Ok && V.has_value();
    G.BlockDim[I] = V.value_or(1);
    if (V && *V > BlockMax[I]) {
      error(startOf(G.Block[I]),
            fmt::format("block dimension {} of {} exceeds the "
                        "limit of {}",
                        Axis[I], *V, BlockMax[I]));
      Ok = false;
    }
  }
  if (Ok && G.threadsPerBlock() > 1024)
    error(G.Loc, fmt::format("block of {} threads exceeds the limit of 1024",
                             G.threadsPerBlock()));
}

void Sema::checkSharedBytes(const Kernel &K) {
  if (Out.Mach && Out.Mach->Kind != MachineKind::Target)
    return; // The memory machines bound no byte count.
  const auto Info = targetInfo(Out.Mach ? Out.Mach->Target : "sm_90");
  if (!Info)
    return;
  std::vector<const Array *> Shared;
  for (const Array &A : Out.Arrays)
    if (A.Space == MemSpace::Shared)
      Shared.push_back(&A);
  for (const Array &A : K.Params)
    if (A.Space == MemSpace::Shared)
      Shared.push_back(&A);
  collectShared(K.Body, Shared);
  std::int64_t Total = 0;
  for (const Array *A : Shared) {
    auto Bytes = A->allocatedBytes();
    if (!Bytes || __builtin_add_overflow(Total, *Bytes, &Total))
      return; // reported with the array
  }
  if (Total > Info->MaxSharedPerBlock)
    error(K.Loc,
          fmt::format("kernel '{}' uses {} bytes of shared memory; {} "
                      "allows at most {} per block",
                      K.Name, Total, Info->Name, Info->MaxSharedPerBlock));
  else if (Total > Info->DefaultSharedPerBlock)
    Src.warning(Diags, K.Loc,
                fmt::format("kernel '{}' uses {} bytes of shared memory, more "
                            "than the {} a block gets without opting in "
                            "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
                            K.Name, Total, Info->DefaultSharedPerBlock));
}

void Sema::actOnKernel(Kernel K) {
  declare(K.Name, K.Loc, {SymKind::Kernel, {}, 0});
  Locals.emplace_back();
  for (Array &A : K.Params) {
    if (A.Space == MemSpace::Local)
      error(A.Loc, fmt::format("kernel parameter '{}' cannot be in local "
                               "memory",
                               A.Name));
    checkArray(A, /*InKernel=*/true);
  }
  checkGeometry(K);
  CurGeo = &K.Geo;
  checkBlock(K.Body);
  CurGeo = nullptr;
  checkFloatUses(K);
  checkAtomicPlacement(K.Body);
  Locals.pop_back();
  checkSharedBytes(K);
  Out.Kernels.push_back(std::move(K));
}

//===-- Statements
//-----------------------------------------------------------===//

void Sema::checkBlock(Block &B) {
  Locals.emplace_back();
  for (Stmt &S : B)
    checkStmt(S);
  Locals.pop_back();
}

void Sema::checkStmt(Stmt &S) {
  auto Runtime = [&](Expr &E) {
    if (resolveRuntime(E))
      foldCheck(E);
  };
  if (auto *N = S.as<Let>()) {
    Runtime(N->Init);
    declare(N->Name, S.Loc, {SymKind::Let, {}, 0});
  } else if (auto *N = S.as<Assign>()) {
    Runtime(N->Value);
    if (auto *V = std::get_if<VarRef>(&N->Target)) {
      const Symbol *Sym = lookup(V->Name);
      if (!Sym)
        error(S.Loc, fmt::format("unknown name '{}'; declare a local with "
                                 "'let {} = ...'",
                                 V->Name, V->Name));
      else if (Sym->Kind == SymKind::Let)
        V->Kind = VarKind::Let;
      else if (Sym->Kind == SymKind::Array)
        error(S.Loc, fmt::format("cannot assign to array '{}' without "
                                 "indices",
                                 V->Name));
      else
        error(S.Loc,
              fmt::format("cannot assign to {} '{}'",
                          kindName(static_cast<int>(Sym->Kind)), V->Name));
    } else {
      Expr Target{std::get<ArrayRead>(N->Target), S.Loc};
      Runtime(Target);
      N->Target = std::get<ArrayRead>(std::move(Target.Node));
    }
  } else if (auto *N = S.as<For>()) {
    Runtime(N->Begin);
    Runtime(N->End);
    if (N->Step) {
      Runtime(*N->Step);
      if (isConstant(*N->Step))
        if (auto V = evalResolved(*N->Step); V && *V == 0)
          error(startOf(*N->Step), "loop step must not be zero");
    }
    Locals.emplace_back();
    declare(N->Var, S.Loc, {SymKind::Loop, {}, 0});
    checkBlock(N->Body);
    Locals.pop_back();
  } else if (auto *N = S.as<While>()) {
    Runtime(N->Cond);
    checkBlock(N->Body);
  } else if (auto *N = S.as<If>()) {
    Runtime(N->Cond);
    checkBlock(N->Then);
    checkBlock(N->Else);
  } else if (auto *N = S.as<ExprStmt>()) {
    Runtime(N->Value);
  } else if (auto *N = S.as<ArrayDecl>(); N && N->Decl.ViewOf) {
    checkView(N->Decl);
  } else if (auto *N = S.as<ArrayDecl>()) {
    if (N->Decl.Space == MemSpace::Global)
      error(S.Loc, fmt::format("global array '{}' cannot be declared inside a "
                               "kernel; declare it at the top level or as a "
                               "kernel parameter",
                               N->Decl.Name));
    checkArray(N->Decl, /*InKernel=*/true);
  }
}

void Sema::actOnLaunch(Launch L) {
  declare(L.Name, L.Loc, {SymKind::Kernel, {}, 0});
  for (std::size_t I = 0; I < L.Kernels.size(); ++I) {
    const std::string &Name = L.Kernels[I];
    if (!Out.findKernel(Name))
      error(L.Loc, fmt::format("launch '{}': no kernel '{}' is declared "
                               "before it",
                               L.Name, Name));
    else if (std::find(L.Kernels.begin(), L.Kernels.begin() +
                                              static_cast<std::ptrdiff_t>(I),
                       Name) != L.Kernels.begin() +
                                    static_cast<std::ptrdiff_t>(I))
      error(L.Loc, fmt::format("launch '{}' names kernel '{}' twice", L.Name,
                               Name));
    else if (const Launch *Other = Out.launchOf(Name))
      error(L.Loc, fmt::format("kernel '{}' is already launched by '{}'",
                               Name, Other->Name));
  }
  // launch_NAME takes each array once: the kernels must agree on it.
  std::map<std::string, std::pair<const Array *, std::string>, std::less<>>
      Seen;
  for (const std::string &Name : L.Kernels)
    if (const Kernel *K = Out.findKernel(Name))
      for (const Array &A : K->Params) {
        const auto [It, New] = Seen.emplace(A.Name, std::pair(&A, Name));
        const Array &B = *It->second.first;
        if (!New && (A.Space != B.Space || A.Elem != B.Elem ||
                     A.Shape != B.Shape || A.Holds != B.Holds))
          error(L.Loc, fmt::format("launch '{}': kernels '{}' and '{}' both "
                                   "take an array '{}', as {} {} and {} {}",
                                   L.Name, It->second.second, Name, A.Name,
                                   spelling(B.Space), printArrayType(B),
                                   spelling(A.Space), printArrayType(A)));
      }
  Out.Launches.push_back(std::move(L));
}

bool Sema::declareFunction(const std::string &Name, const SourceLoc &Loc) {
  return declare(Name, Loc, {SymKind::Function, {}, 0});
}

bool Sema::isGlobalName(std::string_view Name) const { return Globals.count(Name) > 0; }

std::optional<std::int64_t> Sema::evaluateConstant(Expr &E) { return constant(E); }

void Sema::finish(bool SawTokens) {
  if (!SawTokens) {
    error(Src.loc(1, 1), "empty program: expected a kernel");
    return;
  }
  for (const auto &[Name, Value] : Overrides)
    if (!UsedOverrides.count(Name))
      Diags.error({}, fmt::format("-D {}={}: no parameter named '{}'", Name,
                                  Value, Name));
  if (Out.Kernels.empty() && !Diags.hasErrors())
    error(Src.loc(1, 1), "program declares no kernel");
}

} // namespace bankwise::dsl
