#include "ir/Bind.h"

#include "ir/Eval.h"
#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

namespace bankwise::ir {

namespace {

/// Evaluates E in Env; UserError at the failing operator, nullopt when a
/// name in E has no value (a param left runtime).
std::optional<std::int64_t> evalIn(const Expr &E, const ConstEnv &Env) {
  EvalHooks Hooks;
  bool Missing = false;
  Hooks.Var = [&](const VarRef &V) -> std::optional<std::int64_t> {
    auto It = Env.find(V.Name);
    if (It == Env.end()) {
      Missing = true;
      return std::nullopt;
    }
    return It->second;
  };
  const EvalResult R = evaluate(E, Hooks);
  if (R.ok())
    return R.Value;
  if (Missing)
    return std::nullopt;
  throw UserError(R.Loc, R.Message);
}

void bindArray(Array &A, const ConstEnv &Env) {
  for (std::size_t I = 0; I < A.Dims.size() && I < A.Shape.size(); ++I) {
    const auto V = evalIn(A.Dims[I], Env);
    if (!V)
      continue;
    if (*V <= 0)
      throw UserError(A.Dims[I].Loc,
                      fmt::format("dimension {} of '{}' is {} at these sizes; "
                                  "it must be positive",
                                  I, A.Name, *V));
    A.Shape[I] = *V;
  }
  if (!A.allocatedBytes())
    throw UserError(A.Loc, fmt::format("array '{}' is too large at these sizes: "
                                       "its size in bytes overflows 64 bits",
                                       A.Name));
}

void bindBlock(Block &B, const ConstEnv &Env);

void bindStmt(Stmt &S, const ConstEnv &Env) {
  if (auto *F = S.as<For>())
    bindBlock(F->Body, Env);
  else if (auto *W = S.as<While>())
    bindBlock(W->Body, Env);
  else if (auto *I = S.as<If>()) {
    bindBlock(I->Then, Env);
    bindBlock(I->Else, Env);
  } else if (auto *D = S.as<ArrayDecl>())
    bindArray(D->Decl, Env);
}

void bindBlock(Block &B, const ConstEnv &Env) {
  for (Stmt &S : B)
    bindStmt(S, Env);
}

} // namespace

ConstEnv paramValues(const Program &Prog) {
  ConstEnv Env;
  for (const Param &P : Prog.Params)
    if (!P.Runtime)
      Env[P.Name] = P.Value;
  return Env;
}

Program bindParams(const Program &Prog, const Bindings &Values) {
  Program Out = Prog;
  for (const auto &[Name, Value] : Values) {
    const Param *P = Prog.findParam(Name);
    if (!P)
      throw UserError(fmt::format("no parameter named '{}'", Name));
    if (!P->Runtime || P->Init)
      throw UserError(P->Loc, fmt::format("param '{}' is not a runtime size "
                                          "without a value, so it cannot be bound",
                                          Name));
  }
  ConstEnv Env;
  for (Param &P : Out.Params) {
    if (P.Runtime) {
      std::optional<std::int64_t> V;
      if (auto It = Values.find(P.Name); It != Values.end())
        V = It->second;
      else if (P.Init)
        V = evalIn(*P.Init, Env);
      if (V) {
        P.Value = *V;
        P.Runtime = false;
        P.Overridden = !P.Init;
      }
    }
    if (P.Runtime)
      continue;
    Env[P.Name] = P.Value;
    if (P.Where) {
      const auto Holds = evalIn(*P.Where, Env);
      if (Holds && *Holds == 0)
        throw UserError(P.Where->Loc,
                        fmt::format("param '{}' = {} does not satisfy its "
                                    "constraint '{}'",
                                    P.Name, P.Value, print(*P.Where)));
    }
  }
  for (Array &A : Out.Arrays)
    bindArray(A, Env);
  static const std::array<std::int64_t, 3> GridMax{2147483647, 65535, 65535};
  for (Kernel &K : Out.Kernels) {
    for (Array &A : K.Params)
      bindArray(A, Env);
    bindBlock(K.Body, Env);
    // Blocks are constant (Sema checks it); grids may use runtime params.
    Geometry &G = K.Geo;
    const std::vector<Expr> &Grid = G.Grid;
    std::array<std::int64_t, 3> &Dim = G.GridDim;
    for (std::size_t I = 0; I < Grid.size(); ++I) {
      const auto V = evalIn(Grid[I], Env);
      if (!V)
        continue;
      if (*V <= 0)
        throw UserError(Grid[I].Loc,
                        fmt::format("grid dimension {} of kernel '{}' is {} at "
                                    "these sizes; it must be positive",
                                    "xyz"[I], K.Name, *V));
      if (*V > GridMax[I])
        throw UserError(Grid[I].Loc,
                        fmt::format("grid dimension {} of kernel '{}' is {} at "
                                    "these sizes, above CUDA's limit of {}",
                                    "xyz"[I], K.Name, *V, GridMax[I]));
      Dim[I] = *V;
    }
  }
  return Out;
}

Bindings representativeSizes(const Program &Prog, const Bindings &Given) {
  for (const auto &[Name, Value] : Given) {
    const Param *P = Prog.findParam(Name);
    if (!P || !P->Runtime || P->Init)
      throw UserError(fmt::format("--size {}={}: '{}' is not a runtime size of the program (a `param {}` "
                                  "without a value, not bound with -D)",
                                  Name, Value, Name, Name));
  }
  Program Current = Prog;
  Bindings Out;
  for (const Param &P : Prog.Params) {
    if (!P.Runtime || P.Init)
      continue;
    if (auto It = Given.find(P.Name); It != Given.end()) {
      Current = bindParams(Current, {{P.Name, It->second}});
      Out[P.Name] = It->second;
      continue;
    }
    // The smallest value from 64 up that the constraint allows; failing
    // that (an exponent such as `M <= 30`), the smallest from 1 up.
    constexpr std::int64_t First = 64, Last = std::int64_t(1) << 20;
    bool Found = false;
    ConstEnv Env = paramValues(Current);
    // First..Last, then 1..First-1 (counted, not stored: most sizes
    // settle on the first value).
    const std::int64_t Count = Last;
    for (std::int64_t I = 0; I < Count && !Found; ++I) {
      const std::int64_t V = I <= Last - First ? First + I : I - (Last - First);
      if (P.Where) {
        Env[P.Name] = V;
        DiagnosticEngine Quiet;
        const std::optional<std::int64_t> Holds = evalConstant(*P.Where, Env, Quiet);
        if (!Holds || *Holds == 0)
          continue;
      }
      try {
        Current = bindParams(Current, {{P.Name, V}});
      } catch (const UserError &) {
        continue; // a dimension or grid this value makes invalid
      }
      Out[P.Name] = V;
      Found = true;
    }
    if (!Found)
      throw UserError(P.Loc, fmt::format("no value of runtime param '{}' from 1 to 2^20 meets its constraint; "
                                         "give one with --size {}=VALUE",
                                         P.Name, P.Name));
  }
  return Out;
}

bool readsRuntimeParam(const Program &Prog, const Expr &E) {
  return anySubexpr(E, [&](const Expr &X) {
    const auto *V = X.as<VarRef>();
    const Param *P = V && V->Kind == VarKind::Param ? Prog.findParam(V->Name) : nullptr;
    return P && P->Runtime;
  });
}

} // namespace bankwise::ir
