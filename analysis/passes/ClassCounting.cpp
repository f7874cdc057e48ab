// Counting warps by class (the fast path of analyzeKernel): runFast, which
// counts each access's warp executions per (residue, mask) class without
// visiting warps (docs/analysis.md). The opaque values and guard atoms of
// the symbolic run are in SymbolicValues.cpp; lane tables, walked warp by
// warp, in LaneTables.cpp.
#include "analysis/passes/detail/Analyzer.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <tuple>

namespace bankwise::kernel_analysis {

namespace {

/// Warp executions per class (a residue, then the lane mask of each guard
/// atom), the keys of one length stored flat and found by open addressing:
/// the counting builds and folds thousands of these per analysis.
class ClassTable {
public:
  explicit ClassTable(std::size_t KeyLen) : Len(KeyLen) {}
  /// Room for N classes without regrowing (a fold knows its bound).
  void reserve(std::size_t N) {
    Keys.reserve(N * Len);
    Counts.reserve(N);
    if ((N + 1) * 2 > Slots.size()) {
      std::size_t Size = 16;
      while (Size < (N + 1) * 2)
        Size *= 2;
      Slots.assign(Size, -1);
      rehash();
    }
  }
  void add(const std::int64_t *Key, Wide Count) {
    if ((Counts.size() + 1) * 2 > Slots.size())
      grow();
    std::size_t Slot = hash(Key) & (Slots.size() - 1);
    while (true) {
      const std::int32_t I = Slots[Slot];
      if (I < 0) {
        Slots[Slot] = static_cast<std::int32_t>(Counts.size());
        Keys.insert(Keys.end(), Key, Key + Len);
        Counts.push_back(Count);
        return;
      }
      if (std::equal(Key, Key + Len, &Keys[static_cast<std::size_t>(I) * Len])) {
        Counts[static_cast<std::size_t>(I)] += Count;
        return;
      }
      Slot = (Slot + 1) & (Slots.size() - 1);
    }
  }
  std::size_t size() const { return Counts.size(); }
  const std::int64_t *key(std::size_t I) const { return &Keys[I * Len]; }
  Wide count(std::size_t I) const { return Counts[I]; }

private:
  std::size_t Len;
  std::vector<std::int64_t> Keys;
  std::vector<Wide> Counts;
  std::vector<std::int32_t> Slots;

  std::size_t hash(const std::int64_t *K) const {
    std::uint64_t H = 0x9E3779B97F4A7C15ULL;
    for (std::size_t I = 0; I < Len; ++I)
      H = (H ^ static_cast<std::uint64_t>(K[I])) * 0xFF51AFD7ED558CCDULL;
    return static_cast<std::size_t>(H ^ (H >> 29));
  }
  void grow() {
    Slots.assign(std::max<std::size_t>(16, Slots.size() * 2), -1);
    rehash();
  }
  void rehash() {
    for (std::size_t I = 0; I < Counts.size(); ++I) {
      std::size_t Slot = hash(key(I)) & (Slots.size() - 1);
      while (Slots[Slot] >= 0)
        Slot = (Slot + 1) & (Slots.size() - 1);
      Slots[Slot] = static_cast<std::int32_t>(I);
    }
  }
};

} // namespace

void Analyzer::runFast(KernelReport &Rep) {
  // 1. Symbolic run per warp position: templates of accesses whose address
  //    is uniform part (affine in block indices and loop variables, plus
  //    opaque uniform values) + per-lane part, under guards.
  //    A warp family (Analyzer::WarpFamily) runs once, its warp position
  //    variables symbolic as the block indices are.
  const std::int64_t Runs = Family ? 1 : WarpsPerBlock;
  std::vector<std::vector<TraceNode>> Trees(static_cast<std::size_t>(Runs));
  std::vector<std::vector<VarDomain>> DomainsOf(static_cast<std::size_t>(Runs));
  for (std::int64_t Wib = 0; Wib < Runs; ++Wib) {
    spend(1);
    setupWarp(0, Wib, true);
    CurTree = &Trees[static_cast<std::size_t>(Wib)];
    Mask M = Lanes == 64 ? ~Mask(0) : (Mask(1) << Lanes) - 1;
    exec(Kern.Body, M);
    DomainsOf[static_cast<std::size_t>(Wib)] = Domains;
  }
  Symbolic = false;
  Rep.SymbolicAccesses = static_cast<std::int64_t>(Templates.size());

  Rep.Sites = emptyReports(Sites);
  DataExpected.assign(Sites.size(), {});
  std::int64_t Period = W;
  for (const SiteInfo &S : Sites)
    Period = std::lcm(Period, std::max<std::int64_t>(1, 128 / S.Arr->ElemBytes));

  // Costs of one template at one residue of its base address and one mask:
  // every model's cost is invariant under shifts by whole periods.
  struct CacheEntry {
    AccessCosts Costs;
    std::int64_t TimeK = 0;
    double ExpectedHalf = 0; ///< guarded templates: expectedHalfLaneCongestion
    /// Costs are the class's; false when data decides them (an unknown
    /// address, or a uniform-data one whose costs depend on its shift:
    /// Costs then hold each model's worst).
    bool Exact = true;
  };

  // Warp costs depend only on the lanes' addresses (the template's lane
  // offsets plus the residue), the element size and the memory. Templates
  // with equal offsets share one group of entries (by residue, then mask);
  // the entries are also kept across analyses on this thread, since the
  // all-sizes analysis runs the same templates at hundreds of sizes.
  struct LaneHash {
    std::size_t operator()(const LaneArr &V) const {
      std::uint64_t H = 0xCBF29CE484222325ULL;
      for (std::int64_t X : V)
        H = (H ^ static_cast<std::uint64_t>(X)) * 0x100000001B3ULL;
      return static_cast<std::size_t>(H);
    }
  };
  struct PairHash {
    std::size_t operator()(const std::pair<std::int64_t, std::int64_t> &P) const {
      return static_cast<std::size_t>(static_cast<std::uint64_t>(P.first) * 0x9E3779B97F4A7C15ULL ^
                                      static_cast<std::uint64_t>(P.second));
    }
  };
  // Uniform-data templates (Val::DataUniform) by (template, mask): their
  // costs do not depend on the class's residue.
  std::unordered_map<std::pair<std::int64_t, std::int64_t>, CacheEntry, PairHash> UniformDataEntries;
  /// Per residue: (mask, costs) entries, searched linearly (few masks);
  /// Half is the expected congestion with each lane on at 1/2 (guarded
  /// templates; < 0 until one asks: a bitonic network's swaps are
  /// hundreds of guarded templates, at hundreds of sizes).
  struct Costed {
    Mask M = 0;
    AccessCosts C;
    double Half = -1;
  };
  using Group = std::vector<std::vector<Costed>>;
  thread_local std::unordered_map<LaneArr, std::int64_t, LaneHash> LaneIds;
  thread_local std::unordered_map<std::pair<std::int64_t, std::int64_t>, Group, PairHash> Groups;
  thread_local std::size_t Entries = 0;
  if (Entries > (std::size_t(1) << 18) || LaneIds.size() > (std::size_t(1) << 16)) {
    Groups.clear();
    LaneIds.clear();
    Entries = 0;
  }
  std::vector<Group *> GroupOfTemplate(Templates.size(), nullptr);
  // A template's lane offsets less lane 0's, the cache's key, and that
  // shift (mod Period), added to the residue: a lane part such as
  // ty * pitch + tx (ty uniform in the warp) is then one key at every size.
  std::vector<const LaneArr *> LanesOfTemplate(Templates.size(), nullptr);
  std::vector<std::int64_t> ShiftOfTemplate(Templates.size(), 0);
  std::vector<Address> Addrs(static_cast<std::size_t>(W), NoAccess);
  // The lanes' addresses of a class: the models need non-negative ones
  // (and NoAccess is -1), so lift by whole periods before marking the lanes
  // that are off.
  auto FillAddrs = [&](const LaneArr &Lanes0, std::int64_t Residue, Mask Active) {
    Address Lowest = 0;
    for (int L = 0; L < W; ++L)
      if ((Active >> L) & 1)
        Lowest = std::min(Lowest, Residue + Lanes0[static_cast<std::size_t>(L)]);
    const Address Lift = Lowest < 0 ? (-Lowest + Period - 1) / Period * Period : 0;
    std::fill(Addrs.begin(), Addrs.end(), NoAccess);
    for (int L = 0; L < W; ++L)
      if ((Active >> L) & 1)
        Addrs[static_cast<std::size_t>(L)] = Residue + Lanes0[static_cast<std::size_t>(L)] + Lift;
  };
  auto CostsFor = [&](int TId, std::int64_t Residue, Mask Active) -> CacheEntry {
    const Template &T = Templates[static_cast<std::size_t>(TId)];
    const SiteInfo &S = Sites[static_cast<std::size_t>(T.Site)];
    CacheEntry E;
    if (T.Unknown && !T.DataUniform) { // no address: the worst case, by the lanes on
      E.Exact = false;
      E.TimeK = timeCost(S, E.Costs, true, std::popcount(Active));
      return E;
    }
    if (T.Unknown) { // known up to one shift of every lane
      auto [It, Fresh] = UniformDataEntries.try_emplace({TId, static_cast<std::int64_t>(Active)});
      if (Fresh) {
        const std::vector<Address> Known = liftedLanes(static_cast<int>(W), Active, costPeriod(S, W), [&](int L) {
          return T.U.C + (T.HasV ? T.V[static_cast<std::size_t>(L)] : 0);
        });
        const UniformDataCosts U = uniformDataCosts(S, Known, T.DataStep);
        E.Costs = U.Worst;
        E.Exact = U.Exact;
        E.TimeK = timeCost(S, E.Costs, false, std::popcount(Active));
        if (T.Guarded && U.Exact) {
          E.ExpectedHalf =
              perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Known, W) : expectedHalfLaneCongestion(Known, W);
        }
        It->second = E;
      }
      return It->second;
    }
    Group *&G = GroupOfTemplate[static_cast<std::size_t>(TId)];
    const LaneArr *&Lanes0 = LanesOfTemplate[static_cast<std::size_t>(TId)];
    std::int64_t &Shift = ShiftOfTemplate[static_cast<std::size_t>(TId)];
    if (!G) {
      LaneArr Norm{};
      if (T.HasV) {
        Norm = T.V;
        bool Fits = true;
        for (int L = 0; L < W && Fits; ++L)
          Fits = !__builtin_sub_overflow(T.V[static_cast<std::size_t>(L)], T.V[0], &Norm[static_cast<std::size_t>(L)]);
        if (Fits)
          Shift = floorMod(T.V[0], Period);
        else
          Norm = T.V;
      }
      const auto It = LaneIds.try_emplace(Norm, static_cast<std::int64_t>(LaneIds.size())).first;
      Lanes0 = &It->first;
      // An atomic's costs differ from a plain access's at the same lanes,
      // and a wide shared store's from a load's (loads pair up, costsOf).
      const std::int64_t Shape = S.Arr->ElemBytes * 8 + (S.Arr->Decl->Space == ir::MemSpace::Shared ? 4 : 0) +
                                 (S.Atomic ? 2 + (static_cast<std::int64_t>(S.Issue) << 12) : 0) +
                                 (S.IsWrite ? 1 : 0) + (W << 16);
      G = &Groups[{It->second, Shape}];
    }
    Residue = (Residue + Shift) % Period;
    const auto R = static_cast<std::size_t>(Residue);
    if (R >= G->size())
      G->resize(R + 1);
    auto &Slot = (*G)[R];
    Costed *Found = nullptr;
    for (Costed &C : Slot)
      if (C.M == Active) {
        Found = &C;
        break;
      }
    if (!Found) {
      FillAddrs(*Lanes0, Residue, Active);
      Slot.push_back({Active, costsOf(S, Addrs)});
      Found = &Slot.back();
      ++Entries;
    }
    E.Costs = Found->C;
    E.TimeK = timeCost(S, E.Costs, false, std::popcount(Active));
    if (T.Guarded) {
      if (Found->Half < 0) {
        FillAddrs(*Lanes0, Residue, Active);
        Found->Half = perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Addrs, W) : expectedHalfLaneCongestion(Addrs, W);
      }
      E.ExpectedHalf = Found->Half;
    }
    return E;
  };

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
  struct SelWindow {
    std::int64_t NearLo = 0, NearHi = 0, FarBase = 0;
  };
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
  auto SelKeyAt = [&](std::size_t TId, Mask Chosen, const std::vector<std::int64_t> &At) -> std::int64_t {
    const Template &T = Templates[TId];
    const Mask On = Chosen & T.Active;
    if (On == T.Active)
      return SelMainOnly;
    const std::int64_t D = valueAt(T.SelD, At);
    if (On == 0)
      return SelAltOnly + floorMod(D, Period);
    const SelWindow &Sw = SelNear[TId];
    return D >= Sw.NearLo && D <= Sw.NearHi ? D : Sw.FarBase + floorMod(D, Period);
  };
  std::map<std::tuple<std::size_t, std::int64_t, Mask, Mask, std::int64_t>, CacheEntry> SelEntries;
  auto SelCostsFor = [&](std::size_t TId, std::int64_t Residue, Mask Active, Mask Chosen,
                         std::int64_t Key) -> CacheEntry {
    const Template &T = Templates[TId];
    if (Key == SelMainOnly)
      Chosen = T.Active; // the key says every lane takes the first arm
    auto [It, Fresh] = SelEntries.try_emplace({TId, Residue, Active, Chosen & Active, Key});
    if (!Fresh)
      return It->second;
    const SiteInfo &S = Sites[static_cast<std::size_t>(T.Site)];
    const std::int64_t D = Key == SelMainOnly ? 0 : Key < SelAltOnly + Period ? Key - SelAltOnly : Key;
    const std::vector<Address> Lane = liftedLanes(static_cast<int>(W), Active, Period, [&](int L) {
      return (Chosen >> L) & 1 ? Residue + T.V[static_cast<std::size_t>(L)]
                               : Residue - D + T.SelV[static_cast<std::size_t>(L)];
    });
    CacheEntry E;
    E.Costs = costsOf(S, Lane);
    E.TimeK = timeCost(S, E.Costs, false, std::popcount(Active));
    if (T.Guarded)
      E.ExpectedHalf = perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Lane, W) : expectedHalfLaneCongestion(Lane, W);
    It->second = E;
    return E;
  };

  // 2. Count every template's warp executions by class (residue of the base
  //    address modulo Period, lane mask of each guard atom) without visiting
  //    warps: closed form over a variable that enters affinely, enumeration
  //    only over variables tied together by an opaque value or a guard.
  std::vector<Mask> AtomMasks(Atoms.size(), 0);
  std::vector<std::vector<int>> AtomsOf(Templates.size());
  std::unordered_map<std::string, std::vector<Wide>> ResidueCache;
  // A component's classes by what decides them (its residue terms, its
  // atoms, the variables' domains, the active lanes): the sites of one
  // address under one guard (`dst[p] = f(dst[p])`, each statement its own
  // template) enumerate the same points once.
  std::unordered_map<std::string, ClassTable> ComponentCache;
  // Buffers reused by every template (the counting runs per template, and
  // the all-sizes analysis runs it at hundreds of sizes).
  std::vector<LoopDom> Vars;
  std::vector<std::int64_t> Vals;
  std::vector<int> Parent, CompVars, VarDeps;
  std::vector<std::size_t> CompAtoms;
  std::vector<std::vector<int>> AtomDeps;
  std::vector<std::pair<int, std::int64_t>> HTerms; // terms with variables
  std::vector<std::int64_t> Cuts;
  auto DepsOfVar = [&](int Var, std::vector<int> &Out) {
    Out.clear();
    if (Var >= OpaqueBase) {
      for (const Affine &Arg : Opaques[static_cast<std::size_t>(Var - OpaqueBase)].Args)
        depsOf(Arg, Out);
    } else {
      Out.push_back(Var);
    }
  };
  for (std::size_t TId = 0; TId < Templates.size(); ++TId) {
    const Template &T = Templates[TId];
    if (!Opts.OnlyArray.empty() &&
        Sites[static_cast<std::size_t>(T.Site)].Arr->Decl->Name != Opts.OnlyArray)
      continue;
    std::vector<int> &TAtoms = AtomsOf[TId];
    collectAtoms(T.Pred, TAtoms);
    collectAtoms(T.Oob, TAtoms);
    std::size_t SelSlot = 0; // the choice's atom in TAtoms
    if (T.Sel >= 0) {
      SelSlot = static_cast<std::size_t>(std::find(TAtoms.begin(), TAtoms.end(), T.Sel) - TAtoms.begin());
      if (SelSlot == TAtoms.size())
        TAtoms.push_back(T.Sel);
    }
    Vars.clear();
    for (int D = 0; D < 3; ++D)
      if (Grid[static_cast<std::size_t>(D)] > 1)
        Vars.push_back({D, 0, 1, Grid[static_cast<std::size_t>(D)]});
    if (Family)
      for (int K = 0; K < 3; ++K)
        if (Family->N[static_cast<std::size_t>(K)] > 1)
          Vars.push_back({VarWx + K, 0, 1, Family->N[static_cast<std::size_t>(K)]});
    for (const LoopDom &L : T.Loops)
      Vars.push_back(L);
    int MaxVar = FirstLoopVar;
    for (const LoopDom &V : Vars)
      MaxVar = std::max(MaxVar, V.Var + 1);
    Vals.assign(static_cast<std::size_t>(MaxVar), 0);
    if (T.Lt >= 0) {
      if (T.Guarded) // the per-lane table walk has no expected figure
        throw NotAffine{"a per-lane table read under a data-dependent condition"};
      Rep.TableWalk = true;
      countLaneTable(static_cast<int>(TId), Vars, TAtoms, Rep.Sites[static_cast<std::size_t>(T.Site)]);
      continue;
    }
    auto IndexOf = [&](int Var) {
      for (std::size_t I = 0; I < Vars.size(); ++I)
        if (Vars[I].Var == Var)
          return static_cast<int>(I);
      throw NotAffine{"a variable outside its loop"};
    };
    // The base address modulo Period; opaque terms whose coefficient is a
    // multiple of Period do not move it (bitrev(bx, m) * 32 words).
    Affine H;
    if (!T.Unknown) {
      H.C = floorMod(T.U.C, Period);
      for (auto [Var, Coef] : T.U.Terms)
        if (const std::int64_t C = floorMod(Coef, Period))
          H.Terms.push_back({Var, C});
    }
    // Components: variables tied by a guard atom or an opaque term.
    Parent.resize(Vars.size());
    std::iota(Parent.begin(), Parent.end(), 0);
    auto Find = [&](int X) {
      while (Parent[static_cast<std::size_t>(X)] != X)
        X = Parent[static_cast<std::size_t>(X)] = Parent[static_cast<std::size_t>(Parent[static_cast<std::size_t>(X)])];
      return X;
    };
    auto Tie = [&](const std::vector<int> &Deps) {
      for (std::size_t I = 1; I < Deps.size(); ++I)
        Parent[static_cast<std::size_t>(Find(IndexOf(Deps[I])))] = Find(IndexOf(Deps[0]));
    };
    if (AtomDeps.size() < TAtoms.size())
      AtomDeps.resize(TAtoms.size());
    for (std::size_t I = 0; I < TAtoms.size(); ++I) {
      AtomDeps[I].clear();
      depsOf(Atoms[static_cast<std::size_t>(TAtoms[I])].U, AtomDeps[I]);
      Tie(AtomDeps[I]);
    }
    // A choice's key needs its atom and its arms' distance at once: their
    // variables are one component (SelVar names it; -1: constant).
    int SelVar = -1;
    std::vector<int> SelDeps;
    if (T.Sel >= 0) {
      depsOf(T.SelD, SelDeps);
      for (int V : AtomDeps[SelSlot])
        if (std::find(SelDeps.begin(), SelDeps.end(), V) == SelDeps.end())
          SelDeps.push_back(V);
      Tie(SelDeps);
      if (!SelDeps.empty())
        SelVar = SelDeps[0];
    }
    Affine HConst;
    HConst.C = H.C;
    HTerms.clear();
    for (auto [Var, Coef] : H.Terms) {
      DepsOfVar(Var, VarDeps);
      if (VarDeps.empty())
        HConst.Terms.push_back({Var, Coef});
      else {
        Tie(VarDeps);
        HTerms.push_back({Var, Coef});
      }
    }
    // Start: one class holding the constant part of everything.
    const std::size_t KeyLen = 1 + TAtoms.size() + (T.Sel >= 0 ? 1 : 0);
    ClassTable Acc(KeyLen);
    std::vector<std::int64_t> Key(KeyLen, 0);
    {
      Key[0] = floorMod(valueAt(HConst, Vals), Period);
      for (std::size_t I = 0; I < TAtoms.size(); ++I)
        if (AtomDeps[I].empty())
          Key[1 + I] = static_cast<std::int64_t>(atomAt(TAtoms[I], Vals));
      if (T.Sel >= 0 && SelVar < 0)
        Key[KeyLen - 1] = SelKeyAt(TId, atomAt(T.Sel, Vals), Vals);
      Acc.add(Key.data(), 1);
    }
    const int SelRoot = SelVar < 0 ? -1 : Find(IndexOf(SelVar));
    for (std::size_t Root = 0; Root < Vars.size(); ++Root) {
      if (Find(static_cast<int>(Root)) != static_cast<int>(Root))
        continue;
      CompVars.clear(); // indices into Vars
      for (std::size_t I = 0; I < Vars.size(); ++I)
        if (Find(static_cast<int>(I)) == static_cast<int>(Root))
          CompVars.push_back(static_cast<int>(I));
      CompAtoms.clear();
      for (std::size_t I = 0; I < TAtoms.size(); ++I)
        if (!AtomDeps[I].empty() && Find(IndexOf(AtomDeps[I][0])) == static_cast<int>(Root))
          CompAtoms.push_back(I);
      Affine HC;
      bool OpaqueHere = false;
      for (auto [Var, Coef] : HTerms) {
        DepsOfVar(Var, VarDeps);
        if (Find(IndexOf(VarDeps[0])) == static_cast<int>(Root)) {
          HC.Terms.push_back({Var, Coef});
          OpaqueHere = OpaqueHere || Var >= OpaqueBase;
        }
      }
      for (std::size_t I : CompAtoms)
        for (auto [Var, Coef] : Atoms[static_cast<std::size_t>(TAtoms[I])].U.Terms)
          OpaqueHere = OpaqueHere || Var >= OpaqueBase;
      const bool SelHere = SelRoot == static_cast<int>(Root);
      if (SelHere)
        for (auto [Var, Coef] : T.SelD.Terms)
          OpaqueHere = OpaqueHere || Var >= OpaqueBase;
      // The component's classes: (residue, masks of its atoms[, the
      // choice's key]) -> count.
      ClassTable Comp(1 + CompAtoms.size() + (SelHere ? 1 : 0));
      std::vector<std::int64_t> CompKey(1 + CompAtoms.size() + (SelHere ? 1 : 0));
      auto AddClass = [&](std::int64_t Res, Wide Count) {
        CompKey[0] = Res;
        for (std::size_t J = 0; J < CompAtoms.size(); ++J)
          CompKey[1 + J] = static_cast<std::int64_t>(atomAt(TAtoms[CompAtoms[J]], Vals));
        if (SelHere)
          CompKey.back() = SelKeyAt(TId, atomAt(T.Sel, Vals), Vals);
        Comp.add(CompKey.data(), Count);
      };
      // One variable x = B + S t, t < n, entering affinely (the component's
      // other variables at their values in Vals): the masks change only
      // where some lane's guard value crosses 0, and the residue of a x is
      // periodic in t.
      auto CutOver = [&](const LoopDom &X) {
        std::int64_t A = 0;
        for (auto [Var, Coef] : HC.Terms)
          if (Var == X.Var)
            A = Coef;
        Vals[static_cast<std::size_t>(X.Var)] = X.Begin;
        Cuts.assign({0, X.Trips});
        for (std::size_t I : CompAtoms) {
          const AtomDef &D = Atoms[static_cast<std::size_t>(TAtoms[I])];
          std::int64_t K = 0;
          for (auto [Var, Coef] : D.U.Terms)
            if (Var == X.Var)
              K = Coef;
          const Wide Alpha = valueAt(D.U, Vals); // at t = 0
          const Wide Beta = static_cast<Wide>(K) * X.Step;
          if (Beta == 0)
            continue;
          // The lanes' crossing points lie between those of the smallest
          // and the largest guard offset: when that span is short, cut at
          // each point of it (an extra cut only splits a segment whose
          // masks are constant anyway); else lane by lane.
          std::int64_t GMin = 0, GMax = 0;
          bool Any = false;
          for (int L = 0; L < W; ++L)
            if ((T.Active >> L) & 1) {
              const std::int64_t G = D.HasG ? D.G[static_cast<std::size_t>(L)] : 0;
              GMin = Any ? std::min(GMin, G) : G;
              GMax = Any ? std::max(GMax, G) : G;
              Any = true;
            }
          if (!Any)
            continue;
          auto FloorAt = [&](std::int64_t G) -> Wide {
            const Wide Num = -(Alpha + G);
            Wide Fl = Num / Beta;
            if ((Num % Beta != 0) && ((Num < 0) != (Beta < 0)))
              --Fl;
            return Fl;
          };
          const Wide F1 = FloorAt(GMin), F2 = FloorAt(GMax);
          const Wide Lo = std::min(F1, F2), Hi = std::max(F1, F2);
          auto Cut = [&](Wide C) {
            if (C > 0 && C < X.Trips)
              Cuts.push_back(static_cast<std::int64_t>(C));
          };
          if (Hi - Lo <= 64) {
            for (Wide C = Lo; C <= Hi + 1; ++C)
              Cut(C);
            continue;
          }
          std::int64_t LastG = 0;
          bool HaveLast = false;
          for (int L = 0; L < W; ++L) {
            if (!((T.Active >> L) & 1))
              continue;
            const std::int64_t G = D.HasG ? D.G[static_cast<std::size_t>(L)] : 0;
            if (HaveLast && G == LastG)
              continue; // the same offset cuts at the same place
            LastG = G;
            HaveLast = true;
            const Wide Fl = FloorAt(G);
            Cut(Fl);
            Cut(Fl + 1);
          }
        }
        std::sort(Cuts.begin(), Cuts.end());
        Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
        const std::int64_t HS = floorMod(static_cast<std::int64_t>(
                                             static_cast<Wide>(A) * floorMod(X.Step, Period) % Period),
                                         Period);
        const std::int64_t H0 = floorMod(valueAt(HC, Vals), Period); // at t = 0
        std::int64_t Q = HS == 0 ? 1 : Period / std::gcd(HS, Period);
        // A choice whose arms' distance moves with x: its key repeats with
        // the distance's residue where one arm is taken, and is per point
        // where both are (near the atom's crossings, few points).
        bool SelMoves = false;
        if (SelHere)
          for (auto [Var, Coef] : T.SelD.Terms)
            if (Var == X.Var && Coef != 0) {
              SelMoves = true;
              const std::int64_t DS = floorMod(static_cast<std::int64_t>(static_cast<Wide>(Coef) *
                                                                         floorMod(X.Step, Period) % Period),
                                               Period);
              Q = std::lcm(Q, DS == 0 ? 1 : Period / std::gcd(DS, Period));
            }
        for (std::size_t Seg = 0; Seg + 1 < Cuts.size(); ++Seg) {
          const std::int64_t S0 = Cuts[Seg], Len = Cuts[Seg + 1] - S0;
          Vals[static_cast<std::size_t>(X.Var)] = X.Begin + X.Step * S0;
          if (SelMoves && Len > 1) {
            const Mask On = atomAt(T.Sel, Vals) & T.Active;
            if (On != 0 && On != T.Active) {
              spend(Len);
              for (std::int64_t J = 0; J < Len; ++J) {
                Vals[static_cast<std::size_t>(X.Var)] = X.Begin + X.Step * (S0 + J);
                AddClass((H0 + HS * floorMod(S0 + J, Period)) % Period, 1);
              }
              continue;
            }
          }
          const std::int64_t Full = Len / Q, Rem = Len % Q;
          // Each class added is work like an enumerated point's (atomAt,
          // valueAt, ClassTable::add): charged, so a cut-over run for
          // every point of the other variables, whose segments are many
          // and short (a lane-varying triangular loop), spends what it
          // costs (about 5 us a point were charged 1 before).
          spend(std::min(Q, Len));
          for (std::int64_t J = 0; J < std::min(Q, Len); ++J) {
            if (SelMoves)
              Vals[static_cast<std::size_t>(X.Var)] = X.Begin + X.Step * (S0 + J);
            const std::int64_t Res = (H0 + HS * floorMod(S0 + J, Period)) % Period;
            AddClass(Res, static_cast<Wide>(Full) + (J < Rem ? 1 : 0));
          }
        }
      };
      // With more variables, one that enters only affinely (no opaque value
      // depends on it) is cut over, and the others enumerated: a guard such
      // as tid < N ties bx and by, yet needs no visit of every block.
      int CutIndex = -1;
      if (CompVars.size() > 1 && (!CompAtoms.empty() || SelHere)) {
        std::vector<int> OpaqueDeps;
        auto NoteOpaques = [&](const Affine &A) {
          for (auto [Var, Coef] : A.Terms)
            if (Var >= OpaqueBase)
              for (const Affine &Arg : Opaques[static_cast<std::size_t>(Var - OpaqueBase)].Args)
                depsOf(Arg, OpaqueDeps);
        };
        NoteOpaques(HC);
        for (std::size_t I : CompAtoms)
          NoteOpaques(Atoms[static_cast<std::size_t>(TAtoms[I])].U);
        if (SelHere)
          NoteOpaques(T.SelD);
        for (int I : CompVars) {
          const LoopDom &V = Vars[static_cast<std::size_t>(I)];
          if (std::find(OpaqueDeps.begin(), OpaqueDeps.end(), V.Var) == OpaqueDeps.end() &&
              (CutIndex < 0 || V.Trips > Vars[static_cast<std::size_t>(CutIndex)].Trips))
            CutIndex = I;
        }
      }
      if (CompVars.size() == 1 && !OpaqueHere) {
        CutOver(Vars[static_cast<std::size_t>(CompVars[0])]);
      } else if (CompAtoms.empty() && !SelHere) {
        // Only the residue matters: enumerate once per distinct (value,
        // domain), shared by every warp position and loop iteration.
        std::string Key = fmt::format("{}", HC.C);
        for (auto [Var, Coef] : HC.Terms)
          Key += fmt::format("|{}*{}", Var, Coef);
        for (int I : CompVars) {
          const LoopDom &V = Vars[static_cast<std::size_t>(I)];
          Key += fmt::format("|{}:{}:{}:{}", V.Var, V.Begin, V.Step, V.Trips);
        }
        auto [It, Fresh] = ResidueCache.try_emplace(Key);
        std::vector<Wide> &Counts = It->second;
        if (Fresh) {
          Wide Points = 1;
          for (int I : CompVars)
            Points *= Vars[static_cast<std::size_t>(I)].Trips;
          if (Points > (Wide(1) << 26))
            throw NotAffine{"more than 2^26 blocks or iterations tied together by "
                            "an opaque value"};
          spend(static_cast<std::int64_t>(Points) / 1024);
          Counts.assign(static_cast<std::size_t>(Period), 0);
          std::vector<std::int64_t> Odo(CompVars.size(), 0);
          for (Wide P = 0; P < Points; ++P) {
            for (std::size_t J = 0; J < CompVars.size(); ++J) {
              const LoopDom &V = Vars[static_cast<std::size_t>(CompVars[J])];
              Vals[static_cast<std::size_t>(V.Var)] = V.Begin + V.Step * Odo[J];
            }
            ++Counts[static_cast<std::size_t>(floorMod(valueAt(HC, Vals), Period))];
            for (std::size_t J = 0; J < CompVars.size(); ++J) {
              if (++Odo[J] < Vars[static_cast<std::size_t>(CompVars[J])].Trips)
                break;
              Odo[J] = 0;
            }
          }
        }
        for (std::size_t R = 0; R < Counts.size(); ++R)
          if (Counts[R])
            AddClass(static_cast<std::int64_t>(R), Counts[R]);
      } else {
        // Enumerate the component's points, all but the variable cut over
        // (CutIndex) when there is one.
        std::string CacheKey;
        bool Cached = false;
        if (!SelHere) { // a choice's key is the template's own (SelKeyAt)
          CacheKey = fmt::format("{}:{}:{}", HC.C, static_cast<std::uint64_t>(T.Active),
                                 CutIndex < 0 ? -1 : Vars[static_cast<std::size_t>(CutIndex)].Var);
          for (auto [Var, Coef] : HC.Terms)
            CacheKey += fmt::format("|{}*{}", Var, Coef);
          for (std::size_t I : CompAtoms)
            CacheKey += fmt::format("|a{}", TAtoms[I]);
          for (int I : CompVars) {
            const LoopDom &V = Vars[static_cast<std::size_t>(I)];
            CacheKey += fmt::format("|{}:{}:{}:{}", V.Var, V.Begin, V.Step, V.Trips);
          }
          if (const auto It = ComponentCache.find(CacheKey); It != ComponentCache.end()) {
            Comp = It->second;
            Cached = true;
          }
        }
        Wide Points = 1;
        for (int I : CompVars)
          if (I != CutIndex)
            Points *= Vars[static_cast<std::size_t>(I)].Trips;
        if (Points > (Wide(1) << 22))
          throw NotAffine{"more than 2^22 blocks or iterations tied together by "
                          "a guard or an opaque value"};
        std::vector<std::int64_t> Odo(CompVars.size(), 0);
        if (!Cached)
          spend(static_cast<std::int64_t>(Points));
        for (Wide P = 0; P < (Cached ? 0 : Points); ++P) {
          for (std::size_t J = 0; J < CompVars.size(); ++J)
            if (CompVars[J] != CutIndex) {
              const LoopDom &V = Vars[static_cast<std::size_t>(CompVars[J])];
              Vals[static_cast<std::size_t>(V.Var)] = V.Begin + V.Step * Odo[J];
            }
          if (CutIndex >= 0)
            CutOver(Vars[static_cast<std::size_t>(CutIndex)]);
          else
            AddClass(floorMod(valueAt(HC, Vals), Period), 1);
          for (std::size_t J = 0; J < CompVars.size(); ++J) {
            if (CompVars[J] == CutIndex)
              continue;
            if (++Odo[J] < Vars[static_cast<std::size_t>(CompVars[J])].Trips)
              break;
            Odo[J] = 0;
          }
        }
        if (!SelHere && !Cached)
          ComponentCache.emplace(CacheKey, Comp);
      }
      // Fold the component into the classes so far.
      ClassTable Next(KeyLen);
      Next.reserve(std::min<std::size_t>(Acc.size() * Comp.size(), std::size_t(1) << 16));
      for (std::size_t I1 = 0; I1 < Acc.size(); ++I1)
        for (std::size_t I2 = 0; I2 < Comp.size(); ++I2) {
          const std::int64_t *K1 = Acc.key(I1), *K2 = Comp.key(I2);
          std::copy(K1, K1 + KeyLen, Key.begin());
          Key[0] = (K1[0] + K2[0]) % Period;
          for (std::size_t J = 0; J < CompAtoms.size(); ++J)
            Key[1 + CompAtoms[J]] = K2[1 + J];
          if (SelHere)
            Key[KeyLen - 1] = K2[1 + CompAtoms.size()];
          Next.add(Key.data(), Acc.count(I1) * Comp.count(I2));
        }
      std::swap(Acc, Next);
    }
    // Each class once: its mask, its costs, its count.
    const SiteInfo &S = Sites[static_cast<std::size_t>(T.Site)];
    AccessSiteReport &Rp = Rep.Sites[static_cast<std::size_t>(T.Site)];
    for (std::size_t Class = 0; Class < Acc.size(); ++Class) {
      const std::int64_t *K = Acc.key(Class);
      const Wide Count = Acc.count(Class);
      for (std::size_t I = 0; I < TAtoms.size(); ++I)
        AtomMasks[static_cast<std::size_t>(TAtoms[I])] = static_cast<Mask>(K[1 + I]);
      Mask Active = T.Active;
      if (T.Pred >= 0)
        Active &= predAt(T.Pred, AtomMasks);
      if (T.Oob >= 0 && (Active & predAt(T.Oob, AtomMasks)))
        throw NotAffine{"an index that leaves its array (checked thread by thread)"};
      if (!Active || Count == 0)
        continue;
      if (Count > std::numeric_limits<std::int64_t>::max() / 64)
        throw UserError(Kern.Loc, fmt::format("kernel '{}' makes too many warp "
                                              "accesses to count in 64 bits",
                                              Kern.Name));
      const CacheEntry E = T.Sel >= 0 ? SelCostsFor(TId, K[0], Active, AtomMasks[static_cast<std::size_t>(T.Sel)],
                                                    K[KeyLen - 1])
                                      : CostsFor(static_cast<int>(TId), K[0], Active);
      std::optional<DataCongestion> Data;
      if (!E.Exact) {
        Data = T.DataUniform ? DataCongestion{E.Costs.Congestion, static_cast<double>(E.Costs.Congestion)}
                             : dataCongestion(S, std::popcount(Active), T.ReachWorst);
        if (Rp.DataSource.empty())
          Rp.DataSource = T.UnknownSrc;
      }
      if (T.Guarded) {
        if (!Rp.DataGuarded) {
          Rp.DataGuarded = true;
          Rp.GuardSource = T.GuardSrc;
          Rp.GuardLoc = T.GuardLoc;
          Rp.GuardIsLoop = T.GuardIsLoop;
        }
        Rp.ExpectedGuardCongestion += E.ExpectedHalf * static_cast<double>(Count);
      }
      if (Data)
        DataExpected[static_cast<std::size_t>(T.Site)][Data->Expected] += static_cast<std::int64_t>(Count);
      addStats(Rp, E.Costs, Data ? &*Data : nullptr, std::popcount(Active), static_cast<std::int64_t>(Count));
    }
  }

  // 3. Time: the simulator needs every warp's access in order, so it runs
  //    only up to Opts.TimeWorkLimit warp accesses.
  // Work of the walk: one unit per warp access plus one per guard atom
  // evaluated for it.
  std::int64_t Executions = 0;
  {
    std::vector<std::int64_t> Atoms1(Sites.size(), 1);
    for (std::size_t TId = 0; TId < Templates.size(); ++TId)
      Atoms1[static_cast<std::size_t>(Templates[TId].Site)] =
          std::max<std::int64_t>(Atoms1[static_cast<std::size_t>(Templates[TId].Site)],
                                 1 + static_cast<std::int64_t>(AtomsOf[TId].size()));
    for (std::size_t I = 0; I < Rep.Sites.size(); ++I)
      Executions += Rep.Sites[I].WarpExecutions * Atoms1[I];
  }
  Rep.Requests = 0;
  for (const AccessSiteReport &R : Rep.Sites)
    Rep.Requests += R.ThreadAccesses;
  if (Executions > Opts.TimeWorkLimit || !Opts.SimulateTime || !Opts.OnlyArray.empty() ||
      !Opts.OnlySites.empty()) {
    Rep.TimeSimulated = false;
    return;
  }
  struct Flat {
    int Template;
    std::vector<std::int64_t> VarVals; // by var id (block vars left 0)
  };
  std::vector<std::vector<std::vector<Flat>>> Phases(static_cast<std::size_t>(WarpsPerBlock));
  for (std::int64_t Wib = 0; Wib < WarpsPerBlock; ++Wib) {
    auto &Out = Phases[static_cast<std::size_t>(Wib)];
    Out.emplace_back();
    const std::size_t Run = Family ? 0 : static_cast<std::size_t>(Wib);
    std::vector<std::int64_t> Vals(DomainsOf[Run].size(), 0);
    if (Family) {
      const std::array<std::int64_t, 3> WV = warpVars(Wib);
      for (int K = 0; K < 3; ++K)
        Vals[static_cast<std::size_t>(VarWx + K)] = WV[static_cast<std::size_t>(K)];
    }
    std::function<void(const std::vector<TraceNode> &)> Walk =
        [&](const std::vector<TraceNode> &Nodes) {
          for (const TraceNode &N : Nodes) {
            if (N.K == TraceNode::Access) {
              Out.back().push_back({N.TemplateId, Vals});
            } else if (N.K == TraceNode::Barrier) {
              Out.emplace_back();
            } else {
              for (std::int64_t T = 0; T < N.Trips; ++T) {
                Vals[static_cast<std::size_t>(N.Var)] = N.Begin + N.Step * T;
                Walk(N.Body);
              }
            }
          }
        };
    Walk(Trees[Run]);
  }
  const std::int64_t Wm = machineWidth(TimeModel);
  SimOptions SO;
  SO.BlockThreads = WarpsPerBlock * Wm;
  Simulator Sim(TimeModel, NumBlocks * WarpsPerBlock * Wm, SO);
  std::size_t NumPhases = 0;
  for (const auto &P : Phases)
    NumPhases = std::max(NumPhases, P.size());
  // As the warp-by-warp path: round r of a phase is every warp's r-th
  // access in it, and a guard that leaves a warp no lane skips the access,
  // so each warp keeps a cursor to its next access with an active lane.
  const std::int64_t NumWarps = NumBlocks * WarpsPerBlock;
  struct Next {
    std::int32_t Cursor = 0; ///< next flat entry to look at
    bool Has = false;
    bool Shared = false;
    std::int64_t K = 0;
    int Requests = 0;
  };
  std::vector<Next> Warps(static_cast<std::size_t>(NumWarps));
  Vals.clear();
  auto Advance = [&](std::int64_t Wp, std::size_t Ph) {
    Next &N = Warps[static_cast<std::size_t>(Wp)];
    const std::int64_t B = Wp / WarpsPerBlock, Wib = Wp % WarpsPerBlock;
    const auto &P = Phases[static_cast<std::size_t>(Wib)];
    N.Has = false;
    if (Ph >= P.size())
      return;
    const auto &List = P[Ph];
    const std::int64_t BIdx[3] = {B % Grid[0], B / Grid[0] % Grid[1], B / (Grid[0] * Grid[1])};
    while (static_cast<std::size_t>(N.Cursor) < List.size()) {
      const Flat &F = List[static_cast<std::size_t>(N.Cursor++)];
      const Template &T = Templates[static_cast<std::size_t>(F.Template)];
      Vals = F.VarVals;
      for (int D = 0; D < 3; ++D)
        Vals[static_cast<std::size_t>(D)] = BIdx[D];
      Mask Active = T.Active;
      if (T.Pred >= 0) {
        for (int A : AtomsOf[static_cast<std::size_t>(F.Template)])
          AtomMasks[static_cast<std::size_t>(A)] = atomAt(A, Vals);
        Active &= predAt(T.Pred, AtomMasks);
      }
      if (!Active)
        continue;
      N.Has = true;
      N.Shared = spaceOf(Sites[static_cast<std::size_t>(T.Site)]) == Space::Shared;
      if (T.Lt >= 0) {
        const SiteInfo &S = Sites[static_cast<std::size_t>(T.Site)];
        N.K = timeCost(S, costsOf(S, laneTableAddresses(T, Vals, Active)), false, std::popcount(Active));
      } else {
        const std::int64_t Base = T.Unknown ? 0 : floorMod(valueAt(T.U, Vals), Period);
        if (T.Sel >= 0) {
          const Mask Chosen = atomAt(T.Sel, Vals);
          N.K = SelCostsFor(static_cast<std::size_t>(F.Template), Base, Active, Chosen,
                            SelKeyAt(static_cast<std::size_t>(F.Template), Chosen, Vals))
                    .TimeK;
        } else {
          N.K = CostsFor(F.Template, Base, Active).TimeK;
        }
      }
      N.Requests = std::popcount(Active);
      return;
    }
  };
  for (std::size_t Ph = 0; Ph < NumPhases; ++Ph) {
    bool Any = false;
    for (std::int64_t Wp = 0; Wp < NumWarps; ++Wp) {
      Warps[static_cast<std::size_t>(Wp)].Cursor = 0;
      Advance(Wp, Ph);
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
          Advance(Wp, Ph);
          Any = Any || Warps[static_cast<std::size_t>(Wp)].Has;
        }
    }
  }
  const SimResult Res = Sim.finish();
  Rep.Time = Res.Time;
  Rep.Requests = Res.Requests;
}

} // namespace bankwise::kernel_analysis
