// Lane tables on the fast path: a table (a permutation, or a `holds` or
// --data array) read per lane at a block-dependent index, b[P(tid)]. Such a
// value has no class to count by; its accesses are evaluated warp by warp
// in compiled form (no interpretation), split over the cores.
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"
#include "support/Parallel.h"

#include <exception>
#include <thread>

namespace bankwise::kernel_analysis {

std::optional<Val> Analyzer::laneTable(const Val &Index, Mask M, const void *Ref, bool IsPerm,
                                       std::int64_t Size) {
  if (Index.Unknown || Index.Pred >= 0 || Index.Lt >= 0 || Index.Sel >= 0 || !Index.HasV || Index.concrete())
    return std::nullopt;
  // A table read per lane is walked warp by warp; with the warp position a
  // number, as in a run per position, it may be a plain lookup instead.
  for (const auto &[Var, Coef] : Index.U.Terms)
    if (Var >= VarWx && Var <= VarWz)
      Run->warpPositionDecides("a table read per lane at an index in the warp's position in its block");
  const auto Rg = rangeOf(Index.U);
  if (!Rg)
    return std::nullopt;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1 && (Rg->first + Index.V[static_cast<std::size_t>(L)] < 0 ||
                         Rg->second + Index.V[static_cast<std::size_t>(L)] >= Size))
      return std::nullopt; // some block may read outside: the walk reports it
  LaneTableDef D;
  D.Ref = Ref;
  D.IsPerm = IsPerm;
  D.IU = Index.U;
  D.IV = Index.V;
  LaneTables.push_back(std::move(D));
  Val R;
  R.HasV = true; // varies by lane (V itself is 0)
  R.Lt = static_cast<int>(LaneTables.size()) - 1;
  R.LtScale = 1;
  return R;
}

std::int64_t Analyzer::laneTableAt(const LaneTableDef &D, std::int64_t I) const {
  if (D.IsPerm)
    return static_cast<std::int64_t>((*static_cast<const Permutation *>(D.Ref))(static_cast<std::uint64_t>(I)));
  const auto &A = *static_cast<const ArrayInfo *>(D.Ref);
  return A.Holds ? static_cast<std::int64_t>((*A.Holds)(static_cast<std::uint64_t>(I)))
                 : (*A.Data)[static_cast<std::size_t>(I)];
}

std::vector<Address> Analyzer::laneTableAddresses(const Template &T,
                                                  const std::vector<std::int64_t> &Vals,
                                                  Mask Active) const {
  const LaneTableDef &D = LaneTables[static_cast<std::size_t>(T.Lt)];
  const std::int64_t Base = valueAt(T.U, Vals), IBase = valueAt(D.IU, Vals);
  std::vector<Address> Addrs(static_cast<std::size_t>(W), NoAccess);
  // The table resolved once per warp, not per lane (2^26 lanes a site for
  // seed 001's passes at n = 2^26).
  const auto *A = D.IsPerm ? nullptr : static_cast<const ArrayInfo *>(D.Ref);
  const TableView Table = D.IsPerm ? TableView(*static_cast<const Permutation *>(D.Ref))
                          : A->Holds ? *A->Holds
                                     : TableView();
  for (int L = 0; L < W; ++L)
    if ((Active >> L) & 1) {
      const auto I = static_cast<std::size_t>(L);
      const std::int64_t At = IBase + D.IV[I];
      const std::int64_t V = D.IsPerm || A->Holds ? static_cast<std::int64_t>(Table(static_cast<std::uint64_t>(At)))
                                                  : (*A->Data)[static_cast<std::size_t>(At)];
      Addrs[I] = Base + T.V[I] + T.LtScale * V;
    }
  return Addrs;
}

void Analyzer::countLaneTable(int TId, const std::vector<LoopDom> &Vars,
                              const std::vector<int> &TAtoms, AccessSiteReport &Site) {
  const Template &T = Templates[static_cast<std::size_t>(TId)];
  const SiteInfo &S = Sites[static_cast<std::size_t>(T.Site)];
  Wide Points = 1;
  for (const LoopDom &V : Vars)
    Points *= V.Trips;
  spend(static_cast<std::int64_t>(std::min<Wide>(Points, Wide(1) << 40)));
  int MaxVar = FirstLoopVar;
  for (const LoopDom &V : Vars)
    MaxVar = std::max(MaxVar, V.Var + 1);
  // Points in the order that walks the table forward: the variable with
  // the smallest stride in the table index changes fastest (a block-major
  // order would jump a row of the table at every warp). The order changes
  // no figure: the points and their costs are the same.
  std::vector<LoopDom> Order = Vars;
  {
    const LaneTableDef &D = LaneTables[static_cast<std::size_t>(T.Lt)];
    auto Stride = [&](const LoopDom &V) {
      for (const auto &[Var, Coef] : D.IU.Terms)
        if (Var == V.Var)
          return Coef < 0 ? -static_cast<Wide>(Coef) : static_cast<Wide>(Coef);
      return Wide(0);
    };
    std::stable_sort(Order.begin(), Order.end(),
                     [&](const LoopDom &A, const LoopDom &B) { return Stride(A) < Stride(B); });
  }
  const unsigned Threads = std::min(4u, threadCount());
  std::vector<AccessSiteReport> Parts(Threads, Site);
  std::vector<std::exception_ptr> Errors(Threads);
  auto Work = [&](unsigned Part) {
    try {
      std::vector<std::int64_t> Vals(static_cast<std::size_t>(MaxVar), 0);
      std::vector<Mask> Masks(Atoms.size(), 0);
      AccessSiteReport Acc = Site;
      Acc.Congestion = Acc.Groups = Acc.Wavefronts = Acc.Sectors = Acc.Lines = Acc.Serialization = CostStats{};
      Acc.WarpExecutions = Acc.ThreadAccesses = 0;
      const Wide Begin = Points * Part / Threads, End = Points * (Part + 1) / Threads;
      for (Wide P = Begin; P < End; ++P) {
        Wide Rest = P;
        for (const LoopDom &V : Order) {
          Vals[static_cast<std::size_t>(V.Var)] = V.Begin + V.Step * static_cast<std::int64_t>(Rest % V.Trips);
          Rest /= V.Trips;
        }
        Mask Active = T.Active;
        if (T.Pred >= 0 || T.Oob >= 0)
          for (int A : TAtoms)
            Masks[static_cast<std::size_t>(A)] = atomAt(A, Vals);
        if (T.Pred >= 0)
          Active &= predAt(T.Pred, Masks);
        if (T.Oob >= 0 && (Active & predAt(T.Oob, Masks)))
          throw NotAffine{"an index that leaves its array (checked thread by thread)"};
        if (!Active)
          continue;
        addStats(Acc, costsOf(S, laneTableAddresses(T, Vals, Active)), nullptr, std::popcount(Active), 1);
      }
      Parts[Part] = std::move(Acc);
    } catch (...) {
      Errors[Part] = std::current_exception();
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned Part = 1; Part < Threads; ++Part)
    Pool.emplace_back(Work, Part);
  Work(0);
  for (std::thread &Th : Pool)
    Th.join();
  for (const std::exception_ptr &E : Errors)
    if (E)
      std::rethrow_exception(E);
  // Merge in part order: the sums are of integers, exact in a double.
  for (const AccessSiteReport &P : Parts) {
    Site.WarpExecutions += P.WarpExecutions;
    Site.ThreadAccesses += P.ThreadAccesses;
    Site.Congestion.merge(P.Congestion);
    Site.Groups.merge(P.Groups);
    Site.Wavefronts.merge(P.Wavefronts);
    Site.Sectors.merge(P.Sectors);
    Site.Lines.merge(P.Lines);
    Site.Serialization.merge(P.Serialization);
  }
}

} // namespace bankwise::kernel_analysis
