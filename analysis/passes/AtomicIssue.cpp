#include "analysis/passes/AtomicIssue.h"

#include "analysis/passes/ValueFacts.h"
#include "ir/Walk.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <optional>

namespace bankwise {

std::string_view spelling(AtomicIssue I) {
  switch (I) {
  case AtomicIssue::PerLane: return "per lane";
  case AtomicIssue::OnePerWarp: return "one per warp";
  case AtomicIssue::PerAddress: return "per address";
  }
  return "per lane";
}

std::vector<Address> issuedLanes(std::span<const Address> Lanes, AtomicIssue I) {
  std::vector<Address> Out(Lanes.begin(), Lanes.end());
  if (I == AtomicIssue::PerLane)
    return Out;
  bool Seen = false;
  for (std::size_t L = 0; L < Out.size(); ++L) {
    if (Lanes[L] == NoAccess)
      continue;
    const auto Before = Lanes.begin() + static_cast<std::ptrdiff_t>(L);
    if ((I == AtomicIssue::OnePerWarp && Seen) ||
        (I == AtomicIssue::PerAddress && std::find(Lanes.begin(), Before, Lanes[L]) != Before))
      Out[L] = NoAccess;
    Seen = true;
  }
  return Out;
}

namespace {

bool is32BitInt(const ir::ElemType &T) {
  return T.Lanes == 1 && (T.Scalar == ir::ScalarType::I32 || T.Scalar == ir::ScalarType::U32);
}

/// The literal 1, as `1`, `1u` or `(int)1` lower.
bool isOne(const ir::Expr &E) {
  const auto *L = E.as<ir::IntLit>();
  return L && L->Value == 1;
}

struct Candidate {
  const ir::Atomic *A = nullptr;
  bool Used = false;
};

void collect(const ir::Block &B, std::vector<Candidate> &Out) {
  for (const ir::Stmt &S : B) {
    if (const auto *X = S.as<ir::ExprStmt>()) {
      if (const auto *A = X->Value.as<ir::Atomic>()) {
        Out.push_back({A, A->OldValueUsed});
        continue;
      }
    }
    // Atomics anywhere else (a let's initializer, an assigned value) use
    // their old value.
    auto Any = [&](const ir::Expr &E) {
      ir::forEachSubexpr(E, [&](const ir::Expr &Y) {
        if (const auto *A = Y.as<ir::Atomic>())
          Out.push_back({A, true});
      });
    };
    if (const auto *L = S.as<ir::Let>())
      Any(L->Init);
    else if (const auto *As = S.as<ir::Assign>()) {
      Any(As->Value);
      if (const auto *R = std::get_if<ir::ArrayRead>(&As->Target))
        for (const ir::Expr &I : R->Indices)
          Any(I);
    } else if (const auto *F = S.as<ir::For>()) {
      Any(F->Begin);
      Any(F->End);
      if (F->Step)
        Any(*F->Step);
      collect(F->Body, Out);
    } else if (const auto *I = S.as<ir::If>()) {
      Any(I->Cond);
      collect(I->Then, Out);
      collect(I->Else, Out);
    } else if (const auto *W = S.as<ir::While>()) {
      Any(W->Cond);
      collect(W->Body, Out);
    } else if (const auto *X = S.as<ir::ExprStmt>()) {
      Any(X->Value);
    }
  }
}

} // namespace

std::map<const ir::Atomic *, bool> atomicOldValueUsed(const ir::Kernel &K) {
  std::vector<Candidate> All;
  collect(K.Body, All);
  std::map<const ir::Atomic *, bool> Out;
  for (const Candidate &C : All)
    Out[C.A] = C.Used;
  return Out;
}

std::map<const ir::Atomic *, AtomicIssue> atomicIssues(const ir::Program &Prog, const ir::Kernel &K) {
  std::map<const ir::Atomic *, AtomicIssue> Out;
  std::vector<Candidate> All;
  collect(K.Body, All);
  std::optional<ValueFacts> VF;
  bool Tried = false;
  for (const Candidate &C : All) {
    const ir::Array *Arr = Prog.findArray(K, C.A->Target.Array);
    if (!Arr || !is32BitInt(Arr->Elem) || Arr->ViewOf)
      continue;
    const bool Shared = Arr->Space == ir::MemSpace::Shared;
    if (Arr->Space != ir::MemSpace::Shared && Arr->Space != ir::MemSpace::Global)
      continue;
    using Op = ir::AtomicOp;
    const bool Combines = Shared ? (C.A->Op == Op::Add || C.A->Op == Op::Sub || C.A->Op == Op::Min ||
                                    C.A->Op == Op::Max || C.A->Op == Op::And || C.A->Op == Op::Or ||
                                    C.A->Op == Op::Xor)
                                 : C.A->Op == Op::Add;
    if (Combines) {
      if (!Tried) {
        Tried = true;
        try {
          ValueFactsInput In;
          In.TableBound = [&](const std::string &Perm, bool) -> std::uint64_t {
            const ir::Permutation *Decl = Prog.findPerm(Perm);
            return Decl && Decl->Size ? static_cast<std::uint64_t>(*Decl->Size) : std::uint64_t(1) << 32;
          };
          VF.emplace(Prog, K, std::move(In));
        } catch (const UserError &) {
          // values codegen cannot type: no uniformity, lane by lane
        }
      }
      if (VF && std::all_of(C.A->Target.Indices.begin(), C.A->Target.Indices.end(),
                            [&](const ir::Expr &I) { return VF->uniform(I); })) {
        Out[C.A] = AtomicIssue::OnePerWarp;
        continue;
      }
    }
    if (Shared && C.A->Op == Op::Add && !C.Used && C.A->Args.size() == 1 && isOne(C.A->Args[0]))
      Out[C.A] = AtomicIssue::PerAddress;
  }
  return Out;
}

} // namespace bankwise
