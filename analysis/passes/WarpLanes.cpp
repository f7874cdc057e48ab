#include "analysis/passes/WarpLanes.h"

#include "analysis/passes/ArrayLayout.h"
#include "ir/Eval.h"
#include "ir/Walk.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace bankwise {

namespace {

/// Runs one thread of K through its body and records the flat element
/// index of each arrival at Target, until MaxHits arrivals.
class ThreadWalk {
public:
  ThreadWalk(const ir::Program &P, const ir::Kernel &K, const ir::ArrayRead *Target,
             const std::array<std::int64_t, 3> &Block, const std::array<std::int64_t, 3> &Grid, std::int64_t Thread,
             const ir::Bindings &Sizes, std::size_t MaxHits, bool Whiles = false)
      : P(P), K(K), Target(Target), Sizes(Sizes), Bid(Block), Grid(Grid), MaxHits(MaxHits), Whiles(Whiles) {
    const auto &B = K.Geo.BlockDim;
    T = {Thread % B[0], Thread / B[0] % B[1], Thread / (B[0] * B[1])};
    Flat = Thread;
    Tid = ((Bid[2] * Grid[1] + Bid[1]) * Grid[0] + Bid[0]) * K.Geo.threadsPerBlock() + Thread;
    Arr = Target ? P.findArray(K, Target->Array) : nullptr;
  }

  std::vector<std::int64_t> run() {
    if (Arr && MaxHits > 0)
      walk(K.Body);
    return std::move(Hits);
  }

  /// The value of E with no thread (a grid dimension).
  std::optional<std::int64_t> value(const ir::Expr &E) { return eval(E); }

private:
  const ir::Program &P;
  const ir::Kernel &K;
  const ir::ArrayRead *Target;
  const ir::Bindings &Sizes; ///< values of P's runtime sizes
  std::array<std::int64_t, 3> Bid, Grid;
  std::size_t MaxHits;
  bool Whiles; ///< walk a `while` whose condition is known (else stop there)
  const ir::Array *Arr = nullptr;
  std::array<std::int64_t, 3> T{};
  std::int64_t Flat = 0, Tid = 0;
  std::map<std::string, std::int64_t> Env;
  std::vector<std::int64_t> Hits;
  int Budget = 20000;
  int Depth = 0;

  bool done() const { return Hits.size() >= MaxHits || Budget < 0; }

  std::optional<std::int64_t> eval(const ir::Expr &E) {
    ir::EvalHooks H;
    H.Var = [&](const ir::VarRef &R) -> std::optional<std::int64_t> {
      if (auto It = Env.find(R.Name); It != Env.end())
        return It->second;
      const ir::Param *Pm = P.findParam(R.Name);
      if (!Pm)
        return std::nullopt;
      if (!Pm->Runtime)
        return Pm->Value;
      if (auto It = Sizes.find(R.Name); It != Sizes.end())
        return It->second;
      if (!Pm->Init || Depth >= 64)
        return std::nullopt;
      ++Depth; // a derived size: its expression, at most 64 deep
      const std::optional<std::int64_t> V = eval(*Pm->Init);
      --Depth;
      return V;
    };
    H.BuiltinValue = [&](ir::Builtin B) -> std::optional<std::int64_t> {
      switch (B) {
      case ir::Builtin::Tid: return Tid;
      case ir::Builtin::Lane: return Flat % 32;
      case ir::Builtin::Warp: return Flat / 32;
      case ir::Builtin::Tx: return T[0];
      case ir::Builtin::Ty: return T[1];
      case ir::Builtin::Tz: return T[2];
      case ir::Builtin::Bx: return Bid[0];
      case ir::Builtin::By: return Bid[1];
      case ir::Builtin::Bz: return Bid[2];
      }
      return std::nullopt;
    };
    const ir::EvalResult R = ir::evaluate(E, H);
    return R.ok() ? std::optional<std::int64_t>(R.Value) : std::nullopt;
  }

  void reach(const ir::ArrayRead &R) {
    if (&R != Target || done())
      return;
    if (Arr->Shape.size() != R.Indices.size()) {
      Hits.push_back(UnknownElement);
      return;
    }
    // Row-major, unchecked: the lint's lane stride reads it in programs
    // whose runtime extents are not bound (laneAddresses checks bounds).
    std::int64_t FlatElem = 0;
    for (std::size_t I = 0; I < R.Indices.size(); ++I) {
      std::optional<std::int64_t> V = eval(R.Indices[I]);
      if (!V) {
        Hits.push_back(UnknownElement);
        return;
      }
      FlatElem = FlatElem * Arr->Shape[I] + *V;
    }
    Hits.push_back(FlatElem);
  }

  void scan(const ir::Expr &E) {
    ir::forEachChild(E, [&](const ir::Expr &C) { scan(C); });
    if (const auto *R = E.as<ir::ArrayRead>())
      reach(*R);
    if (const auto *A = ir::atomicTarget(E))
      reach(*A);
  }

  void set(const std::string &Name, const ir::Expr &E) {
    if (std::optional<std::int64_t> V = eval(E))
      Env[Name] = *V;
    else
      Env.erase(Name);
  }

  /// Walks B; a statement whose course depends on a value the walk cannot
  /// know (an `if` on data, a loop with unknown bounds, a `while`) ends the
  /// walk of B, and the enclosing block goes on.
  void walk(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (done() || --Budget < 0)
        return;
      if (const auto *L = S.as<ir::Let>()) {
        scan(L->Init);
        set(L->Name, L->Init);
      } else if (const auto *X = S.as<ir::ExprStmt>()) {
        scan(X->Value);
      } else if (const auto *A = S.as<ir::Assign>()) {
        scan(A->Value);
        if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target)) {
          for (const ir::Expr &I : R->Indices)
            scan(I);
          reach(*R);
        } else {
          set(std::get<ir::VarRef>(A->Target).Name, A->Value);
        }
      } else if (const auto *F = S.as<ir::For>()) {
        std::optional<std::int64_t> Begin = eval(F->Begin), End = eval(F->End);
        std::optional<std::int64_t> Step = F->Step ? eval(*F->Step) : std::optional<std::int64_t>(1);
        if (!Begin || !End || !Step || *Step == 0)
          return;
        for (std::int64_t V = *Begin, Trip = 0; (*Step > 0 ? V < *End : V > *End) && Trip < 64 && !done();
             V += *Step, ++Trip) {
          Env[F->Var] = V;
          walk(F->Body);
        }
        Env.erase(F->Var);
      } else if (const auto *W = S.as<ir::While>()) {
        // Walked while its condition is known, at most 64 trips; the lane
        // stride's walk stops here, as it always has.
        for (int Trip = 0; Whiles && Trip < 64 && !done(); ++Trip) {
          scan(W->Cond);
          std::optional<std::int64_t> C = eval(W->Cond);
          if (!C)
            return;
          if (!*C)
            break;
          walk(W->Body);
        }
        if (!Whiles) {
          scan(W->Cond); // its trips are the data's: the walk stops here
          return;
        }
      } else if (const auto *I = S.as<ir::If>()) {
        scan(I->Cond);
        std::optional<std::int64_t> C = eval(I->Cond);
        if (!C)
          return;
        walk(*C ? I->Then : I->Else);
      }
    }
  }
};

/// The grid's dimensions: K's values, or its expressions at Sizes; nullopt
/// when one cannot be evaluated.
std::optional<std::array<std::int64_t, 3>> gridOf(const ir::Program &P, const ir::Kernel &K,
                                                  const ir::Bindings &Sizes) {
  if (P.runtimeParams().empty() || K.Geo.IsThreads)
    return K.Geo.GridDim;
  std::array<std::int64_t, 3> G{1, 1, 1};
  ThreadWalk W(P, K, nullptr, {0, 0, 0}, G, 0, Sizes, 0);
  for (std::size_t I = 0; I < K.Geo.Grid.size() && I < 3; ++I) {
    std::optional<std::int64_t> V = W.value(K.Geo.Grid[I]);
    if (!V || *V < 1)
      return std::nullopt;
    G[I] = *V;
  }
  return G;
}

std::string blockText(const std::array<std::int64_t, 3> &B) { return fmt::format("({}, {}, {})", B[0], B[1], B[2]); }

} // namespace

std::vector<std::int64_t> threadSiteElements(const ir::Program &Prog, const ir::Kernel &K, const ir::ArrayRead *Node,
                                             const std::array<std::int64_t, 3> &Block, std::int64_t Thread,
                                             const ir::Bindings &Sizes, std::size_t MaxHits) {
  const std::array<std::int64_t, 3> Grid = gridOf(Prog, K, Sizes).value_or(std::array<std::int64_t, 3>{1, 1, 1});
  return ThreadWalk(Prog, K, Node, Block, Grid, Thread, Sizes, MaxHits).run();
}

namespace {

/// Whether Node is the element an assignment of B (or of a nested block)
/// writes.
bool isStoreTarget(const ir::Block &B, const ir::ArrayRead *Node) {
  for (const ir::Stmt &St : B) {
    if (const auto *A = St.as<ir::Assign>()) {
      if (std::get_if<ir::ArrayRead>(&A->Target) == Node)
        return true;
    } else if (const auto *Fo = St.as<ir::For>()) {
      if (isStoreTarget(Fo->Body, Node))
        return true;
    } else if (const auto *I = St.as<ir::If>()) {
      if (isStoreTarget(I->Then, Node) || isStoreTarget(I->Else, Node))
        return true;
    } else if (const auto *W = St.as<ir::While>()) {
      if (isStoreTarget(W->Body, Node))
        return true;
    }
  }
  return false;
}

} // namespace

SiteLanes sampleSiteLanes(const ir::Program &Prog, const ir::Kernel &K, const ir::ArrayRead *Node,
                          const ir::Bindings &Sizes, const LaneSampleOptions &Opts) {
  SiteLanes S;
  const ir::Array *A = Node ? Prog.findArray(K, Node->Array) : nullptr;
  if (!A)
    return S;
  S.Shape = A->Shape;
  S.ElemBytes = byteSize(A->Elem);
  S.Shared = A->Space == ir::MemSpace::Shared;
  try {
    S.Layout = arrayLayout(*A);
  } catch (const UserError &) {
    S.Layout = makeLayout(LayoutKind::Raw, A->Shape);
  }
  ir::forEachStmtExpr(K.Body, [&](const ir::Expr &E) {
    if (ir::anySubexpr(E, [&](const ir::Expr &X) { return ir::atomicTarget(X) == Node; }))
      S.Atomic = true;
  });
  if (S.Atomic && (!Prog.Mach || Prog.Mach->Kind == ir::MachineKind::Target))
    for (const auto &[A, I] : atomicIssues(Prog, K))
      if (&A->Target == Node)
        S.Issue = I;
  S.Store = isStoreTarget(K.Body, Node);
  const std::optional<std::array<std::int64_t, 3>> Grid = gridOf(Prog, K, Sizes);
  std::vector<std::array<std::int64_t, 3>> Blocks = {{0, 0, 0}};
  if (Opts.LastBlock && Grid) {
    const std::array<std::int64_t, 3> Last{(*Grid)[0] - 1, (*Grid)[1] - 1, (*Grid)[2] - 1};
    if (Last != Blocks.front())
      Blocks.push_back(Last);
  }
  const std::int64_t Tpb = K.Geo.threadsPerBlock();
  const std::int64_t Warps = std::min<std::int64_t>((Tpb + 31) / 32, Opts.MaxWarpsPerBlock);
  const std::array<std::int64_t, 3> G = Grid.value_or(std::array<std::int64_t, 3>{1, 1, 1});
  for (const auto &B : Blocks)
    for (std::int64_t W = 0; W < Warps; ++W) {
      std::array<std::vector<std::int64_t>, 32> Lane;
      std::size_t Trips = 0;
      for (std::int64_t L = 0; L < 32 && W * 32 + L < Tpb; ++L) {
        Lane[static_cast<std::size_t>(L)] =
            ThreadWalk(Prog, K, Node, B, G, W * 32 + L, Sizes, static_cast<std::size_t>(Opts.MaxTrips), true).run();
        Trips = std::max(Trips, Lane[static_cast<std::size_t>(L)].size());
      }
      for (std::size_t Trip = 0; Trip < Trips; ++Trip) {
        WarpLanes X;
        X.Block = B;
        X.Warp = W;
        X.Trip = static_cast<std::int64_t>(Trip);
        for (std::size_t L = 0; L < 32; ++L) {
          X.Elems[L] = Trip < Lane[L].size() ? Lane[L][Trip] : NoAccess;
          S.Unknown |= X.Elems[L] == UnknownElement;
        }
        S.Executions.push_back(X);
      }
    }
  std::string Which = blockText(Blocks.front());
  if (Blocks.size() > 1)
    Which = fmt::format("{} and of block {}", Which, blockText(Blocks.back()));
  S.Sample = fmt::format("{} of block {}{}, each lane's first {} arrivals", Warps == 1 ? "the warp" : "every warp",
                         Which,
                         Warps < (Tpb + 31) / 32 ? fmt::format(" (the first {} of {})", Warps, (Tpb + 31) / 32) : "",
                         Opts.MaxTrips);
  return S;
}

std::vector<Address> laneAddresses(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout) {
  std::vector<Address> Out(32, NoAccess);
  std::vector<std::int64_t> Index(S.Shape.size());
  std::int64_t Elements = S.Shape.empty() ? 0 : 1;
  for (std::int64_t D : S.Shape)
    Elements *= D;
  for (std::size_t L = 0; L < 32; ++L) {
    std::int64_t E = W.Elems[L];
    if (E < 0 || E >= Elements)
      continue;
    for (std::size_t D = S.Shape.size(); D-- > 0;) {
      Index[D] = E % S.Shape[D];
      E /= S.Shape[D];
    }
    Out[L] = Layout.map(Index);
  }
  return Out;
}

std::int64_t warpCost(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout) {
  const std::vector<Address> Lanes = laneAddresses(S, W, Layout);
  if (std::all_of(Lanes.begin(), Lanes.end(), [](Address A) { return A == NoAccess; }))
    return 0;
  // KernelAnalysis' rule (Analyzer::costsOf): the lanes nvcc issues, then a
  // shared atomic's lanes per bank, repeats counted.
  const std::vector<Address> Addrs = S.Atomic ? issuedLanes(Lanes, S.Issue) : Lanes;
  const WarpAccessCosts C =
      warpAccessCosts(Addrs, 32, S.ElemBytes, S.Shared, S.Store || S.Atomic ? SharedOp::Store : SharedOp::Load);
  if (!S.Shared)
    return C.Sectors;
  if (!S.Atomic)
    return C.Wavefronts;
  std::vector<Address> Words(Addrs);
  for (Address &A : Words)
    if (A != NoAccess)
      A = A * S.ElemBytes / 4;
  return std::max(C.Wavefronts, dmmAtomicCongestion(Words, 32));
}

std::optional<std::size_t> worstExecution(const SiteLanes &S, const LayoutFn &Layout) {
  std::optional<std::size_t> Best;
  std::int64_t BestCost = -1;
  for (std::size_t I = 0; I < S.Executions.size(); ++I) {
    const std::int64_t C = warpCost(S, S.Executions[I], Layout);
    if (C > BestCost) {
      BestCost = C;
      Best = I;
    }
  }
  return Best;
}

namespace {

/// LaneDrawing's grid: the banks of the first rows of S's array.
void drawGrid(const SiteLanes &S, const LayoutFn &Layout, LaneDrawing &D) {
  if (S.Shape.empty())
    return;
  const bool OneDim = S.Shape.size() == 1;
  std::int64_t Rows = 1;
  for (std::size_t Dim = 0; Dim + 1 < S.Shape.size(); ++Dim)
    Rows *= S.Shape[Dim];
  const std::int64_t Inner = S.Shape.back();
  D.GridCols = std::min<std::int64_t>(Inner, 32);
  const std::int64_t ShownRows = OneDim ? std::min<std::int64_t>((Inner + 31) / 32, 4) : std::min<std::int64_t>(Rows, 8);
  std::vector<std::int64_t> Index(S.Shape.size());
  for (std::int64_t R = 0; R < ShownRows; ++R)
    for (std::int64_t J = 0; J < D.GridCols; ++J) {
      std::int64_t Flat = OneDim ? R * 32 + J : R * Inner + J;
      if (OneDim && Flat >= Inner) {
        D.GridBanks.push_back(-1);
        continue;
      }
      for (std::size_t Dim = S.Shape.size(); Dim-- > 0;) {
        Index[Dim] = Flat % S.Shape[Dim];
        Flat /= S.Shape[Dim];
      }
      D.GridBanks.push_back(Layout.map(Index) * S.ElemBytes / 4 % 32);
    }
}

} // namespace

LaneDrawing drawLanes(const SiteLanes &S, const LayoutFn &Layout) {
  LaneDrawing D;
  drawGrid(S, Layout, D);
  std::map<std::int64_t, std::int64_t> Count;
  std::int64_t BestCost = -1;
  for (std::size_t I = 0; I < S.Executions.size(); ++I) {
    const std::int64_t C = warpCost(S, S.Executions[I], Layout);
    ++Count[C];
    if (C > BestCost) { // the first of equals, as worstExecution
      BestCost = C;
      D.Worst = I;
    }
  }
  D.Costs.assign(Count.begin(), Count.end());
  if (!D.Worst)
    return D;
  const WarpLanes &W = S.Executions[*D.Worst];
  const std::vector<Address> A = laneAddresses(S, W, Layout);
  for (std::size_t L = 0; L < 32; ++L)
    D.ByteAddrs[L] = W.Elems[L] == UnknownElement ? -2 : A[L] == NoAccess ? -1 : A[L] * S.ElemBytes;
  D.Cost = BestCost;
  return D;
}

} // namespace bankwise
