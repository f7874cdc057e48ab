// A class's costs and the time walk of the fast path (ClassCountingRun::run,
// ClassCounting.cpp): every model's cost of a template's warp execution by
// class, cached (Analyzer::ClassCosts), and the simulator's walk over every
// warp's accesses in order, each priced by its class (Analyzer::TimeWalk).
#include "analysis/passes/detail/ClassCounting.h"

#include <functional>
#include <limits>

namespace bankwise::kernel_analysis {

namespace {

// Per-lane choices (Template::Sel): the class key's last slot says which
// arms the lanes take and how far apart the arms are. Where both arms
// are taken it is their distance D when the two groups of lanes (the
// first arm's at V[l], the second's at SelV[l] - D) lie within four
// periods of each other, near enough to share a word, sector or line,
// and a representative far distance with D's residue otherwise (each
// group's costs then depend on its residue alone, and no word, sector or
// line is shared); where only the second arm is taken, D's residue (it
// moves the base); where only the first, nothing.
constexpr std::int64_t SelMainOnly = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t SelAltOnly = std::numeric_limits<std::int64_t>::min() / 2;

/// Each template's window of near distances between its per-lane choice's
/// arms (templates without a choice: an empty window).
std::vector<SelWindow> selWindows(const std::vector<Template> &Templates, std::int64_t W, std::int64_t Period) {
  std::vector<SelWindow> SelNear(Templates.size());
  for (std::size_t TId = 0; TId < Templates.size(); ++TId) {
    const Template &T = Templates[TId];
    if (T.Sel < 0)
      continue;
    Wide Lo1 = 0, Hi1 = 0, Lo2 = 0, Hi2 = 0;
    bool Any = false;
    for (int L = 0; L < W; ++L)
      if ((T.Active >> L) & 1) {
        const Wide A = T.V[static_cast<std::size_t>(L)], B = T.SelV[static_cast<std::size_t>(L)];
        Lo1 = Any ? std::min(Lo1, A) : A;
        Hi1 = Any ? std::max(Hi1, A) : A;
        Lo2 = Any ? std::min(Lo2, B) : B;
        Hi2 = Any ? std::max(Hi2, B) : B;
        Any = true;
      }
    // Near: Lo2 - D <= Hi1 + 4P and Hi2 - D >= Lo1 - 4P.
    const Wide Gap = 4 * static_cast<Wide>(Period);
    const Wide NearLo = Lo2 - Hi1 - Gap, NearHi = Hi2 - Lo1 + Gap;
    if (NearLo < -(Wide(1) << 40) || NearHi > (Wide(1) << 40))
      throw NotAffine{"a per-lane choice whose lanes spread too far"};
    SelWindow &Sw = SelNear[TId];
    Sw.NearLo = static_cast<std::int64_t>(NearLo);
    Sw.NearHi = static_cast<std::int64_t>(NearHi);
    Sw.FarBase = static_cast<std::int64_t>((NearHi / Period + 2) * Period);
  }
  return SelNear;
}

} // namespace

Analyzer::ClassCosts::Kept &Analyzer::ClassCosts::kept() {
  thread_local Kept K;
  return K;
}

Analyzer::ClassCosts::ClassCosts(const Analyzer &Owner, std::int64_t CostPeriod)
    : Period(CostPeriod), An(Owner), GroupOfTemplate(Owner.Templates.size(), nullptr),
      LanesOfTemplate(Owner.Templates.size(), nullptr), ShiftOfTemplate(Owner.Templates.size(), 0),
      Addrs(static_cast<std::size_t>(Owner.W), NoAccess) {
  Kept &K = kept();
  if (K.Entries > (std::size_t(1) << 18) || K.LaneIds.size() > (std::size_t(1) << 16)) {
    K.Groups.clear();
    K.LaneIds.clear();
    K.Entries = 0;
  }
  SelNear = selWindows(An.Templates, An.W, Period);
}

// The lanes' addresses of a class: the models need non-negative ones
// (and NoAccess is -1), so lift by whole periods before marking the lanes
// that are off.
void Analyzer::ClassCosts::fillAddrs(const LaneArr &Lanes0, std::int64_t Residue, Mask Active) {
  Address Lowest = 0;
  for (int L = 0; L < An.W; ++L)
    if ((Active >> L) & 1)
      Lowest = std::min(Lowest, Residue + Lanes0[static_cast<std::size_t>(L)]);
  const Address Lift = Lowest < 0 ? (-Lowest + Period - 1) / Period * Period : 0;
  std::fill(Addrs.begin(), Addrs.end(), NoAccess);
  for (int L = 0; L < An.W; ++L)
    if ((Active >> L) & 1)
      Addrs[static_cast<std::size_t>(L)] = Residue + Lanes0[static_cast<std::size_t>(L)] + Lift;
}

Analyzer::ClassCosts::CacheEntry Analyzer::ClassCosts::uniformDataEntry(int TId, Mask Active) {
  const Template &T = An.Templates[static_cast<std::size_t>(TId)];
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
  auto [It, Fresh] = UniformDataEntries.try_emplace({TId, static_cast<std::int64_t>(Active)});
  if (Fresh) {
    CacheEntry E;
    const std::vector<Address> Known = liftedLanes(static_cast<int>(An.W), Active, costPeriod(S, An.W), [&](int L) {
      return T.U.C + (T.HasV ? T.V[static_cast<std::size_t>(L)] : 0);
    });
    const UniformDataCosts U = An.uniformDataCosts(S, Known, T.DataStep);
    E.Costs = U.Worst;
    E.Exact = U.Exact;
    E.TimeK = An.timeCost(S, E.Costs, false, std::popcount(Active));
    if (T.Guarded && U.Exact) {
      E.ExpectedHalf =
          perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Known, An.W) : expectedHalfLaneCongestion(Known, An.W);
    }
    It->second = E;
  }
  return It->second;
}

void Analyzer::ClassCosts::joinGroup(int TId) {
  const Template &T = An.Templates[static_cast<std::size_t>(TId)];
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
  std::int64_t &Shift = ShiftOfTemplate[static_cast<std::size_t>(TId)];
  LaneArr Norm{};
  if (T.HasV) {
    Norm = T.V;
    bool Fits = true;
    for (int L = 0; L < An.W && Fits; ++L)
      Fits = !__builtin_sub_overflow(T.V[static_cast<std::size_t>(L)], T.V[0], &Norm[static_cast<std::size_t>(L)]);
    if (Fits)
      Shift = floorMod(T.V[0], Period);
    else
      Norm = T.V;
  }
  Kept &K = kept();
  const auto It = K.LaneIds.try_emplace(Norm, static_cast<std::int64_t>(K.LaneIds.size())).first;
  LanesOfTemplate[static_cast<std::size_t>(TId)] = &It->first;
  // An atomic's costs differ from a plain access's at the same lanes,
  // and a wide shared store's from a load's (loads pair up, costsOf).
  const std::int64_t Shape = S.Arr->ElemBytes * 8 + (S.Arr->Decl->Space == ir::MemSpace::Shared ? 4 : 0) +
                             (S.Atomic ? 2 + (static_cast<std::int64_t>(S.Issue) << 12) : 0) +
                             (S.IsWrite ? 1 : 0) + (An.W << 16);
  GroupOfTemplate[static_cast<std::size_t>(TId)] = &K.Groups[{It->second, Shape}];
}

Analyzer::ClassCosts::CacheEntry Analyzer::ClassCosts::costsFor(int TId, std::int64_t Residue, Mask Active) {
  const Template &T = An.Templates[static_cast<std::size_t>(TId)];
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
  CacheEntry E;
  if (T.Unknown && !T.DataUniform) { // no address: the worst case, by the lanes on
    E.Exact = false;
    E.TimeK = An.timeCost(S, E.Costs, true, std::popcount(Active));
    return E;
  }
  if (T.Unknown) // known up to one shift of every lane
    return uniformDataEntry(TId, Active);
  if (!GroupOfTemplate[static_cast<std::size_t>(TId)])
    joinGroup(TId);
  Group &G = *GroupOfTemplate[static_cast<std::size_t>(TId)];
  const LaneArr &Lanes0 = *LanesOfTemplate[static_cast<std::size_t>(TId)];
  Residue = (Residue + ShiftOfTemplate[static_cast<std::size_t>(TId)]) % Period;
  const auto R = static_cast<std::size_t>(Residue);
  if (R >= G.size())
    G.resize(R + 1);
  auto &Slot = G[R];
  Costed *Found = nullptr;
  for (Costed &C : Slot)
    if (C.M == Active) {
      Found = &C;
      break;
    }
  if (!Found) {
    fillAddrs(Lanes0, Residue, Active);
    Slot.push_back({Active, An.costsOf(S, Addrs)});
    Found = &Slot.back();
    ++kept().Entries;
  }
  E.Costs = Found->C;
  E.TimeK = An.timeCost(S, E.Costs, false, std::popcount(Active));
  if (T.Guarded) {
    if (Found->Half < 0) {
      fillAddrs(Lanes0, Residue, Active);
      Found->Half =
          perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Addrs, An.W) : expectedHalfLaneCongestion(Addrs, An.W);
    }
    E.ExpectedHalf = Found->Half;
  }
  return E;
}

std::int64_t Analyzer::ClassCosts::selKeyAt(std::size_t TId, Mask Chosen, const std::vector<std::int64_t> &At) const {
  const Template &T = An.Templates[TId];
  const Mask On = Chosen & T.Active;
  if (On == T.Active)
    return SelMainOnly;
  const std::int64_t D = An.valueAt(T.SelD, At);
  if (On == 0)
    return SelAltOnly + floorMod(D, Period);
  const SelWindow &Sw = SelNear[TId];
  return D >= Sw.NearLo && D <= Sw.NearHi ? D : Sw.FarBase + floorMod(D, Period);
}

Analyzer::ClassCosts::CacheEntry Analyzer::ClassCosts::selCostsFor(std::size_t TId, std::int64_t Residue, Mask Active,
                                                                   Mask Chosen, std::int64_t Key) {
  const Template &T = An.Templates[TId];
  if (Key == SelMainOnly)
    Chosen = T.Active; // the key says every lane takes the first arm
  auto [It, Fresh] = SelEntries.try_emplace({TId, Residue, Active, Chosen & Active, Key});
  if (!Fresh)
    return It->second;
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
  const std::int64_t D = Key == SelMainOnly ? 0 : Key < SelAltOnly + Period ? Key - SelAltOnly : Key;
  const std::vector<Address> Lane = liftedLanes(static_cast<int>(An.W), Active, Period, [&](int L) {
    return (Chosen >> L) & 1 ? Residue + T.V[static_cast<std::size_t>(L)]
                             : Residue - D + T.SelV[static_cast<std::size_t>(L)];
  });
  CacheEntry E;
  E.Costs = An.costsOf(S, Lane);
  E.TimeK = An.timeCost(S, E.Costs, false, std::popcount(Active));
  if (T.Guarded)
    E.ExpectedHalf =
        perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Lane, An.W) : expectedHalfLaneCongestion(Lane, An.W);
  It->second = E;
  return E;
}

Analyzer::TimeWalk::TimeWalk(const Analyzer &Owner, ClassCosts &Costs, const std::vector<std::vector<int>> &AtomsOf)
    : An(Owner), Costs(Costs), AtomsOf(AtomsOf), AtomMasks(Owner.Atoms.size(), 0),
      NumWarps(Owner.NumBlocks * Owner.WarpsPerBlock) {}

void Analyzer::TimeWalk::flattenPhases(const SymbolicRuns &Runs) {
  Phases.assign(static_cast<std::size_t>(An.WarpsPerBlock), {});
  for (std::int64_t Wib = 0; Wib < An.WarpsPerBlock; ++Wib) {
    auto &Out = Phases[static_cast<std::size_t>(Wib)];
    Out.emplace_back();
    const std::size_t Run = Runs.Family ? 0 : static_cast<std::size_t>(Wib);
    std::vector<std::int64_t> RunVals(Runs.DomainsOf[Run].size(), 0);
    if (Runs.Family) {
      const std::array<std::int64_t, 3> WV = Runs.Family->vars(Wib);
      for (int K = 0; K < 3; ++K)
        RunVals[static_cast<std::size_t>(VarWx + K)] = WV[static_cast<std::size_t>(K)];
    }
    std::function<void(const std::vector<TraceNode> &)> Walk =
        [&](const std::vector<TraceNode> &Nodes) {
          for (const TraceNode &N : Nodes) {
            if (N.K == TraceNode::Access) {
              Out.back().push_back({N.TemplateId, RunVals});
            } else if (N.K == TraceNode::Barrier) {
              Out.emplace_back();
            } else {
              for (std::int64_t T = 0; T < N.Trips; ++T) {
                RunVals[static_cast<std::size_t>(N.Var)] = N.Begin + N.Step * T;
                Walk(N.Body);
              }
            }
          }
        };
    Walk(Runs.Trees[Run]);
  }
}

std::int64_t Analyzer::TimeWalk::timeCostOf(const Flat &F, const Template &T, Mask Active) {
  if (T.Lt >= 0) {
    const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
    return An.timeCost(S, An.costsOf(S, An.laneTableAddresses(T, Vals, Active)), false, std::popcount(Active));
  }
  const std::int64_t Base = T.Unknown ? 0 : floorMod(An.valueAt(T.U, Vals), Costs.Period);
  if (T.Sel >= 0) {
    const Mask Chosen = An.atomAt(T.Sel, Vals);
    return Costs
        .selCostsFor(static_cast<std::size_t>(F.Template), Base, Active, Chosen,
                     Costs.selKeyAt(static_cast<std::size_t>(F.Template), Chosen, Vals))
        .TimeK;
  }
  return Costs.costsFor(F.Template, Base, Active).TimeK;
}

void Analyzer::TimeWalk::advance(std::int64_t Wp, std::size_t Ph) {
  Next &N = Warps[static_cast<std::size_t>(Wp)];
  const std::int64_t B = Wp / An.WarpsPerBlock, Wib = Wp % An.WarpsPerBlock;
  const auto &P = Phases[static_cast<std::size_t>(Wib)];
  N.Has = false;
  if (Ph >= P.size())
    return;
  const auto &List = P[Ph];
  const std::int64_t BIdx[3] = {B % An.Grid[0], B / An.Grid[0] % An.Grid[1], B / (An.Grid[0] * An.Grid[1])};
  while (static_cast<std::size_t>(N.Cursor) < List.size()) {
    const Flat &F = List[static_cast<std::size_t>(N.Cursor++)];
    const Template &T = An.Templates[static_cast<std::size_t>(F.Template)];
    Vals = F.VarVals;
    for (int D = 0; D < 3; ++D)
      Vals[static_cast<std::size_t>(D)] = BIdx[D];
    Mask Active = T.Active;
    if (T.Pred >= 0) {
      for (int A : AtomsOf[static_cast<std::size_t>(F.Template)])
        AtomMasks[static_cast<std::size_t>(A)] = An.atomAt(A, Vals);
      Active &= An.predAt(T.Pred, AtomMasks);
    }
    if (!Active)
      continue;
    N.Has = true;
    N.Shared = spaceOf(An.Sites[static_cast<std::size_t>(T.Site)]) == Space::Shared;
    N.K = timeCostOf(F, T, Active);
    N.Requests = std::popcount(Active);
    return;
  }
}

void Analyzer::TimeWalk::simulatePhase(Simulator &Sim, std::size_t Ph) {
  bool Any = false;
  for (std::int64_t Wp = 0; Wp < NumWarps; ++Wp) {
    Warps[static_cast<std::size_t>(Wp)].Cursor = 0;
    advance(Wp, Ph);
    Any = Any || Warps[static_cast<std::size_t>(Wp)].Has;
  }
  bool FirstRound = true;
  while (Any) {
    for (Space Sp : {Space::Global, Space::Shared}) {
      bool Started = false;
      for (std::int64_t Wp = 0; Wp < NumWarps; ++Wp) {
        const Next &N = Warps[static_cast<std::size_t>(Wp)];
        if (!N.Has || N.Shared != (Sp == Space::Shared))
          continue;
        if (!Started) {
          Sim.beginRound(Sp, FirstRound && Ph > 0);
          Started = true;
          FirstRound = false;
        }
        Sim.warpCost(Wp, N.K, N.Requests);
      }
    }
    Any = false;
    for (std::int64_t Wp = 0; Wp < NumWarps; ++Wp)
      if (Warps[static_cast<std::size_t>(Wp)].Has) {
        advance(Wp, Ph);
        Any = Any || Warps[static_cast<std::size_t>(Wp)].Has;
      }
  }
}

SimResult Analyzer::TimeWalk::simulate() {
  const std::int64_t Wm = machineWidth(An.TimeModel);
  SimOptions SO;
  SO.BlockThreads = An.WarpsPerBlock * Wm;
  Simulator Sim(An.TimeModel, An.NumBlocks * An.WarpsPerBlock * Wm, SO);
  std::size_t NumPhases = 0;
  for (const auto &P : Phases)
    NumPhases = std::max(NumPhases, P.size());
  // As the warp-by-warp path: round r of a phase is every warp's r-th
  // access in it, and a guard that leaves a warp no lane skips the access,
  // so each warp keeps a cursor to its next access with an active lane.
  Warps.assign(static_cast<std::size_t>(NumWarps), Next{});
  for (std::size_t Ph = 0; Ph < NumPhases; ++Ph)
    simulatePhase(Sim, Ph);
  return Sim.finish();
}

} // namespace bankwise::kernel_analysis
