// Sema's checks of what CUDA developers reach for beyond loads and stores
// (docs/language.md, "Atomics" and "Warp shuffles"): an atomic's element (a
// shared or global array of a type CUDA's atomic takes), where an atomic may
// stand, and the warp width a shuffle needs.
#include "dsl/Sema.h"

#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace bankwise::dsl {

using namespace ir;

bool Sema::resolveAtomic(Atomic &A, const SourceLoc &Loc) {
  Expr Target{std::move(A.Target), Loc};
  bool Ok = resolveRuntime(Target);
  A.Target = std::get<ArrayRead>(std::move(Target.Node));
  for (Expr &V : A.Args)
    Ok = resolveRuntime(V) && Ok;
  if (!Ok)
    return false;
  const Symbol *S = lookup(A.Target.Array); // an array: resolveRuntime checked it
  const std::string_view Name = spelling(A.Op);
  if (S->Space == MemSpace::Local) {
    error(Loc, fmt::format("'{}' needs a shared or global element; '{}' is a local array, one thread's own "
                           "(update it with an assignment)",
                           Name, A.Target.Array));
    return false;
  }
  if (S->Holds) {
    error(Loc, fmt::format("'{}' would change array '{}', which holds a permutation", Name, A.Target.Array));
    return false;
  }
  const std::vector<ScalarType> Types = atomicTypes(A.Op);
  if (S->Elem.Lanes != 1 || std::find(Types.begin(), Types.end(), S->Elem.Scalar) == Types.end()) {
    std::vector<std::string> Names;
    for (ScalarType T : Types)
      Names.push_back(spelling(ElemType{T, 1}));
    error(Loc, fmt::format("'{}' on '{}' of type {}: CUDA's {} takes {} elements", Name, A.Target.Array,
                           spelling(S->Elem), cudaSpelling(A.Op), fmt::join(Names, ", ")));
    return false;
  }
  return true;
}

bool Sema::resolveShuffle(Shuffle &S, const SourceLoc &Loc) {
  const bool Ok = resolveRuntime(*S.Value);
  if (!resolveRuntime(*S.Lane) || !Ok)
    return false;
  if (Out.Mach && Out.Mach->warpSize() != 32) {
    error(Loc, fmt::format("'{}' needs warps of 32 lanes, CUDA's; this machine's warps have {}", spelling(S.Op),
                           Out.Mach->warpSize()));
    return false;
  }
  return true;
}

namespace {

/// Reports every atomic in E (Top: except E itself when it is one).
void atomicsInside(const Expr &E, bool Top, const std::function<void(const Expr &)> &Report) {
  if (E.is<Atomic>() && !Top)
    Report(E);
  forEachChild(E, [&](const Expr &C) { atomicsInside(C, false, Report); });
}

} // namespace

void Sema::checkAtomicPlacement(const Block &B) {
  const auto Misplaced = [&](const Expr &E) {
    const std::string_view Name = spelling(E.as<Atomic>()->Op);
    error(E.Loc, fmt::format("'{}' must stand alone, initialize a 'let' or be the value assigned to a local "
                             "('let old = {}(...)'): inside another expression it would not run exactly once",
                             Name, Name));
  };
  const auto Nowhere = [&](const Expr &E) { atomicsInside(E, false, Misplaced); };
  for (const Stmt &S : B) {
    if (const auto *L = S.as<Let>()) {
      atomicsInside(L->Init, true, Misplaced);
    } else if (const auto *A = S.as<Assign>()) {
      const bool ToLocal = std::holds_alternative<VarRef>(A->Target) && !A->Compound;
      atomicsInside(A->Value, ToLocal, Misplaced);
      if (const auto *T = std::get_if<ArrayRead>(&A->Target))
        for (const Expr &I : T->Indices)
          Nowhere(I);
    } else if (const auto *X = S.as<ExprStmt>()) {
      if (!anySubexpr(X->Value, [](const Expr &Y) { return Y.is<Atomic>(); }))
        error(startOf(X->Value), fmt::format("'{}' has no effect: only an atomic stands alone as a statement",
                                             print(X->Value)));
      atomicsInside(X->Value, true, Misplaced); // `atomic_add(h[k], 1) + 1` names the atomic
    } else if (const auto *F = S.as<For>()) {
      Nowhere(F->Begin);
      Nowhere(F->End);
      if (F->Step)
        Nowhere(*F->Step);
      checkAtomicPlacement(F->Body);
    } else if (const auto *W = S.as<While>()) {
      Nowhere(W->Cond);
      checkAtomicPlacement(W->Body);
    } else if (const auto *I = S.as<If>()) {
      Nowhere(I->Cond);
      checkAtomicPlacement(I->Then);
      checkAtomicPlacement(I->Else);
    }
  }
}

} // namespace bankwise::dsl
