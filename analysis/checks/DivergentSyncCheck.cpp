#include "analysis/checks/DivergentSyncCheck.h"

#include "analysis/passes/ValueFacts.h"
#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <algorithm>

namespace bankwise {

/// What makes E differ between threads: "'tx'", "a read of 'a'", "'i' (a
/// local that differs between threads)"; empty when nothing does.
std::string firstVarying(const ir::Expr &E, const ValueFacts &VF) {
  std::string Why;
  ir::forEachSubexpr(E, [&](const ir::Expr &X) {
    if (!Why.empty() || VF.uniform(X, true))
      return;
    if (const auto *B = X.as<ir::BuiltinRef>())
      Why = fmt::format("'{}'", ir::spelling(B->Which));
    else if (const auto *R = X.as<ir::ArrayRead>()) {
      // At an index that differs, the index is why (its parts come next).
      if (std::all_of(R->Indices.begin(), R->Indices.end(), [&](const ir::Expr &I) { return VF.uniform(I, true); }))
        Why = fmt::format("a read of '{}'", R->Array);
    }
    else if (const auto *V = X.as<ir::VarRef>())
      Why = fmt::format("'{}', which differs between threads", V->Name);
  });
  return Why.empty() ? "values that differ between threads" : Why;
}

namespace {

/// A branch or loop around the statements being walked, when it is not
/// uniform.
struct Divergent {
  const ir::Stmt *S = nullptr;
  SourceLoc Loc;
  std::string What; ///< "condition 'tx < 16'", "bounds of loop 'k'"
  std::string Why;
};

class Walker {
public:
  Walker(const ValueFacts &VF, std::vector<LintFinding> &Out, const ir::Kernel &K, std::string Barrier)
      : VF(VF), Out(Out), K(K), Barrier(std::move(Barrier)) {}

  void walk(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (const auto *I = S.as<ir::If>()) {
        const ValueRange R = VF.rangeOf(I->Cond);
        const bool Uniform = VF.uniform(I->Cond, true) || (R.Known && R.Lo == R.Hi);
        if (!Uniform)
          Stack.push_back({&S, I->Cond.Loc, fmt::format("the condition '{}'", ir::print(I->Cond)),
                           firstVarying(I->Cond, VF)});
        walk(I->Then);
        walk(I->Else);
        if (!Uniform)
          Stack.pop_back();
      } else if (const auto *F = S.as<ir::For>()) {
        const auto It = VF.LoopIndex.find(F);
        const bool Uniform = It == VF.LoopIndex.end() || (VF.uniform(F->Begin, true) && VF.uniform(F->End, true) &&
                                                          (!F->Step || VF.uniform(*F->Step, true)));
        if (!Uniform) {
          std::string Why = firstVarying(F->Begin, VF);
          if (VF.uniform(F->Begin))
            Why = firstVarying(VF.uniform(F->End) && F->Step ? *F->Step : F->End, VF);
          Stack.push_back({&S, S.Loc, fmt::format("the bounds of loop '{}'", F->Var), Why});
        }
        walk(F->Body);
        if (!Uniform)
          Stack.pop_back();
      } else if (const auto *Wh = S.as<ir::While>()) {
        const ValueRange R = VF.rangeOf(Wh->Cond);
        const bool Uniform = VF.uniform(Wh->Cond, true) || (R.Known && R.Lo == R.Hi);
        if (!Uniform)
          Stack.push_back({&S, Wh->Cond.Loc, fmt::format("the condition '{}' of the while loop", ir::print(Wh->Cond)),
                           firstVarying(Wh->Cond, VF)});
        walk(Wh->Body);
        if (!Uniform)
          Stack.pop_back();
      } else if (S.is<ir::Sync>() && !Stack.empty()) {
        const Divergent &D = Stack.front();
        const bool InLoop = D.S->is<ir::For>() || D.S->is<ir::While>();
        const bool Plural = D.S->is<ir::For>(); // "the bounds of loop 'k'"
        LintFinding F;
        F.Check = "bankwise-divergent-sync";
        F.Sev = Severity::Error;
        F.Loc = S.Loc;
        F.Message = fmt::format("'{}' {} differs between threads of a block in kernel '{}': threads that "
                                "skip it never reach the barrier",
                                Barrier, InLoop ? "in a loop whose trip count" : "under a condition that", K.Name);
        F.Notes.push_back({D.Loc, fmt::format("{} {} not uniform across the block: {} depend{} on {}", D.What,
                                              Plural ? "are" : "is", Plural ? "they" : "it", Plural ? "" : "s",
                                              D.Why)});
        F.Notes.push_back({S.Loc, InLoop ? fmt::format("move the '{}' out of the loop, or give the loop bounds that "
                                                       "are the same in every thread of the block (guard the "
                                                       "accesses inside instead)",
                                                       Barrier)
                                         : fmt::format("move the '{}' out of the 'if' (before or after it) so that "
                                                       "every thread of the block reaches it; guard only the accesses",
                                                       Barrier)});
        Out.push_back(std::move(F));
      }
    }
  }

private:
  const ValueFacts &VF;
  std::vector<LintFinding> &Out;
  const ir::Kernel &K;
  std::string Barrier;
  std::vector<Divergent> Stack;
};

} // namespace

std::vector<LintFinding> checkDivergentSync(const CheckedProgram &P) {
  std::vector<LintFinding> Out;
  for (const CheckedKernel &C : P.Kernels) {
    if (!C.Trace)
      continue;
    ValueFactsInput In;
    In.TableBound = [&](const std::string &Perm, bool) -> std::uint64_t {
      const ir::Permutation *Decl = P.Prog->findPerm(Perm);
      return Decl && Decl->Size ? static_cast<std::uint64_t>(*Decl->Size) : std::uint64_t(1) << 32;
    };
    std::optional<ValueFacts> VF;
    try {
      VF.emplace(*P.Prog, *C.K, std::move(In));
    } catch (const UserError &) {
      continue; // values codegen cannot type: compile says so itself
    }
    Walker(*VF, Out, *C.K, P.BarrierName).walk(C.K->Body);
  }
  return Out;
}

} // namespace bankwise
