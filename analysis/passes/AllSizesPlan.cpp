#include "analysis/passes/detail/AllSizesPlan.h"

#include "ir/Expr.h"
#include "support/Diagnostic.h"
#include "support/Random.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace bankwise::all_sizes {

void readConstraint(const ir::Expr &E, const ir::ConstEnv &Env, Domain &D, bool &LoGiven) {
  const auto *B = E.as<ir::Binary>();
  if (!B)
    return;
  if (B->Op == ir::BinaryOp::LogAnd) {
    readConstraint(*B->Lhs, Env, D, LoGiven);
    readConstraint(*B->Rhs, Env, D, LoGiven);
    return;
  }
  auto IsSelf = [&](const ir::Expr &X) {
    const auto *V = X.as<ir::VarRef>();
    return V && V->Name == D.Name;
  };
  auto Value = [&](const ir::Expr &X) -> std::optional<std::int64_t> {
    DiagnosticEngine Quiet;
    return ir::evalConstant(X, Env, Quiet);
  };
  // `D % m == 0`
  if (B->Op == ir::BinaryOp::Eq) {
    if (const auto *M = B->Lhs->as<ir::Binary>();
        M && M->Op == ir::BinaryOp::Mod && IsSelf(*M->Lhs)) {
      const auto Div = Value(*M->Rhs), Rem = Value(*B->Rhs);
      if (Div && *Div > 0 && Rem && *Rem == 0)
        D.Step = std::lcm(D.Step, *Div);
      return;
    }
  }
  ir::BinaryOp Op = B->Op;
  const ir::Expr *Other = nullptr;
  if (IsSelf(*B->Lhs)) {
    Other = &*B->Rhs;
  } else if (IsSelf(*B->Rhs)) {
    Other = &*B->Lhs;
    // v < D  is  D > v
    switch (Op) {
    case ir::BinaryOp::Lt: Op = ir::BinaryOp::Gt; break;
    case ir::BinaryOp::Le: Op = ir::BinaryOp::Ge; break;
    case ir::BinaryOp::Gt: Op = ir::BinaryOp::Lt; break;
    case ir::BinaryOp::Ge: Op = ir::BinaryOp::Le; break;
    default: break;
    }
  } else {
    return;
  }
  const auto V = Value(*Other);
  if (!V)
    return;
  auto SetLo = [&](std::int64_t X) {
    D.Lo = LoGiven ? std::max(D.Lo, X) : X;
    LoGiven = true;
  };
  auto SetHi = [&](std::int64_t X) { D.Hi = D.Hi ? std::min(*D.Hi, X) : X; };
  switch (Op) {
  case ir::BinaryOp::Ge: SetLo(*V); break;
  case ir::BinaryOp::Gt: SetLo(*V + 1); break;
  case ir::BinaryOp::Le: SetHi(*V); break;
  case ir::BinaryOp::Lt: SetHi(*V - 1); break;
  case ir::BinaryOp::Eq: SetLo(*V); SetHi(*V); break;
  default: break;
  }
}

/// The first multiple of Step that is >= X (X >= 0).
std::int64_t alignUp(std::int64_t X, std::int64_t Step) {
  return (X + Step - 1) / Step * Step;
}

/// The order in which a budget (AllSizesOptions::MaxOperations) takes the
/// runs: Probe first, then the residue classes with the other sizes at
/// their first representative (Run::Tier 0: where a figure's condition
/// comes from), then those at the second, the small combinations and the
/// periodicity checks interleaved at 6 : 3 : 1 (a check once its run is
/// placed), each kind in an order drawn with a fixed seed: any prefix is a
/// sample of each kind. Before all of these, in that order, the first run
/// of each site not yet covered (a site no size reaches through its value
/// has one run in the plan): Covering is how many runs that takes, which a
/// budget keeps whatever their work.
std::vector<std::size_t> budgetOrder(const std::vector<Run> &Runs, std::size_t Probe, std::size_t Corner,
                                     std::size_t NumSites, std::size_t &Covering) {
  if (Corner == Probe)
    Corner = Runs.size();
  std::vector<std::size_t> First;
  std::array<std::vector<std::size_t>, 3> Kinds; // the second tier of classes, small combinations, checks
  for (std::size_t I = 0; I < Runs.size(); ++I)
    if (I != Probe && I != Corner)
      (Runs[I].CheckOf >= 0 ? Kinds[2] : Runs[I].SmallCombination ? Kinds[1] : Runs[I].Tier ? Kinds[0] : First)
          .push_back(I);
  Rng Draw(2028);
  auto Shuffle = [&](std::vector<std::size_t> &V) {
    for (std::size_t I = 0; I + 1 < V.size(); ++I)
      std::swap(V[I], V[I + Draw.below(V.size() - I)]);
  };
  for (auto *V : {&First, &Kinds[0], &Kinds[1], &Kinds[2]})
    Shuffle(*V);
  const std::array<std::int64_t, 3> Weight = {6, 3, 1};
  std::array<std::size_t, 3> Taken = {0, 0, 0};
  std::vector<bool> Placed(Runs.size(), false);
  std::vector<std::size_t> Order = {Probe};
  Placed[Probe] = true;
  if (Corner < Runs.size()) {
    Order.push_back(Corner);
    Placed[Corner] = true;
  }
  std::vector<bool> Covered(NumSites, false);
  auto Cover = [&](std::size_t I) {
    bool New = false;
    for (std::size_t S = 0; S < NumSites; ++S)
      if (!Covered[S] && (Runs[I].Sites.empty() || (S < Runs[I].Sites.size() && Runs[I].Sites[S]))) {
        Covered[S] = true;
        New = true;
      }
    return New;
  };
  Cover(Probe);
  if (Corner < Runs.size())
    Cover(Corner);
  for (const std::vector<std::size_t> *V : {&First, &Kinds[0], &Kinds[1]})
    for (std::size_t I : *V)
      if (!Placed[I] && Cover(I)) {
        Order.push_back(I);
        Placed[I] = true;
      }
  Covering = Order.size();
  for (std::vector<std::size_t> *V : {&First, &Kinds[0], &Kinds[1]}) // the covering runs are placed
    std::erase_if(*V, [&](std::size_t I) { return Placed[I]; });
  for (std::size_t I : First) {
    Order.push_back(I);
    Placed[I] = true;
  }
  for (std::int64_t Step = 1; Order.size() < Runs.size(); ++Step) {
    std::size_t Best = Kinds.size();
    std::int64_t BestDeficit = 0;
    std::size_t CheckAt = 0;
    for (std::size_t C = 0; C < Kinds.size(); ++C) {
      const std::vector<std::size_t> &V = Kinds[C];
      std::size_t At = Taken[C];
      if (C == 2) // the first check whose run is placed
        while (At < V.size() && !Placed[static_cast<std::size_t>(Runs[V[At]].CheckOf)])
          ++At;
      if (At >= V.size())
        continue;
      const std::int64_t Deficit = Weight[C] * Step - 10 * static_cast<std::int64_t>(Taken[C]);
      if (Best == Kinds.size() || Deficit > BestDeficit) {
        Best = C;
        BestDeficit = Deficit;
        CheckAt = At;
      }
    }
    if (Best == Kinds.size())
      break; // cannot happen: a check's run is a class or small run
    std::vector<std::size_t> &V = Kinds[Best];
    std::size_t &T = Taken[Best];
    if (Best == 2)
      std::swap(V[T], V[CheckAt]);
    Order.push_back(V[T]);
    Placed[V[T]] = true;
    ++T;
  }
  return Order;
}

/// Runs in the order Order (a permutation of their indices), each CheckOf
/// following its run.
void reorderRuns(std::vector<Run> &Runs, const std::vector<std::size_t> &Order) {
  std::vector<int> NewIndex(Runs.size(), -1);
  std::vector<Run> Out;
  Out.reserve(Runs.size());
  for (std::size_t I : Order) {
    NewIndex[I] = static_cast<int>(Out.size());
    Out.push_back(std::move(Runs[I]));
  }
  for (Run &R : Out)
    if (R.CheckOf >= 0)
      R.CheckOf = NewIndex[static_cast<std::size_t>(R.CheckOf)];
  Runs = std::move(Out);
}

/// The ClassOf marks of a run for the sites in Of: Mark on each.
std::vector<std::uint8_t> classMarks(const std::vector<bool> &Of, std::uint8_t Mark) {
  std::vector<std::uint8_t> C(Of.size(), 0);
  for (std::size_t S = 0; S < Of.size(); ++S)
    C[S] = Of[S] ? Mark : 0;
  return C;
}


} // namespace bankwise::all_sizes
