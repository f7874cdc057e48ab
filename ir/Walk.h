// Walking expressions: the one place that knows which nodes have children
// (operands, call arguments, array indices, a permutation's argument, an
// atomic's target indices and values, a shuffle's value and lane), so a pass that looks for something in
// an expression writes only what it looks for:
// forEachSubexpr(E, [&](const Expr &X) { if (X.is<ArrayRead>()) ... }).
// An atomic's target is an ArrayRead held by value, not a subexpression: a
// pass that looks for accesses asks for atomicTarget(X) too.
#pragma once

#include "ir/Program.h"

#include <type_traits>

namespace bankwise::ir {

/// Calls Fn(child) for each direct subexpression of E, in source order.
template <class F> void forEachChild(const Expr &E, F &&Fn) {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, Unary>) {
          Fn(*N.Operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          Fn(*N.Lhs);
          Fn(*N.Rhs);
        } else if constexpr (std::is_same_v<T, Call>) {
          for (const Expr &A : N.Args)
            Fn(A);
        } else if constexpr (std::is_same_v<T, ArrayRead>) {
          for (const Expr &I : N.Indices)
            Fn(I);
        } else if constexpr (std::is_same_v<T, PermApply>) {
          Fn(*N.Arg);
        } else if constexpr (std::is_same_v<T, Select>) {
          Fn(*N.Cond);
          Fn(*N.Then);
          Fn(*N.Else);
        } else if constexpr (std::is_same_v<T, Atomic>) {
          for (const Expr &I : N.Target.Indices)
            Fn(I);
          for (const Expr &A : N.Args)
            Fn(A);
        } else if constexpr (std::is_same_v<T, Shuffle>) {
          Fn(*N.Value);
          Fn(*N.Lane);
        }
      },
      E.Node);
}

/// Calls Fn(X) for E and every subexpression X of it, parents before
/// children, in source order.
template <class F> void forEachSubexpr(const Expr &E, F &&Fn) {
  Fn(E);
  forEachChild(E, [&](const Expr &C) { forEachSubexpr(C, Fn); });
}

/// True when Pred holds for E or a subexpression (stops at the first).
template <class P> bool anySubexpr(const Expr &E, P &&Pred) {
  if (Pred(E))
    return true;
  bool Found = false;
  forEachChild(E, [&](const Expr &C) { Found = Found || anySubexpr(C, Pred); });
  return Found;
}

/// The element an atomic updates, when E is one; nullptr otherwise.
inline const ArrayRead *atomicTarget(const Expr &E) {
  const auto *A = E.as<Atomic>();
  return A ? &A->Target : nullptr;
}

/// True when E or a subexpression reads or updates memory: an element read
/// or an atomic.
inline bool accessesMemory(const Expr &E) {
  return anySubexpr(E, [](const Expr &X) { return X.is<ArrayRead>() || X.is<Atomic>(); });
}

/// Calls Fn(E) for each expression a statement of B holds directly (a
/// let's init, an assignment's value and target indices, a loop's bounds
/// and step, a condition, a while's condition, an expression statement),
/// going into nested blocks, in source order.
template <class F> void forEachStmtExpr(const Block &B, F &&Fn) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<Let>()) {
      Fn(L->Init);
    } else if (const auto *A = St.as<Assign>()) {
      Fn(A->Value);
      if (const auto *R = std::get_if<ArrayRead>(&A->Target))
        for (const Expr &I : R->Indices)
          Fn(I);
    } else if (const auto *Fo = St.as<For>()) {
      Fn(Fo->Begin);
      Fn(Fo->End);
      if (Fo->Step)
        Fn(*Fo->Step);
      forEachStmtExpr(Fo->Body, Fn);
    } else if (const auto *I = St.as<If>()) {
      Fn(I->Cond);
      forEachStmtExpr(I->Then, Fn);
      forEachStmtExpr(I->Else, Fn);
    } else if (const auto *W = St.as<While>()) {
      Fn(W->Cond);
      forEachStmtExpr(W->Body, Fn);
    } else if (const auto *X = St.as<ExprStmt>()) {
      Fn(X->Value);
    }
  }
}

} // namespace bankwise::ir
