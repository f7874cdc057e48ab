// Execution of a warp position's statements for analyzeKernel: locals and
// their assignments, loops (unrolled or symbolic on the fast path, per lane
// on the warp-by-warp path), conditionals, barriers, and the data-dependent
// control flow of docs/analysis.md (branches and loop bounds that read
// data the analysis does not know). The expressions they evaluate are in
// WarpEvaluation.cpp.
#include "analysis/passes/detail/Analyzer.h"

#include <fmt/format.h>

namespace bankwise::kernel_analysis {

void Analyzer::assignLocal(const std::string &Name, const Val &V, Mask M) {
  Val *Old = findLocal(Name);
  if (!Old)
    throw UserError(fmt::format("assignment to unknown local '{}'", Name));
  if (!Guards.empty() && !V.Unknown) {
    // Under a data guard a lane may or may not assign: a local from
    // outside the guard is unknown from here on.
    const auto Index = static_cast<std::size_t>(
        std::find_if(Locals.begin(), Locals.end(), [&](const auto &L) { return &L.second == Old; }) -
        Locals.begin());
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
  if (CurPred >= 0 && !V.Unknown)
    throw NotAffine{"an assignment under a guard on block indices or loop variables"};
  Mask Live = Full;
  if (Lanes < 64)
    Live &= (Mask(1) << Lanes) - 1;
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
  if (!Old->concrete() || !V.concrete())
    throw NotAffine{"a partial assignment of a symbolic local"};
  Val R;
  R.HasV = true;
  for (int L = 0; L < Lanes; ++L)
    R.V[static_cast<std::size_t>(L)] = (M >> L) & 1 ? V.lane(L) : Old->lane(L);
  *Old = R;
}

void Analyzer::execStmt(const ir::Stmt &S, Mask M) {
  if (!SkipStmts.empty() && SkipStmts.count(&S))
    return;
  if (const auto *A = S.as<ir::Assign>()) {
    const Val V = eval(A->Value, M);
    if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target))
      readArray(*T, S.Loc, M, true);
    else
      assignLocal(std::get<ir::VarRef>(A->Target).Name, V, M);
  } else if (const auto *L = S.as<ir::Let>()) {
    Locals.push_back({L->Name, eval(L->Init, M)});
  } else if (const auto *X = S.as<ir::ExprStmt>()) {
    eval(X->Value, M);
  } else if (const auto *F = S.as<ir::For>()) {
    const Val Begin = eval(F->Begin, M), End = eval(F->End, M);
    Val Step;
    Step.U.C = 1;
    if (F->Step)
      Step = eval(*F->Step, M);
    if (Begin.Unknown || End.Unknown || Step.Unknown) {
      execDataFor(*F, S.Loc, Begin, End, Step, M);
      return;
    }
    auto Uniform = [&](const Val &X) {
      if (!X.concrete())
        return false;
      for (int Ln = 0; Ln < Lanes; ++Ln)
        if ((M >> Ln) & 1 && X.lane(Ln) != X.lane(std::countr_zero(M)))
          return false;
      return true;
    };
    if (Symbolic) {
      if (Begin.Pred >= 0 || End.Pred >= 0 || Step.Pred >= 0 ||
          !Uniform(Begin) || !Uniform(End) || !Uniform(Step))
        throw NotAffine{"a loop whose bounds depend on the thread, the block "
                        "or an outer loop"};
      const int First = std::countr_zero(M);
      const std::int64_t B = Begin.lane(First), E = End.lane(First), St = Step.lane(First);
      if (St == 0)
        throw UserError(S.Loc, "loop step is zero");
      const Wide Span = St > 0 ? static_cast<Wide>(E) - B : static_cast<Wide>(B) - E;
      const Wide AbsStep = St > 0 ? St : -static_cast<Wide>(St);
      const Wide Trips = Span <= 0 ? 0 : (Span + AbsStep - 1) / AbsStep;
      if (Trips == 0)
        return;
      if (Trips > Opts.WorkLimit)
        throw UserError(S.Loc, fmt::format("loop runs {} times, more than the "
                                           "analysis limit {}",
                                           static_cast<std::int64_t>(Trips), Opts.WorkLimit));
      if (Trips <= SymbolicUnrollTrips) {
        // Short loops run with a concrete variable, so layouts that permute
        // within rows (xor, diagonal, rap) stay on the fast path.
        for (std::int64_t T = 0; T < static_cast<std::int64_t>(Trips); ++T) {
          Val V;
          V.U.C = B + St * T;
          Locals.push_back({F->Var, V});
          const std::size_t Mark = Locals.size();
          exec(F->Body, M);
          Locals.resize(Mark - 1);
        }
        return;
      }
      const int Var = static_cast<int>(Domains.size());
      const std::int64_t Last = B + St * (static_cast<std::int64_t>(Trips) - 1);
      Domains.push_back({std::min(B, Last), std::max(B, Last)});
      TraceNode Node;
      Node.K = TraceNode::Loop;
      Node.Var = Var;
      Node.Begin = B;
      Node.Step = St;
      Node.Trips = static_cast<std::int64_t>(Trips);
      std::vector<TraceNode> *Outer = CurTree;
      CurTree = &Node.Body;
      Val LoopVal;
      LoopVal.U.Terms.push_back({Var, 1});
      Locals.push_back({F->Var, LoopVal});
      const std::size_t Mark = Locals.size();
      LoopStack.push_back({Var, B, St, static_cast<std::int64_t>(Trips)});
      exec(F->Body, M);
      LoopStack.pop_back();
      Locals.resize(Mark - 1);
      CurTree = Outer;
      CurTree->push_back(std::move(Node));
      return;
    }
    // Concrete: per-lane loop variables, lanes leave as their condition fails.
    Locals.push_back({F->Var, Begin});
    const std::size_t Slot = Locals.size() - 1;
    for (int Ln = 0; Ln < Lanes; ++Ln)
      if ((M >> Ln) & 1 && Step.lane(Ln) == 0)
        runtimeError(S.Loc, "loop step is zero", Ln);
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
      Cur = evalBinary(ir::BinaryOp::Add, Cur, Step, Live | (M & ~Live), S.Loc);
    }
    Locals.resize(Slot);
  } else if (const auto *I = S.as<ir::If>()) {
    const Val C = eval(I->Cond, M);
    if (C.Unknown) {
      // Data decides: each branch runs on every lane that may take it.
      Guards.push_back({C.UnknownSrc, S.Loc, Locals.size(), false, false, {}});
      const Mask Then = M & ~C.KnownZero, Else = M & ~C.KnownOne;
      if (Then)
        exec(I->Then, Then);
      if (Else)
        exec(I->Else, Else);
      Guards.pop_back();
      return;
    }
    if (!C.concrete()) {
      // A guard on block indices or loop variables: both branches run
      // symbolically under it, and counting decides per class of warps.
      const int P = toPred(C, M);
      PredNode Neg;
      Neg.K = PredNode::Not;
      Neg.A = P;
      const int Outer = CurPred;
      const std::size_t Mark = Locals.size();
      if (!I->Then.empty()) {
        CurPred = predAnd(Outer, P);
        exec(I->Then, M);
        Locals.resize(Mark);
      }
      if (!I->Else.empty()) {
        CurPred = predAnd(Outer, predNode(Neg));
        exec(I->Else, M);
        Locals.resize(Mark);
      }
      CurPred = Outer;
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
  } else if (const auto *Wh = S.as<ir::While>()) {
    // Lanes leave as their condition fails; the loop ends when none is left.
    // Its trip count is the data's, so the fast path does not model it.
    if (Symbolic)
      throw NotAffine{"a while loop"};
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
          Guards.push_back({C.UnknownSrc, S.Loc, Locals.size(), true, false, {}});
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
        throw UserError(S.Loc, fmt::format("while loop runs more than {} times in block {} warp {} "
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
      for (std::size_t I : Guards.back().Assigned)
        if (I < Locals.size()) {
          Val U;
          U.Unknown = true;
          U.UnknownSrc = Guards.back().Source;
          Locals[I].second = U;
        }
      Guards.pop_back();
    }
  } else if (S.is<ir::Sync>()) {
    if (Symbolic) {
      TraceNode Node;
      Node.K = TraceNode::Barrier;
      CurTree->push_back(std::move(Node));
    } else {
      ++CurPhase;
    }
  }
  // ArrayDecl: nothing to run.
}

void Analyzer::execDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End,
                           const Val &Step, Mask M) {
  const Val &Src = Begin.Unknown ? Begin : End.Unknown ? End : Step;
  Guards.push_back({Src.UnknownSrc, Loc, Locals.size(), true, false, {}});
  if (Begin.Unknown || Step.Unknown) {
    // Where the counter starts, or how it moves, is data: one iteration
    // with an unknown counter.
    Val V;
    V.Unknown = true;
    V.UnknownSrc = Src.UnknownSrc;
    Locals.push_back({F.Var, V});
    exec(F.Body, M);
    Locals.pop_back();
    Guards.pop_back();
    return;
  }
  // Only the end is data: the first DataLoopSamples iterations, each lane
  // from its own start; sampling stops at the first iteration that fails
  // (an index leaving its array), which a correct program never reaches.
  // Within them assignments hold (Sampled); after the loop, what it
  // assigned is unknown.
  Guards.back().Sampled = true;
  auto Forget = [&] {
    for (std::size_t I : Guards.back().Assigned)
      if (I < Locals.size()) {
        Val U;
        U.Unknown = true;
        U.UnknownSrc = Guards.back().Source;
        Locals[I].second = U;
      }
    Guards.pop_back();
  };
  if (Symbolic) {
    if (Begin.Pred >= 0 || Step.Pred >= 0 || !Begin.concrete() || !Step.concrete() || Begin.HasV || Step.HasV)
      throw NotAffine{"a loop whose end reads data and whose start or step depends on the thread, the "
                      "block or an outer loop"};
    if (Step.U.C == 0)
      throw UserError(Loc, "loop step is zero");
    for (std::int64_t T = 0; T < DataLoopSamples; ++T) {
      Val V;
      V.U.C = Begin.U.C + Step.U.C * T;
      Locals.push_back({F.Var, V});
      try {
        exec(F.Body, M);
      } catch (const UserError &) { // the warp-by-warp run finds where sampling stops
        throw NotAffine{"a loop whose end reads data, with an iteration that fails"};
      }
      Locals.pop_back();
    }
    Forget();
    return;
  }
  Locals.push_back({F.Var, Begin});
  const std::size_t Slot = Locals.size() - 1;
  for (int Ln = 0; Ln < Lanes; ++Ln)
    if ((M >> Ln) & 1 && Step.lane(Ln) == 0)
      runtimeError(Loc, "loop step is zero", Ln);
  for (int T = 0; T < DataLoopSamples; ++T) {
    const std::size_t Mark = Locals.size();
    try {
      exec(F.Body, M);
    } catch (const UserError &) {
      Locals.resize(Mark);
      break;
    }
    Locals.resize(Mark);
    Val &Cur = Locals[Slot].second;
    Cur = evalBinary(ir::BinaryOp::Add, Cur, Step, M, Loc);
  }
  Locals.resize(Slot);
  Forget();
}

void Analyzer::exec(const ir::Block &B, Mask M) {
  const std::size_t Mark = Locals.size();
  for (const ir::Stmt &S : B)
    execStmt(S, M);
  Locals.resize(Mark);
}

} // namespace bankwise::kernel_analysis
