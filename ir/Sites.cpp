#include "ir/Sites.h"

#include <algorithm>
#include <functional>

namespace bankwise::ir {
namespace {

/// Calls Fn on every access in E, parents before children, in source
/// order (an atomic's target before its arguments).
void forEachAccess(Expr &E, const std::function<void(ArrayRead &)> &Fn);

void forEachAccess(ArrayRead &R, const std::function<void(ArrayRead &)> &Fn) {
  Fn(R);
  for (Expr &I : R.Indices)
    forEachAccess(I, Fn);
}

void forEachAccess(Expr &E, const std::function<void(ArrayRead &)> &Fn) {
  std::visit(
      [&](auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, Unary>) {
          forEachAccess(*N.Operand, Fn);
        } else if constexpr (std::is_same_v<T, Binary>) {
          forEachAccess(*N.Lhs, Fn);
          forEachAccess(*N.Rhs, Fn);
        } else if constexpr (std::is_same_v<T, Call>) {
          for (Expr &A : N.Args)
            forEachAccess(A, Fn);
        } else if constexpr (std::is_same_v<T, ArrayRead>) {
          forEachAccess(N, Fn);
        } else if constexpr (std::is_same_v<T, PermApply>) {
          forEachAccess(*N.Arg, Fn);
        } else if constexpr (std::is_same_v<T, Select>) {
          forEachAccess(*N.Cond, Fn);
          forEachAccess(*N.Then, Fn);
          forEachAccess(*N.Else, Fn);
        } else if constexpr (std::is_same_v<T, Atomic>) {
          forEachAccess(N.Target, Fn);
          for (Expr &A : N.Args)
            forEachAccess(A, Fn);
        } else if constexpr (std::is_same_v<T, Shuffle>) {
          forEachAccess(*N.Value, Fn);
          forEachAccess(*N.Lane, Fn);
        }
      },
      E.Node);
}

/// The accesses of S's own expressions (Nested: and of its blocks').
void forEachAccess(Stmt &S, bool Nested, const std::function<void(ArrayRead &)> &Fn) {
  auto Blk = [&](Block &B) {
    if (Nested)
      for (Stmt &X : B)
        forEachAccess(X, true, Fn);
  };
  if (auto *A = S.as<Assign>()) {
    if (auto *T = std::get_if<ArrayRead>(&A->Target))
      forEachAccess(*T, Fn);
    forEachAccess(A->Value, Fn);
  } else if (auto *L = S.as<Let>()) {
    forEachAccess(L->Init, Fn);
  } else if (auto *X = S.as<ExprStmt>()) {
    forEachAccess(X->Value, Fn);
  } else if (auto *F = S.as<For>()) {
    forEachAccess(F->Begin, Fn);
    forEachAccess(F->End, Fn);
    if (F->Step)
      forEachAccess(*F->Step, Fn);
    Blk(F->Body);
  } else if (auto *I = S.as<If>()) {
    forEachAccess(I->Cond, Fn);
    Blk(I->Then);
    Blk(I->Else);
  } else if (auto *W = S.as<While>()) {
    forEachAccess(W->Cond, Fn);
    Blk(W->Body);
  }
}

void forEachAccess(Kernel &K, const std::function<void(ArrayRead &)> &Fn) {
  for (Stmt &S : K.Body)
    forEachAccess(S, true, Fn);
}

} // namespace

int numberSites(Program &P, int Floor) {
  int Max = Floor;
  for (Kernel &K : P.Kernels)
    forEachAccess(K, [&](ArrayRead &R) { Max = std::max(Max, R.Site); });
  for (Kernel &K : P.Kernels)
    forEachAccess(K, [&](ArrayRead &R) {
      if (R.Site == 0)
        R.Site = ++Max;
    });
  return Max;
}

const ArrayRead *findSite(const Kernel &K, int Site) {
  if (Site == 0)
    return nullptr;
  const ArrayRead *Found = nullptr;
  // The walk takes a mutable kernel; nothing is changed.
  forEachAccess(const_cast<Kernel &>(K), [&](ArrayRead &R) {
    if (!Found && R.Site == Site)
      Found = &R;
  });
  return Found;
}

std::vector<const ArrayRead *> ownSites(const Stmt &S) {
  std::vector<const ArrayRead *> Out;
  forEachAccess(const_cast<Stmt &>(S), false, [&](ArrayRead &R) { Out.push_back(&R); });
  return Out;
}

} // namespace bankwise::ir
