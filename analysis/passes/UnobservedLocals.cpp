#include "analysis/passes/UnobservedLocals.h"

#include "ir/Walk.h"

#include <algorithm>
#include <vector>

namespace bankwise {

namespace {

/// One pass over the kernel: marks the names whose values are observed,
/// given the ones marked so far (a local is observed when a local it is
/// assigned to is). Run until nothing changes.
struct Marker {
  std::unordered_set<std::string> Observed;
  std::unordered_set<std::string> Loops;
  /// Statements taken as idle: their conditions and bodies are not looked at.
  const std::unordered_set<const ir::Stmt *> *Idle = nullptr;
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
      if (Idle && Idle->count(&S))
        continue;
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

/// The locals S assigns (Assigned) and declares (Declared), nested
/// statements included.
void namesOf(const ir::Stmt &S, std::unordered_set<std::string> &Assigned, std::unordered_set<std::string> *Declared) {
  auto Block = [&](const ir::Block &B) {
    for (const ir::Stmt &X : B)
      namesOf(X, Assigned, Declared);
  };
  if (const auto *L = S.as<ir::Let>()) {
    Assigned.insert(L->Name);
    if (Declared)
      Declared->insert(L->Name);
  } else if (const auto *A = S.as<ir::Assign>()) {
    if (const auto *V = std::get_if<ir::VarRef>(&A->Target))
      Assigned.insert(V->Name);
  } else if (const auto *F = S.as<ir::For>()) {
    Block(F->Body);
  } else if (const auto *I = S.as<ir::If>()) {
    Block(I->Then);
    Block(I->Else);
  } else if (const auto *W = S.as<ir::While>()) {
    Block(W->Body);
  }
}

bool quietBlock(const ir::Block &B);

/// S reads no memory, holds no barrier and declares no array, nested
/// statements included.
bool quiet(const ir::Stmt &S) {
  if (const auto *L = S.as<ir::Let>())
    return !ir::accessesMemory(L->Init);
  if (const auto *A = S.as<ir::Assign>())
    return std::holds_alternative<ir::VarRef>(A->Target) && !ir::accessesMemory(A->Value);
  if (const auto *X = S.as<ir::ExprStmt>())
    return !ir::accessesMemory(X->Value);
  if (const auto *I = S.as<ir::If>())
    return !ir::accessesMemory(I->Cond) && quietBlock(I->Then) && quietBlock(I->Else);
  if (const auto *F = S.as<ir::For>())
    return !ir::accessesMemory(F->Begin) && !ir::accessesMemory(F->End) &&
           !(F->Step && ir::accessesMemory(*F->Step)) && quietBlock(F->Body);
  if (const auto *W = S.as<ir::While>())
    return !ir::accessesMemory(W->Cond) && quietBlock(W->Body);
  return false; // a barrier, an array declaration
}

bool quietBlock(const ir::Block &B) {
  return std::all_of(B.begin(), B.end(), [](const ir::Stmt &S) { return quiet(S); });
}

/// The quiet conditionals and loops of B, nested ones too.
void quietStatements(const ir::Block &B, std::vector<const ir::Stmt *> &Out) {
  for (const ir::Stmt &S : B) {
    const ir::Block *Bodies[2] = {nullptr, nullptr};
    if (const auto *I = S.as<ir::If>()) {
      Bodies[0] = &I->Then;
      Bodies[1] = &I->Else;
    } else if (const auto *F = S.as<ir::For>()) {
      Bodies[0] = &F->Body;
    } else if (const auto *W = S.as<ir::While>()) {
      Bodies[0] = &W->Body;
    } else {
      continue;
    }
    if (quiet(S))
      Out.push_back(&S);
    for (const ir::Block *Bd : Bodies)
      if (Bd)
        quietStatements(*Bd, Out);
  }
}

/// The locals S assigns that it does not declare itself.
std::unordered_set<std::string> assignedFromOutside(const ir::Stmt &S) {
  std::unordered_set<std::string> Assigned, Declared;
  namesOf(S, Assigned, &Declared);
  for (const std::string &N : Declared)
    Assigned.erase(N);
  return Assigned;
}

} // namespace

UnobservedParts unobservedParts(const ir::Kernel &K) {
  // Optimistically every quiet statement is idle; one that assigns a local
  // observed elsewhere is not, and its conditions then observe more.
  std::vector<const ir::Stmt *> Quiet;
  quietStatements(K.Body, Quiet);
  std::vector<std::unordered_set<std::string>> Outside;
  for (const ir::Stmt *S : Quiet)
    Outside.push_back(assignedFromOutside(*S));
  UnobservedParts Out;
  Out.Statements.insert(Quiet.begin(), Quiet.end());
  Marker Mk;
  while (true) {
    Mk.Idle = &Out.Statements;
    do {
      Mk.Changed = false;
      Mk.block(K.Body);
    } while (Mk.Changed);
    bool Dropped = false;
    for (std::size_t I = 0; I < Quiet.size(); ++I)
      if (Out.Statements.count(Quiet[I]) &&
          std::any_of(Outside[I].begin(), Outside[I].end(), [&](const std::string &N) { return Mk.Observed.count(N); })) {
        Out.Statements.erase(Quiet[I]);
        Dropped = true;
      }
    if (!Dropped)
      break;
  }
  std::unordered_set<std::string> Names;
  for (const ir::Stmt &S : K.Body)
    namesOf(S, Names, nullptr);
  for (const std::string &N : Names)
    if (!Mk.Observed.count(N) && !Mk.Loops.count(N))
      Out.Locals.insert(N);
  return Out;
}

std::unordered_set<std::string> unobservedLocals(const ir::Kernel &K) { return unobservedParts(K).Locals; }

} // namespace bankwise
