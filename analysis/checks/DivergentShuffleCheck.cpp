#include "analysis/checks/DivergentShuffleCheck.h"

#include "analysis/checks/DivergentSyncCheck.h"
#include "analysis/checks/SharedRaceCheck.h"
#include "analysis/passes/ValueFacts.h"
#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace bankwise {

namespace {

/// The innermost `if`, loop or `while` around the statement holding Target
/// whose condition or bounds VF cannot prove the same in every thread:
/// where its note goes and what it says.
struct Split {
  SourceLoc Loc;
  std::string What;
};

class SplitFinder {
public:
  SplitFinder(const ValueFacts &VF, const ir::Shuffle *Target) : VF(VF), Target(Target) {}

  std::optional<Split> find(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (!holds(S))
        continue;
      // In a nested block, or in this statement's own expressions.
      std::optional<Split> Inner;
      if (const auto *I = S.as<ir::If>()) {
        if (!inCond(I->Cond))
          Inner = within(I->Cond, I->Cond.Loc, "the condition '" + ir::print(I->Cond) + "'", I->Then, &I->Else);
      } else if (const auto *W = S.as<ir::While>()) {
        if (!inCond(W->Cond))
          Inner = within(W->Cond, W->Cond.Loc, "the condition '" + ir::print(W->Cond) + "' of the while loop",
                         W->Body, nullptr);
      } else if (const auto *F = S.as<ir::For>()) {
        if (!inCond(F->Begin) && !inCond(F->End) && !(F->Step && inCond(*F->Step))) {
          const bool Uniform = VF.uniform(F->Begin, true) && VF.uniform(F->End, true) &&
                               (!F->Step || VF.uniform(*F->Step, true));
          std::optional<Split> Deeper = find(F->Body);
          if (Deeper || Uniform)
            return Deeper;
          return Split{S.Loc, fmt::format("the bounds of loop '{}' differ between threads: they depend on {}", F->Var,
                                          firstVarying(VF.uniform(F->Begin) ? F->End : F->Begin, VF))};
        }
      }
      return Inner;
    }
    return std::nullopt;
  }

private:
  const ValueFacts &VF;
  const ir::Shuffle *Target;

  bool inCond(const ir::Expr &E) const {
    return ir::anySubexpr(E, [&](const ir::Expr &X) { return X.as<ir::Shuffle>() == Target; });
  }

  bool holds(const ir::Block &B) const {
    bool Found = false;
    ir::forEachStmtExpr(B, [&](const ir::Expr &E) { Found = Found || inCond(E); });
    return Found;
  }

  /// S, its expressions or the blocks inside it, holds Target.
  bool holds(const ir::Stmt &S) const {
    if (const auto *L = S.as<ir::Let>())
      return inCond(L->Init);
    if (const auto *X = S.as<ir::ExprStmt>())
      return inCond(X->Value);
    if (const auto *A = S.as<ir::Assign>()) {
      const auto *T = std::get_if<ir::ArrayRead>(&A->Target);
      return inCond(A->Value) || (T && std::any_of(T->Indices.begin(), T->Indices.end(),
                                                  [&](const ir::Expr &I) { return inCond(I); }));
    }
    if (const auto *F = S.as<ir::For>())
      return inCond(F->Begin) || inCond(F->End) || (F->Step && inCond(*F->Step)) || holds(F->Body);
    if (const auto *W = S.as<ir::While>())
      return inCond(W->Cond) || holds(W->Body);
    if (const auto *I = S.as<ir::If>())
      return inCond(I->Cond) || holds(I->Then) || holds(I->Else);
    return false;
  }

  std::optional<Split> within(const ir::Expr &Cond, const SourceLoc &Loc, const std::string &What,
                              const ir::Block &Then, const ir::Block *Else) {
    std::optional<Split> Deeper = find(Then);
    if (!Deeper && Else)
      Deeper = find(*Else);
    const ValueRange R = VF.rangeOf(Cond);
    if (Deeper || VF.uniform(Cond, true) || (R.Known && R.Lo == R.Hi))
      return Deeper;
    return Split{Loc, fmt::format("{} differs between threads: it depends on {}", What, firstVarying(Cond, VF))};
  }
};

} // namespace

std::vector<LintFinding> checkDivergentShuffles(const CheckedProgram &P) {
  std::vector<LintFinding> Out;
  for (const CheckedKernel &C : P.Kernels) {
    // A condition on data stopped the trace of what it guards: whether the
    // lanes agree there is not known, so nothing is said.
    if (!C.Trace || C.Trace->Shuffles.empty() || C.Trace->DataControl)
      continue;
    const KernelTrace &T = *C.Trace;
    const ir::Kernel &K = *C.K;
    const std::int64_t Tpb = K.Geo.threadsPerBlock();
    std::map<std::int32_t, LintFinding> Found; // by shuffle
    for (const BlockTrace &B : T.Blocks) {
      std::map<std::pair<std::int32_t, std::int64_t>, std::vector<std::int64_t>> Runs; // (shuffle, warp) -> per lane
      for (const TracedShuffle &S : B.Shuffles) {
        std::vector<std::int64_t> &Lanes = Runs[{S.Shuffle, S.Thread / 32}];
        Lanes.resize(32, 0);
        ++Lanes[static_cast<std::size_t>(S.Thread % 32)];
      }
      for (const auto &[Key, Lanes] : Runs) {
        const auto [Shuffle, Warp] = Key;
        if (Found.count(Shuffle))
          continue;
        const std::int64_t Threads = std::min<std::int64_t>(32, Tpb - Warp * 32);
        const auto End = Lanes.begin() + Threads;
        const auto Lo = std::min_element(Lanes.begin(), End), Hi = std::max_element(Lanes.begin(), End);
        const std::string Text = ir::print(ir::Expr{*T.Shuffles[static_cast<std::size_t>(Shuffle)].first, {}});
        LintFinding F;
        F.Check = "bankwise-divergent-shuffle";
        F.Sev = Severity::Error;
        F.Loc = T.Shuffles[static_cast<std::size_t>(Shuffle)].second;
        if (Threads < 32) {
          F.Message = fmt::format("'{}' runs in warp {} of kernel '{}', which has {} threads{}: CUDA's full-mask "
                                  "shuffle needs all 32 lanes",
                                  Text, Warp, K.Name, Threads, blockSuffix(T, B));
          F.Notes.push_back({K.Geo.Loc, fmt::format("a block of {} threads is not a whole number of warps: make it "
                                                    "a multiple of 32",
                                                    Tpb)});
        } else if (*Lo != *Hi) {
          const auto LaneOf = [&](auto It) { return static_cast<std::int64_t>(It - Lanes.begin()); };
          const std::int64_t Reaching = std::count_if(Lanes.begin(), Lanes.end(), [](std::int64_t N) { return N > 0; });
          F.Message =
              *Lo == 0
                  ? fmt::format("'{}' runs in {} of the 32 lanes of warp {}{}: CUDA's full-mask shuffle needs every "
                                "lane of the warp (lane {} runs it, lane {} does not)",
                                Text, Reaching, Warp, blockSuffix(T, B), LaneOf(Hi), LaneOf(Lo))
                  : fmt::format("the lanes of warp {} run '{}' different numbers of times{} (lane {} {} times, lane "
                                "{} {}): CUDA's full-mask shuffle needs every lane of the warp each time",
                                Warp, Text, blockSuffix(T, B), LaneOf(Hi), *Hi, LaneOf(Lo), *Lo);
          ValueFactsInput In;
          In.TableBound = [&](const std::string &Perm, bool) -> std::uint64_t {
            const ir::Permutation *Decl = P.Prog->findPerm(Perm);
            return Decl && Decl->Size ? static_cast<std::uint64_t>(*Decl->Size) : std::uint64_t(1) << 32;
          };
          try {
            const ValueFacts VF(*P.Prog, K, std::move(In));
            if (std::optional<Split> S = SplitFinder(VF, T.Shuffles[static_cast<std::size_t>(Shuffle)].first)
                                             .find(K.Body))
              F.Notes.push_back({S->Loc, S->What});
          } catch (const UserError &) {
            // values codegen cannot type: compile says so itself
          }
          F.Notes.push_back({F.Loc, "run the shuffle in every lane of the warp (before the branch, or with a value "
                                    "that leaves the result unchanged in the lanes that do not need it)"});
        } else {
          continue;
        }
        if (!T.EveryBlock)
          F.Notes.push_back({K.Loc, fmt::format("warps checked in {} of kernel '{}'", T.blocksText(), K.Name)});
        Found.emplace(Shuffle, std::move(F));
      }
    }
    for (auto &[Shuffle, F] : Found)
      Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace bankwise
