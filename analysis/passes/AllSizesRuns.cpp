// The runs of the all-sizes analysis (analyzeAllSizes, AllSizes.cpp): the
// sizes' domains and values, which sizes reach each site through their
// values, and the runs planned over them (joint classes, bounding sizes,
// small combinations, periodicity checks).
#include "analysis/passes/detail/AllSizesPlan.h"

#include "ir/Printer.h"
#include "ir/Walk.h"
#include "support/Diagnostic.h"
#include "support/Random.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <numeric>

namespace bankwise::all_sizes {

void readDomains(State &S) {
  // The sizes to range over: runtime params without an expression (derived
  // ones, `param Mid = M - 10`, follow from them).
  const ir::ConstEnv Env = ir::paramValues(S.Prog);
  std::vector<std::string> DomainText;
  for (const ir::Param &P : S.Prog.Params) {
    if (!P.Runtime || P.Init)
      continue;
    Domain D;
    D.Name = P.Name;
    bool LoGiven = false;
    if (P.Where)
      readConstraint(*P.Where, Env, D, LoGiven);
    // What the kernel needs of the size beyond the program's `where` (a
    // vector access aligned only at multiples): sizes where it faults
    // are no execution to price.
    std::vector<std::string> Needs;
    for (const ir::SizeMultiple &R : S.K.Requires)
      if (R.Param == D.Name && R.Multiple > 1 && D.Step % R.Multiple != 0) {
        D.Step = std::lcm(D.Step, R.Multiple);
        Needs.push_back(R.Why);
      }
    S.Doms.push_back(D);
    std::string T = fmt::format("{} >= {}", D.Name, D.Lo);
    if (D.Hi)
      T += fmt::format(", <= {}", *D.Hi);
    if (D.Step > 1)
      T += fmt::format(", a multiple of {}", D.Step);
    if (P.Where)
      T += fmt::format(" (where {})", ir::print(*P.Where));
    if (!Needs.empty())
      T += fmt::format(" ({})", fmt::join(Needs, "; "));
    DomainText.push_back(T);
  }
  if (S.Doms.empty())
    throw UserError(S.K.Loc, fmt::format("kernel '{}' has no runtime size to range over", S.K.Name));
  for (const Domain &D : S.Doms)
    S.Rep.Params.push_back(D.Name);
  S.Rep.Domain = fmt::format("{}", fmt::join(DomainText, "; "));
}

void findResiduePeriod(State &S) {
  // The residue period: lcm of the warp width and 128 bytes over each
  // array's element size, as the class counting uses.
  const std::int64_t W = S.Prog.Mach ? S.Prog.Mach->warpSize() : 32;
  std::int64_t L = W;
  auto AddElem = [&](const ir::Array &A) {
    if (A.Space != ir::MemSpace::Local)
      L = std::lcm(L, std::max<std::int64_t>(1, 128 / ir::byteSize(A.Elem)));
  };
  for (const ir::Array &A : S.Prog.Arrays)
    AddElem(A);
  for (const ir::Array *A : S.K.arrays())
    AddElem(*A);
  S.L = L;
  S.Rep.Period = L;
}

void chooseValues(State &S) {
  const std::int64_t L = S.L;
  std::vector<Values> &Vals = S.Vals;
  Vals.resize(S.Doms.size());
  for (std::size_t I = 0; I < S.Doms.size(); ++I) {
    const Domain &D = S.Doms[I];
    const std::int64_t Cycle = std::lcm(L, D.Step);
    const std::int64_t First = alignUp(std::max<std::int64_t>(D.Lo, 1), D.Step);
    const std::int64_t Base = alignUp(std::max<std::int64_t>(D.Lo, 1024), Cycle);
    for (std::int64_t V = Base; V < Base + Cycle; V += D.Step)
      if (!D.Hi || V <= *D.Hi) {
        Vals[I].Classes.push_back(V);
        Vals[I].Check.push_back(V + 8 * Cycle);
      }
    // The small values: the first 64 (2 L where that is fewer), past the
    // first tiles of most kernels (the any-shape transpose's 64-row tiles
    // are not periodic from 33 on); every value of a size bounded below the
    // base.
    const std::int64_t SmallCount =
        D.Hi && *D.Hi < Base ? std::numeric_limits<std::int64_t>::max() : std::min<std::int64_t>(2 * L, 64);
    for (std::int64_t V = First, N = 0; V < Base && N < SmallCount; V += D.Step, ++N)
      if (!D.Hi || V <= *D.Hi)
        Vals[I].Small.push_back(V);
    if (Vals[I].Classes.empty() && Vals[I].Small.empty())
      throw UserError(S.K.Loc, fmt::format("runtime size '{}' has no value in {}..{}", D.Name, D.Lo,
                                           D.Hi ? *D.Hi : D.Lo));
    if (Vals[I].Classes.empty()) { // bounded above: every value is small
      Vals[I].Classes = Vals[I].Small;
      Vals[I].Check = Vals[I].Small;
    } else if (!Vals[I].Small.empty()) {
      // The cycle that holds the first value past the small ones.
      std::int64_t Low = (Vals[I].Small.back() + 1) / Cycle * Cycle;
      if (Low < D.Lo)
        Low += Cycle;
      if (Low < Base)
        for (std::int64_t V : Vals[I].Classes)
          Vals[I].CheckLow.push_back(V - Base + Low);
    }
  }
}

void groupSitesBySizes(State &S) {
  // The runs. Each site needs the joint residue classes of the sizes that
  // reach it through their values (analysis/passes/SizeDependence.h); a
  // size that only bounds it is taken at one large value. A bounded size
  // (`where N <= 22`) is always enumerated.
  // A `where` that ties sizes together (`C % R == 0`) makes the values one
  // size may take depend on another's: then every size is enumerated with
  // every other.
  bool Tied = false;
  for (const ir::Param &P : S.Prog.Params)
    if (P.Runtime && !P.Init && P.Where)
      Tied = Tied || ir::anySubexpr(*P.Where, [&](const ir::Expr &X) {
               const auto *V = X.as<ir::VarRef>();
               return V && V->Kind == ir::VarKind::Param && V->Name != P.Name;
             });
  S.Dep = siteSizeDependence(S.Prog, S.K);
  const std::vector<SiteSizeDependence> &Dep = S.Dep;
  S.Joint.assign(Dep.size(), std::vector<bool>(S.Doms.size(), true));
  for (std::size_t Site = 0; Site < Dep.size(); ++Site)
    for (std::size_t I = 0; I < S.Doms.size(); ++I)
      S.Joint[Site][I] = S.Opts.JointOverAll || Tied || S.Doms[I].Hi.has_value() ||
                         std::find(Dep[Site].BoundOnly.begin(), Dep[Site].BoundOnly.end(), S.Doms[I].Name) ==
                             Dep[Site].BoundOnly.end();
  S.Sets = std::set<std::vector<bool>>(S.Joint.begin(), S.Joint.end());
  if (Dep.empty())
    S.Sets.insert(std::vector<bool>(S.Doms.size(), true));
}

ir::Bindings bindingOf(const State &S, const std::vector<std::int64_t> &Pick) {
  ir::Bindings B;
  for (std::size_t I = 0; I < S.Doms.size(); ++I)
    B[S.Doms[I].Name] = Pick[I];
  return B;
}

std::vector<std::int64_t> representatives(const State &S, std::size_t Rep2) {
  std::vector<std::int64_t> Pick(S.Doms.size());
  for (std::size_t J = 0; J < S.Doms.size(); ++J)
    Pick[J] = S.Vals[J].Classes[std::min(Rep2, S.Vals[J].Classes.size() - 1)];
  return Pick;
}

namespace {

/// Size I at V, each other size at its first and then its second class,
/// for the sites in Of (empty: every site).
void addOthersAtTwo(State &S, std::size_t I, std::int64_t V, const std::vector<bool> &Of, bool Class) {
  for (std::size_t Rep2 = 0; Rep2 < 2; ++Rep2) {
    std::vector<std::int64_t> Pick = representatives(S, Rep2);
    Pick[I] = V;
    S.Runs.push_back({bindingOf(S, Pick), Of, -1, {}, {}, {}, classMarks(Of, Class ? 2 : 0)});
    S.Runs.back().Tier = static_cast<std::uint8_t>(Rep2);
  }
}

/// The sites whose figures a size set (or one size) reaches through its
/// values; empty when the kernel has no sites.
template <class P> std::vector<bool> sitesWhere(const State &S, P Needs) {
  std::vector<bool> Of(S.Dep.size(), false);
  for (std::size_t Site = 0; Site < S.Dep.size(); ++Site)
    Of[Site] = Needs(Site);
  return Of;
}

/// The sites whose joint classes are those of the sizes in Set.
std::vector<bool> sitesOfSet(const State &S, const std::vector<bool> &Set) {
  return sitesWhere(S, [&](std::size_t Site) { return S.Joint[Site] == Set; });
}

/// How many joint classes the sizes in Set have (clipped at 2^40).
std::int64_t jointClassCount(const State &S, const std::vector<bool> &Set) {
  std::int64_t Count = 1;
  for (std::size_t I = 0; I < S.Doms.size(); ++I)
    if (Set[I])
      Count = std::min<std::int64_t>(Count * static_cast<std::int64_t>(S.Vals[I].Classes.size()),
                                     std::int64_t(1) << 40);
  return Count;
}

} // namespace

void planClassRuns(State &S) {
  // Every combination of the classes of the sizes in Set, the others at
  // their first class.
  S.Rep.AllClasses = true;
  for (const std::vector<bool> &Set : S.Sets) {
    const std::int64_t Count = jointClassCount(S, Set);
    // Only the sites of this set need these sizes.
    const std::vector<bool> SetSites = sitesOfSet(S, Set);
    if (Count > S.Opts.MaxJointClasses) {
      // Each size through its classes, the others at two representatives.
      S.Rep.AllClasses = false;
      for (std::size_t I = 0; I < S.Doms.size(); ++I)
        if (Set[I])
          for (std::int64_t V : S.Vals[I].Classes)
            addOthersAtTwo(S, I, V, SetSites, true);
      continue;
    }
    std::vector<std::size_t> Odo(S.Doms.size(), 0);
    for (std::int64_t J = 0; J < Count; ++J) {
      std::vector<std::int64_t> Pick = representatives(S, 0);
      for (std::size_t I = 0; I < S.Doms.size(); ++I)
        if (Set[I])
          Pick[I] = S.Vals[I].Classes[Odo[I]];
      S.Runs.push_back({bindingOf(S, Pick), SetSites, -1, {}, {}, {}, classMarks(SetSites, 1)});
      for (std::size_t I = 0; I < S.Doms.size(); ++I) {
        if (!Set[I])
          continue;
        if (++Odo[I] < S.Vals[I].Classes.size())
          break;
        Odo[I] = 0;
      }
    }
  }
}

void planBoundingRuns(State &S) {
  // Each size through its classes alone too, so an index that leaves its
  // array at some residue of a bounding size is found (the sites it reaches
  // through its values have these sizes among their joint classes). When
  // no array's extent depends on a runtime size (a CUDA kernel's pointer
  // parameters), a size that only bounds a site can only add executions as
  // it grows, with indices free of it: the largest class value has every
  // execution of the smaller ones, and one run there finds what all would.
  bool ExtentsFixed = true;
  auto SizedBy = [&](const ir::Array &A) {
    for (const ir::Expr &E : A.Dims)
      ExtentsFixed = ExtentsFixed && !ir::readsRuntimeParam(S.Prog, E);
  };
  for (const ir::Array &A : S.Prog.Arrays)
    SizedBy(A);
  for (const ir::Array *A : S.K.arrays())
    SizedBy(*A);
  auto None = [](const std::vector<bool> &Of) {
    return !Of.empty() && std::none_of(Of.begin(), Of.end(), [](bool B) { return B; });
  };
  for (std::size_t I = 0; I < S.Doms.size(); ++I) {
    const std::vector<bool> Of = sitesWhere(S, [&](std::size_t Site) { return !S.Joint[Site][I]; });
    if (None(Of))
      continue;
    if (ExtentsFixed) {
      std::vector<std::int64_t> Pick = representatives(S, 0);
      Pick[I] = S.Vals[I].Classes.back();
      S.Runs.push_back({bindingOf(S, Pick), Of, -1, {}, {}, {}});
      continue;
    }
    for (std::int64_t V : S.Vals[I].Classes) {
      std::vector<std::int64_t> Pick = representatives(S, 0);
      Pick[I] = V;
      S.Runs.push_back({bindingOf(S, Pick), Of, -1, {}, {}, {}});
    }
  }
}

namespace {

/// The small combinations of one set of sizes: the sizes of the set, each
/// with its options (small values first, none for a size whose classes are
/// its every value, then classes), and the sizes already planned.
struct SmallCombinations {
  std::vector<bool> Sites;
  std::vector<std::size_t> Of;
  std::vector<std::vector<std::int64_t>> Options;
  std::vector<std::size_t> NumSmall;
  std::set<std::vector<std::int64_t>> Done;
};

/// Reads the options of the sizes in Set into C; whether some size of the
/// set has small values.
bool readSmallOptions(const State &S, const std::vector<bool> &Set, SmallCombinations &C) {
  bool AnySmall = false;
  for (std::size_t I = 0; I < S.Doms.size(); ++I) {
    if (!Set[I])
      continue;
    const bool Every = S.Vals[I].Classes == S.Vals[I].Small;
    std::vector<std::int64_t> O = Every ? std::vector<std::int64_t>{} : S.Vals[I].Small;
    C.NumSmall.push_back(O.size());
    AnySmall = AnySmall || !O.empty();
    O.insert(O.end(), S.Vals[I].Classes.begin(), S.Vals[I].Classes.end());
    C.Of.push_back(I);
    C.Options.push_back(std::move(O));
  }
  return AnySmall;
}

/// Plans the run of option Idx[J] of each size J of C, where one is small
/// and the sizes are new.
void addSmallRun(State &S, SmallCombinations &C, const std::vector<std::size_t> &Idx) {
  bool Small = false;
  std::vector<std::int64_t> Pick = representatives(S, 0);
  for (std::size_t J = 0; J < C.Of.size(); ++J) {
    Small = Small || Idx[J] < C.NumSmall[J];
    Pick[C.Of[J]] = C.Options[J][Idx[J]];
  }
  if (Small && C.Done.insert(Pick).second)
    S.Runs.push_back({bindingOf(S, Pick), C.Sites, -1, {}, {}, {}, {}, true});
}

/// Plans every combination of the first Take[J] options of each size.
void addSmallGrid(State &S, SmallCombinations &C, const std::vector<std::size_t> &Take) {
  std::vector<std::size_t> Idx(C.Of.size(), 0);
  while (true) {
    addSmallRun(S, C, Idx);
    std::size_t J = 0;
    for (; J < C.Of.size(); ++J) {
      if (++Idx[J] < Take[J])
        break;
      Idx[J] = 0;
    }
    if (J == C.Of.size())
      return;
  }
}

/// How many combinations the first N small values and two classes of
/// every size of C make.
double cornerCount(const SmallCombinations &C, std::size_t N) {
  double Count = 1;
  for (std::size_t J = 0; J < C.Of.size(); ++J)
    Count *= static_cast<double>(std::min(N, C.NumSmall[J]) +
                                 std::min<std::size_t>(2, C.Options[J].size() - C.NumSmall[J]));
  return Count;
}

/// Plans a sample of the small combinations of C, beyond the budget; what
/// it took, in words.
std::string sampleSmallRuns(State &S, SmallCombinations &C, Rng &Draw, const std::string &Combos,
                            const std::vector<std::string> &Names, const std::vector<std::string> &Ranges) {
  const AllSizesOptions &Opts = S.Opts;
  std::vector<std::size_t> &Of = C.Of, &NumSmall = C.NumSmall;
  std::vector<std::vector<std::int64_t>> &Options = C.Options;
  // Each small value with the others at two classes.
  for (std::size_t J = 0; J < Of.size(); ++J)
    for (std::size_t V = 0; V < NumSmall[J]; ++V)
      for (std::size_t Two = 0; Two < 2; ++Two) {
        std::vector<std::size_t> Idx(Of.size());
        for (std::size_t X = 0; X < Of.size(); ++X)
          Idx[X] = NumSmall[X] + std::min(Two, Options[X].size() - NumSmall[X] - 1);
        Idx[J] = V;
        addSmallRun(S, C, Idx);
      }
  // The first F small values and two classes of every size, jointly,
  // F as large as a quarter of the budget allows.
  std::size_t F = 1;
  while (F < 64 && cornerCount(C, F + 1) <= static_cast<double>(Opts.MaxSmallCombinations) / 4)
    ++F;
  // Many sizes (a file's every kernel parameter): even one small value
  // and two classes each are too many combinations to take jointly.
  const bool Joint = cornerCount(C, F) <= static_cast<double>(Opts.MaxSmallCombinations);
  if (Joint) {
    // Options reordered so that the first ones are the F smallest and two classes.
    std::vector<std::vector<std::int64_t>> Saved = Options;
    std::vector<std::size_t> SavedSmall = NumSmall, Take;
    for (std::size_t J = 0; J < Of.size(); ++J) {
      const std::size_t Small = std::min(F, NumSmall[J]);
      std::vector<std::int64_t> O(Options[J].begin(), Options[J].begin() + static_cast<std::ptrdiff_t>(Small));
      const std::size_t Classes = std::min<std::size_t>(2, Options[J].size() - NumSmall[J]);
      O.insert(O.end(), Options[J].begin() + static_cast<std::ptrdiff_t>(NumSmall[J]),
               Options[J].begin() + static_cast<std::ptrdiff_t>(NumSmall[J] + Classes));
      Options[J] = std::move(O);
      NumSmall[J] = Small;
      Take.push_back(Options[J].size());
    }
    addSmallGrid(S, C, Take);
    Options = std::move(Saved);
    NumSmall = std::move(SavedSmall);
  }
  // The rest at random, up to the budget.
  for (std::int64_t Tries = 0; static_cast<std::int64_t>(C.Done.size()) < Opts.MaxSmallCombinations &&
                               Tries < 4 * Opts.MaxSmallCombinations;
       ++Tries) {
    std::vector<std::size_t> Idx(Of.size());
    for (std::size_t J = 0; J < Of.size(); ++J)
      Idx[J] = static_cast<std::size_t>(Draw.below(Options[J].size()));
    addSmallRun(S, C, Idx);
  }
  return fmt::format(
      "{} of the {} combinations of {} with each other and the classes, sampled (each small value with the "
      "others at two classes, {}, the rest at random)",
      C.Done.size(), Combos, fmt::join(Ranges, ", "),
      Joint ? fmt::format("{} in 1..{} of their small values and two classes jointly", fmt::join(Names, ", "), F)
            : fmt::format("not {} jointly ({:.3g} combinations)", fmt::join(Names, ", "), cornerCount(C, F)));
}

/// Plans the small combinations of the sizes in Set: every one within the
/// budget, a sample beyond it.
void planSmallRunsOf(State &S, const std::vector<bool> &Set, Rng &Draw) {
  SmallCombinations C;
  C.Sites = sitesOfSet(S, Set);
  // Sampled already when the joint classes were too many to enumerate.
  bool &Sampled = S.SetSampled[Set];
  Sampled = jointClassCount(S, Set) > S.Opts.MaxJointClasses;
  // The sizes of the set, each with its options: small values first
  // (none for a size whose classes are its every value), then classes.
  if (!readSmallOptions(S, Set, C))
    return;
  // Counted in doubles (exact below 2^53): two products clipped at one
  // bound would differ by 0, and every combination of many sizes (a
  // kernel with eight int parameters: billions) would be enumerated.
  double Cells = 1, ClassCells = 1;
  for (std::size_t J = 0; J < C.Of.size(); ++J) {
    Cells *= static_cast<double>(C.Options[J].size());
    ClassCells *= static_cast<double>(C.Options[J].size() - C.NumSmall[J]);
  }
  const double CombosCount = Cells - ClassCells;
  const std::string Combos = CombosCount < 0x1p53 ? fmt::format("{}", static_cast<std::int64_t>(CombosCount))
                                                  : fmt::format("{:.3g}", CombosCount);
  std::vector<std::string> Names, Ranges;
  for (std::size_t J = 0; J < C.Of.size(); ++J) {
    Names.push_back(S.Doms[C.Of[J]].Name);
    if (C.NumSmall[J])
      Ranges.push_back(fmt::format("{} = {}..{}", S.Doms[C.Of[J]].Name, C.Options[J].front(),
                                   C.Options[J][C.NumSmall[J] - 1]));
  }
  if (CombosCount <= static_cast<double>(S.Opts.MaxSmallCombinations)) {
    std::vector<std::size_t> Take;
    for (const auto &O : C.Options)
      Take.push_back(O.size());
    addSmallGrid(S, C, Take);
    S.SmallText.push_back(fmt::format("every combination of {} with each other and the classes ({})",
                                      fmt::join(Ranges, ", "), Combos));
    return;
  }
  Sampled = true;
  S.SmallText.push_back(sampleSmallRuns(S, C, Draw, Combos, Names, Ranges));
}

} // namespace

void planSmallRuns(State &S) {
  // Small sizes, for each set of sizes that reach some sites through their
  // values: every combination of those sizes in which at least one is
  // small and each other is small or at a class (the sizes outside the set
  // at a large class: at a site a size only bounds, a smaller value has a
  // subset of the warp classes of a larger one). Beyond the budget the
  // combinations are sampled: each small value with the others at two
  // classes, every combination of the first small values and two classes,
  // and the rest drawn at random; the figures of the set's sites say so.
  S.ClassRuns = S.Runs.size();
  S.Rep.AllSmall = true;
  Rng Draw(2027);
  for (const std::vector<bool> &Set : S.Sets)
    planSmallRunsOf(S, Set, Draw);
  for (const auto &[Set, Sampled] : S.SetSampled)
    S.Rep.AllSmall = S.Rep.AllSmall && !Sampled;
}

void planPeriodicityChecks(State &S) {
  // Periodicity: up to 32 of the class runs and 32 of the small runs with
  // some size at a class again, every size at a class one magnitude up,
  // and again just past the small sizes.
  std::vector<Run> &Runs = S.Runs;
  Rng R(2026);
  std::vector<std::size_t> Pick;
  for (const auto &[From, To] : {std::pair<std::size_t, std::size_t>{0, S.ClassRuns}, {S.ClassRuns, Runs.size()}}) {
    std::vector<std::size_t> Part(To - From);
    std::iota(Part.begin(), Part.end(), From);
    for (std::size_t I = 0; I + 1 < Part.size(); ++I)
      std::swap(Part[I], Part[I + R.below(Part.size() - I)]);
    Part.resize(std::min<std::size_t>(Part.size(), 32));
    Pick.insert(Pick.end(), Part.begin(), Part.end());
  }
  for (std::size_t C : Pick)
    for (const bool Lower : {false, true}) {
      ir::Bindings B = Runs[C].Sizes;
      bool Moved = false;
      for (std::size_t I = 0; I < S.Doms.size(); ++I) {
        const auto &Cl = S.Vals[I].Classes;
        const auto &To = Lower ? S.Vals[I].CheckLow : S.Vals[I].Check;
        const auto It = std::find(Cl.begin(), Cl.end(), B[S.Doms[I].Name]);
        if (It != Cl.end() && !To.empty()) {
          B[S.Doms[I].Name] = To[static_cast<std::size_t>(It - Cl.begin())];
          Moved = true;
        }
      }
      if (Moved)
        Runs.push_back({B, Runs[C].Sites, static_cast<int>(C), {}, {}, {}});
    }
}

void mergeRepeatedRuns(State &S) {
  // The same sizes twice (a bounded size has no separate classes) are one run.
  std::vector<Run> &Runs = S.Runs;
  std::vector<Run> Unique;
  std::map<ir::Bindings, int> Seen;
  std::vector<int> NewIndex(Runs.size(), -1);
  for (std::size_t I = 0; I < Runs.size(); ++I) {
    auto [It, Fresh] = Seen.try_emplace(Runs[I].Sizes, static_cast<int>(Unique.size()));
    NewIndex[I] = It->second;
    if (!Fresh) { // the sites of both
      std::vector<bool> &Into = Unique[static_cast<std::size_t>(It->second)].Sites;
      const std::vector<bool> &From = Runs[I].Sites;
      if (Into.empty() || From.empty())
        Into.clear();
      else
        for (std::size_t Site = 0; Site < Into.size(); ++Site)
          Into[Site] = Into[Site] || From[Site];
      std::vector<std::uint8_t> &Marks = Unique[static_cast<std::size_t>(It->second)].ClassOf;
      Marks.resize(std::max(Marks.size(), Runs[I].ClassOf.size()), 0);
      for (std::size_t Site = 0; Site < Runs[I].ClassOf.size(); ++Site)
        Marks[Site] = std::max(Marks[Site], Runs[I].ClassOf[Site]);
      Unique[static_cast<std::size_t>(It->second)].Tier =
          std::min(Unique[static_cast<std::size_t>(It->second)].Tier, Runs[I].Tier);
    }
    if (Fresh) {
      Unique.push_back(Runs[I]);
      if (Unique.back().CheckOf >= 0)
        Unique.back().CheckOf = NewIndex[static_cast<std::size_t>(Unique.back().CheckOf)];
    }
  }
  Runs.swap(Unique);
}

} // namespace bankwise::all_sizes
