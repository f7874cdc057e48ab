// Walking expressions: the one place that knows which nodes have children
// (operands, call arguments, array indices, a permutation's argument), so a
// pass that looks for something in an expression writes only what it looks
// for: forEachSubexpr(E, [&](const Expr &X) { if (X.is<ArrayRead>()) ... }).
#pragma once

#include "ir/Expr.h"

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

} // namespace bankwise::ir
