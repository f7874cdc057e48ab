// The loops of a warp position's statements for analyzeKernel (their
// dispatch is execStmt's, StatementExecution.cpp): on the fast path a `for`
// of numbers as one symbolic trip (or trip by trip when short, a heavy one's
// later trips symbolic where they can be), a `while` with a counter as a
// counted loop, one without trip by trip, induction variables stepped per
// trip; and loops whose bounds read data (docs/analysis.md).
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>

namespace bankwise::kernel_analysis {

namespace {

/// The names B assigns (Assigned) and declares (Declared: lets and loop
/// variables), nested blocks included.
void namesOf(const ir::Block &B, std::vector<std::string> &Assigned, std::vector<std::string> &Declared) {
  for (const ir::Stmt &S : B) {
    if (const auto *A = S.as<ir::Assign>()) {
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target))
        Assigned.push_back(V->Name);
    } else if (const auto *L = S.as<ir::Let>()) {
      Declared.push_back(L->Name);
    } else if (const auto *F = S.as<ir::For>()) {
      Declared.push_back(F->Var);
      namesOf(F->Body, Assigned, Declared);
    } else if (const auto *W = S.as<ir::While>()) {
      namesOf(W->Body, Assigned, Declared);
    } else if (const auto *I = S.as<ir::If>()) {
      namesOf(I->Then, Assigned, Declared);
      namesOf(I->Else, Assigned, Declared);
    }
  }
}

bool readsName(const ir::Expr &E, const std::string &Name) {
  return ir::anySubexpr(E, [&](const ir::Expr &X) {
    const auto *V = X.as<ir::VarRef>();
    return V && V->Name == Name;
  });
}

/// True when every read of Name in B is in the value of an assignment to
/// Name (an accumulator: `s += x[k]`), so its value never reaches anything
/// else in B.
bool onlyAccumulates(const ir::Block &B, const std::string &Name) {
  bool Ok = true;
  auto Expr = [&](const ir::Expr &E) { Ok = Ok && !readsName(E, Name); };
  for (const ir::Stmt &S : B) {
    if (const auto *A = S.as<ir::Assign>()) {
      if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
        for (const ir::Expr &I : T->Indices)
          Expr(I);
        Expr(A->Value);
      } else if (std::get<ir::VarRef>(A->Target).Name != Name) {
        Expr(A->Value);
      }
    } else if (const auto *L = S.as<ir::Let>()) {
      Expr(L->Init);
    } else if (const auto *X = S.as<ir::ExprStmt>()) {
      Expr(X->Value);
    } else if (const auto *F = S.as<ir::For>()) {
      Expr(F->Begin);
      Expr(F->End);
      if (F->Step)
        Expr(*F->Step);
      Ok = Ok && onlyAccumulates(F->Body, Name);
    } else if (const auto *W = S.as<ir::While>()) {
      Expr(W->Cond);
      Ok = Ok && onlyAccumulates(W->Body, Name);
    } else if (const auto *I = S.as<ir::If>()) {
      Expr(I->Cond);
      Ok = Ok && onlyAccumulates(I->Then, Name) && onlyAccumulates(I->Else, Name);
    }
  }
  return Ok;
}

/// Whether one symbolic run of Body stands for every trip: each local of
/// Before (the values before the body, by slot) that the body changed must
/// be data read only by its own updates (an accumulator), else its value
/// differs from trip to trip. Skip: a slot the loop sets per trip.
void checkLoopCarried(const std::vector<Val> &Before, const std::vector<std::pair<std::string, Val>> &Locals,
                      const ir::Block &Body, std::size_t Skip) {
  for (std::size_t I = 0; I < Before.size() && I < Locals.size(); ++I) {
    if (I == Skip)
      continue;
    const Val &A = Before[I], &B = Locals[I].second;
    const bool Same = A.Unknown == B.Unknown && A.U == B.U && A.HasV == B.HasV && (!A.HasV || A.V == B.V) &&
                      A.Pred == B.Pred && A.Lt == B.Lt && A.LtScale == B.LtScale && A.Poison == B.Poison &&
                      A.Sel == B.Sel && (A.Sel < 0 || (A.SelD == B.SelD && A.SelV == B.SelV));
    if (Same || (A.Unknown && B.Unknown))
      continue;
    if (!B.Unknown || !onlyAccumulates(Body, Locals[I].first))
      throw NotAffine{"a loop that changes a local from trip to trip"};
  }
}

/// A while loop's counter: `while k Op Bound { ...; k += Step; ... }` with
/// the one assignment of k a statement of the body itself (not nested) that
/// adds or subtracts Step, and Step and Bound reading no memory and no
/// local the body assigns or declares: k runs k0, k0 + S, k0 + 2S, ...
struct WhileCounter {
  std::string Name;
  /// The condition is `Other && k Op Bound` (either order) with Other
  /// reading no memory and no local the body changes: a lane it excludes
  /// runs no trip, so every trip is guarded.
  bool Conjunct = false;
  ir::BinaryOp Op = ir::BinaryOp::Lt; ///< `k Op Bound`, Lt, Le, Gt or Ge
  const ir::Expr *Bound = nullptr;
  const ir::Expr *Step = nullptr;
  bool Subtract = false;
};

std::optional<WhileCounter> whileCounter(const ir::While &W) {
  using ir::BinaryOp;
  auto IsCmp = [](const ir::Binary *B) {
    return B && (B->Op == BinaryOp::Lt || B->Op == BinaryOp::Le || B->Op == BinaryOp::Gt || B->Op == BinaryOp::Ge);
  };
  const auto *C = W.Cond.as<ir::Binary>();
  const ir::Expr *Other = nullptr;
  if (C && C->Op == BinaryOp::LogAnd) { // Other && k < E, or k < E && Other
    const auto *L = C->Lhs->as<ir::Binary>(), *R = C->Rhs->as<ir::Binary>();
    if (IsCmp(R) && (R->Lhs->is<ir::VarRef>() || R->Rhs->is<ir::VarRef>())) {
      Other = &*C->Lhs;
      C = R;
    } else if (IsCmp(L)) {
      Other = &*C->Rhs;
      C = L;
    } else {
      return std::nullopt;
    }
  }
  if (!IsCmp(C))
    return std::nullopt;
  WhileCounter K;
  K.Conjunct = Other != nullptr;
  if (const auto *L = C->Lhs->as<ir::VarRef>(); L && !readsName(*C->Rhs, L->Name)) {
    K.Name = L->Name;
    K.Op = C->Op;
    K.Bound = &*C->Rhs;
  } else if (const auto *R = C->Rhs->as<ir::VarRef>(); R && !readsName(*C->Lhs, R->Name)) {
    K.Name = R->Name; // Bound Op k is k Op' Bound
    K.Op = C->Op == BinaryOp::Lt ? BinaryOp::Gt : C->Op == BinaryOp::Le ? BinaryOp::Ge
         : C->Op == BinaryOp::Gt ? BinaryOp::Lt : BinaryOp::Le;
    K.Bound = &*C->Lhs;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> Assigned, Declared;
  namesOf(W.Body, Assigned, Declared);
  if (std::count(Assigned.begin(), Assigned.end(), K.Name) != 1 ||
      std::count(Declared.begin(), Declared.end(), K.Name) != 0)
    return std::nullopt;
  for (const ir::Stmt &S : W.Body) {
    const auto *A = S.as<ir::Assign>();
    const auto *T = A ? std::get_if<ir::VarRef>(&A->Target) : nullptr;
    if (!T || T->Name != K.Name)
      continue;
    const auto *V = A->Value.as<ir::Binary>();
    if (!V || (V->Op != BinaryOp::Add && V->Op != BinaryOp::Sub))
      return std::nullopt;
    const auto *L = V->Lhs->as<ir::VarRef>(), *R = V->Rhs->as<ir::VarRef>();
    if (L && L->Name == K.Name)
      K.Step = &*V->Rhs;
    else if (R && R->Name == K.Name && V->Op == BinaryOp::Add)
      K.Step = &*V->Lhs;
    else
      return std::nullopt;
    K.Subtract = V->Op == BinaryOp::Sub;
  }
  if (!K.Step)
    return std::nullopt; // assigned in a nested block
  Assigned.insert(Assigned.end(), Declared.begin(), Declared.end());
  for (const ir::Expr *E : {K.Step, K.Bound, Other ? Other : K.Bound})
    if (ir::accessesMemory(*E) ||
        std::any_of(Assigned.begin(), Assigned.end(), [&](const std::string &N) { return readsName(*E, N); }))
      return std::nullopt;
  return K;
}

/// A local that a loop's body steps once per trip: `X = X + Step` (or
/// `- Step`, `Step + X`) a statement of the body itself (not nested, so
/// every trip runs it), X neither assigned elsewhere in the body nor
/// declared in it, Step reading no memory and no local the body assigns or
/// declares (the same every trip). A tiled GEMM's `A += BK; B += BK * N`.
struct InductionCandidate {
  std::string Name;
  const ir::Expr *Step = nullptr;
  bool Subtract = false;
};

std::vector<InductionCandidate> inductionCandidates(const ir::Block &Body, const std::string *LoopVar) {
  std::vector<std::string> Assigned, Declared;
  namesOf(Body, Assigned, Declared);
  if (LoopVar) // a `for` loop's own variable: declared by the loop, set per trip
    Declared.push_back(*LoopVar);
  std::vector<std::string> Changed = Assigned;
  Changed.insert(Changed.end(), Declared.begin(), Declared.end());
  std::vector<InductionCandidate> Out;
  for (const ir::Stmt &S : Body) {
    const auto *A = S.as<ir::Assign>();
    const auto *T = A ? std::get_if<ir::VarRef>(&A->Target) : nullptr;
    const auto *V = T ? A->Value.as<ir::Binary>() : nullptr;
    if (!V || (V->Op != ir::BinaryOp::Add && V->Op != ir::BinaryOp::Sub))
      continue;
    InductionCandidate C;
    C.Name = T->Name;
    C.Subtract = V->Op == ir::BinaryOp::Sub;
    const auto *L = V->Lhs->as<ir::VarRef>(), *R = V->Rhs->as<ir::VarRef>();
    if (L && L->Name == C.Name)
      C.Step = &*V->Rhs;
    else if (R && R->Name == C.Name && !C.Subtract)
      C.Step = &*V->Lhs;
    else
      continue;
    if (std::count(Assigned.begin(), Assigned.end(), C.Name) != 1 ||
        std::count(Declared.begin(), Declared.end(), C.Name) != 0 || ir::accessesMemory(*C.Step) ||
        std::any_of(Changed.begin(), Changed.end(), [&](const std::string &N) { return readsName(*C.Step, N); }))
      continue;
    Out.push_back(std::move(C));
  }
  return Out;
}

} // namespace

void Analyzer::execUnrolledWhile(const ir::While &Wh, Mask M) {
  // No counter: trip by trip while the condition is concrete, lanes leaving
  // as the warp-by-warp path lets them (a halving `h >>= 1` of constants).
  Mask Live = M;
  for (std::int64_t Trip = 0;; ++Trip) {
    const Val C = eval(Wh.Cond, Live);
    if (C.Unknown)
      throw NotAffine{"a while loop whose condition reads data"};
    if (!C.concrete())
      throw NotAffine{"a while loop whose condition depends on block indices or loop variables, "
                      "without a counter stepped by a uniform amount"};
    Mask Next = 0;
    for (int Ln = 0; Ln < Lanes; ++Ln)
      if ((Live >> Ln) & 1 && C.lane(Ln) != 0)
        Next |= Mask(1) << Ln;
    Live = Next;
    if (!Live)
      return;
    if (Trip >= SymbolicWhileTrips)
      throw NotAffine{fmt::format("a while loop without a counter that runs more than {} times",
                                  SymbolicWhileTrips)};
    exec(Wh.Body, Live);
  }
}

void Analyzer::execSymbolicWhile(const ir::While &Wh, const SourceLoc &Loc, Mask M) {
  const std::optional<WhileCounter> K = whileCounter(Wh);
  Val *Slot = K ? findLocal(K->Name) : nullptr;
  // Under a data guard, a counter declared inside it (`if (amLast) { int i
  // = tid; while (i < n) { ...; i += bs; } }`) counts as anywhere else:
  // the guard decides whether the loop runs, not how. One from outside
  // would be unknown after the loop, which the runs per warp handle. A
  // loop without a counter runs trip by trip while its condition is known,
  // as the runs per warp do.
  if (!Guards.empty() && Slot && localIndex(Slot) < Guards.back().LocalsMark)
    throw NotAffine{"a while loop under a data-dependent condition"};
  if (!Slot) {
    execUnrolledWhile(Wh, M);
    return;
  }
  const Val K0 = *Slot;
  if (K0.Unknown)
    throw NotAffine{"a while loop whose counter starts at data"};
  if (K0.Pred >= 0 || K0.Lt >= 0 || K0.Sel >= 0 || K0.Poison)
    throw NotAffine{"a while loop whose counter is a guard, a table read, a per-lane choice or an earlier "
                    "loop's exit value"};
  const Val Step = eval(*K->Step, M), Bound = eval(*K->Bound, M);
  if (Bound.Unknown || Step.Unknown)
    throw NotAffine{"a while loop whose condition reads data"};
  const auto KIndex = static_cast<std::size_t>(
      std::find_if(Locals.begin(), Locals.end(), [&](const auto &L) { return &L.second == Slot; }) - Locals.begin());
  CounterLoop L;
  L.KIndex = KIndex;
  L.K0 = K0;
  L.Step = Step;
  L.Bound = Bound;
  L.Op = K->Op;
  L.Subtract = K->Subtract;
  L.Conjunct = K->Conjunct;
  L.Cond = [&](Mask Mk) { return eval(Wh.Cond, Mk); };
  L.Body = &Wh.Body;
  L.Unrolled = [&](Mask Mk) { execUnrolledWhile(Wh, Mk); };
  runCounterLoop(L, Loc, M);
}

void Analyzer::runCounterLoop(const CounterLoop &L, const SourceLoc &Loc, Mask M) {
  const Val &K0 = L.K0;
  const std::size_t KIndex = L.KIndex;
  const std::optional<CounterTrips> Bounds = counterTrips(L, Loc, M);
  if (!Bounds) {
    // The counter moves away from its bound: every lane runs no trip or
    // never stops, which the trip-by-trip run tells apart.
    if (!L.Unrolled)
      throw NotAffine{"a loop whose counter moves away from its bound"};
    L.Unrolled(M);
    return;
  }
  const std::int64_t S = Bounds->S;
  const Wide TMin = Bounds->TMin, TMax = Bounds->TMax;
  // k at trip T (a number or a loop variable's term).
  auto CounterAt = [&](const Affine &T) {
    Val R = K0;
    R.U = affineAdd(K0.U, affineScale(T, S), 1);
    return R;
  };
  WhileCounters.push_back(KIndex);
  const int Outer = CurPred;
  const std::size_t OuterMark = PredMark;
  bool Exact = true; // every lane's trips known: k's value after the loop
  LaneArr Trips{};
  for (int Ln = 0; Ln < Lanes; ++Ln)
    Trips[static_cast<std::size_t>(Ln)] = static_cast<std::int64_t>(TMin);
  auto UnrolledSegment = [&](std::int64_t T0, std::int64_t T1, bool Guarded) {
    for (std::int64_t T = T0; T < T1; ++T) {
      Affine At;
      At.C = T;
      Locals[KIndex].second = CounterAt(At);
      Mask Live = M;
      if (Guarded) {
        const Val C = L.Cond(M);
        if (C.concrete()) {
          Live = 0;
          for (int Ln = 0; Ln < Lanes; ++Ln)
            if ((M >> Ln) & 1 && C.lane(Ln) != 0) {
              Live |= Mask(1) << Ln;
              Trips[static_cast<std::size_t>(Ln)] = T + 1;
            }
          if (!Live)
            return; // the condition is monotone in T: no lane comes back
        } else {
          CurPred = predAnd(Outer, toPred(C, M));
          PredMark = Locals.size();
          Exact = false;
        }
      }
      exec(*L.Body, Live);
      CurPred = Outer;
      PredMark = OuterMark;
    }
  };
  // Trips [T0, T1) as one symbolic trip: a counted loop, trip t a symbolic
  // variable, k = k0 + S t.
  auto SymbolicSegment = [&](std::int64_t T0, std::int64_t T1, bool Guarded) {
    const int Var = static_cast<int>(Domains.size());
    Domains.push_back({T0, T1 - 1});
    TraceNode Node;
    Node.K = TraceNode::Loop;
    Node.Var = Var;
    Node.Begin = T0;
    Node.Step = 1;
    Node.Trips = T1 - T0;
    std::vector<TraceNode> *OuterTree = CurTree;
    CurTree = &Node.Body;
    Affine At;
    At.Terms.push_back({Var, 1});
    Locals[KIndex].second = CounterAt(At);
    if (Guarded) {
      CurPred = predAnd(Outer, toPred(L.Cond(M), M));
      PredMark = Locals.size();
      Exact = false;
    }
    const std::size_t Mark = Locals.size();
    std::vector<Val> Before;
    for (std::size_t I = 0; I < Mark; ++I)
      Before.push_back(Locals[I].second);
    // Other locals the body steps per trip, where every lane runs every
    // trip (a guarded segment's lanes leave at different trips).
    const std::vector<Induction> Ind = Guarded ? std::vector<Induction>{} : inductions(*L.Body, nullptr, KIndex, M);
    enterInductions(Ind, Var, T0);
    LoopStack.push_back({Var, T0, 1, T1 - T0});
    exec(*L.Body, M);
    LoopStack.pop_back();
    leaveInductions(Ind, Var, T0, T1 - T0, Before);
    CurPred = Outer;
    PredMark = OuterMark;
    CurTree = OuterTree;
    CurTree->push_back(std::move(Node));
    // One symbolic trip stands for all.
    checkLoopCarried(Before, Locals, *L.Body, KIndex);
  };
  // Runs trips [T0, T1), under the condition when Guarded.
  auto Segment = [&](std::int64_t T0, std::int64_t T1, bool Guarded) {
    if (T1 <= T0)
      return;
    if (T1 - T0 > SymbolicUnrollTrips) {
      SymbolicSegment(T0, T1, Guarded);
      return;
    }
    // Trip by trip; the unguarded trips after a heavy first one as one
    // symbolic trip where they can. (Guarded trips stay concrete: each
    // lane's exit trip, and so the counter after the loop, stays known.)
    const std::int64_t Before = StmtsRun;
    UnrolledSegment(T0, T0 + 1, Guarded);
    if (!Guarded && heavyUnroll(StmtsRun - Before, T1 - T0 - 1) &&
        attemptSymbolic([&] { SymbolicSegment(T0 + 1, T1, false); }))
      return;
    UnrolledSegment(T0 + 1, T1, Guarded);
  };
  const auto Lo = static_cast<std::int64_t>(TMin), Hi = static_cast<std::int64_t>(TMax);
  Segment(0, Lo, false);
  Segment(Lo, Hi, true);
  WhileCounters.pop_back();
  Locals[KIndex].second = counterAfter(K0, S, Trips, Exact);
}

/// The counter's step S and the trips of L: every lane of every warp runs
/// the first TMin, none more than TMax; nullopt when the counter moves away
/// from its bound.
std::optional<Analyzer::CounterTrips> Analyzer::counterTrips(const CounterLoop &L, const SourceLoc &Loc, Mask M) {
  const Val &K0 = L.K0, &Step = L.Step, &Bound = L.Bound;
  const int First = std::countr_zero(M);
  bool UniformStep = Step.concrete();
  for (int Ln = 0; Ln < Lanes && UniformStep; ++Ln)
    UniformStep = !((M >> Ln) & 1) || Step.lane(Ln) == Step.lane(First);
  if (!UniformStep)
    throw NotAffine{"a while loop whose counter's step depends on the thread, the block or a loop"};
  std::int64_t S = Step.lane(First);
  if (L.Subtract && mulOv(S, -1, S))
    throw NotAffine{"overflow in a while loop's step"};
  const bool Up = L.Op == ir::BinaryOp::Lt || L.Op == ir::BinaryOp::Le;
  if (S == 0 || (S > 0) != Up)
    return std::nullopt;
  // Lane l stays while D(l) - |S| t > 0 (`<`, `>`) or >= 0 (`<=`, `>=`),
  // D = Bound - k0 counting up, k0 - Bound counting down.
  const Val D = Up ? evalBinary(ir::BinaryOp::Sub, Bound, K0, M, Loc)
                   : evalBinary(ir::BinaryOp::Sub, K0, Bound, M, Loc);
  if (D.Pred >= 0 || D.Lt >= 0 || D.Sel >= 0)
    throw NotAffine{"a while loop whose trip count is a guard, a table read or a per-lane choice"};
  const auto URange = D.U.isConst() ? std::optional(std::make_pair(Wide(D.U.C), Wide(D.U.C))) : rangeOf(D.U);
  if (!URange)
    throw NotAffine{"a while loop whose trip count has no known bound"};
  Wide DMin = 0, DMax = 0;
  bool Any = false;
  for (int Ln = 0; Ln < Lanes; ++Ln)
    if ((M >> Ln) & 1) {
      const Wide V = D.HasV ? D.V[static_cast<std::size_t>(Ln)] : 0;
      DMin = Any ? std::min(DMin, V) : V;
      DMax = Any ? std::max(DMax, V) : V;
      Any = true;
    }
  DMin += URange->first;
  DMax += URange->second;
  const Wide AbsS = S > 0 ? Wide(S) : -Wide(S);
  const bool Strict = L.Op == ir::BinaryOp::Lt || L.Op == ir::BinaryOp::Gt;
  auto TripsFor = [&](Wide Dist) -> Wide {
    if (Strict)
      return Dist <= 0 ? 0 : (Dist + AbsS - 1) / AbsS;
    return Dist < 0 ? 0 : Dist / AbsS + 1;
  };
  // Every lane of every warp runs the first TMin trips; none runs more
  // than TMax.
  CounterTrips R;
  R.S = S;
  R.TMin = L.Conjunct ? 0 : TripsFor(DMin);
  R.TMax = TripsFor(DMax);
  if (R.TMax > MaxWhileTrips)
    throw NotAffine{fmt::format("a while loop that may run more than {} times (the limit is checked warp by warp)",
                                MaxWhileTrips)};
  return R;
}

/// The counter after the loop: k0 + S * (the lane's trips) when they are
/// known (Exact), else poisoned (a read of it leaves the fast path).
Val Analyzer::counterAfter(const Val &K0, std::int64_t S, const LaneArr &Trips, bool Exact) const {
  Val After = K0;
  if (Exact) {
    After.HasV = true;
    for (int Ln = 0; Ln < Lanes; ++Ln) {
      const std::int64_t V0 = K0.HasV ? K0.V[static_cast<std::size_t>(Ln)] : 0;
      std::int64_t Moved;
      if (mulOv(S, Trips[static_cast<std::size_t>(Ln)], Moved) ||
          addOv(V0, Moved, After.V[static_cast<std::size_t>(Ln)]))
        throw NotAffine{"overflow in a while loop's counter"};
    }
  } else {
    After = Val{};
    After.Poison = true;
  }
  return After;
}

void Analyzer::leaveSampledLoop() {
  for (std::size_t I : Guards.back().Assigned)
    if (I < Locals.size()) {
      Val U;
      U.Unknown = true;
      U.UnknownSrc = Guards.back().Source;
      Locals[I].second = U;
    }
  Guards.pop_back();
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
  // An end `min(256, n * 32)` (counting up; `max` down) bounds the trips by
  // its known operands too: lanes leave once they pass one, as they do in
  // the program, before the sampled trips run out.
  std::vector<Val> KnownEnds;
  const bool EndsUp = Step.concrete() && Step.lane(std::countr_zero(M)) > 0;
  if (const auto *C = F.End.as<ir::Call>();
      C && Step.concrete() && C->Fn == (EndsUp ? ir::Function::Min : ir::Function::Max))
    for (const ir::Expr &A : C->Args)
      if (!ir::accessesMemory(A))
        if (Val V = eval(A, M); !V.Unknown)
          KnownEnds.push_back(std::move(V));
  // The lanes of M whose counter K is still before every known end.
  auto Within = [&](const Val &K) -> Mask {
    Mask Live = M;
    for (const Val &E : KnownEnds) {
      const Val C = evalBinary(EndsUp ? ir::BinaryOp::Lt : ir::BinaryOp::Gt, K, E, M, Loc);
      if (!C.concrete())
        throw NotAffine{"a loop whose end reads data, bounded by a value that depends on the block or an outer "
                        "loop"};
      for (int Ln = 0; Ln < Lanes; ++Ln)
        if ((Live >> Ln) & 1 && C.lane(Ln) == 0)
          Live &= ~(Mask(1) << Ln);
    }
    return Live;
  };
  Run->dataForTrips(F, Loc, Begin, Step, M, Within);
}

void Analyzer::sampleSymbolicDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step,
                                     Mask M, const std::function<Mask(const Val &)> &Within) {
  // Each lane from its own start (`for i in tx + 32..n step 32`, the start
  // per lane, per block or per outer loop): trip T is the start plus T
  // steps, as in the runs per warp, when the step is one number.
  const bool PlainBegin = Begin.Pred < 0 && Begin.Lt < 0 && Begin.Sel < 0 && !Begin.Poison;
  bool UniformStep = Step.Pred < 0 && Step.Lt < 0 && Step.Sel < 0 && !Step.Poison && Step.concrete();
  const std::int64_t S = UniformStep ? Step.lane(std::countr_zero(M)) : 0;
  for (int Ln = 0; Ln < Lanes && UniformStep; ++Ln)
    UniformStep = !((M >> Ln) & 1) || Step.lane(Ln) == S;
  if (!PlainBegin || !UniformStep)
    throw NotAffine{"a loop whose end reads data and whose step depends on the thread, the block or an "
                    "outer loop"};
  if (S == 0)
    throw UserError(Loc, "loop step is zero");
  for (std::int64_t T = 0; T < DataLoopSamples; ++T) {
    Val V = Begin;
    std::int64_t Moved;
    if (mulOv(S, T, Moved) || addOv(Begin.U.C, Moved, V.U.C))
      throw NotAffine{"overflow in a loop's counter"};
    const Mask Live = Within(V);
    if (!Live)
      break;
    Locals.push_back({F.Var, V});
    try {
      exec(F.Body, Live);
    } catch (const UserError &) { // the warp-by-warp run finds where sampling stops
      throw NotAffine{"a loop whose end reads data, with an iteration that fails"};
    }
    Locals.pop_back();
  }
  leaveSampledLoop();
}

void Analyzer::sampleLaneDataFor(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step,
                                 Mask M, const std::function<Mask(const Val &)> &Within) {
  Locals.push_back({F.Var, Begin});
  const std::size_t Slot = Locals.size() - 1;
  for (int Ln = 0; Ln < Lanes; ++Ln)
    if ((M >> Ln) & 1 && Step.lane(Ln) == 0)
      runtimeError(Loc, "loop step is zero", Ln);
  for (int T = 0; T < DataLoopSamples; ++T) {
    const std::size_t Mark = Locals.size();
    const Mask Live = Within(Locals[Slot].second);
    if (!Live)
      break;
    try {
      exec(F.Body, Live);
    } catch (const UserError &) {
      Locals.resize(Mark);
      break;
    }
    Locals.resize(Mark);
    Val &Cur = Locals[Slot].second;
    Cur = evalBinary(ir::BinaryOp::Add, Cur, Step, M, Loc);
  }
  Locals.resize(Slot);
  leaveSampledLoop();
}

std::vector<Analyzer::Induction> Analyzer::inductions(const ir::Block &Body, const std::string *LoopVar,
                                                     std::size_t Skip, Mask M) {
  std::vector<Induction> Out;
  for (const InductionCandidate &C : inductionCandidates(Body, LoopVar)) {
    if (Unobserved.count(C.Name))
      continue; // held as data: nothing to step
    Val *Slot = findLocal(C.Name);
    if (!Slot)
      continue;
    const std::size_t Index = localIndex(Slot);
    if (Index == Skip)
      continue;
    const Val &X = *Slot;
    if (X.Unknown || X.Pred >= 0 || X.Lt >= 0 || X.Sel >= 0 || X.Poison)
      continue;
    const Val Step = eval(*C.Step, M);
    if (!Step.concrete() || !sameInLanes(Step, M))
      continue;
    std::int64_t By = Step.lane(std::countr_zero(M));
    if (C.Subtract && mulOv(By, -1, By))
      continue;
    Out.push_back({Index, By, X});
  }
  return Out;
}

void Analyzer::enterInductions(const std::vector<Induction> &Ind, int Var, std::int64_t T0) {
  for (const Induction &I : Ind) {
    // Entry + By (t - T0), t the trip variable.
    Affine Moved;
    Moved.C = 0;
    Moved.Terms.push_back({Var, 1});
    Affine Shift;
    Shift.C = -T0;
    Val X = I.Entry;
    X.U = affineAdd(I.Entry.U, affineScale(affineAdd(Moved, Shift, 1), I.By), 1);
    Locals[I.Index].second = X;
  }
}

void Analyzer::leaveInductions(const std::vector<Induction> &Ind, int Var, std::int64_t T0, std::int64_t Trips,
                               std::vector<Val> &Before) {
  for (const Induction &I : Ind) {
    // The body stepped it once: Entry + By (t + 1 - T0), else it did
    // something else and the loop is not one symbolic trip.
    Affine Next;
    Next.C = 1 - T0;
    Next.Terms.push_back({Var, 1});
    Val Want = I.Entry;
    Want.U = affineAdd(I.Entry.U, affineScale(Next, I.By), 1);
    const Val &Got = Locals[I.Index].second;
    if (!(Got.U == Want.U) || Got.HasV != Want.HasV || (Got.HasV && !(Got.V == Want.V)) || Got.Unknown ||
        Got.Pred >= 0 || Got.Lt >= 0 || Got.Sel >= 0 || Got.Poison)
      throw NotAffine{"a loop that changes a local from trip to trip"};
    // After the loop: every trip stepped it.
    std::int64_t Total;
    if (mulOv(I.By, Trips, Total))
      throw NotAffine{"overflow in a loop's induction variable"};
    Affine After;
    After.C = Total;
    Val Final = I.Entry;
    Final.U = affineAdd(I.Entry.U, After, 1);
    Locals[I.Index].second = Final;
    Before[I.Index] = Final;
  }
}

void Analyzer::symbolicFor(const ir::For &F, std::int64_t B, std::int64_t St, std::int64_t Trips, Mask M) {
  // With locals the body steps per trip, the variable is the trip t (the
  // loop's value B + St t), which their values are affine in; else the
  // loop's value itself.
  const std::vector<Induction> Ind = inductions(F.Body, &F.Var, Locals.size(), M);
  const bool ByTrip = !Ind.empty();
  const int Var = static_cast<int>(Domains.size());
  const std::int64_t Last = B + St * (Trips - 1);
  if (ByTrip)
    Domains.push_back({0, Trips - 1});
  else
    Domains.push_back({std::min(B, Last), std::max(B, Last)});
  TraceNode Node;
  Node.K = TraceNode::Loop;
  Node.Var = Var;
  Node.Begin = ByTrip ? 0 : B;
  Node.Step = ByTrip ? 1 : St;
  Node.Trips = Trips;
  std::vector<TraceNode> *Outer = CurTree;
  CurTree = &Node.Body;
  Val LoopVal;
  if (ByTrip) {
    LoopVal.U.C = B;
    LoopVal.U.Terms.push_back({Var, St});
  } else {
    LoopVal.U.Terms.push_back({Var, 1});
  }
  std::vector<Val> Before;
  for (const auto &L : Locals)
    Before.push_back(L.second);
  enterInductions(Ind, Var, 0);
  Locals.push_back({F.Var, LoopVal});
  const std::size_t Mark = Locals.size();
  LoopStack.push_back(ByTrip ? LoopDom{Var, 0, 1, Trips} : LoopDom{Var, B, St, Trips});
  exec(F.Body, M);
  LoopStack.pop_back();
  leaveInductions(Ind, Var, 0, Trips, Before);
  // One symbolic trip stands for all (a local the body changes, such as
  // `c += 1`, would keep its first trip's value).
  checkLoopCarried(Before, Locals, F.Body, Before.size());
  Locals.resize(Mark - 1);
  CurTree = Outer;
  CurTree->push_back(std::move(Node));
}

bool Analyzer::attemptSymbolic(const std::function<void()> &Fn) {
  // Everything a symbolic run of statements adds to or changes; the tables
  // (templates, atoms, formulas, opaque values, lane tables, variable
  // domains) only grow, so their lengths say what to drop.
  const std::vector<std::pair<std::string, Val>> SavedLocals = Locals;
  const std::vector<std::pair<std::size_t, Mask>> SavedDecls = DeclMasks;
  const std::vector<DataGuard> SavedGuards = Guards;
  const std::vector<LoopDom> SavedLoops = LoopStack;
  const std::vector<std::size_t> SavedCounters = WhileCounters;
  const std::size_t NumTemplates = Templates.size(), NumAtoms = Atoms.size(), NumPreds = Preds.size(),
                    NumOpaques = Opaques.size(), NumTables = LaneTables.size(), NumDomains = Domains.size();
  std::vector<TraceNode> *const Tree = CurTree;
  const std::size_t TreeSize = Tree ? Tree->size() : 0;
  const int Pred = CurPred, Oob = PendingOob;
  const std::size_t Mark = PredMark;
  const std::int64_t Work = WorkDone;
  try {
    Fn();
    return true;
  } catch (const NotAffine &) {
    Locals = SavedLocals;
    DeclMasks = SavedDecls;
    Guards = SavedGuards;
    LoopStack = SavedLoops;
    WhileCounters = SavedCounters;
    Templates.resize(NumTemplates);
    Atoms.resize(NumAtoms);
    Preds.resize(NumPreds);
    Opaques.resize(NumOpaques);
    LaneTables.resize(NumTables);
    Domains.resize(NumDomains);
    CurTree = Tree;
    if (Tree)
      Tree->resize(TreeSize);
    CurPred = Pred;
    PendingOob = Oob;
    PredMark = Mark;
    WorkDone = Work;
    ValueUnobserved = false;
    return false;
  }
}

} // namespace bankwise::kernel_analysis
