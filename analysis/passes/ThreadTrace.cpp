#include "analysis/passes/ThreadTrace.h"

#include "analysis/passes/AtomicIssue.h"
#include "analysis/passes/PermutationTables.h"
#include "ir/Bind.h"
#include "ir/Eval.h"
#include "ir/Walk.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <unordered_map>

namespace bankwise {

namespace {

/// The work limit was reached: what was being traced is abandoned.
struct OverBudget {};

/// A shared, global or local array as the tracer sees it.
struct ArrayRt {
  const ir::Array *Decl = nullptr;
  const std::vector<std::int64_t> *Data = nullptr; ///< --data values
  std::optional<TableView> Holds;
  int CoverageIdx = -1; ///< into the coverage being filled, -1: none
  /// A view (ir::Array::ViewOf): the array whose memory it is; its element
  /// e is that array's Lanes * e .. Lanes * e + Lanes - 1.
  ArrayRt *Base = nullptr;
};

class Tracer {
public:
  Tracer(const ir::Program &Prog, const ir::Kernel &K, const TraceOptions &Opts, KernelTrace &Out)
      : Prog(Prog), K(K), Opts(Opts), Out(Out), Params(ir::paramValues(Prog)), Perms(Prog, Opts.Schedules) {
    BlockDim = K.Geo.BlockDim;
    Grid = K.Geo.GridDim;
    Tpb = K.Geo.threadsPerBlock();
    Warp = Prog.Mach ? Prog.Mach->warpSize() : 32;
    auto Add = [&](const ir::Array &A) {
      if (Arrays.count(A.Name))
        return; // the kernel's own array hides a top-level one
      ArrayRt R;
      R.Decl = &A;
      if (Opts.Data)
        if (auto It = Opts.Data->find(A.Name); It != Opts.Data->end())
          R.Data = &It->second;
      if (A.Holds)
        R.Holds = Perms.table(A.Holds->Perm, A.Holds->Inverse);
      Arrays.emplace(A.Name, R);
    };
    for (const ir::Array *A : K.arrays())
      Add(*A);
    for (const ir::Array &A : Prog.Arrays)
      Add(A);
    for (auto &[Name, A] : Arrays)
      if (A.Decl->ViewOf)
        if (auto It = Arrays.find(*A.Decl->ViewOf); It != Arrays.end())
          A.Base = &It->second;
    collectSites(K.Body);
    Out.Sites = Sites;
    ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) {
      ir::forEachSubexpr(Root, [&](const ir::Expr &E) {
        if (const auto *S = E.as<ir::Shuffle>()) {
          ShuffleOf.emplace(S, static_cast<std::int32_t>(Out.Shuffles.size()));
          Out.Shuffles.push_back({S, E.Loc});
        }
      });
    });
    Out.DataDependent.assign(Sites.size(), 0);
    Out.DataSource.assign(Sites.size(), "");
  }

  /// Runs every thread of block B; returns false when the work limit was
  /// reached.
  bool runBlock(const std::array<std::int64_t, 3> &B, BlockTrace *Shared, std::int64_t Limit) {
    Bid = B;
    CurShared = Shared;
    BudgetLeft = Limit;
    std::optional<std::int32_t> Syncs;
    try {
      for (std::int64_t T = 0; T < Tpb; ++T) {
        Flat = T;
        Tid3 = {T % BlockDim[0], (T / BlockDim[0]) % BlockDim[1], T / (BlockDim[0] * BlockDim[1])};
        Interval = 0;
        Seq = 0;
        Locals.clear();
        exec(K.Body);
        if (Syncs && *Syncs != Interval)
          Out.BarriersAgree = false;
        Syncs = Interval;
      }
    } catch (const OverBudget &) {
      return false;
    }
    return true;
  }

  std::int64_t used(std::int64_t Limit) const { return Limit - BudgetLeft; }

  std::vector<ArrayCoverage> *CurCoverage = nullptr;
  std::map<std::string, ArrayRt, std::less<>> Arrays;

private:
  void collectSites(const ir::Block &B) {
    const std::map<const ir::Atomic *, bool> OldUsed = atomicOldValueUsed(K);
    ir::forEachStmtExpr(B, [&](const ir::Expr &Root) {
      ir::forEachSubexpr(Root, [&](const ir::Expr &E) {
        if (const auto *R = E.as<ir::ArrayRead>())
          addSite(R, E.Loc, false);
        if (const auto *A = E.as<ir::Atomic>()) {
          addSite(&A->Target, E.Loc, true, true);
          const auto U = OldUsed.find(A);
          if (A->Op == ir::AtomicOp::Exch && U != OldUsed.end() && !U->second && !Sites.empty() &&
              Sites.back().Node == &A->Target)
            Sites.back().ReadsOld = false;
        }
      });
    });
    walkWrites(B);
  }
  void walkWrites(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (const auto *A = S.as<ir::Assign>()) {
        if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target))
          addSite(R, S.Loc, true);
      } else if (const auto *F = S.as<ir::For>()) {
        walkWrites(F->Body);
      } else if (const auto *Wh = S.as<ir::While>()) {
        walkWrites(Wh->Body);
      } else if (const auto *I = S.as<ir::If>()) {
        walkWrites(I->Then);
        walkWrites(I->Else);
      }
    }
  }
  void addSite(const ir::ArrayRead *R, const SourceLoc &Loc, bool IsWrite, bool Atomic = false) {
    const ir::Array *A = Prog.findArray(K, R->Array);
    if (A && A->ViewOf) // a view's accesses are its array's elements
      A = Prog.findArray(K, *A->ViewOf);
    if (!A || A->Space == ir::MemSpace::Local)
      return;
    SiteOf.emplace(R, static_cast<int>(Sites.size()));
    const bool Uncertain =
        std::find(Opts.UncertainSites.begin(), Opts.UncertainSites.end(), Loc) != Opts.UncertainSites.end();
    Sites.push_back({R, Loc, A, IsWrite, Uncertain, Atomic});
  }

  void spend() {
    if (--BudgetLeft < 0)
      throw OverBudget{};
  }

  [[noreturn]] void runtimeError(const SourceLoc &Loc, const std::string &Msg) const {
    const std::int64_t BlockLin = (Bid[2] * Grid[1] + Bid[1]) * Grid[0] + Bid[0];
    throw UserError(Loc, fmt::format("{} (thread tid = {}: block ({}, {}, {}), thread ({}, {}, {}))", Msg,
                                     BlockLin * Tpb + Flat, Bid[0], Bid[1], Bid[2], Tid3[0], Tid3[1], Tid3[2]));
  }

  std::optional<std::int64_t> builtin(ir::Builtin B) const {
    switch (B) {
    case ir::Builtin::Tx: return Tid3[0];
    case ir::Builtin::Ty: return Tid3[1];
    case ir::Builtin::Tz: return Tid3[2];
    case ir::Builtin::Bx: return Bid[0];
    case ir::Builtin::By: return Bid[1];
    case ir::Builtin::Bz: return Bid[2];
    case ir::Builtin::Lane: return Flat % Warp;
    case ir::Builtin::Warp: return Flat / Warp;
    case ir::Builtin::Tid: return ((Bid[2] * Grid[1] + Bid[1]) * Grid[0] + Bid[0]) * Tpb + Flat;
    }
    return std::nullopt;
  }

  /// A local's value, and when it is unknown, why (Why when assigned).
  struct LocalSlot {
    const std::string *Name = nullptr;
    std::optional<std::int64_t> Value;
    const std::string *Why = nullptr;
  };
  LocalSlot *findLocal(const std::string &Name) {
    for (auto It = Locals.rbegin(); It != Locals.rend(); ++It)
      if (*It->Name == Name)
        return &*It;
    return nullptr;
  }

  /// Why the value evaluated last is unknown: Node's description, made
  /// once (Make) and kept for the run.
  template <typename F> void unknownBecause(const void *Node, F Make) {
    auto It = Origins.find(Node);
    if (It == Origins.end())
      It = Origins.emplace(Node, Make()).first;
    Why = &It->second;
  }

  /// The value of E in the current thread; nullopt when it reads unknown data.
  std::optional<std::int64_t> eval(const ir::Expr &E) {
    spend();
    if (const auto *L = E.as<ir::IntLit>())
      return L->Value;
    if (E.is<ir::FloatLit>()) { // a value, never an index (Sema)
      unknownBecause(&E, [] { return std::string("takes a floating-point value"); });
      return std::nullopt;
    }
    if (const auto *Sel = E.as<ir::Select>()) {
      // Only the chosen arm runs (and accesses memory).
      const std::optional<std::int64_t> C = eval(*Sel->Cond);
      if (!C) {
        noteDataControl(E.Loc);
        return std::nullopt;
      }
      return eval(*C != 0 ? *Sel->Then : *Sel->Else);
    }
    if (const auto *V = E.as<ir::VarRef>()) {
      if (LocalSlot *Slot = findLocal(V->Name)) {
        if (!Slot->Value)
          Why = Slot->Why;
        return Slot->Value;
      }
      if (auto It = Params.find(V->Name); It != Params.end())
        return It->second;
      runtimeError(E.Loc, fmt::format("'{}' has no value", V->Name));
    }
    if (const auto *B = E.as<ir::BuiltinRef>())
      return builtin(B->Which);
    if (const auto *U = E.as<ir::Unary>()) {
      const std::optional<std::int64_t> X = eval(*U->Operand);
      if (!X)
        return std::nullopt;
      switch (U->Op) {
      case ir::UnaryOp::Neg:
        if (*X == INT64_MIN)
          runtimeError(E.Loc, fmt::format("integer overflow: -({}) does not fit in 64 bits", *X));
        return -*X;
      case ir::UnaryOp::Not: return *X == 0 ? 1 : 0;
      case ir::UnaryOp::BitNot: return ~*X;
      }
    }
    if (const auto *B = E.as<ir::Binary>()) {
      const std::optional<std::int64_t> L = eval(*B->Lhs);
      if (B->Op == ir::BinaryOp::LogAnd || B->Op == ir::BinaryOp::LogOr) {
        if (!L)
          return std::nullopt;
        const bool LhsTrue = *L != 0;
        if (B->Op == ir::BinaryOp::LogAnd ? !LhsTrue : LhsTrue)
          return LhsTrue ? 1 : 0;
        const std::optional<std::int64_t> R = eval(*B->Rhs);
        if (!R)
          return std::nullopt;
        return *R != 0 ? 1 : 0;
      }
      const std::optional<std::int64_t> R = eval(*B->Rhs);
      if (!L || !R)
        return std::nullopt;
      return checked(ir::applyBinary(B->Op, *L, *R, E.Loc));
    }
    if (const auto *C = E.as<ir::Call>()) {
      std::vector<std::int64_t> Args;
      bool Known = true;
      for (const ir::Expr &A : C->Args) {
        const std::optional<std::int64_t> V = eval(A);
        Known = Known && V;
        Args.push_back(V.value_or(0));
      }
      if (!Known)
        return std::nullopt;
      return checked(ir::applyCall(C->Fn, Args, E.Loc));
    }
    if (const auto *P = E.as<ir::PermApply>()) {
      const std::optional<std::int64_t> X = eval(*P->Arg);
      if (!X)
        return std::nullopt;
      const Permutation &Perm = Perms.get(P->Perm, P->Inverse);
      if (*X < 0 || static_cast<std::uint64_t>(*X) >= Perm.size())
        runtimeError(E.Loc, fmt::format("index {} is outside 0..{} of permutation '{}'", *X, Perm.size() - 1,
                                        P->Perm));
      return static_cast<std::int64_t>(Perm(static_cast<std::uint64_t>(*X)));
    }
    if (const auto *S = E.as<ir::Shuffle>()) {
      // The thread runs it (its value's reads are its own); the value is
      // another lane's, which this run does not have: data.
      const bool ValueKnown = eval(*S->Value).has_value();
      const std::optional<std::int64_t> Arg = eval(*S->Lane);
      const bool LaneKnown = Arg.has_value();
      // The analyzer checks this too, but only where a figure depends on the
      // shuffle's value (Analyzer::evalReads).
      if (Arg && *Arg < 0 && S->Op != ir::ShuffleOp::Idx)
        runtimeError(E.Loc, fmt::format("the {} of '{}' is {}, negative",
                                        S->Op == ir::ShuffleOp::Xor ? "lane mask" : "distance", ir::spelling(S->Op),
                                        *Arg));
      if (CurShared)
        CurShared->Shuffles.push_back({ShuffleOf.at(S), static_cast<std::int32_t>(Flat)});
      // Data it moves names its own source; otherwise the shuffle is why.
      if (ValueKnown && LaneKnown)
        unknownBecause(&E, [&] {
          return fmt::format("takes the value of '{}' at {}:{}, another lane's, which a thread-by-thread run "
                             "does not have",
                             ir::spelling(S->Op), E.Loc.Line, E.Loc.Col);
        });
      return std::nullopt;
    }
    if (const auto *A = E.as<ir::Atomic>()) {
      // Its values, then one read-modify-write of the element (traced as a
      // write of an atomic site); the old value is data.
      for (const ir::Expr &V : A->Args)
        eval(V);
      access(A->Target, E.Loc, true);
      unknownBecause(&E, [&] {
        return fmt::format("takes the old value of '{}' on '{}' at {}:{}, which depends on the order of the threads",
                           ir::spelling(A->Op), A->Target.Array, E.Loc.Line, E.Loc.Col);
      });
      return std::nullopt;
    }
    const auto &R = std::get<ir::ArrayRead>(E.Node);
    return access(R, E.Loc, false);
  }

  std::int64_t checked(const ir::EvalResult &R) {
    if (!R.ok())
      runtimeError(R.Loc, R.Message);
    return R.Value;
  }

  /// Reads (or, IsWrite, writes) element R of the current thread; the value
  /// read when known.
  std::optional<std::int64_t> access(const ir::ArrayRead &R, const SourceLoc &Loc, bool IsWrite) {
    // The indices, in a buffer on the stack (an index may read an array:
    // this function runs inside itself).
    constexpr std::size_t Inline = 8;
    std::int64_t IdxInline[Inline];
    std::vector<std::int64_t> IdxHeap;
    std::int64_t *Idx = IdxInline;
    if (R.Indices.size() > Inline) {
      IdxHeap.resize(R.Indices.size());
      Idx = IdxHeap.data();
    }
    bool Known = true;
    for (std::size_t D = 0; D < R.Indices.size(); ++D) {
      const std::optional<std::int64_t> V = eval(R.Indices[D]);
      Known = Known && V;
      Idx[D] = V.value_or(0);
    }
    // The node's array and site, looked up by name once per node.
    auto NIt = Resolved.find(&R);
    if (NIt == Resolved.end()) {
      const auto AIt = Arrays.find(R.Array);
      if (AIt == Arrays.end())
        runtimeError(Loc, fmt::format("unknown array '{}'", R.Array));
      const auto SIt = SiteOf.find(&R);
      NIt = Resolved.emplace(&R, NodeArray{&AIt->second, SIt == SiteOf.end() ? -1 : SIt->second}).first;
    }
    const ArrayRt &A = *NIt->second.Array;
    const ArrayRt &Mem = A.Base ? *A.Base : A; // whose elements these are
    const int Site = NIt->second.Site;
    if (!Known) {
      if (Site >= 0 && CurShared) {
        ++Out.DataDependent[static_cast<std::size_t>(Site)];
        std::string &Src = Out.DataSource[static_cast<std::size_t>(Site)];
        if (Src.empty())
          Src = Why ? *Why : "reads data whose values are unknown";
      }
      if (IsWrite && Mem.CoverageIdx >= 0 && CurCoverage)
        (*CurCoverage)[static_cast<std::size_t>(Mem.CoverageIdx)].DataDependentWrite = true;
      return std::nullopt;
    }
    std::int64_t Elem = 0;
    const std::vector<std::int64_t> &Shape = A.Decl->Shape;
    for (std::size_t D = 0; D < R.Indices.size() && D < Shape.size(); ++D) {
      if (Idx[D] < 0 || Idx[D] >= Shape[D])
        runtimeError(Loc, fmt::format("index {} of '{}' is {}, outside 0..{}", D, R.Array, Idx[D], Shape[D] - 1));
      Elem = Elem * Shape[D] + Idx[D];
    }
    if (Site >= 0) {
      // A view's element is Lanes elements of its array, one access.
      const std::int64_t Lanes = A.Base ? A.Decl->Elem.Lanes : 1;
      for (std::int64_t E = Elem * Lanes; E < (Elem + 1) * Lanes; ++E) {
        if (Mem.Decl->Space == ir::MemSpace::Shared && CurShared)
          CurShared->Shared.push_back({E, Seq, Site, static_cast<std::int32_t>(Flat), Interval, IsWrite});
        else if (IsWrite && Mem.CoverageIdx >= 0 && CurCoverage)
          (*CurCoverage)[static_cast<std::size_t>(Mem.CoverageIdx)].Written[static_cast<std::size_t>(E)] = true;
      }
      ++Seq;
    }
    if (IsWrite || A.Base)
      return std::nullopt; // a view's value is a vector
    if (A.Holds)
      return static_cast<std::int64_t>((*A.Holds)(static_cast<std::uint64_t>(Elem)));
    if (A.Data && static_cast<std::size_t>(Elem) < A.Data->size())
      return (*A.Data)[static_cast<std::size_t>(Elem)];
    unknownBecause(&R, [&] {
      return A.Decl->Space == ir::MemSpace::Local
                 ? fmt::format("reads '{}', a local array whose values the check does not follow", R.Array)
                 : fmt::format("reads '{}', whose values are unknown (declare it with 'holds' or give --data)",
                               R.Array);
    });
    return std::nullopt;
  }

  void noteDataControl(const SourceLoc &Loc) {
    if (!Out.DataControl)
      Out.DataControl = Loc;
  }

  /// Statements skipped because data decides whether they run (a branch, a
  /// loop): the locals they assign are unknown afterwards, not the values
  /// they held before (`v = 0; if (data) v = s[i]; s2[v] = x` once gave
  /// every thread index 0, and a race that is not there).
  void forgetAssigned(const ir::Block &B, const SourceLoc &Loc) {
    for (const ir::Stmt &S : B) {
      if (const auto *A = S.as<ir::Assign>()) {
        if (const auto *Var = std::get_if<ir::VarRef>(&A->Target))
          if (LocalSlot *Slot = findLocal(Var->Name)) {
            unknownBecause(&S, [&] {
              return fmt::format("is assigned under a condition on data at {}:{}", Loc.Line, Loc.Col);
            });
            Slot->Value = std::nullopt;
            Slot->Why = Why;
          }
      } else if (const auto *F = S.as<ir::For>()) {
        forgetAssigned(F->Body, Loc);
      } else if (const auto *W = S.as<ir::While>()) {
        forgetAssigned(W->Body, Loc);
      } else if (const auto *I = S.as<ir::If>()) {
        forgetAssigned(I->Then, Loc);
        forgetAssigned(I->Else, Loc);
      }
    }
  }

  void exec(const ir::Block &B) {
    const std::size_t Mark = Locals.size();
    for (const ir::Stmt &S : B)
      execStmt(S);
    Locals.resize(Mark);
  }

  void execStmt(const ir::Stmt &S) {
    spend();
    if (const auto *L = S.as<ir::Let>()) {
      const std::optional<std::int64_t> V = eval(L->Init);
      Locals.push_back({&L->Name, V, V ? nullptr : Why});
    } else if (const auto *A = S.as<ir::Assign>()) {
      const std::optional<std::int64_t> V = eval(A->Value);
      if (const auto *Var = std::get_if<ir::VarRef>(&A->Target)) {
        if (LocalSlot *Slot = findLocal(Var->Name)) {
          Slot->Value = V;
          Slot->Why = V ? nullptr : Why;
        }
      } else {
        access(std::get<ir::ArrayRead>(A->Target), S.Loc, true);
      }
    } else if (const auto *F = S.as<ir::For>()) {
      const std::optional<std::int64_t> Begin = eval(F->Begin), End = eval(F->End);
      std::optional<std::int64_t> Step = 1;
      if (F->Step)
        Step = eval(*F->Step);
      if (!Begin || !End || !Step) {
        noteDataControl(S.Loc);
        forgetAssigned(F->Body, S.Loc);
        return;
      }
      if (*Step == 0)
        runtimeError(S.Loc, "loop step is zero");
      Locals.push_back({&F->Var, *Begin, nullptr});
      const std::size_t Slot = Locals.size() - 1;
      for (std::int64_t V = *Begin; *Step > 0 ? V < *End : V > *End;) {
        Locals[Slot].Value = V;
        exec(F->Body);
        if (__builtin_add_overflow(V, *Step, &V))
          break;
      }
      Locals.resize(Slot);
    } else if (const auto *Wh = S.as<ir::While>()) {
      // Each trip spends budget, so a loop that does not end stops the
      // trace (OverBudget), never the tool.
      while (true) {
        const std::optional<std::int64_t> C = eval(Wh->Cond);
        if (!C) {
          noteDataControl(Wh->Cond.Loc);
          forgetAssigned(Wh->Body, Wh->Cond.Loc);
          return;
        }
        if (*C == 0)
          break;
        exec(Wh->Body);
      }
    } else if (const auto *I = S.as<ir::If>()) {
      const std::optional<std::int64_t> C = eval(I->Cond);
      if (!C) {
        noteDataControl(I->Cond.Loc);
        forgetAssigned(I->Then, I->Cond.Loc);
        forgetAssigned(I->Else, I->Cond.Loc);
        return;
      }
      exec(*C != 0 ? I->Then : I->Else);
    } else if (const auto *X = S.as<ir::ExprStmt>()) {
      eval(X->Value);
    } else if (S.is<ir::Sync>()) {
      ++Interval;
    }
  }

  const ir::Program &Prog;
  const ir::Kernel &K;
  const TraceOptions &Opts;
  KernelTrace &Out;
  ir::ConstEnv Params;
  PermutationTables Perms;
  std::vector<TraceSite> Sites;
  std::unordered_map<const ir::ArrayRead *, int> SiteOf;
  /// Each accessed node's array (into Arrays, whose elements stay put) and
  /// site (-1: none), filled as nodes are first accessed.
  struct NodeArray {
    const ArrayRt *Array = nullptr;
    int Site = -1;
  };
  std::unordered_map<const ir::ArrayRead *, NodeArray> Resolved;
  std::unordered_map<const ir::Shuffle *, std::int32_t> ShuffleOf;
  std::array<std::int64_t, 3> BlockDim{1, 1, 1}, Grid{1, 1, 1};
  std::int64_t Tpb = 1, Warp = 32;

  // The current thread.
  std::array<std::int64_t, 3> Bid{0, 0, 0}, Tid3{0, 0, 0};
  std::int64_t Flat = 0, Seq = 0;
  std::int32_t Interval = 0;
  std::vector<LocalSlot> Locals;
  /// Why the last unknown value is (into Origins), null before any.
  const std::string *Why = nullptr;
  /// The description of each node that made a value unknown.
  std::unordered_map<const void *, std::string> Origins;
  BlockTrace *CurShared = nullptr;
  std::int64_t BudgetLeft = 0;
};

/// Blocks 0, 1, G-2 and G-1 of each dimension, combined, in order.
std::vector<std::array<std::int64_t, 3>> representativeBlocks(const std::array<std::int64_t, 3> &Grid) {
  std::array<std::vector<std::int64_t>, 3> Pick;
  for (int D = 0; D < 3; ++D) {
    std::set<std::int64_t> S;
    for (std::int64_t V : {std::int64_t(0), std::int64_t(1), Grid[D] - 2, Grid[D] - 1})
      if (V >= 0 && V < Grid[D])
        S.insert(V);
    Pick[D].assign(S.begin(), S.end());
  }
  std::vector<std::array<std::int64_t, 3>> Out;
  for (std::int64_t Z : Pick[2])
    for (std::int64_t Y : Pick[1])
      for (std::int64_t X : Pick[0])
        Out.push_back({X, Y, Z});
  return Out;
}

} // namespace

std::string elementText(const ir::Array &Arr, std::int64_t Elem) {
  std::vector<std::int64_t> Idx(Arr.Shape.size());
  for (std::size_t D = Arr.Shape.size(); D-- > 0;) {
    Idx[D] = Elem % Arr.Shape[D];
    Elem /= Arr.Shape[D];
  }
  std::string S = Arr.Name;
  for (std::int64_t I : Idx)
    S += fmt::format("[{}]", I);
  return S;
}

std::string threadText(const std::array<std::int64_t, 3> &BlockDim, std::int64_t Flat) {
  return fmt::format("({}, {}, {})", Flat % BlockDim[0], (Flat / BlockDim[0]) % BlockDim[1],
                     Flat / (BlockDim[0] * BlockDim[1]));
}

std::string KernelTrace::blocksText() const {
  if (EveryBlock)
    return NumBlocks == 1 ? "its one block" : fmt::format("every block ({})", NumBlocks);
  std::vector<std::string> Names;
  for (const BlockTrace &B : Blocks)
    Names.push_back(fmt::format("({}, {}, {})", B.Block[0], B.Block[1], B.Block[2]));
  return fmt::format("block{} {} ({} of {})", Names.size() == 1 ? "" : "s", fmt::join(Names, ", "), Names.size(),
                     NumBlocks);
}

KernelTrace traceKernel(const ir::Program &Prog, const ir::Kernel &K, const TraceOptions &Opts) {
  KernelTrace Out;
  Tracer T(Prog, K, Opts, Out);
  const std::array<std::int64_t, 3> Grid = K.Geo.GridDim;
  Out.NumBlocks = Grid[0] * Grid[1] * Grid[2];
  // Blocks are run for their shared accesses and for their shuffles.
  const bool AnyShared = !Out.Shuffles.empty() ||
                         std::any_of(Out.Sites.begin(), Out.Sites.end(),
                                     [](const TraceSite &S) { return S.Arr->Space == ir::MemSpace::Shared; });

  // The shared accesses of every block, or of the representative ones.
  if (AnyShared) {
    std::vector<std::array<std::int64_t, 3>> Blocks;
    Out.EveryBlock = Out.NumBlocks <= Opts.EveryBlockLimit;
    if (Out.EveryBlock) {
      for (std::int64_t B = 0; B < Out.NumBlocks; ++B)
        Blocks.push_back({B % Grid[0], (B / Grid[0]) % Grid[1], B / (Grid[0] * Grid[1])});
    } else {
      Blocks = representativeBlocks(Grid);
    }
    std::int64_t Left = Opts.SharedWorkLimit;
    for (const auto &B : Blocks) {
      BlockTrace BT;
      BT.Block = B;
      if (!T.runBlock(B, &BT, Left)) {
        Out.EveryBlock = false;
        if (Out.Blocks.empty())
          Out.SharedWhy = fmt::format("one block takes more than {} evaluation steps", Opts.SharedWorkLimit);
        break;
      }
      Left -= T.used(Left);
      Out.Blocks.push_back(std::move(BT));
    }
  }

  // Which elements of each written global array the whole launch writes.
  if (!Opts.Coverage)
    return Out;
  // Only arrays the kernel never reads: one it reads is in-place data, not
  // an output, and evaluating a launch costs a third of a second at the limit.
  std::set<const ir::Array *> ReadArrays;
  for (const TraceSite &S : Out.Sites)
    if (!S.IsWrite)
      ReadArrays.insert(S.Arr);
  std::vector<ArrayCoverage> Cov;
  for (const TraceSite &S : Out.Sites) {
    if (!S.IsWrite || S.Arr->Space != ir::MemSpace::Global || ReadArrays.count(S.Arr))
      continue;
    ArrayRt &A = T.Arrays.at(S.Arr->Name);
    if (A.CoverageIdx >= 0)
      continue;
    if (S.Arr->numElements() > (std::int64_t(1) << 30)) {
      Out.CoverageWhy = fmt::format("'{}' has {} elements", S.Arr->Name, S.Arr->numElements());
      return Out;
    }
    A.CoverageIdx = static_cast<int>(Cov.size());
    Cov.push_back({S.Arr, std::vector<bool>(static_cast<std::size_t>(S.Arr->numElements()), false), false});
  }
  if (Cov.empty()) {
    Out.CoverageTraced = true;
    return Out;
  }
  T.CurCoverage = &Cov;
  std::int64_t Left = Opts.CoverageWorkLimit;
  for (std::int64_t B = 0; B < Out.NumBlocks; ++B) {
    const bool Done = T.runBlock({B % Grid[0], (B / Grid[0]) % Grid[1], B / (Grid[0] * Grid[1])}, nullptr, Left);
    // The first block's work times the blocks estimates the launch's: stop
    // at once rather than spend the limit on a launch it cannot finish.
    const bool Hopeless = Done && B == 0 && Out.NumBlocks > 1 &&
                          static_cast<double>(T.used(Left)) * static_cast<double>(Out.NumBlocks) >
                              static_cast<double>(Opts.CoverageWorkLimit);
    if (!Done || Hopeless) {
      Out.CoverageWhy = fmt::format("the launch takes more than {} evaluation steps (give smaller sizes with -D)",
                                    Opts.CoverageWorkLimit);
      T.CurCoverage = nullptr;
      return Out;
    }
    Left -= T.used(Left);
  }
  T.CurCoverage = nullptr;
  Out.Coverage = std::move(Cov);
  Out.CoverageTraced = true;
  return Out;
}

} // namespace bankwise
