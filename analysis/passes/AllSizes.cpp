#include "analysis/passes/AllSizes.h"
#include "analysis/passes/SizeDependence.h"
#include "analysis/passes/detail/AllSizesPlan.h"

#include "ir/Eval.h"
#include "ir/Printer.h"
#include "ir/Walk.h"
#include "support/Parallel.h"
#include "support/Random.h"

#include <algorithm>
#include <array>
#include <limits>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <thread>

namespace bankwise {

AllSizesReport analyzeAllSizes(const ir::Program &Prog, const ir::Kernel &K,
                               const AllSizesOptions &Opts) {
  using namespace all_sizes;
  AllSizesReport Rep;
  Rep.Kernel = K.Name;
  Rep.Loc = K.Loc;
  // The sizes to range over: runtime params without an expression (derived
  // ones, `param Mid = M - 10`, follow from them).
  std::vector<Domain> Doms;
  const ir::ConstEnv Env = ir::paramValues(Prog);
  std::vector<std::string> DomainText;
  for (const ir::Param &P : Prog.Params) {
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
    for (const ir::SizeMultiple &R : K.Requires)
      if (R.Param == D.Name && R.Multiple > 1 && D.Step % R.Multiple != 0) {
        D.Step = std::lcm(D.Step, R.Multiple);
        Needs.push_back(R.Why);
      }
    Doms.push_back(D);
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
  if (Doms.empty())
    throw UserError(K.Loc, fmt::format("kernel '{}' has no runtime size to range over", K.Name));
  for (const Domain &D : Doms)
    Rep.Params.push_back(D.Name);
  Rep.Domain = fmt::format("{}", fmt::join(DomainText, "; "));

  // The residue period: lcm of the warp width and 128 bytes over each
  // array's element size, as the class counting uses.
  const std::int64_t W = Prog.Mach ? Prog.Mach->warpSize() : 32;
  std::int64_t L = W;
  auto AddElem = [&](const ir::Array &A) {
    if (A.Space != ir::MemSpace::Local)
      L = std::lcm(L, std::max<std::int64_t>(1, 128 / ir::byteSize(A.Elem)));
  };
  for (const ir::Array &A : Prog.Arrays)
    AddElem(A);
  for (const ir::Array *A : K.arrays())
    AddElem(*A);
  Rep.Period = L;

  // Per size: its residue-class representatives at a base magnitude past
  // the first block rows, every small value, and the same classes one
  // magnitude up and (where a gap is left) just past the small values, to
  // check that the figures are periodic in between.
  struct Values {
    std::vector<std::int64_t> Classes, Check, CheckLow, Small;
  };
  std::vector<Values> Vals(Doms.size());
  for (std::size_t I = 0; I < Doms.size(); ++I) {
    const Domain &D = Doms[I];
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
      throw UserError(K.Loc, fmt::format("runtime size '{}' has no value in {}..{}", D.Name, D.Lo,
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

  // The runs. Each site needs the joint residue classes of the sizes that
  // reach it through their values (analysis/passes/SizeDependence.h); a
  // size that only bounds it is taken at one large value. A bounded size
  // (`where N <= 22`) is always enumerated.
  // A `where` that ties sizes together (`C % R == 0`) makes the values one
  // size may take depend on another's: then every size is enumerated with
  // every other.
  bool Tied = false;
  for (const ir::Param &P : Prog.Params)
    if (P.Runtime && !P.Init && P.Where)
      Tied = Tied || ir::anySubexpr(*P.Where, [&](const ir::Expr &X) {
               const auto *V = X.as<ir::VarRef>();
               return V && V->Kind == ir::VarKind::Param && V->Name != P.Name;
             });
  const std::vector<SiteSizeDependence> Dep = siteSizeDependence(Prog, K);
  std::vector<std::vector<bool>> Joint(Dep.size(), std::vector<bool>(Doms.size(), true));
  for (std::size_t S = 0; S < Dep.size(); ++S)
    for (std::size_t I = 0; I < Doms.size(); ++I)
      Joint[S][I] = Opts.JointOverAll || Tied || Doms[I].Hi.has_value() ||
                    std::find(Dep[S].BoundOnly.begin(), Dep[S].BoundOnly.end(), Doms[I].Name) ==
                        Dep[S].BoundOnly.end();
  std::vector<Run> Runs;
  auto Sizes = [&](const std::vector<std::int64_t> &Pick) {
    ir::Bindings B;
    for (std::size_t I = 0; I < Doms.size(); ++I)
      B[Doms[I].Name] = Pick[I];
    return B;
  };
  auto Reps = [&](std::size_t Rep2) {
    std::vector<std::int64_t> Pick(Doms.size());
    for (std::size_t J = 0; J < Doms.size(); ++J)
      Pick[J] = Vals[J].Classes[std::min(Rep2, Vals[J].Classes.size() - 1)];
    return Pick;
  };
  // Size I at V, each other size at its first and then its second class,
  // for the sites in Of (empty: every site).
  auto OthersAtTwo = [&](std::size_t I, std::int64_t V, const std::vector<bool> &Of, bool Class) {
    for (std::size_t Rep2 = 0; Rep2 < 2; ++Rep2) {
      std::vector<std::int64_t> Pick = Reps(Rep2);
      Pick[I] = V;
      Runs.push_back({Sizes(Pick), Of, -1, {}, {}, {}, classMarks(Of, Class ? 2 : 0)});
      Runs.back().Tier = static_cast<std::uint8_t>(Rep2);
    }
  };
  // The sites whose figures a size set (or one size) reaches through its
  // values; empty when the kernel has no sites.
  auto SitesOf = [&](auto Needs) {
    std::vector<bool> Of(Dep.size(), false);
    for (std::size_t S = 0; S < Dep.size(); ++S)
      Of[S] = Needs(S);
    return Of;
  };
  auto None = [](const std::vector<bool> &Of) {
    return !Of.empty() && std::none_of(Of.begin(), Of.end(), [](bool B) { return B; });
  };
  // Every combination of the classes of the sizes in Set, the others at
  // their first class.
  Rep.AllClasses = true;
  std::set<std::vector<bool>> Sets(Joint.begin(), Joint.end());
  if (Dep.empty())
    Sets.insert(std::vector<bool>(Doms.size(), true));
  for (const std::vector<bool> &Set : Sets) {
    std::int64_t Count = 1;
    for (std::size_t I = 0; I < Doms.size(); ++I)
      if (Set[I])
        Count = std::min<std::int64_t>(Count * static_cast<std::int64_t>(Vals[I].Classes.size()),
                                       std::int64_t(1) << 40);
    // Only the sites of this set need these sizes.
    const std::vector<bool> SetSites = SitesOf([&](std::size_t S) { return Joint[S] == Set; });
    if (Count > Opts.MaxJointClasses) {
      // Each size through its classes, the others at two representatives.
      Rep.AllClasses = false;
      for (std::size_t I = 0; I < Doms.size(); ++I)
        if (Set[I])
          for (std::int64_t V : Vals[I].Classes)
            OthersAtTwo(I, V, SetSites, true);
      continue;
    }
    std::vector<std::size_t> Odo(Doms.size(), 0);
    for (std::int64_t J = 0; J < Count; ++J) {
      std::vector<std::int64_t> Pick = Reps(0);
      for (std::size_t I = 0; I < Doms.size(); ++I)
        if (Set[I])
          Pick[I] = Vals[I].Classes[Odo[I]];
      Runs.push_back({Sizes(Pick), SetSites, -1, {}, {}, {}, classMarks(SetSites, 1)});
      for (std::size_t I = 0; I < Doms.size(); ++I) {
        if (!Set[I])
          continue;
        if (++Odo[I] < Vals[I].Classes.size())
          break;
        Odo[I] = 0;
      }
    }
  }
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
      ExtentsFixed = ExtentsFixed && !ir::readsRuntimeParam(Prog, E);
  };
  for (const ir::Array &A : Prog.Arrays)
    SizedBy(A);
  for (const ir::Array *A : K.arrays())
    SizedBy(*A);
  for (std::size_t I = 0; I < Doms.size(); ++I) {
    const std::vector<bool> Of = SitesOf([&](std::size_t S) { return !Joint[S][I]; });
    if (None(Of))
      continue;
    if (ExtentsFixed) {
      std::vector<std::int64_t> Pick = Reps(0);
      Pick[I] = Vals[I].Classes.back();
      Runs.push_back({Sizes(Pick), Of, -1, {}, {}, {}});
      continue;
    }
    for (std::int64_t V : Vals[I].Classes) {
      std::vector<std::int64_t> Pick = Reps(0);
      Pick[I] = V;
      Runs.push_back({Sizes(Pick), Of, -1, {}, {}, {}});
    }
  }
  // Small sizes, for each set of sizes that reach some sites through their
  // values: every combination of those sizes in which at least one is
  // small and each other is small or at a class (the sizes outside the set
  // at a large class: at a site a size only bounds, a smaller value has a
  // subset of the warp classes of a larger one). Beyond the budget the
  // combinations are sampled: each small value with the others at two
  // classes, every combination of the first small values and two classes,
  // and the rest drawn at random; the figures of the set's sites say so.
  const std::size_t ClassRuns = Runs.size();
  Rep.AllSmall = true;
  std::map<std::vector<bool>, bool> SetSampled; // per set: some class or small combination left out
  std::vector<std::string> SmallText;
  {
    Rng Draw(2027);
    for (const std::vector<bool> &Set : Sets) {
      const std::vector<bool> SetSites = SitesOf([&](std::size_t S) { return Joint[S] == Set; });
      // Sampled already when the joint classes were too many to enumerate.
      std::int64_t JointClasses = 1;
      for (std::size_t J = 0; J < Doms.size(); ++J)
        if (Set[J])
          JointClasses = std::min<std::int64_t>(JointClasses * static_cast<std::int64_t>(Vals[J].Classes.size()),
                                                std::int64_t(1) << 40);
      bool &Sampled = SetSampled[Set];
      Sampled = JointClasses > Opts.MaxJointClasses;
      // The sizes of the set, each with its options: small values first
      // (none for a size whose classes are its every value), then classes.
      std::vector<std::size_t> Of;
      std::vector<std::vector<std::int64_t>> Options;
      std::vector<std::size_t> NumSmall;
      bool AnySmall = false;
      for (std::size_t I = 0; I < Doms.size(); ++I) {
        if (!Set[I])
          continue;
        const bool Every = Vals[I].Classes == Vals[I].Small;
        std::vector<std::int64_t> O = Every ? std::vector<std::int64_t>{} : Vals[I].Small;
        NumSmall.push_back(O.size());
        AnySmall = AnySmall || !O.empty();
        O.insert(O.end(), Vals[I].Classes.begin(), Vals[I].Classes.end());
        Of.push_back(I);
        Options.push_back(std::move(O));
      }
      if (!AnySmall)
        continue;
      // Counted in doubles (exact below 2^53): two products clipped at one
      // bound would differ by 0, and every combination of many sizes (a
      // kernel with eight int parameters: billions) would be enumerated.
      double Cells = 1, ClassCells = 1;
      for (std::size_t J = 0; J < Of.size(); ++J) {
        Cells *= static_cast<double>(Options[J].size());
        ClassCells *= static_cast<double>(Options[J].size() - NumSmall[J]);
      }
      const double CombosCount = Cells - ClassCells;
      const std::string Combos = CombosCount < 0x1p53 ? fmt::format("{}", static_cast<std::int64_t>(CombosCount))
                                                      : fmt::format("{:.3g}", CombosCount);
      std::vector<std::string> Names, Ranges;
      for (std::size_t J = 0; J < Of.size(); ++J) {
        Names.push_back(Doms[Of[J]].Name);
        if (NumSmall[J])
          Ranges.push_back(fmt::format("{} = {}..{}", Doms[Of[J]].Name, Options[J].front(),
                                       Options[J][NumSmall[J] - 1]));
      }
      std::set<std::vector<std::int64_t>> Done;
      auto Add = [&](const std::vector<std::size_t> &Idx) {
        bool Small = false;
        std::vector<std::int64_t> Pick = Reps(0);
        for (std::size_t J = 0; J < Of.size(); ++J) {
          Small = Small || Idx[J] < NumSmall[J];
          Pick[Of[J]] = Options[J][Idx[J]];
        }
        if (Small && Done.insert(Pick).second)
          Runs.push_back({Sizes(Pick), SetSites, -1, {}, {}, {}, {}, true});
      };
      // Every combination of the first Take[J] options of each size.
      auto Grid = [&](const std::vector<std::size_t> &Take) {
        std::vector<std::size_t> Idx(Of.size(), 0);
        while (true) {
          Add(Idx);
          std::size_t J = 0;
          for (; J < Of.size(); ++J) {
            if (++Idx[J] < Take[J])
              break;
            Idx[J] = 0;
          }
          if (J == Of.size())
            return;
        }
      };
      if (CombosCount <= static_cast<double>(Opts.MaxSmallCombinations)) {
        std::vector<std::size_t> Take;
        for (const auto &O : Options)
          Take.push_back(O.size());
        Grid(Take);
        SmallText.push_back(fmt::format("every combination of {} with each other and the classes ({})",
                                        fmt::join(Ranges, ", "), Combos));
        continue;
      }
      Sampled = true;
      // Each small value with the others at two classes.
      for (std::size_t J = 0; J < Of.size(); ++J)
        for (std::size_t V = 0; V < NumSmall[J]; ++V)
          for (std::size_t Two = 0; Two < 2; ++Two) {
            std::vector<std::size_t> Idx(Of.size());
            for (std::size_t X = 0; X < Of.size(); ++X)
              Idx[X] = NumSmall[X] + std::min(Two, Options[X].size() - NumSmall[X] - 1);
            Idx[J] = V;
            Add(Idx);
          }
      // The first F small values and two classes of every size, jointly,
      // F as large as a quarter of the budget allows.
      std::size_t F = 1;
      auto Corner = [&](std::size_t N) {
        double C = 1;
        for (std::size_t J = 0; J < Of.size(); ++J)
          C *= static_cast<double>(std::min(N, NumSmall[J]) + std::min<std::size_t>(2, Options[J].size() - NumSmall[J]));
        return C;
      };
      while (F < 64 && Corner(F + 1) <= static_cast<double>(Opts.MaxSmallCombinations) / 4)
        ++F;
      // Many sizes (a file's every kernel parameter): even one small value
      // and two classes each are too many combinations to take jointly.
      const bool Joint = Corner(F) <= static_cast<double>(Opts.MaxSmallCombinations);
      if (Joint) {
        // Options reordered so that the first ones are the F smallest and two classes.
        std::vector<std::vector<std::int64_t>> Saved = Options;
        std::vector<std::size_t> SavedSmall = NumSmall, Take;
        for (std::size_t J = 0; J < Of.size(); ++J) {
          const std::size_t S = std::min(F, NumSmall[J]);
          std::vector<std::int64_t> O(Options[J].begin(), Options[J].begin() + static_cast<std::ptrdiff_t>(S));
          const std::size_t C = std::min<std::size_t>(2, Options[J].size() - NumSmall[J]);
          O.insert(O.end(), Options[J].begin() + static_cast<std::ptrdiff_t>(NumSmall[J]),
                   Options[J].begin() + static_cast<std::ptrdiff_t>(NumSmall[J] + C));
          Options[J] = std::move(O);
          NumSmall[J] = S;
          Take.push_back(Options[J].size());
        }
        Grid(Take);
        Options = std::move(Saved);
        NumSmall = std::move(SavedSmall);
      }
      // The rest at random, up to the budget.
      for (std::int64_t Tries = 0; static_cast<std::int64_t>(Done.size()) < Opts.MaxSmallCombinations &&
                                   Tries < 4 * Opts.MaxSmallCombinations;
           ++Tries) {
        std::vector<std::size_t> Idx(Of.size());
        for (std::size_t J = 0; J < Of.size(); ++J)
          Idx[J] = static_cast<std::size_t>(Draw.below(Options[J].size()));
        Add(Idx);
      }
      SmallText.push_back(fmt::format(
          "{} of the {} combinations of {} with each other and the classes, sampled (each small value with the "
          "others at two classes, {}, the rest at random)",
          Done.size(), Combos, fmt::join(Ranges, ", "),
          Joint ? fmt::format("{} in 1..{} of their small values and two classes jointly", fmt::join(Names, ", "), F)
                : fmt::format("not {} jointly ({:.3g} combinations)", fmt::join(Names, ", "), Corner(F))));
    }
  }
  for (const auto &[Set, S] : SetSampled)
    Rep.AllSmall = Rep.AllSmall && !S;
  // Periodicity: up to 32 of the class runs and 32 of the small runs with
  // some size at a class again, every size at a class one magnitude up,
  // and again just past the small sizes.
  {
    Rng R(2026);
    std::vector<std::size_t> Pick;
    for (const auto &[From, To] : {std::pair<std::size_t, std::size_t>{0, ClassRuns}, {ClassRuns, Runs.size()}}) {
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
        for (std::size_t I = 0; I < Doms.size(); ++I) {
          const auto &Cl = Vals[I].Classes;
          const auto &To = Lower ? Vals[I].CheckLow : Vals[I].Check;
          const auto It = std::find(Cl.begin(), Cl.end(), B[Doms[I].Name]);
          if (It != Cl.end() && !To.empty()) {
            B[Doms[I].Name] = To[static_cast<std::size_t>(It - Cl.begin())];
            Moved = true;
          }
        }
        if (Moved)
          Runs.push_back({B, Runs[C].Sites, static_cast<int>(C), {}, {}, {}});
      }
  }

  // The same sizes twice (a bounded size has no separate classes) are one run.
  {
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
          for (std::size_t S = 0; S < Into.size(); ++S)
            Into[S] = Into[S] || From[S];
        std::vector<std::uint8_t> &Marks = Unique[static_cast<std::size_t>(It->second)].ClassOf;
        Marks.resize(std::max(Marks.size(), Runs[I].ClassOf.size()), 0);
        for (std::size_t S = 0; S < Runs[I].ClassOf.size(); ++S)
          Marks[S] = std::max(Marks[S], Runs[I].ClassOf[S]);
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

  std::size_t Shares = 0;
  for (const Run &R : Runs)
    Shares += !R.SmallCombination;
  Shares = std::max<std::size_t>(Shares, 1);
  // Evaluate, spread over the cores; results stay in run order.
  AnalysisOptions AO = Opts.Analysis;
  AO.SimulateTime = false;
  // Each run binds a copy of the program: of this kernel alone.
  ir::Program One = Prog;
  std::erase_if(One.Kernels, [&](const ir::Kernel &X) { return X.Name != K.Name; });
  // The work limit bounds the whole analysis: each size gets its share of
  // it, the small combinations (tiny grids) not counted.
  const std::int64_t Share = std::max<std::int64_t>(1, AO.WorkLimit / static_cast<std::int64_t>(Shares));
  auto SizesText = [](const ir::Bindings &Sizes) {
    std::vector<std::string> S;
    for (const auto &[N, V] : Sizes)
      S.push_back(fmt::format("{} = {}", N, V));
    return fmt::format("{}", fmt::join(S, ", "));
  };
  auto Evaluate = [&](Run &R) {
    ir::Program Bound;
    try {
      Bound = ir::bindParams(One, R.Sizes);
    } catch (const UserError &E) {
      R.Error = E.diagnostic().Message;
      return;
    }
    try {
      AnalysisOptions Mine = AO;
      Mine.OnlySites = R.Sites;
      Mine.WorkLimit = Share;
      R.Rep = analyzeKernel(Bound, *Bound.findKernel(K.Name), Mine);
    } catch (const StepLimitError &E) {
      R.StepError = fmt::format("kernel '{}' needs more than {} evaluation steps at {}, its share of the "
                                         "analysis limit of {} over {} sizes{}; give its sizes with -D",
                                         K.Name, Share, SizesText(R.Sizes), AO.WorkLimit, Shares,
                                         E.Reason.empty() ? std::string()
                                                          : fmt::format(" (it is evaluated warp by warp: {})",
                                                                        E.Reason));
    } catch (const UserError &E) {
      R.RunError = E.what();
    }
  };
  // The largest size alone, first: the size most likely to need more than
  // its share of the steps (a kernel the fast path cannot count goes warp
  // by warp, a step a warp and more), so that a refusal comes before the
  // work of the other sizes, not after it.
  std::size_t ProbeIndex = 0;
  double Largest = -1;
  for (std::size_t I = 0; I < Runs.size(); ++I) {
    double Product = 1;
    for (const auto &[N, V] : Runs[I].Sizes)
      Product *= static_cast<double>(V);
    if (Product > Largest) {
      Largest = Product;
      ProbeIndex = I;
    }
  }
  // With a budget (AllSizesOptions::MaxOperations) the runs are handed out
  // in budgetOrder until the work done reaches it; then the first runs of
  // that order whose work reaches it are kept (below). Handing out goes in
  // order, so those were all handed out whatever the threads did.
  const bool Budget = Opts.MaxOperations > 0 && !Runs.empty();
  for (std::size_t I = 0; I < Runs.size(); ++I)
    Runs[I].Planned = I;
  std::size_t Covering = 1;
  if (Budget) {
    const ir::Bindings CornerSizes = Sizes(Reps(0));
    std::size_t Corner = Runs.size();
    for (std::size_t I = 0; I < Runs.size() && Corner == Runs.size(); ++I)
      if (Runs[I].CheckOf < 0 && !Runs[I].SmallCombination && Runs[I].Sizes == CornerSizes)
        Corner = I;
    reorderRuns(Runs, budgetOrder(Runs, ProbeIndex, Corner, Dep.size(), Covering));
    ProbeIndex = 0;
  }
  const std::size_t MinKept = std::max(Covering, static_cast<std::size_t>(std::max<std::int64_t>(Opts.MinRuns, 1)));
  std::int64_t WorkDone = 0;
  auto WorkOf = [](const Run &R) { return (R.Rep ? R.Rep->Operations : 0) + RunOverhead; };
  std::size_t Next = 0;
  // The first size in run order at which the kernel fails is what the
  // analysis reports (below); no size after a failing one need run.
  std::size_t FailedAt = Runs.size();
  if (!Runs.empty()) {
    Evaluate(Runs[ProbeIndex]);
    if (!Runs[ProbeIndex].StepError.empty())
      Next = Runs.size(); // refused: no other size is evaluated
    else if (!Runs[ProbeIndex].RunError.empty())
      FailedAt = ProbeIndex;
    WorkDone = WorkOf(Runs[ProbeIndex]);
  }
  // A size past its share of the steps stops the handing out of sizes: the
  // sizes before it were all handed out and run to the end, so the first
  // refusal in run order is the same whatever the threads did. A size at
  // which the kernel fails stops the handing out of later sizes the same
  // way (those before it still run: one of them may fail first).
  std::mutex Lock;
  bool Refused = false;
  auto Worker = [&] {
    while (true) {
      std::size_t I;
      {
        std::lock_guard<std::mutex> G(Lock);
        if (Next >= Runs.size() || Refused || Next > FailedAt ||
            (Budget && WorkDone >= Opts.MaxOperations && Next >= MinKept))
          return;
        I = Next++;
      }
      if (I == ProbeIndex)
        continue;
      Evaluate(Runs[I]);
      {
        std::lock_guard<std::mutex> G(Lock);
        WorkDone += WorkOf(Runs[I]);
      }
      if (!Runs[I].StepError.empty()) {
        std::lock_guard<std::mutex> G(Lock);
        Refused = true;
      } else if (!Runs[I].RunError.empty()) {
        std::lock_guard<std::mutex> G(Lock);
        FailedAt = std::min(FailedAt, I);
      }
    }
  };
  unsigned Threads = threadCount(Opts.Threads);
  Threads = static_cast<unsigned>(std::min<std::size_t>(Threads, Runs.size()));
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Worker);
  Worker();
  for (std::thread &T : Pool)
    T.join();
  const std::size_t Planned = Runs.size();
  std::vector<bool> CutSites;
  if (Budget) {
    // The first runs whose work reaches the budget (at least MinKept: every
    // site's first run and MinRuns).
    std::size_t Keep = Runs.size();
    std::int64_t Sum = 0;
    for (std::size_t I = 0; I < Runs.size(); ++I) {
      Sum += WorkOf(Runs[I]);
      if (Sum >= Opts.MaxOperations && I + 1 >= MinKept) {
        Keep = I + 1;
        break;
      }
    }
    if (Keep < Runs.size()) {
      // The sites a dropped class or small run would have reached.
      CutSites.assign(Dep.size(), false);
      for (std::size_t I = Keep; I < Runs.size(); ++I)
        if (Runs[I].CheckOf < 0)
          for (std::size_t S = 0; S < Dep.size(); ++S)
            CutSites[S] = CutSites[S] || Runs[I].Sites.empty() || (S < Runs[I].Sites.size() && Runs[I].Sites[S]);
      Runs.resize(Keep);
      // A check comes after its run in the order, but for the first run (the
      // largest size, a check one magnitude up): without its run, it checks
      // nothing and counts as one more size.
      for (Run &R : Runs)
        if (R.CheckOf >= static_cast<int>(Keep))
          R.CheckOf = -1;
    }
    // Back in the plan's order, which the report reads them in.
    std::vector<std::size_t> Order(Runs.size());
    std::iota(Order.begin(), Order.end(), 0);
    std::sort(Order.begin(), Order.end(),
              [&](std::size_t A, std::size_t B) { return Runs[A].Planned < Runs[B].Planned; });
    reorderRuns(Runs, Order);
  }

  // A size at which the kernel fails (an index out of bounds) is the
  // finding that matters most.
  for (const Run &R : Runs) {
    if (!R.StepError.empty())
      throw UserError(K.Loc, R.StepError);
    if (!R.RunError.empty()) {
      std::vector<std::string> S;
      for (const auto &[N, V] : R.Sizes)
        S.push_back(fmt::format("{} = {}", N, V));
      throw UserError(K.Loc, fmt::format("kernel '{}' fails at {}: {}", K.Name,
                                         fmt::join(S, ", "), R.RunError));
    }
  }

  // Per site, per model: min and max over every size and warp, and the
  // residues of each size where they are reached.
  struct Track {
    SizeRange *Range;
    std::vector<std::vector<bool>> AtMax, AtMin;
  };
  const KernelReport *First = nullptr;
  for (const Run &R : Runs)
    if (R.Rep) {
      First = &*R.Rep;
      break;
    }
  if (!First)
    throw UserError(K.Loc, fmt::format("kernel '{}': no size satisfies the constraints ({})",
                                       K.Name, Runs.empty() ? "none tried" : Runs.front().Error));
  // The dependence pass must see the sites the analysis reports; where it
  // does not, every size is taken as reaching every site.
  bool Aligned = Dep.size() == First->Sites.size();
  for (std::size_t I = 0; Aligned && I < Dep.size(); ++I)
    Aligned = Dep[I].Loc.Line == First->Sites[I].Loc.Line && Dep[I].Loc.Col == First->Sites[I].Loc.Col &&
              Dep[I].Array == First->Sites[I].Array && Dep[I].IsWrite == First->Sites[I].IsWrite;
  if (!Aligned && !Opts.JointOverAll) {
    AllSizesOptions Again = Opts;
    Again.JointOverAll = true;
    return analyzeAllSizes(Prog, K, Again);
  }
  for (const AccessSiteReport &S : First->Sites) {
    AllSizesSite A;
    A.Loc = S.Loc;
    A.Array = S.Array;
    A.Space = S.Space;
    A.IsWrite = S.IsWrite;
    A.IsAtomic = S.IsAtomic;
    A.Op = S.Op;
    A.Layout = S.Layout;
    const std::size_t I = Rep.Sites.size();
    for (std::size_t P = 0; P < Doms.size(); ++P)
      if (I < Joint.size() && !Joint[I][P])
        A.BoundOnly.push_back(Doms[P].Name);
    if (Aligned)
      A.Node = Dep[I].Node;
    Rep.Sites.push_back(A);
  }
  auto Models = [](AllSizesSite &A, const AccessSiteReport &S) {
    return std::array<std::pair<SizeRange *, const CostStats *>, 6>{
        {{&A.Congestion, &S.Congestion}, {&A.Groups, &S.Groups}, {&A.Wavefronts, &S.Wavefronts},
         {&A.Sectors, &S.Sectors}, {&A.Lines, &S.Lines}, {&A.Serialization, &S.Serialization}}};
  };
  for (const Run &R : Runs) {
    if (!R.Rep)
      continue;
    ++Rep.Bindings;
    Rep.Tried.push_back(R.Sizes);
    if (!R.Rep->FastPath && Rep.FallbackReason.empty())
      Rep.FallbackReason = R.Rep->FallbackReason;
    for (std::size_t I = 0; I < Rep.Sites.size() && I < R.Rep->Sites.size(); ++I) {
      AllSizesSite &A = Rep.Sites[I];
      const AccessSiteReport &S = R.Rep->Sites[I];
      A.DataDependent = A.DataDependent || S.DataDependent;
      if (S.DataGuarded && !A.DataGuarded) {
        A.DataGuarded = true;
        A.GuardSource = S.GuardSource;
      }
      for (auto [Range, Stats] : Models(A, S)) {
        if (Stats->Count == 0)
          continue;
        Range->Min = Range->Any ? std::min(Range->Min, Stats->Min) : Stats->Min;
        Range->Max = Range->Any ? std::max(Range->Max, Stats->Max) : Stats->Max;
        Range->Any = true;
      }
    }
  }
  // The worst warp per size class: the histogram of the cost over sizes.
  for (std::size_t I = 0; I < Rep.Sites.size(); ++I) {
    AllSizesSite &A = Rep.Sites[I];
    // One class per value of the sizes that reach the site (a sampled set's
    // runs repeat a class with the other sizes at two values): its worst.
    std::map<std::vector<std::int64_t>, std::int64_t> WorstOf;
    bool Sampled = false;
    for (const Run &R : Runs) {
      const std::uint8_t Mark = I < R.ClassOf.size() ? R.ClassOf[I] : 0;
      if (!Mark || !R.Rep || I >= R.Rep->Sites.size())
        continue;
      const AccessSiteReport &S = R.Rep->Sites[I];
      const CostStats &Cost = A.Space == ir::MemSpace::Shared ? S.Wavefronts : S.Sectors;
      if (Cost.Count == 0)
        continue;
      std::vector<std::int64_t> Key;
      for (std::size_t P = 0; P < Doms.size(); ++P)
        if (I >= Joint.size() || Joint[I][P])
          Key.push_back(R.Sizes.at(Doms[P].Name));
      const auto It = WorstOf.try_emplace(std::move(Key), Cost.Max).first;
      It->second = std::max(It->second, Cost.Max);
      Sampled = Sampled || Mark == 2;
    }
    for (const auto &[Key, Worst] : WorstOf)
      A.WorstBySize.add(Worst);
    const auto Classes = static_cast<std::int64_t>(WorstOf.size());
    // Which sizes the classes are of: a bounded size at each of its values.
    std::vector<std::string> Parts;
    bool AllValues = true;
    for (std::size_t P = 0; P < Doms.size(); ++P)
      if (I >= Joint.size() || Joint[I][P]) {
        const bool Every = Vals[P].Classes == Vals[P].Small;
        AllValues = AllValues && Every;
        Parts.push_back(Every ? "every value of " + Doms[P].Name : fmt::format("{} mod {}", Doms[P].Name, L));
      }
    const char *Plural = Classes == 1 ? "" : "es";
    if (Classes == 0)
      A.BySizeOf.clear();
    else if (Parts.empty())
      A.BySizeOf = fmt::format("{} size class{}: no runtime size reaches this site through its value", Classes,
                               Plural);
    else if (AllValues)
      A.BySizeOf = fmt::format("{} size{}: {}", Classes, Classes == 1 ? "" : "s", fmt::join(Parts, " and "));
    else
      A.BySizeOf = fmt::format("{} size class{}: {}, each class at one representative size{}", Classes, Plural,
                               fmt::join(Parts, " and "),
                               Sampled ? " (each size through its classes, the others at two)" : "");
  }
  // Periodicity: a check run must give its class run's figures.
  std::vector<bool> SitePeriodic(Rep.Sites.size(), true);
  for (const Run &R : Runs) {
    if (R.CheckOf < 0 || !R.Rep || !Runs[static_cast<std::size_t>(R.CheckOf)].Rep)
      continue;
    const Run &Of = Runs[static_cast<std::size_t>(R.CheckOf)];
    const KernelReport &A = *R.Rep, &B = *Of.Rep;
    auto Has = [](const Run &X, std::size_t I) {
      return X.Sites.empty() || (I < X.Sites.size() && X.Sites[I]);
    };
    for (std::size_t I = 0; I < A.Sites.size() && I < B.Sites.size(); ++I) {
      if (!Has(R, I) || !Has(Of, I))
        continue;
      const AccessSiteReport &X = A.Sites[I], &Y = B.Sites[I];
      auto Same = [](const CostStats &P, const CostStats &Q) {
        return P.Count == 0 ? Q.Count == 0 : (Q.Count != 0 && P.Min == Q.Min && P.Max == Q.Max);
      };
      if (!Same(X.Congestion, Y.Congestion) || !Same(X.Groups, Y.Groups) ||
          !Same(X.Wavefronts, Y.Wavefronts) || !Same(X.Sectors, Y.Sectors) || !Same(X.Lines, Y.Lines) ||
          !Same(X.Serialization, Y.Serialization)) {
        Rep.Periodic = false;
        if (I < SitePeriodic.size())
          SitePeriodic[I] = false;
      }
    }
  }
  // Where the extremes are reached: residues of each size mod L.
  for (std::size_t I = 0; I < Rep.Sites.size(); ++I) {
    AllSizesSite &A = Rep.Sites[I];
    const std::size_t NumModels = 6;
    for (std::size_t M = 0; M < NumModels; ++M) {
      SizeRange *Range = nullptr;
      std::vector<std::vector<bool>> AtMax(Doms.size(), std::vector<bool>(static_cast<std::size_t>(L), false));
      std::vector<std::vector<bool>> AtMin = AtMax, SeenMax = AtMax, SeenMin = AtMax;
      // Where a budget dropped sizes of this site, a residue of a size is
      // taken as never at the extreme only where a class run of it (not a
      // small size: n = 3 has fewer lanes, not another class) had the
      // others' values seen to reach it with some residue of this size: a
      // random sample would otherwise mark a residue as never worst because
      // it came only with a small value or with the others' unlucky values.
      const bool Cut = I < CutSites.size() ? CutSites[I] : Runs.size() < Planned;
      std::vector<std::map<std::vector<std::int64_t>, std::pair<bool, bool>>> Reach(Doms.size());
      auto Others = [&](const Run &R, std::size_t P) {
        std::vector<std::int64_t> Key;
        for (std::size_t Q = 0; Q < Doms.size(); ++Q)
          if (Q != P)
            Key.push_back(R.Sizes.at(Doms[Q].Name));
        return Key;
      };
      for (int Pass = Cut ? 0 : 1; Pass < 2; ++Pass)
        for (const Run &R : Runs) {
          if (!R.Rep || I >= R.Rep->Sites.size())
            continue;
          auto Pairs = Models(A, R.Rep->Sites[I]);
          Range = Pairs[M].first;
          const CostStats *Stats = Pairs[M].second;
          if (Stats->Count == 0)
            continue;
          for (std::size_t P = 0; P < Doms.size(); ++P) {
            if (Pass == 0) {
              auto &[Max, Min] = Reach[P][Others(R, P)];
              Max = Max || Stats->Max == Range->Max;
              Min = Min || Stats->Min == Range->Min;
              continue;
            }
            const std::size_t Res =
                static_cast<std::size_t>(((R.Sizes.at(Doms[P].Name) % L) + L) % L);
            std::pair<bool, bool> Reached{true, true};
            if (Cut) // only a class run's residue stands for its class
              Reached = I < R.ClassOf.size() && R.ClassOf[I] ? Reach[P].at(Others(R, P))
                                                              : std::pair<bool, bool>{false, false};
            if (Stats->Max == Range->Max)
              AtMax[P][Res] = true;
            if (Stats->Min == Range->Min)
              AtMin[P][Res] = true;
            // Seen separately for the two extremes only under a budget.
            SeenMax[P][Res] = SeenMax[P][Res] || Reached.first;
            SeenMin[P][Res] = SeenMin[P][Res] || Reached.second;
          }
        }
      if (!Range || !Range->Any)
        continue;
      std::vector<std::string> MaxW, MinW;
      for (std::size_t P = 0; P < Doms.size(); ++P) {
        // Residues no evaluated size has (a bounded or stepped size) do
        // not constrain: the condition describes the sizes that exist.
        // A size that only bounds the site does not change its figures
        // past the first block rows: no condition on it.
        //
        // Under a budget a residue is known to reach the extreme (a size
        // tried with it did), known not to (its class run missed it where
        // the others' values reached it with another residue), or not
        // known (not tried in such a run). A size with no residue known
        // not to gets no condition: nothing shows that it matters. One
        // with some lists only the residues seen to reach the extreme:
        // listing the unknown ones too had printed oddEvenMergeSort.cu's
        // 8 sectors "when stride % 32 in {1..8, 10, ...}", where only 1..7
        // reach them.
        // With unsettled residues the set is printed as a list ("in
        // {...}" at L), so that it names none of them: a shorter form
        // ("% 8 != 0") would say what they give.
        const bool Free = I < Joint.size() && !Joint[I][P];
        auto Settle = [&](std::vector<bool> &At, const std::vector<bool> &Seen) {
          bool KnownNot = false, Unsettled = false;
          for (std::size_t Res = 0; Res < Seen.size(); ++Res) {
            KnownNot = KnownNot || (Seen[Res] && !At[Res]);
            Unsettled = Unsettled || (!Seen[Res] && !At[Res]);
          }
          for (std::size_t Res = 0; Res < Seen.size(); ++Res)
            if (Free || (Cut ? !KnownNot : !Seen[Res]))
              At[Res] = true;
          return Cut && KnownNot && Unsettled && !Free;
        };
        const bool ListMax = Settle(AtMax[P], SeenMax[P]);
        const bool ListMin = Settle(AtMin[P], SeenMin[P]);
        if (auto C = residueCondition(Doms[P].Name, AtMax[P], ListMax, Doms[P].Step); !C.empty())
          MaxW.push_back(C);
        if (auto C = residueCondition(Doms[P].Name, AtMin[P], ListMin, Doms[P].Step); !C.empty())
          MinW.push_back(C);
      }
      Range->MaxWhen = fmt::format("{}", fmt::join(MaxW, " and "));
      Range->MinWhen = fmt::format("{}", fmt::join(MinW, " and "));
      // Each size's residues reach the worst with some values of the
      // others; whether every evaluated size inside all of them does. A
      // condition on one size is not held to its values under the period
      // (matrixMul's wB = 17 has rows that share sectors: fewer lanes'
      // worth, not another class, and the rest of its class is worst); one
      // on several is, a budget's sample rarely holding the large pair
      // that shows the worst needs the sizes together.
      Range->MaxWhenPartial = false;
      if (!MaxW.empty())
        for (const Run &R : Runs) {
          if (!R.Rep || I >= R.Rep->Sites.size() || R.SmallCombination ||
              (MaxW.size() < 2 &&
               std::any_of(Doms.begin(), Doms.end(), [&](const Domain &D) { return R.Sizes.at(D.Name) < L; })))
            continue;
          const CostStats *Stats = Models(A, R.Rep->Sites[I])[M].second;
          if (Stats->Count == 0 || Stats->Max == Range->Max)
            continue;
          bool Inside = true;
          for (std::size_t P = 0; P < Doms.size() && Inside; ++P)
            Inside = AtMax[P][static_cast<std::size_t>(((R.Sizes.at(Doms[P].Name) % L) + L) % L)];
          if (Inside) {
            Range->MaxWhenPartial = true;
            break;
          }
        }
    }
  }
  // Proven or sampled, per site: its set's classes and small combinations
  // all evaluated and its periodicity checks agreeing. A site the
  // dependence pass did not list has every set's coverage.
  bool AnySetSampled = false;
  for (const auto &[Set, S] : SetSampled)
    AnySetSampled = AnySetSampled || S;
  Rep.Proven = true;
  for (std::size_t I = 0; I < Rep.Sites.size(); ++I) {
    AllSizesSite &A = Rep.Sites[I];
    const auto It = Aligned && I < Joint.size() ? SetSampled.find(Joint[I]) : SetSampled.end();
    A.Sampled = !SitePeriodic[I] || (It != SetSampled.end() ? It->second : AnySetSampled) ||
                (I < CutSites.size() ? CutSites[I] : Runs.size() < Planned);
    for (SizeRange *X : {&A.Congestion, &A.Groups, &A.Wavefronts, &A.Sectors, &A.Lines, &A.Serialization})
      X->Sampled = A.Sampled;
    Rep.Proven = Rep.Proven && !A.Sampled;
  }
  const std::string Verdict =
      (Runs.size() < Planned
           ? fmt::format("; {} of the {} sizes planned, in an order drawn at random, until their work reached "
                         "the budget of {} operations",
                         Runs.size(), Planned, Opts.MaxOperations)
           : std::string()) +
      (Rep.Proven ? "; every figure holds for every size"
                  : "; figures marked sampled hold at the sizes tried, not proven for every size");
  bool Bounded = true;
  for (std::size_t I = 0; I < Doms.size(); ++I)
    Bounded = Bounded && Vals[I].Classes == Vals[I].Small;
  if (Bounded && Rep.AllClasses) {
    Rep.Method = fmt::format("{} sizes: every value of {}{}", Rep.Bindings, fmt::join(Rep.Params, ", "), Verdict);
    return Rep;
  }
  // Which sizes were enumerated jointly, per group of sites.
  std::set<std::string> JointText;
  for (const std::vector<bool> &Set : Sets) {
    std::vector<std::string> Names;
    for (std::size_t I = 0; I < Doms.size(); ++I)
      if (Set[I])
        Names.push_back(Doms[I].Name);
    if (!Names.empty())
      JointText.insert(fmt::format("{}", fmt::join(Names, " x ")));
  }
  Rep.Method = fmt::format(
      "{} sizes: {} residue class{} mod {}, at 1024 and above, of the sizes that reach a site "
      "through their values ({}), a size that only bounds a site at one value, {} periodicity "
      "checks one magnitude up and just past the small sizes ({}), and the small sizes: {}{}",
      Rep.Bindings, Rep.AllClasses ? "every joint" : "each size's (the others at two representatives)",
      Rep.AllClasses ? "" : "es", L,
      JointText.empty() ? "none" : fmt::format("{}", fmt::join(JointText, "; ")),
      std::count_if(Runs.begin(), Runs.end(), [](const Run &R) { return R.CheckOf >= 0; }),
      Rep.Periodic ? "agreed" : "DISAGREED: figures are sampled, not proven",
      SmallText.empty() ? "none" : fmt::format("{}", fmt::join(SmallText, "; ")), Verdict);
  return Rep;
}

} // namespace bankwise
