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

void Sema::checkView(Array &V) {
  const std::string &Of = *V.ViewOf;
  const Symbol *S = lookup(Of);
  // Declared whatever happens, so its uses resolve (an error is reported).
  auto Declare = [&] {
    declare(V.Name, V.Loc, {SymKind::Array, {}, static_cast<int>(V.Dims.size()), V.Elem, V.Space, false, &V});
  };
  const Array *Base = S && S->Kind == SymKind::Array ? (S->Decl ? S->Decl : Out.findArray(Of)) : nullptr;
  if (!Base) {
    error(V.Loc, S ? fmt::format("view '{}' of '{}': {} '{}' is not an array", V.Name, Of,
                                 S->Kind == SymKind::Param ? "parameter" : "name", Of)
                   : fmt::format("view '{}' of unknown array '{}'", V.Name, Of));
    V.Dims = {makeInt(1)};
    V.Shape = {1};
    return Declare();
  }
  V.Space = Base->Space;
  V.Dims = Base->Dims;
  V.Shape = Base->Shape;
  V.Lay = Layout{};
  const std::int64_t Lanes = V.Elem.Lanes;
  const auto Fail = [&](std::string Msg) {
    error(V.Loc, fmt::format("view '{}' of '{}': {}", V.Name, Of, std::move(Msg)));
    Declare();
  };
  if (Base->ViewOf)
    return Fail(fmt::format("'{}' is itself a view (of '{}'); view '{}'", Of, *Base->ViewOf, *Base->ViewOf));
  if (Base->Space == MemSpace::Local)
    return Fail("a local array lives in registers, which have no vector view");
  if (Base->Holds)
    return Fail("it holds a permutation, read element by element");
  if (Base->Lay.Kind != LayoutKind::Raw)
    return Fail(fmt::format("its layout is {}; a view needs its elements in row-major order (declare it "
                            "'layout raw')",
                            Base->Lay.str()));
  if (Base->Elem.Lanes != 1 || Base->Elem.Scalar != V.Elem.Scalar)
    return Fail(fmt::format("its elements are {}, so a view of it is a vector of {} (such as {}x4), not {}",
                            spelling(Base->Elem), spelling(ElemType{Base->Elem.Scalar, 1}),
                            spelling(ElemType{Base->Elem.Scalar, 1}), spelling(V.Elem)));
  if (V.Elem.Scalar == ScalarType::F16 || V.Elem.Scalar == ScalarType::BF16)
    return Fail("views of f16 and bf16 arrays are not supported (the CPU reference holds their elements as float)");
  if (byteSize(V.Elem) > 16)
    return Fail(fmt::format("{} is {} bytes; a CUDA thread loads and stores at most 16 at once", spelling(V.Elem),
                            byteSize(V.Elem)));
  if (Base->Dims.empty() || (isConstant(Base->Dims.back()) && usesRuntime(Base->Dims.back())))
    return Fail(fmt::format("its innermost dimension '{}' depends on a runtime param; a view needs it constant "
                            "(bind it with -D)",
                            Base->Dims.empty() ? "" : print(Base->Dims.back())));
  if (Base->Shape.back() % Lanes != 0)
    return Fail(fmt::format("its innermost dimension {} is not a multiple of {}, the lanes of {}",
                            Base->Shape.back(), Lanes, spelling(V.Elem)));
  V.Shape.back() = Base->Shape.back() / Lanes;
  V.Dims.back() = makeInt(V.Shape.back(), startOf(Base->Dims.back()));
  Declare();
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
