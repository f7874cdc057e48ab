#include "analysis/passes/UnobservedLocals.h"

#include "ir/Walk.h"

namespace bankwise {

namespace {

/// One pass over the kernel: marks the names whose values are observed,
/// given the ones marked so far (a local is observed when a local it is
/// assigned to is). Run until nothing changes.
struct Marker {
  std::unordered_set<std::string> Observed;
  std::unordered_set<std::string> Loops;
  bool Changed = false;

  void observe(const std::string &Name) {
    if (Observed.insert(Name).second)
      Changed = true;
  }

  /// Every name E reads is observed.
  void all(const ir::Expr &E) {
    ir::forEachSubexpr(E, [&](const ir::Expr &X) {
      if (const auto *V = X.as<ir::VarRef>(); V && V->Kind != ir::VarKind::Param)
        observe(V->Name);
      if (const ir::ArrayRead *T = ir::atomicTarget(X))
        for (const ir::Expr &I : T->Indices)
          all(I);
    });
  }

  /// E's value is not observed; what decides its accesses is (the
  /// analyzer's evaluation of an unobserved value: Analyzer::evalReads).
  void reads(const ir::Expr &E) {
    if (!ir::accessesMemory(E))
      return;
    if (const auto *R = E.as<ir::ArrayRead>()) {
      for (const ir::Expr &I : R->Indices)
        all(I);
    } else if (const auto *A = E.as<ir::Atomic>()) {
      for (const ir::Expr &I : A->Target.Indices)
        all(I);
      for (const ir::Expr &X : A->Args)
        reads(X);
    } else if (const auto *S = E.as<ir::Select>()) {
      all(*S->Cond);
      reads(*S->Then);
      reads(*S->Else);
    } else if (const auto *Sh = E.as<ir::Shuffle>()) {
      all(*Sh->Lane);
      reads(*Sh->Value);
    } else if (const auto *B = E.as<ir::Binary>();
               B && (B->Op == ir::BinaryOp::LogAnd || B->Op == ir::BinaryOp::LogOr)) {
      all(*B->Lhs); // which lanes evaluate the right side
      reads(*B->Rhs);
    } else {
      ir::forEachChild(E, [&](const ir::Expr &C) { reads(C); });
    }
  }

  void expr(const ir::Expr &E, bool ValueObserved) {
    if (ValueObserved)
      all(E);
    else
      reads(E);
  }

  void block(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (const auto *L = S.as<ir::Let>()) {
        expr(L->Init, Observed.count(L->Name) > 0);
      } else if (const auto *A = S.as<ir::Assign>()) {
        if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
          for (const ir::Expr &I : T->Indices)
            all(I);
          reads(A->Value); // memory's contents are not tracked
        } else {
          expr(A->Value, Observed.count(std::get<ir::VarRef>(A->Target).Name) > 0);
        }
      } else if (const auto *F = S.as<ir::For>()) {
        Loops.insert(F->Var);
        all(F->Begin);
        all(F->End);
        if (F->Step)
          all(*F->Step);
        block(F->Body);
      } else if (const auto *I = S.as<ir::If>()) {
        all(I->Cond);
        block(I->Then);
        block(I->Else);
      } else if (const auto *W = S.as<ir::While>()) {
        all(W->Cond);
        block(W->Body);
      } else if (const auto *X = S.as<ir::ExprStmt>()) {
        reads(X->Value);
      } else if (const auto *D = S.as<ir::ArrayDecl>()) {
        for (const ir::Expr &E : D->Decl.Dims)
          all(E);
      }
    }
  }
};

void namesOf(const ir::Block &B, std::unordered_set<std::string> &Out) {
  for (const ir::Stmt &S : B) {
    if (const auto *L = S.as<ir::Let>()) {
      Out.insert(L->Name);
    } else if (const auto *A = S.as<ir::Assign>()) {
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target))
        Out.insert(V->Name);
    } else if (const auto *F = S.as<ir::For>()) {
      namesOf(F->Body, Out);
    } else if (const auto *I = S.as<ir::If>()) {
      namesOf(I->Then, Out);
      namesOf(I->Else, Out);
    } else if (const auto *W = S.as<ir::While>()) {
      namesOf(W->Body, Out);
    }
  }
}

} // namespace

std::unordered_set<std::string> unobservedLocals(const ir::Kernel &K) {
  Marker Mk;
  do {
    Mk.Changed = false;
    Mk.block(K.Body);
  } while (Mk.Changed);
  std::unordered_set<std::string> Names;
  namesOf(K.Body, Names);
  std::unordered_set<std::string> Out;
  for (const std::string &N : Names)
    if (!Mk.Observed.count(N) && !Mk.Loops.count(N))
      Out.insert(N);
  return Out;
}

} // namespace bankwise
