// Execution of a warp position's statements for analyzeKernel: locals and
// their assignments, conditionals, barriers, the branches of
// docs/analysis.md's data-dependent control flow (a condition that reads data
// the analysis does not know), and the dispatch of loops, which
// LoopExecution.cpp runs. The expressions they evaluate are in
// WarpEvaluation.cpp.
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>

namespace bankwise::kernel_analysis {

std::size_t Analyzer::localIndex(const Val *Slot) const {
  return static_cast<std::size_t>(
      std::find_if(Locals.begin(), Locals.end(), [&](const auto &L) { return &L.second == Slot; }) -
      Locals.begin());
}

void Analyzer::assignLocal(const std::string &Name, const Val &V, Mask M) {
  Val *Old = findLocal(Name);
  if (!Old)
    throw UserError(fmt::format("assignment to unknown local '{}'", Name));
  for (std::size_t I : WhileCounters)
    if (Old == &Locals[I].second) { // the counted loop sets it per trip
      *Old = V;
      return;
    }
  if (!Guards.empty() && !V.Unknown) {
    // Under a data guard a lane may or may not assign: a local from
    // outside the guard is unknown from here on.
    const std::size_t Index = localIndex(Old);
    if (Index < Guards.back().LocalsMark && Guards.back().Sampled) {
      Guards.back().Assigned.push_back(Index); // unknown once the loop ends
    } else if (Index < Guards.back().LocalsMark) {
      Val U;
      U.Unknown = true;
      U.UnknownSrc = Guards.back().Source;
      *Old = U;
      return;
    }
  }
  if (V.Pred >= 0)
    throw NotAffine{"a guard on block indices or loop variables kept in a local"};
  if (CurPred >= 0 && !V.Unknown && localIndex(Old) < PredMark)
    throw NotAffine{"an assignment under a guard on block indices or loop variables"};
  Mask Live = Full;
  if (Lanes < 64)
    Live &= (Mask(1) << Lanes) - 1;
  // A local declared on part of the warp exists on those lanes only.
  const std::size_t Index = localIndex(Old);
  for (auto It = DeclMasks.rbegin(); It != DeclMasks.rend(); ++It)
    if (It->first == Index) {
      Live &= It->second;
      break;
    } else if (It->first < Index) {
      break;
    }
  if ((M & Live) == Live || V.Unknown) {
    *Old = V;
    // Lanes that do not assign keep their own value: alike no more.
    if (V.DataUniform && ((M & Live) != Live || CurPred >= 0 || !Guards.empty()))
      *Old = plainData(V);
    return;
  }
  if (Old->Unknown) {
    *Old = V;
    Old->Unknown = true;
    return;
  }
  if (!Old->concrete() || !V.concrete() || Old->Poison)
    throw NotAffine{"a partial assignment of a symbolic local"};
  Val R;
  R.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    R.V[static_cast<std::size_t>(L)] = (M >> L) & 1 ? V.lane(L) : Old->lane(L);
  *Old = R;
}

void Analyzer::execStmt(const ir::Stmt &S, Mask M) {
  ++Operations;
  if (!SkipStmts.empty() && SkipStmts.count(&S))
    return;
  ++StmtsRun;
  if (const auto *A = S.as<ir::Assign>())
    execAssign(*A, S.Loc, M);
  else if (const auto *L = S.as<ir::Let>())
    execLet(*L, M);
  else if (const auto *X = S.as<ir::ExprStmt>())
    evalReads(X->Value, M);
  else if (const auto *F = S.as<ir::For>())
    execFor(*F, S.Loc, M);
  else if (const auto *I = S.as<ir::If>())
    execIf(*I, S.Loc, M);
  else if (const auto *Wh = S.as<ir::While>())
    execWhile(*Wh, S.Loc, M);
  else if (S.is<ir::Sync>())
    Run->barrier(); // a trace node on the fast path, the next phase warp by warp
  // ArrayDecl: nothing to run.
}

/// An assignment: to an array element (an access; what memory holds is not
/// tracked), to a local whose value is never observed, or to a local.
void Analyzer::execAssign(const ir::Assign &Stmt, const SourceLoc &Loc, Mask M) {
  const ir::Assign *A = &Stmt;
  if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
    evalReads(A->Value, M); // what memory holds is not tracked
    readArray(*T, Loc, M, true);
  } else if (const std::string &Name = std::get<ir::VarRef>(A->Target).Name; Unobserved.count(Name)) {
    evalReads(A->Value, M);
    if (Val *Old = findLocal(Name))
      *Old = unobserved();
    else
      throw UserError(fmt::format("assignment to unknown local '{}'", Name));
  } else {
    assignLocal(Name, eval(A->Value, M), M);
  }
}

/// A `let`: a new local, its lanes' declaration mask kept where M is not
/// every live lane.
void Analyzer::execLet(const ir::Let &Stmt, Mask M) {
  const ir::Let *L = &Stmt;
  while (!DeclMasks.empty() && DeclMasks.back().first >= Locals.size())
    DeclMasks.pop_back();
  if (Mask Live = Lanes < 64 ? Full & ((Mask(1) << Lanes) - 1) : Full; (M & Live) != Live)
    DeclMasks.push_back({Locals.size(), M});
  if (Unobserved.count(L->Name)) {
    evalReads(L->Init, M);
    Locals.push_back({L->Name, unobserved()});
  } else {
    Locals.push_back({L->Name, eval(L->Init, M)});
  }
}

/// A `for`: data bounds (execDataFor), else as the run executes one with
/// known bounds (execLaneFor or execSymbolicFor).
void Analyzer::execFor(const ir::For &Stmt, const SourceLoc &Loc, Mask M) {
  const ir::For *F = &Stmt;
  const Val Begin = eval(F->Begin, M), End = eval(F->End, M);
  Val Step;
  Step.U.C = 1;
  if (F->Step)
    Step = eval(*F->Step, M);
  if (Begin.Unknown || End.Unknown || Step.Unknown) {
    execDataFor(*F, Loc, Begin, End, Step, M);
    return;
  }
  Run->forLoop(*F, Loc, Begin, End, Step, M);
}

/// Concrete: per-lane loop variables, lanes leave as their condition fails.
void Analyzer::execLaneFor(const ir::For &Stmt, const SourceLoc &Loc, const Val &Begin, const Val &End,
                           const Val &Step, Mask M) {
  const ir::For *F = &Stmt;
  Locals.push_back({F->Var, Begin});
  const std::size_t Slot = Locals.size() - 1;
  for (int Ln = 0; Ln < Lanes; ++Ln)
    if ((M >> Ln) & 1 && Step.lane(Ln) == 0)
      runtimeError(Loc, "loop step is zero", Ln);
  while (true) {
    Val &Var = Locals[Slot].second;
    Mask Live = 0;
    for (int Ln = 0; Ln < Lanes; ++Ln)
      if ((M >> Ln) & 1) {
        const std::int64_t X = Var.lane(Ln), E = End.lane(Ln), St = Step.lane(Ln);
        if (St > 0 ? X < E : X > E)
          Live |= Mask(1) << Ln;
      }
    if (!Live)
      break;
    spend(1);
    const std::size_t Mark = Locals.size();
    exec(F->Body, Live);
    Locals.resize(Mark);
    Val &Cur = Locals[Slot].second;
    Cur = evalBinary(ir::BinaryOp::Add, Cur, Step, Live | (M & ~Live), Loc);
  }
  Locals.resize(Slot);
}

/// A `for` on the fast path: bounds per lane or per block make a counter
/// loop; uniform bounds run short loops unrolled (a heavy one's later trips
/// as one symbolic trip where they can), long ones as one symbolic trip.
void Analyzer::execSymbolicFor(const ir::For &Stmt, const SourceLoc &Loc, const Val &Begin, const Val &End,
                               const Val &Step, Mask M) {
  const ir::For *F = &Stmt;
  auto Uniform = [&](const Val &X) {
    if (!X.concrete())
      return false;
    for (int Ln = 0; Ln < Lanes; ++Ln)
      if ((M >> Ln) & 1 && X.lane(Ln) != X.lane(std::countr_zero(M)))
        return false;
    return true;
  };
  auto Plain = [](const Val &X) { return X.Pred < 0 && X.Lt < 0 && X.Sel < 0 && !X.Poison; };
  if (Plain(Begin) && Plain(End) && Step.Pred < 0 && Uniform(Step) && (!Uniform(Begin) || !Uniform(End))) {
    // A start or end per lane or per block (`for j in tx..n step 48`):
    // a counter loop, as a while loop's, its lanes' last trips guarded.
    if (!Guards.empty())
      throw NotAffine{"a loop under a data-dependent condition whose bounds depend on the thread, the "
                      "block or an outer loop"};
    const std::int64_t St = Step.lane(std::countr_zero(M));
    if (St == 0)
      throw UserError(Loc, "loop step is zero");
    Locals.push_back({F->Var, Begin});
    CounterLoop L;
    L.KIndex = Locals.size() - 1;
    L.K0 = Begin;
    L.Step = Step;
    L.Bound = End;
    L.Op = St > 0 ? ir::BinaryOp::Lt : ir::BinaryOp::Gt;
    L.Cond = [&](Mask Mk) { return evalBinary(L.Op, Locals[L.KIndex].second, End, Mk, Loc); };
    L.Body = &F->Body;
    runCounterLoop(L, Loc, M);
    Locals.resize(L.KIndex);
    return;
  }
  if (Begin.Pred >= 0 || End.Pred >= 0 || Step.Pred >= 0 ||
      !Uniform(Begin) || !Uniform(End) || !Uniform(Step))
    throw NotAffine{"a loop whose bounds depend on the thread, the block "
                    "or an outer loop"};
  const int First = std::countr_zero(M);
  const std::int64_t B = Begin.lane(First), E = End.lane(First), St = Step.lane(First);
  if (St == 0)
    throw UserError(Loc, "loop step is zero");
  const Wide Span = St > 0 ? static_cast<Wide>(E) - B : static_cast<Wide>(B) - E;
  const Wide AbsStep = St > 0 ? St : -static_cast<Wide>(St);
  const Wide Trips = Span <= 0 ? 0 : (Span + AbsStep - 1) / AbsStep;
  if (Trips == 0)
    return;
  if (Trips > Opts.WorkLimit)
    throw UserError(Loc, fmt::format("loop runs {} times, more than the "
                                       "analysis limit {}",
                                       static_cast<std::int64_t>(Trips), Opts.WorkLimit));
  const auto NumTrips = static_cast<std::int64_t>(Trips);
  // Trips [From, To) with a concrete variable.
  auto Unrolled = [&](std::int64_t From, std::int64_t To) {
    for (std::int64_t T = From; T < To; ++T) {
      Val V;
      V.U.C = B + St * T;
      Locals.push_back({F->Var, V});
      const std::size_t Mark = Locals.size();
      exec(F->Body, M);
      Locals.resize(Mark - 1);
    }
  };
  if (NumTrips <= SymbolicUnrollTrips) {
    // Short loops run with a concrete variable, so layouts that permute
    // within rows (xor, diagonal, rap) stay on the fast path; a heavy
    // one's later trips as one symbolic trip where they can.
    const std::int64_t Before = StmtsRun;
    Unrolled(0, 1);
    if (heavyUnroll(StmtsRun - Before, NumTrips - 1) &&
        attemptSymbolic([&] { symbolicFor(*F, B + St, St, NumTrips - 1, M); }))
      return;
    Unrolled(1, NumTrips);
    return;
  }
  symbolicFor(*F, B, St, NumTrips, M);
  return;
}

/// An `if`: data decides (each branch on every lane that may take it), a
/// guard on block indices or loop variables (execSymbolicIf), or known
/// lanes.
void Analyzer::execIf(const ir::If &Stmt, const SourceLoc &Loc, Mask M) {
  const ir::If *I = &Stmt;
  const Val C = eval(I->Cond, M);
  if (C.Unknown) {
    // Data decides: each branch runs on every lane that may take it.
    Guards.push_back({C.UnknownSrc, Loc, Locals.size(), false, false, {}});
    const Mask Then = M & ~C.KnownZero, Else = M & ~C.KnownOne;
    if (Then)
      exec(I->Then, Then);
    if (Else)
      exec(I->Else, Else);
    Guards.pop_back();
    return;
  }
  if (!C.concrete()) {
    execSymbolicIf(*I, C, M);
    return;
  }
  Mask Then = 0;
  for (int Ln = 0; Ln < Lanes; ++Ln)
    if ((M >> Ln) & 1 && C.lane(Ln) != 0)
      Then |= Mask(1) << Ln;
  const std::size_t Mark = Locals.size();
  if (Then)
    exec(I->Then, Then);
  Locals.resize(Mark);
  if (M & ~Then)
    exec(I->Else, M & ~Then);
  Locals.resize(Mark);
}

/// An `if` whose condition C is on block indices or loop variables: a
/// choice of one local's value where the branches only set it, else both
/// branches under the guard.
void Analyzer::execSymbolicIf(const ir::If &Stmt, const Val &C, Mask M) {
  const ir::If *I = &Stmt;
  // One local set in each branch, or in one (`if a % b == 0 { v = a /
  // b } else { v = a / b + 1 }`): `v = C ? A : B`, a choice per warp or
  // per lane, not an assignment under a guard.
  if (const auto *T = I->Then.size() == 1 ? I->Then[0].as<ir::Assign>() : nullptr;
      T && std::holds_alternative<ir::VarRef>(T->Target) && !ir::accessesMemory(T->Value) &&
      I->Else.size() <= 1) {
    const std::string &Name = std::get<ir::VarRef>(T->Target).Name;
    const ir::Assign *E = I->Else.empty() ? nullptr : I->Else[0].as<ir::Assign>();
    const bool Diamond = I->Else.empty() || (E && std::holds_alternative<ir::VarRef>(E->Target) &&
                                             std::get<ir::VarRef>(E->Target).Name == Name &&
                                             !ir::accessesMemory(E->Value));
    if (Diamond && !Unobserved.count(Name)) {
      const Val *Old = findLocal(Name);
      if (!Old)
        throw UserError(fmt::format("assignment to unknown local '{}'", Name));
      const Val Kept = *Old;
      assignLocal(Name,
                  symbolicChoice(
                      C, M, [&] { return eval(T->Value, M); },
                      [&] { return E ? eval(E->Value, M) : Kept; }),
                  M);
      return;
    }
  }
  // A guard on block indices or loop variables: both branches run
  // symbolically under it, and counting decides per class of warps.
  const int P = toPred(C, M);
  const int Outer = CurPred;
  const std::size_t Mark = Locals.size(), OuterMark = PredMark;
  PredMark = Mark;
  if (!I->Then.empty()) {
    CurPred = predAnd(Outer, P);
    exec(I->Then, M);
    Locals.resize(Mark);
  }
  if (!I->Else.empty()) {
    CurPred = predAnd(Outer, predNot(P));
    exec(I->Else, M);
    Locals.resize(Mark);
  }
  CurPred = Outer;
  PredMark = OuterMark;
}

/// A `while`, as the run executes it (execLaneWhile or execSymbolicWhile).
void Analyzer::execWhile(const ir::While &Stmt, const SourceLoc &Loc, Mask M) { Run->whileLoop(Stmt, Loc, M); }

/// Lanes leave as their condition fails, and a condition that reads data
/// samples its trips.
void Analyzer::execLaneWhile(const ir::While &Stmt, const SourceLoc &Loc, Mask M) {
  const ir::While *Wh = &Stmt;
  // Lanes leave as their condition fails; the loop ends when none is left.
  // A condition that reads unknown data keeps its lanes in (those a known
  // part does not send out) for DataLoopSamples more trips, as a `for`
  // whose end is data (docs/analysis.md).
  Mask Live = M;
  std::int64_t DataTrips = -1;
  for (std::int64_t Trip = 0;; ++Trip) {
    const Val C = eval(Wh->Cond, Live);
    Mask Next = 0;
    if (C.Unknown) {
      if (DataTrips < 0) {
        Guards.push_back({C.UnknownSrc, Loc, Locals.size(), true, false, {}});
        DataTrips = 0;
      }
      Next = Live & ~C.KnownZero;
    } else {
      for (int Ln = 0; Ln < Lanes; ++Ln)
        if ((Live >> Ln) & 1 && C.lane(Ln) != 0)
          Next |= Mask(1) << Ln;
    }
    Live = Next;
    if (!Live || (DataTrips >= 0 && DataTrips++ >= DataLoopSamples))
      break;
    if (Trip >= MaxWhileTrips)
      throw UserError(Loc, fmt::format("while loop runs more than {} times in block {} warp {} "
                                         "(the analysis limit); does it end?",
                                         MaxWhileTrips, CurBlock, CurWib));
    spend(1);
    if (DataTrips < 0) {
      exec(Wh->Body, Live);
      continue;
    }
    // Sampled trips: a lane in runs the body, so its assignments hold
    // (Sampled); a trip that fails ends the sampling.
    Guards.back().Sampled = true;
    const std::size_t Mark = Locals.size();
    try {
      exec(Wh->Body, Live);
    } catch (const UserError &) {
      Locals.resize(Mark);
      break;
    }
  }
  if (DataTrips >= 0) {
    // After the loop a lane may have left at any trip: what it assigned
    // is unknown.
    leaveSampledLoop();
  }
}

void Analyzer::exec(const ir::Block &B, Mask M) {
  const std::size_t Mark = Locals.size();
  for (const ir::Stmt &S : B)
    execStmt(S, M);
  Locals.resize(Mark);
}

} // namespace bankwise::kernel_analysis
