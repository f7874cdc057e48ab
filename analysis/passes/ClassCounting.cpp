// Counting warps by class (the fast path of analyzeKernel): the
// class-counting run (Analyzer::ClassCountingRun, detail/WarpRun.h), which
// counts each access's warp executions per (residue, mask) class without
// visiting warps (docs/analysis.md), as a sequence of steps: the symbolic
// runs through the warp evaluator (runWarps, the run's hooks and its
// templates here), the counting by class of each template
// (Analyzer::ClassCounter, here), and the time walk. A class's costs and
// the time walk are in ClassCosts.cpp (their types in
// detail/ClassCounting.h). The opaque values and guard atoms of the
// symbolic run are in SymbolicValues.cpp; lane tables, walked warp by warp,
// in LaneTables.cpp. The other run, warp by warp, is ExhaustiveRun.cpp.
#include "analysis/passes/detail/ClassCounting.h"
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <unordered_map>

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

/// The shift, in elements, under which every site's warp costs repeat: the
/// warp's width and each site's 128 bytes in elements.
std::int64_t classPeriod(const std::vector<SiteInfo> &Sites, std::int64_t W) {
  std::int64_t Period = W;
  for (const SiteInfo &S : Sites)
    Period = std::lcm(Period, std::max<std::int64_t>(1, 128 / S.Arr->ElemBytes));
  return Period;
}

/// T's base address modulo Period (nothing where data decides it).
Affine baseResidue(const Template &T, std::int64_t Period) {
  // The base address modulo Period; opaque terms whose coefficient is a
  // multiple of Period do not move it (bitrev(bx, m) * 32 words).
  Affine H;
  if (!T.Unknown) {
    H.C = floorMod(T.U.C, Period);
    for (auto [Var, Coef] : T.U.Terms)
      if (const std::int64_t C = floorMod(Coef, Period))
        H.Terms.push_back({Var, C});
  }
  return H;
}

/// Adds to Cuts the steps t in 1..Trips-1 of a variable at which atom D
/// may change its mask over the lanes of Active: where a lane's guard
/// value, Alpha + G[l] at t = 0 and moving by Beta a step, crosses 0.
void addAtomCuts(const AtomDef &D, Wide Alpha, Wide Beta, std::int64_t Trips, Mask Active, std::int64_t W,
                 std::vector<std::int64_t> &Cuts) {
  // The lanes' crossing points lie between those of the smallest
  // and the largest guard offset: when that span is short, cut at
  // each point of it (an extra cut only splits a segment whose
  // masks are constant anyway); else lane by lane.
  std::int64_t GMin = 0, GMax = 0;
  bool Any = false;
  for (int L = 0; L < W; ++L)
    if ((Active >> L) & 1) {
      const std::int64_t G = D.HasG ? D.G[static_cast<std::size_t>(L)] : 0;
      GMin = Any ? std::min(GMin, G) : G;
      GMax = Any ? std::max(GMax, G) : G;
      Any = true;
    }
  if (!Any)
    return;
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
    if (C > 0 && C < Trips)
      Cuts.push_back(static_cast<std::int64_t>(C));
  };
  if (Hi - Lo <= 64) {
    for (Wide C = Lo; C <= Hi + 1; ++C)
      Cut(C);
    return;
  }
  std::int64_t LastG = 0;
  bool HaveLast = false;
  for (int L = 0; L < W; ++L) {
    if (!((Active >> L) & 1))
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

/// The classes so far, Acc, times a component's, Comp: residues added, the
/// component's atom masks (at Acc's slots 1 + CompAtoms[j]) and choice key
/// (SelHere: the last slot) set. Key: a buffer of Acc's key length.
ClassTable foldClasses(const ClassTable &Acc, const ClassTable &Comp, const std::vector<std::size_t> &CompAtoms,
                       bool SelHere, std::int64_t Period, std::vector<std::int64_t> &Key) {
  const std::size_t KeyLen = Key.size();
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
  return Next;
}

/// The time walk's work: one unit per warp access plus one per guard atom
/// evaluated for it (AtomsOf: each template's atoms).
std::int64_t timeWalkWork(const std::vector<Template> &Templates, const std::vector<std::vector<int>> &AtomsOf,
                          const std::vector<AccessSiteReport> &Reports) {
  std::int64_t Executions = 0;
  std::vector<std::int64_t> Atoms1(Reports.size(), 1);
  for (std::size_t TId = 0; TId < Templates.size(); ++TId)
    Atoms1[static_cast<std::size_t>(Templates[TId].Site)] =
        std::max<std::int64_t>(Atoms1[static_cast<std::size_t>(Templates[TId].Site)],
                               1 + static_cast<std::int64_t>(AtomsOf[TId].size()));
  for (std::size_t I = 0; I < Reports.size(); ++I)
    Executions += Reports[I].WarpExecutions * Atoms1[I];
  return Executions;
}

} // namespace

/// Counts each template's warp executions by class (the residue of its
/// base address modulo Period, the lane mask of each guard atom) into its
/// site's report, without visiting warps: closed form over a variable that
/// enters affinely, enumeration only over variables tied together by an
/// opaque value or a guard. One counter serves every template of the
/// analysis, its caches and buffers shared.
class Analyzer::ClassCounter {
public:
  /// Family: the warp family the symbolic runs ran as (nullopt: none).
  ClassCounter(Analyzer &Owner, ClassCosts &Costs, const std::optional<WarpFamily> &Family);
  /// Counts template Id's warp executions into its site's report in Rep.
  void countTemplate(std::size_t Id, KernelReport &Rep);

  /// Per template, the guard atoms its classes are keyed by: its guard's,
  /// its bounds check's and its per-lane choice's.
  std::vector<std::vector<int>> AtomsOf;

private:
  /// AtomsOf[TId], and SelSlot.
  void collectTemplateAtoms();
  /// Vars: the variables the template runs over (block indices, warp
  /// position, loops); Vals sized for them.
  void collectVariables();
  /// Ties the template's variables into components (Parent), notes each
  /// atom's variables (AtomDeps) and the choice's (SelVar), and parts the
  /// base residue into HConst and the terms with variables (HTerms).
  void tieComponents();
  /// The one class holding the constant part of everything (KeyLen, Key
  /// set for the template).
  ClassTable constantClass();
  /// The component of Vars whose root is Root (Sel: the choice's key is
  /// its): CompVars, CompAtoms, HC, OpaqueHere, SelHere; Comp emptied.
  void gatherComponent(int Root, bool Sel);
  /// The variable (an index into Vars) to cut over among the component's
  /// others, -1: none.
  int cutVariable() const;
  /// Comp: the component's classes, its one variable X cut over.
  void cutOver(const LoopDom &X);
  /// Cuts: the steps of X (0 and its trips included, sorted) where some
  /// atom of the component may change its mask.
  void collectCuts(const LoopDom &X);
  /// Comp: the component's classes where only the residue matters.
  void countResidues();
  /// ComponentCache's key of the component's classes.
  std::string componentKey(int CutIndex) const;
  /// Comp: the component's classes, its points enumerated.
  void enumeratePoints(int CutIndex);
  /// Adds Count executions at residue Res to Comp, the atoms' masks and
  /// the choice's key at Vals.
  void addClass(std::int64_t Res, Wide Count);
  /// Each class of Acc into the template's site report in Rep.
  void reportClasses(const ClassTable &Acc, KernelReport &Rep);
  /// The variables Var stands for: itself, or an opaque value's.
  void depsOfVar(int Var, std::vector<int> &Out) const;
  /// Var's index in Vars.
  int indexOf(int Var) const;
  /// The root of variable X's component (by index in Vars).
  int rootOf(int X);
  /// Ties the variables Deps into one component.
  void tieVars(const std::vector<int> &Deps);

  Analyzer &An;
  ClassCosts &Costs;
  const std::optional<WarpFamily> &Family;
  const std::int64_t Period;
  std::vector<Mask> AtomMasks;
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

  // The template counted.
  std::size_t TId = 0;
  std::size_t SelSlot = 0; // the choice's atom in AtomsOf[TId]
  // A choice's key needs its atom and its arms' distance at once: their
  // variables are one component (SelVar names it; -1: constant).
  int SelVar = -1;
  Affine HConst;
  std::size_t KeyLen = 1;
  std::vector<std::int64_t> Key;
  // Its component counted.
  Affine HC;
  bool OpaqueHere = false, SelHere = false;
  // The component's classes: (residue, masks of its atoms[, the
  // choice's key]) -> count.
  ClassTable Comp{1};
  std::vector<std::int64_t> CompKey;
};

void Analyzer::ClassCountingRun::run(KernelReport &Rep) {
  // 1. Symbolic run per warp position: templates of accesses whose address
  //    is uniform part (affine in block indices and loop variables, plus
  //    opaque uniform values) + per-lane part, under guards.
  //    A warp family (Analyzer::WarpFamily) runs once, its warp position
  //    variables symbolic as the block indices are.
  const SymbolicRuns Runs = runWarps();
  Rep.SymbolicAccesses = static_cast<std::int64_t>(An.Templates.size());

  Rep.Sites = emptyReports(An.Sites);
  An.DataExpected.assign(An.Sites.size(), {});
  ClassCosts Costs(An, classPeriod(An.Sites, An.W));

  // 2. Count every template's warp executions by class (residue of the base
  //    address modulo Period, lane mask of each guard atom) without visiting
  //    warps: closed form over a variable that enters affinely, enumeration
  //    only over variables tied together by an opaque value or a guard.
  ClassCounter Counter(An, Costs, Family);
  for (std::size_t TId = 0; TId < An.Templates.size(); ++TId)
    Counter.countTemplate(TId, Rep);

  // 3. Time: the simulator needs every warp's access in order, so it runs
  //    only up to Opts.TimeWorkLimit warp accesses.
  // Work of the walk: one unit per warp access plus one per guard atom
  // evaluated for it.
  const std::int64_t Executions = timeWalkWork(An.Templates, Counter.AtomsOf, Rep.Sites);
  Rep.Requests = 0;
  for (const AccessSiteReport &R : Rep.Sites)
    Rep.Requests += R.ThreadAccesses;
  if (Executions > An.Opts.TimeWorkLimit || !An.Opts.SimulateTime || !An.Opts.OnlyArray.empty() ||
      !An.Opts.OnlySites.empty()) {
    Rep.TimeSimulated = false;
    return;
  }
  TimeWalk Walk(An, Costs, Counter.AtomsOf);
  Walk.flattenPhases(Runs);
  const SimResult Res = Walk.simulate();
  Rep.Time = Res.Time;
  Rep.Requests = Res.Requests;
}

Analyzer::SymbolicRuns Analyzer::ClassCountingRun::runWarps() {
  const std::int64_t Runs = Family ? 1 : An.WarpsPerBlock;
  SymbolicRuns Out;
  Out.Family = Family;
  Out.Trees.resize(static_cast<std::size_t>(Runs));
  Out.DomainsOf.resize(static_cast<std::size_t>(Runs));
  for (std::int64_t Wib = 0; Wib < Runs; ++Wib) {
    An.spend(1);
    An.setupWarp(0, Wib);
    if (Family)
      for (int K = 0; K < 3; ++K)
        An.Domains[static_cast<std::size_t>(VarWx + K)] = {0, Family->N[static_cast<std::size_t>(K)] - 1};
    An.CurTree = &Out.Trees[static_cast<std::size_t>(Wib)];
    Mask M = An.Lanes == 64 ? ~Mask(0) : (Mask(1) << An.Lanes) - 1;
    An.exec(An.Kern.Body, M);
    Out.DomainsOf[static_cast<std::size_t>(Wib)] = An.Domains;
  }
  return Out;
}

void Analyzer::ClassCountingRun::blockIndex(int Dim, Val &R) const {
  if (An.Grid[static_cast<std::size_t>(Dim)] > 1)
    R.U.Terms.push_back({VarBx + Dim, 1});
  else
    R.U.C = An.CurBlockIdx[static_cast<std::size_t>(Dim)];
}

void Analyzer::ClassCountingRun::blockOffset(Val &R) const {
  const std::int64_t Strides[3] = {An.Tpb, An.Tpb * An.Grid[0], An.Tpb * An.Grid[0] * An.Grid[1]};
  for (int D = 0; D < 3; ++D)
    if (An.Grid[static_cast<std::size_t>(D)] > 1)
      R.U.Terms.push_back({VarBx + D, Strides[D]});
}

void Analyzer::ClassCountingRun::familyTerms(const std::array<std::int64_t, 3> &Coef, Val &R) const {
  if (!Family)
    return;
  for (int K = 0; K < 3; ++K)
    if (Family->N[static_cast<std::size_t>(K)] > 1 && Coef[static_cast<std::size_t>(K)] != 0)
      R.U.Terms.push_back({VarWx + K, Coef[static_cast<std::size_t>(K)]});
}

void Analyzer::ClassCountingRun::threadTerms(int Dim, Val &R) const {
  if (Family)
    familyTerms(Family->Coef[static_cast<std::size_t>(Dim)], R);
}

void Analyzer::ClassCountingRun::warpIndexTerms(std::int64_t Scale, Val &R) const {
  if (Family) {
    const auto &Nw = Family->N;
    familyTerms({Scale, Scale * Nw[0], Scale * Nw[0] * Nw[1]}, R);
  }
}

void Analyzer::ClassCountingRun::warpPositionDecides(const std::string &Reason) const {
  if (Family)
    throw NotAffine{Reason};
}

void Analyzer::ClassCountingRun::forLoop(const ir::For &F, const SourceLoc &Loc, const Val &Begin,
                                         const Val &End, const Val &Step, Mask M) {
  An.execSymbolicFor(F, Loc, Begin, End, Step, M);
}

void Analyzer::ClassCountingRun::dataForTrips(const ir::For &F, const SourceLoc &Loc, const Val &Begin,
                                              const Val &Step, Mask M,
                                              const std::function<Mask(const Val &)> &Within) {
  An.sampleSymbolicDataFor(F, Loc, Begin, Step, M, Within);
}

void Analyzer::ClassCountingRun::whileLoop(const ir::While &Wh, const SourceLoc &Loc, Mask M) {
  An.execSymbolicWhile(Wh, Loc, M);
}

/// A barrier: a node of the run's trace tree.
void Analyzer::ClassCountingRun::barrier() {
  TraceNode Node;
  Node.K = TraceNode::Barrier;
  An.CurTree->push_back(std::move(Node));
}

/// The access as a template (its address's uniform and lane parts, its
/// guard, loops and bounds check), and its node in the run's trace tree.
void Analyzer::ClassCountingRun::record(int Site, const Val &Addr, Mask M) {
  Template T;
  T.Site = Site;
  T.Active = M;
  T.Pred = An.CurPred;
  T.Oob = An.PendingOob;
  An.PendingOob = -1;
  T.Loops = An.LoopStack;
  T.Lt = Addr.Lt;
  T.LtScale = Addr.LtScale;
  T.Unknown = Addr.Unknown;
  T.UnknownSrc = Addr.UnknownSrc;
  T.ReachWorst = Addr.ReachWorst;
  T.DataUniform = Addr.Unknown && Addr.DataUniform;
  T.DataStep = Addr.DataStep;
  if (!An.Guards.empty()) {
    T.Guarded = true;
    T.GuardSrc = An.Guards.front().Source;
    T.GuardLoc = An.Guards.front().Loc;
    T.GuardIsLoop = An.Guards.front().Loop;
  }
  if (!Addr.Unknown || T.DataUniform) {
    T.U = Addr.U;
    T.HasV = Addr.HasV;
    T.V = Addr.V;
    T.Sel = Addr.Sel;
    T.SelD = Addr.SelD;
    T.SelV = Addr.SelV;
  }
  An.Templates.push_back(std::move(T));
  TraceNode Node;
  Node.TemplateId = static_cast<int>(An.Templates.size()) - 1;
  An.CurTree->push_back(std::move(Node));
}

Analyzer::ClassCounter::ClassCounter(Analyzer &Owner, ClassCosts &Costs, const std::optional<WarpFamily> &Family)
    : AtomsOf(Owner.Templates.size()), An(Owner), Costs(Costs), Family(Family), Period(Costs.Period),
      AtomMasks(Owner.Atoms.size(), 0) {}

void Analyzer::ClassCounter::countTemplate(std::size_t Id, KernelReport &Rep) {
  TId = Id;
  const Template &T = An.Templates[TId];
  if (!An.Opts.OnlyArray.empty() &&
      An.Sites[static_cast<std::size_t>(T.Site)].Arr->Decl->Name != An.Opts.OnlyArray)
    return;
  collectTemplateAtoms();
  collectVariables();
  if (T.Lt >= 0) {
    if (T.Guarded) // the per-lane table walk has no expected figure
      throw NotAffine{"a per-lane table read under a data-dependent condition"};
    Rep.TableWalk = true;
    An.countLaneTable(static_cast<int>(TId), Vars, AtomsOf[TId], Rep.Sites[static_cast<std::size_t>(T.Site)]);
    return;
  }
  tieComponents();
  ClassTable Acc = constantClass();
  const int SelRoot = SelVar < 0 ? -1 : rootOf(indexOf(SelVar));
  for (std::size_t Root = 0; Root < Vars.size(); ++Root) {
    if (rootOf(static_cast<int>(Root)) != static_cast<int>(Root))
      continue;
    gatherComponent(static_cast<int>(Root), SelRoot == static_cast<int>(Root));
    const int CutIndex = cutVariable();
    if (CompVars.size() == 1 && !OpaqueHere)
      cutOver(Vars[static_cast<std::size_t>(CompVars[0])]);
    else if (CompAtoms.empty() && !SelHere)
      countResidues();
    else
      enumeratePoints(CutIndex);
    // Fold the component into the classes so far.
    Acc = foldClasses(Acc, Comp, CompAtoms, SelHere, Period, Key);
  }
  reportClasses(Acc, Rep);
}

void Analyzer::ClassCounter::collectTemplateAtoms() {
  const Template &T = An.Templates[TId];
  std::vector<int> &TAtoms = AtomsOf[TId];
  An.collectAtoms(T.Pred, TAtoms);
  An.collectAtoms(T.Oob, TAtoms);
  SelSlot = 0;
  if (T.Sel >= 0) {
    SelSlot = static_cast<std::size_t>(std::find(TAtoms.begin(), TAtoms.end(), T.Sel) - TAtoms.begin());
    if (SelSlot == TAtoms.size())
      TAtoms.push_back(T.Sel);
  }
}

void Analyzer::ClassCounter::collectVariables() {
  const Template &T = An.Templates[TId];
  Vars.clear();
  for (int D = 0; D < 3; ++D)
    if (An.Grid[static_cast<std::size_t>(D)] > 1)
      Vars.push_back({D, 0, 1, An.Grid[static_cast<std::size_t>(D)]});
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
}

void Analyzer::ClassCounter::depsOfVar(int Var, std::vector<int> &Out) const {
  Out.clear();
  if (Var >= OpaqueBase) {
    for (const Affine &Arg : An.Opaques[static_cast<std::size_t>(Var - OpaqueBase)].Args)
      An.depsOf(Arg, Out);
  } else {
    Out.push_back(Var);
  }
}

int Analyzer::ClassCounter::indexOf(int Var) const {
  for (std::size_t I = 0; I < Vars.size(); ++I)
    if (Vars[I].Var == Var)
      return static_cast<int>(I);
  throw NotAffine{"a variable outside its loop"};
}

int Analyzer::ClassCounter::rootOf(int X) {
  while (Parent[static_cast<std::size_t>(X)] != X)
    X = Parent[static_cast<std::size_t>(X)] = Parent[static_cast<std::size_t>(Parent[static_cast<std::size_t>(X)])];
  return X;
}

void Analyzer::ClassCounter::tieVars(const std::vector<int> &Deps) {
  for (std::size_t I = 1; I < Deps.size(); ++I)
    Parent[static_cast<std::size_t>(rootOf(indexOf(Deps[I])))] = rootOf(indexOf(Deps[0]));
}

void Analyzer::ClassCounter::tieComponents() {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  const Affine H = baseResidue(T, Period);
  // Components: variables tied by a guard atom or an opaque term.
  Parent.resize(Vars.size());
  std::iota(Parent.begin(), Parent.end(), 0);
  if (AtomDeps.size() < TAtoms.size())
    AtomDeps.resize(TAtoms.size());
  for (std::size_t I = 0; I < TAtoms.size(); ++I) {
    AtomDeps[I].clear();
    An.depsOf(An.Atoms[static_cast<std::size_t>(TAtoms[I])].U, AtomDeps[I]);
    tieVars(AtomDeps[I]);
  }
  // A choice's key needs its atom and its arms' distance at once: their
  // variables are one component (SelVar names it; -1: constant).
  SelVar = -1;
  std::vector<int> SelDeps;
  if (T.Sel >= 0) {
    An.depsOf(T.SelD, SelDeps);
    for (int V : AtomDeps[SelSlot])
      if (std::find(SelDeps.begin(), SelDeps.end(), V) == SelDeps.end())
        SelDeps.push_back(V);
    tieVars(SelDeps);
    if (!SelDeps.empty())
      SelVar = SelDeps[0];
  }
  HConst = Affine();
  HConst.C = H.C;
  HTerms.clear();
  for (auto [Var, Coef] : H.Terms) {
    depsOfVar(Var, VarDeps);
    if (VarDeps.empty())
      HConst.Terms.push_back({Var, Coef});
    else {
      tieVars(VarDeps);
      HTerms.push_back({Var, Coef});
    }
  }
}

ClassTable Analyzer::ClassCounter::constantClass() {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  // Start: one class holding the constant part of everything.
  KeyLen = 1 + TAtoms.size() + (T.Sel >= 0 ? 1 : 0);
  ClassTable Acc(KeyLen);
  Key.assign(KeyLen, 0);
  Key[0] = floorMod(An.valueAt(HConst, Vals), Period);
  for (std::size_t I = 0; I < TAtoms.size(); ++I)
    if (AtomDeps[I].empty())
      Key[1 + I] = static_cast<std::int64_t>(An.atomAt(TAtoms[I], Vals));
  if (T.Sel >= 0 && SelVar < 0)
    Key[KeyLen - 1] = Costs.selKeyAt(TId, An.atomAt(T.Sel, Vals), Vals);
  Acc.add(Key.data(), 1);
  return Acc;
}

void Analyzer::ClassCounter::gatherComponent(int Root, bool Sel) {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  CompVars.clear(); // indices into Vars
  for (std::size_t I = 0; I < Vars.size(); ++I)
    if (rootOf(static_cast<int>(I)) == Root)
      CompVars.push_back(static_cast<int>(I));
  CompAtoms.clear();
  for (std::size_t I = 0; I < TAtoms.size(); ++I)
    if (!AtomDeps[I].empty() && rootOf(indexOf(AtomDeps[I][0])) == Root)
      CompAtoms.push_back(I);
  HC = Affine();
  OpaqueHere = false;
  for (auto [Var, Coef] : HTerms) {
    depsOfVar(Var, VarDeps);
    if (rootOf(indexOf(VarDeps[0])) == Root) {
      HC.Terms.push_back({Var, Coef});
      OpaqueHere = OpaqueHere || Var >= OpaqueBase;
    }
  }
  for (std::size_t I : CompAtoms)
    for (auto [Var, Coef] : An.Atoms[static_cast<std::size_t>(TAtoms[I])].U.Terms)
      OpaqueHere = OpaqueHere || Var >= OpaqueBase;
  SelHere = Sel;
  if (SelHere)
    for (auto [Var, Coef] : T.SelD.Terms)
      OpaqueHere = OpaqueHere || Var >= OpaqueBase;
  Comp = ClassTable(1 + CompAtoms.size() + (SelHere ? 1 : 0));
  CompKey.assign(1 + CompAtoms.size() + (SelHere ? 1 : 0), 0);
}

void Analyzer::ClassCounter::addClass(std::int64_t Res, Wide Count) {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  CompKey[0] = Res;
  for (std::size_t J = 0; J < CompAtoms.size(); ++J)
    CompKey[1 + J] = static_cast<std::int64_t>(An.atomAt(TAtoms[CompAtoms[J]], Vals));
  if (SelHere)
    CompKey.back() = Costs.selKeyAt(TId, An.atomAt(T.Sel, Vals), Vals);
  Comp.add(CompKey.data(), Count);
}

void Analyzer::ClassCounter::collectCuts(const LoopDom &X) {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  Cuts.assign({0, X.Trips});
  for (std::size_t I : CompAtoms) {
    const AtomDef &D = An.Atoms[static_cast<std::size_t>(TAtoms[I])];
    std::int64_t K = 0;
    for (auto [Var, Coef] : D.U.Terms)
      if (Var == X.Var)
        K = Coef;
    const Wide Alpha = An.valueAt(D.U, Vals); // at t = 0
    const Wide Beta = static_cast<Wide>(K) * X.Step;
    if (Beta == 0)
      continue;
    addAtomCuts(D, Alpha, Beta, X.Trips, T.Active, An.W, Cuts);
  }
  std::sort(Cuts.begin(), Cuts.end());
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
}

// One variable x = B + S t, t < n, entering affinely (the component's
// other variables at their values in Vals): the masks change only
// where some lane's guard value crosses 0, and the residue of a x is
// periodic in t.
void Analyzer::ClassCounter::cutOver(const LoopDom &X) {
  const Template &T = An.Templates[TId];
  std::int64_t A = 0;
  for (auto [Var, Coef] : HC.Terms)
    if (Var == X.Var)
      A = Coef;
  Vals[static_cast<std::size_t>(X.Var)] = X.Begin;
  collectCuts(X);
  const std::int64_t HS = floorMod(static_cast<std::int64_t>(
                                       static_cast<Wide>(A) * floorMod(X.Step, Period) % Period),
                                   Period);
  const std::int64_t H0 = floorMod(An.valueAt(HC, Vals), Period); // at t = 0
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
      const Mask On = An.atomAt(T.Sel, Vals) & T.Active;
      if (On != 0 && On != T.Active) {
        An.spend(Len);
        for (std::int64_t J = 0; J < Len; ++J) {
          Vals[static_cast<std::size_t>(X.Var)] = X.Begin + X.Step * (S0 + J);
          addClass((H0 + HS * floorMod(S0 + J, Period)) % Period, 1);
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
    An.spend(std::min(Q, Len));
    for (std::int64_t J = 0; J < std::min(Q, Len); ++J) {
      if (SelMoves)
        Vals[static_cast<std::size_t>(X.Var)] = X.Begin + X.Step * (S0 + J);
      const std::int64_t Res = (H0 + HS * floorMod(S0 + J, Period)) % Period;
      addClass(Res, static_cast<Wide>(Full) + (J < Rem ? 1 : 0));
    }
  }
}

// With more variables, one that enters only affinely (no opaque value
// depends on it) is cut over, and the others enumerated: a guard such
// as tid < N ties bx and by, yet needs no visit of every block.
int Analyzer::ClassCounter::cutVariable() const {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  int CutIndex = -1;
  if (CompVars.size() > 1 && (!CompAtoms.empty() || SelHere)) {
    std::vector<int> OpaqueDeps;
    auto NoteOpaques = [&](const Affine &A) {
      for (auto [Var, Coef] : A.Terms)
        if (Var >= OpaqueBase)
          for (const Affine &Arg : An.Opaques[static_cast<std::size_t>(Var - OpaqueBase)].Args)
            An.depsOf(Arg, OpaqueDeps);
    };
    NoteOpaques(HC);
    for (std::size_t I : CompAtoms)
      NoteOpaques(An.Atoms[static_cast<std::size_t>(TAtoms[I])].U);
    if (SelHere)
      NoteOpaques(T.SelD);
    for (int I : CompVars) {
      const LoopDom &V = Vars[static_cast<std::size_t>(I)];
      if (std::find(OpaqueDeps.begin(), OpaqueDeps.end(), V.Var) == OpaqueDeps.end() &&
          (CutIndex < 0 || V.Trips > Vars[static_cast<std::size_t>(CutIndex)].Trips))
        CutIndex = I;
    }
  }
  return CutIndex;
}

// Only the residue matters: enumerate once per distinct (value,
// domain), shared by every warp position and loop iteration.
void Analyzer::ClassCounter::countResidues() {
  std::string ResidueKey = fmt::format("{}", HC.C);
  for (auto [Var, Coef] : HC.Terms)
    ResidueKey += fmt::format("|{}*{}", Var, Coef);
  for (int I : CompVars) {
    const LoopDom &V = Vars[static_cast<std::size_t>(I)];
    ResidueKey += fmt::format("|{}:{}:{}:{}", V.Var, V.Begin, V.Step, V.Trips);
  }
  auto [It, Fresh] = ResidueCache.try_emplace(ResidueKey);
  std::vector<Wide> &Counts = It->second;
  if (Fresh) {
    Wide Points = 1;
    for (int I : CompVars)
      Points *= Vars[static_cast<std::size_t>(I)].Trips;
    if (Points > (Wide(1) << 26))
      throw NotAffine{"more than 2^26 blocks or iterations tied together by "
                      "an opaque value"};
    An.spend(static_cast<std::int64_t>(Points) / 1024);
    Counts.assign(static_cast<std::size_t>(Period), 0);
    std::vector<std::int64_t> Odo(CompVars.size(), 0);
    for (Wide P = 0; P < Points; ++P) {
      for (std::size_t J = 0; J < CompVars.size(); ++J) {
        const LoopDom &V = Vars[static_cast<std::size_t>(CompVars[J])];
        Vals[static_cast<std::size_t>(V.Var)] = V.Begin + V.Step * Odo[J];
      }
      ++Counts[static_cast<std::size_t>(floorMod(An.valueAt(HC, Vals), Period))];
      for (std::size_t J = 0; J < CompVars.size(); ++J) {
        if (++Odo[J] < Vars[static_cast<std::size_t>(CompVars[J])].Trips)
          break;
        Odo[J] = 0;
      }
    }
  }
  for (std::size_t R = 0; R < Counts.size(); ++R)
    if (Counts[R])
      addClass(static_cast<std::int64_t>(R), Counts[R]);
}

std::string Analyzer::ClassCounter::componentKey(int CutIndex) const {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  std::string CacheKey = fmt::format("{}:{}:{}", HC.C, static_cast<std::uint64_t>(T.Active),
                                     CutIndex < 0 ? -1 : Vars[static_cast<std::size_t>(CutIndex)].Var);
  for (auto [Var, Coef] : HC.Terms)
    CacheKey += fmt::format("|{}*{}", Var, Coef);
  for (std::size_t I : CompAtoms)
    CacheKey += fmt::format("|a{}", TAtoms[I]);
  for (int I : CompVars) {
    const LoopDom &V = Vars[static_cast<std::size_t>(I)];
    CacheKey += fmt::format("|{}:{}:{}:{}", V.Var, V.Begin, V.Step, V.Trips);
  }
  return CacheKey;
}

// Enumerate the component's points, all but the variable cut over
// (CutIndex) when there is one.
void Analyzer::ClassCounter::enumeratePoints(int CutIndex) {
  std::string CacheKey;
  bool Cached = false;
  if (!SelHere) { // a choice's key is the template's own (SelKeyAt)
    CacheKey = componentKey(CutIndex);
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
    An.spend(static_cast<std::int64_t>(Points));
  for (Wide P = 0; P < (Cached ? 0 : Points); ++P) {
    for (std::size_t J = 0; J < CompVars.size(); ++J)
      if (CompVars[J] != CutIndex) {
        const LoopDom &V = Vars[static_cast<std::size_t>(CompVars[J])];
        Vals[static_cast<std::size_t>(V.Var)] = V.Begin + V.Step * Odo[J];
      }
    if (CutIndex >= 0)
      cutOver(Vars[static_cast<std::size_t>(CutIndex)]);
    else
      addClass(floorMod(An.valueAt(HC, Vals), Period), 1);
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

void Analyzer::ClassCounter::reportClasses(const ClassTable &Acc, KernelReport &Rep) {
  const Template &T = An.Templates[TId];
  const std::vector<int> &TAtoms = AtomsOf[TId];
  // Each class once: its mask, its costs, its count.
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(T.Site)];
  AccessSiteReport &Rp = Rep.Sites[static_cast<std::size_t>(T.Site)];
  for (std::size_t Class = 0; Class < Acc.size(); ++Class) {
    const std::int64_t *K = Acc.key(Class);
    const Wide Count = Acc.count(Class);
    for (std::size_t I = 0; I < TAtoms.size(); ++I)
      AtomMasks[static_cast<std::size_t>(TAtoms[I])] = static_cast<Mask>(K[1 + I]);
    Mask Active = T.Active;
    if (T.Pred >= 0)
      Active &= An.predAt(T.Pred, AtomMasks);
    if (T.Oob >= 0 && (Active & An.predAt(T.Oob, AtomMasks)))
      throw NotAffine{"an index that leaves its array (checked thread by thread)"};
    if (!Active || Count == 0)
      continue;
    if (Count > std::numeric_limits<std::int64_t>::max() / 64)
      throw UserError(An.Kern.Loc, fmt::format("kernel '{}' makes too many warp "
                                               "accesses to count in 64 bits",
                                               An.Kern.Name));
    const ClassCosts::CacheEntry E =
        T.Sel >= 0 ? Costs.selCostsFor(TId, K[0], Active, AtomMasks[static_cast<std::size_t>(T.Sel)], K[KeyLen - 1])
                   : Costs.costsFor(static_cast<int>(TId), K[0], Active);
    std::optional<DataCongestion> Data;
    if (!E.Exact) {
      Data = T.DataUniform ? DataCongestion{E.Costs.Congestion, static_cast<double>(E.Costs.Congestion)}
                           : An.dataCongestion(S, std::popcount(Active), T.ReachWorst);
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
      An.DataExpected[static_cast<std::size_t>(T.Site)][Data->Expected] += static_cast<std::int64_t>(Count);
    An.addStats(Rp, E.Costs, Data ? &*Data : nullptr, std::popcount(Active), static_cast<std::int64_t>(Count));
  }
}

} // namespace bankwise::kernel_analysis
