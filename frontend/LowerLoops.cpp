// CUDA -> IR, loops (frontend/detail/Lowering.h): `for` loops lowered as
// affine IR loops or unrolled, counted `while`/`do` loops, opaque loops whose
// trips the lint cannot count (their accesses kept under a data-dependent
// loop), and the questions they ask of their bodies (jumps, the variables
// assigned, aliasing).
#include "frontend/detail/Lowering.h"

#include "ir/Eval.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/ScopeExit.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <utility>

namespace bankwise::frontend::detail {

bool KernelLowering::hasJump(const clang::Stmt *S, bool InLoop) {
  if (!S)
    return false;
  if (llvm::isa<clang::ReturnStmt>(S))
    return true;
  if (!InLoop && (llvm::isa<clang::BreakStmt>(S) || llvm::isa<clang::ContinueStmt>(S)))
    return true;
  const bool Loop = llvm::isa<clang::ForStmt>(S) || llvm::isa<clang::WhileStmt>(S) ||
                    llvm::isa<clang::DoStmt>(S);
  for (const clang::Stmt *C : S->children())
    if (hasJump(C, InLoop || Loop))
      return true;
  return false;
}

const clang::ValueDecl *KernelLowering::namedDecl(const clang::Expr *E) {
  if (!E)
    return nullptr;
  const auto *R = llvm::dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
  return R ? R->getDecl() : nullptr;
}

std::set<const clang::ValueDecl *> KernelLowering::assignedIn(const clang::Stmt *S) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    std::set<const clang::ValueDecl *> Out;
    bool VisitBinaryOperator(clang::BinaryOperator *B) {
      if (B->isAssignmentOp())
        if (const clang::ValueDecl *D = namedDecl(B->getLHS()))
          Out.insert(D);
      return true;
    }
    bool VisitUnaryOperator(clang::UnaryOperator *U) {
      if (U->isIncrementDecrementOp() || U->getOpcode() == clang::UO_AddrOf)
        if (const clang::ValueDecl *D = namedDecl(U->getSubExpr()))
          Out.insert(D);
      return true;
    }
  } F;
  F.TraverseStmt(const_cast<clang::Stmt *>(S));
  return F.Out;
}

void KernelLowering::lowerOpaqueLoop(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                                     const std::string &What, ir::Block &Out) {
  const std::set<const clang::ValueDecl *> Changed = assignedIn(Loop);
  for (const clang::ValueDecl *D : Changed) {
    const std::string Why = fmt::format("'{}' changes in {} the lint cannot follow", D->getName().str(), What);
    if (auto It = Locals.find(D); It != Locals.end()) {
      It->second.Exact = false;
      It->second.Why = Why;
      It->second.WhyLoc = loc(Loop);
    }
    if (Ptrs.erase(D))
      BadPtrs[D] = Why;
  }
  const bool Jumps = hasJump(Body);
  note(loc(Loop), fmt::format("{} not analyzable as a counted loop: its body is analyzed for one "
                              "iteration{}",
                              What, Jumps ? ", as if every lane ran it (it may exit early)" : ""),
       Loop->getBeginLoc());
  if (Cond) {
    LVal C = lowerValue(Cond, Out);
    (void)C;
  }
  if (Jumps)
    ++Uncertain;
  lowerStmt(Body, Out);
  if (Jumps)
    --Uncertain;
}

namespace {

/// The size of S for the unroller: its AST nodes, a call's callee's body
/// (a few levels deep), 100 for a call to a function without one (a
/// libdevice function such as sinf's __nv_sinf: large, with branches).
std::int64_t unrollCost(const clang::Stmt *S, int Depth, bool &OpaqueCall) {
  if (!S)
    return 0;
  std::int64_t C = 1;
  if (const auto *Call = llvm::dyn_cast<clang::CallExpr>(S))
    if (const clang::FunctionDecl *F = Call->getDirectCallee()) {
      // CUDA's sinf is a library builtin with a body calling __nv_sinf;
      // a target builtin (__nvvm_*, __builtin_*) is one instruction.
      const clang::FunctionDecl *Def = nullptr;
      const std::string Name = F->getNameAsString();
      if (F->hasBody(Def) && Def) {
        if (Depth < 4)
          C += unrollCost(Def->getBody(), Depth + 1, OpaqueCall);
      } else if (Name.rfind("__builtin_", 0) != 0 && Name.rfind("__nvvm_", 0) != 0) {
        C += 100;
        OpaqueCall = true;
      }
    }
  for (const clang::Stmt *Child : S->children())
    C += unrollCost(Child, Depth, OpaqueCall);
  return C;
}

} // namespace

void KernelLowering::lowerFor(const clang::ForStmt *F, ir::Block &Out) {
  const LoopUnroll::Hint Hint = std::exchange(PendingHint, LoopUnroll::None);
  const std::int64_t Count = std::exchange(PendingCount, 0);
  const clang::ValueDecl *Var = nullptr;
  const clang::Expr *Begin = nullptr;
  if (const auto *DS = llvm::dyn_cast_or_null<clang::DeclStmt>(F->getInit());
      DS && DS->isSingleDecl()) {
    if (const auto *V = llvm::dyn_cast<clang::VarDecl>(DS->getSingleDecl());
        V && V->getInit() && isIntegral(V->getType())) {
      Var = V;
      Begin = V->getInit();
    }
  } else if (const auto *A = llvm::dyn_cast_or_null<clang::BinaryOperator>(F->getInit());
             A && A->getOpcode() == clang::BO_Assign && namedDecl(A->getLHS()) &&
             Locals.count(namedDecl(A->getLHS()))) {
    Var = namedDecl(A->getLHS());
    Begin = A->getRHS();
  }
  std::optional<std::int64_t> Step;
  if (const auto *U = llvm::dyn_cast_or_null<clang::UnaryOperator>(F->getInc());
      U && U->isIncrementDecrementOp() && namedDecl(U->getSubExpr()) == Var)
    Step = U->isIncrementOp() ? 1 : -1;
  else if (const auto *C = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(F->getInc());
           C && namedDecl(C->getLHS()) == Var &&
           (C->getOpcode() == clang::BO_AddAssign || C->getOpcode() == clang::BO_SubAssign)) {
    if (std::optional<std::int64_t> S = evalInt(Ctx, C->getRHS()); S && *S != 0)
      Step = C->getOpcode() == clang::BO_AddAssign ? *S : -*S;
  }
  const auto *Cmp = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  const std::set<const clang::ValueDecl *> Changed = assignedIn(F->getBody());
  const bool Simple = Var && Begin && Cmp && Cmp->isComparisonOp() && !hasJump(F->getBody()) &&
                      !Changed.count(Var);
  if (Simple && Step && namedDecl(Cmp->getLHS()) == Var) {
    const clang::BinaryOperatorKind Op = Cmp->getOpcode();
    const bool Up = *Step > 0;
    const bool Fits = (Up && (Op == clang::BO_LT || Op == clang::BO_LE || (Op == clang::BO_NE && *Step == 1))) ||
                      (!Up && (Op == clang::BO_GT || Op == clang::BO_GE || (Op == clang::BO_NE && *Step == -1)));
    LVal B = lowerValue(Begin, Out);
    LVal E = Fits ? lowerValue(Cmp->getRHS(), Out) : inexact("", {});
    if (Fits && B.Exact && E.Exact) {
      Expr End = E.E;
      if (Op == clang::BO_LE)
        End = binary(BinaryOp::Add, End, ir::makeInt(1), loc(Cmp));
      else if (Op == clang::BO_GE)
        End = binary(BinaryOp::Sub, End, ir::makeInt(1), loc(Cmp));
      const std::string IrName = freshName(Var->getName().str(), Used);
      const std::optional<LocalInfo> Saved =
          Locals.count(Var) ? std::optional<LocalInfo>(Locals[Var]) : std::nullopt;
      Locals[Var] = {IrName, ir::VarKind::Loop, true, false, {}, {}};
      bool OpaqueCall = false;
      const std::int64_t Cost = unrollCost(F->getBody(), 0, OpaqueCall);
      Unrolls[IrName] = {Hint, Count, Cost, OpaqueCall, Var->getName().str()};
      ir::Block Body;
      lowerStmt(F->getBody(), Body);
      ir::For For;
      For.Var = IrName;
      For.Begin = B.E;
      For.End = End;
      if (*Step != 1)
        For.Step = ir::makeInt(*Step, loc(F->getInc()));
      For.Body = std::move(Body);
      Out.push_back({std::move(For), ir::NodeLoc(loc(F))});
      if (Saved) { // an outer variable: its value after the loop is not followed
        Locals[Var] = *Saved;
        Locals[Var].Exact = false;
        Locals[Var].Why = fmt::format("'{}' after the loop at line {}", Var->getName().str(), loc(F).Line);
      }
      return;
    }
  }
  if (Simple && tryUnroll(F, Var, Begin, Out))
    return;
  if (F->getInit())
    lowerStmt(F->getInit(), Out);
  if (!F->getConditionVariable() && lowerCountedWhile(F, F->getCond(), F->getBody(), F->getInc(), Out))
    return;
  lowerOpaqueLoop(F, F->getCond(), F->getBody(), "a for loop", Out);
  if (F->getInc()) {
    ir::Block Dropped; // the increment's value is unknown anyway
    lowerEffect(F->getInc(), Dropped);
  }
}

bool KernelLowering::aliased(const clang::ValueDecl *D) {
  const auto *V = llvm::dyn_cast<clang::VarDecl>(D);
  if (!V || !V->hasLocalStorage())
    return false; // not a local: constants, built-ins, globals (no counter)
  const auto *Fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(V->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return true;
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::ValueDecl *D;
    bool Found = false;
    bool names(const clang::Expr *E) const { return E && namedDecl(E) == D; }
    bool VisitUnaryOperator(clang::UnaryOperator *U) {
      Found |= U->getOpcode() == clang::UO_AddrOf && names(U->getSubExpr());
      return true;
    }
    bool VisitVarDecl(clang::VarDecl *R) {
      Found |= R->getType()->isReferenceType() && !R->getType().getNonReferenceType().isConstQualified() &&
               names(R->getInit());
      return true;
    }
    bool VisitCallExpr(clang::CallExpr *C) {
      const clang::FunctionDecl *F = C->getDirectCallee();
      for (unsigned I = 0; F && I < C->getNumArgs() && I < F->getNumParams(); ++I) {
        const clang::QualType T = F->getParamDecl(I)->getType();
        Found |= T->isReferenceType() && !T.getNonReferenceType().isConstQualified() && names(C->getArg(I));
      }
      return true;
    }
  } F;
  F.D = D;
  F.TraverseStmt(Fn->getBody());
  return F.Found;
}

bool KernelLowering::lowerCountedWhile(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                                       const clang::Expr *Inc, ir::Block &Out) {
  if (!Cond || !Body || hasJump(Body))
    return false;
  // The condition's counters change only at the body's top level (or in
  // the increment): a counter changed under an `if` the lint may not
  // evaluate would be counted as if every lane changed it.
  struct Refs : clang::RecursiveASTVisitor<Refs> {
    std::set<const clang::ValueDecl *> Out;
    bool VisitDeclRefExpr(clang::DeclRefExpr *R) {
      Out.insert(R->getDecl());
      return true;
    }
  } CondVars;
  CondVars.TraverseStmt(const_cast<clang::Expr *>(Cond));
  for (const clang::ValueDecl *D : CondVars.Out)
    if (aliased(D))
      return false; // changed through a pointer or reference the lint does not follow
  std::set<const clang::ValueDecl *> Nested;
  const auto *CS = llvm::dyn_cast<clang::CompoundStmt>(Body);
  for (const clang::Stmt *S : CS ? llvm::ArrayRef<clang::Stmt *>(CS->body_begin(), CS->body_end())
                                 : llvm::ArrayRef<clang::Stmt *>())
    if (!llvm::isa<clang::Expr>(S) && !llvm::isa<clang::DeclStmt>(S))
      for (const clang::ValueDecl *D : assignedIn(S))
        Nested.insert(D);
  if (!CS && !llvm::isa<clang::Expr>(Body))
    Nested = assignedIn(Body);
  std::set<const clang::ValueDecl *> Changed = assignedIn(Body);
  if (Inc)
    for (const clang::ValueDecl *D : assignedIn(Inc))
      Changed.insert(D);
  for (const clang::ValueDecl *D : Changed) {
    if (CondVars.Out.count(D) && Nested.count(D))
      return false;
    const auto It = Locals.find(D);
    if (It == Locals.end()) {
      // A local of the body itself (declared, then changed, each trip).
      const clang::SourceRange R = Loop->getSourceRange();
      if (D->getLocation().isValid() && !SM.isBeforeInTranslationUnit(D->getLocation(), R.getBegin()) &&
          !SM.isBeforeInTranslationUnit(R.getEnd(), D->getLocation()) && !Ptrs.count(D) &&
          !D->getType()->isPointerType())
        continue;
      return false;
    }
    if (CondVars.Out.count(D) &&
        (!It->second.Exact || It->second.Kind != ir::VarKind::Let || !isIntegral(D->getType())))
      return false;
  }
  // Lowered on trial: undone if the body leaves a counter inexact.
  const std::size_t Notes = Info.Notes.size(), Masks = Info.UncertainMask.size();
  const auto SavedLocals = Locals;
  const auto SavedPtrs = Ptrs;
  const auto SavedBad = BadPtrs;
  const auto Undo = [&] {
    Info.Notes.resize(Notes);
    Info.UncertainMask.resize(Masks);
    Locals = SavedLocals;
    Ptrs = SavedPtrs;
    BadPtrs = SavedBad;
    return false;
  };
  ir::Block Scratch;
  const LVal C = lowerValue(Cond, Scratch);
  if (!C.Exact || !C.Data.empty() || !Scratch.empty())
    return Undo();
  ir::Block BodyIr;
  lowerStmt(Body, BodyIr);
  if (Inc)
    lowerEffect(Inc, BodyIr);
  // A local exact before the loop and not after it: its uses early in the
  // body saw the value before the loop only.
  for (const clang::ValueDecl *D : Changed) {
    const auto It = Locals.find(D);
    const auto Before = SavedLocals.find(D);
    if (It != Locals.end() && Before != SavedLocals.end() && Before->second.Exact && !It->second.Exact)
      return Undo();
  }
  Out.push_back({ir::While{C.E, std::move(BodyIr)}, ir::NodeLoc(loc(Loop))});
  return true;
}

bool KernelLowering::tryUnroll(const clang::ForStmt *F, const clang::ValueDecl *Var, const clang::Expr *Begin,
                               ir::Block &Out) {
  std::optional<std::int64_t> V = evalInt(Ctx, Begin);
  if (!V) { // blockDim.x / 2: constant once the launch is known
    ir::Block Scratch;
    LVal B = lowerValue(Begin, Scratch);
    if (const auto *I = B.Exact && Scratch.empty() ? B.E.as<ir::IntLit>() : nullptr)
      V = I->Value;
  }
  if (!V || !F->getInc())
    return false;
  // Evaluate the condition and increment with Var bound, through the IR.
  const std::string Probe = "__probe";
  const std::optional<LocalInfo> Saved =
      Locals.count(Var) ? std::optional<LocalInfo>(Locals[Var]) : std::nullopt;
  Locals[Var] = {Probe, ir::VarKind::Let, true, false, {}, {}};
  ir::Block Scratch;
  LVal Cond = lowerValue(F->getCond(), Scratch);
  std::optional<Expr> Next;
  const clang::Expr *Inc = F->getInc()->IgnoreParens();
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Inc); U && U->isIncrementDecrementOp())
    Next = binary(U->isIncrementOp() ? BinaryOp::Add : BinaryOp::Sub, ir::makeVar(Probe, ir::VarKind::Let),
                  ir::makeInt(1));
  else if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(Inc); B && B->isAssignmentOp() &&
                                                                      namedDecl(B->getLHS()) == Var) {
    LVal R = lowerValue(B->getRHS(), Scratch);
    if (R.Exact) {
      if (B->getOpcode() == clang::BO_Assign)
        Next = R.E;
      else if (std::optional<BinaryOp> Op = binaryOp(clang::BinaryOperator::getOpForCompoundAssignment(B->getOpcode())))
        Next = binary(*Op, ir::makeVar(Probe, ir::VarKind::Let), R.E);
    }
  }
  if (Saved)
    Locals[Var] = *Saved;
  else
    Locals.erase(Var);
  if (!Cond.Exact || !Next || !Scratch.empty())
    return false;
  std::vector<std::int64_t> Values;
  std::int64_t Cur = *V;
  ir::EvalHooks H;
  H.Var = [&](const ir::VarRef &R) -> std::optional<std::int64_t> {
    if (R.Name == Probe)
      return Cur;
    return std::nullopt;
  };
  for (int Trip = 0;; ++Trip) {
    const ir::EvalResult C = ir::evaluate(Cond.E, H);
    if (!C.ok() || Trip > 64)
      return false;
    if (!C.Value)
      break;
    Values.push_back(Cur);
    const ir::EvalResult N = ir::evaluate(*Next, H);
    if (!N.ok())
      return false;
    Cur = N.Value;
  }
  const std::string IrName = freshName(Var->getName().str(), Used);
  Out.push_back({ir::Let{IrName, ir::makeInt(Values.empty() ? Cur : Values.front())}, ir::NodeLoc(loc(F))});
  Locals[Var] = {IrName, ir::VarKind::Let, true, false, {}, {}};
  for (std::size_t I = 0; I < Values.size(); ++I) {
    if (I > 0)
      Out.push_back({ir::Assign{ir::VarRef{IrName, ir::VarKind::Let}, ir::makeInt(Values[I])},
                     ir::NodeLoc(loc(F->getInc()))});
    lowerStmt(F->getBody(), Out);
  }
  if (Saved) {
    Locals[Var] = *Saved;
    Locals[Var].Exact = false;
    Locals[Var].Why = fmt::format("'{}' after the loop at line {}", Var->getName().str(), loc(F).Line);
  }
  return true;
}

} // namespace bankwise::frontend::detail
