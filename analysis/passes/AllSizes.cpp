#include "analysis/passes/AllSizes.h"
#include "analysis/passes/SizeDependence.h"
#include "analysis/passes/detail/AllSizesPlan.h"

#include "ir/Eval.h"
#include "support/Diagnostic.h"
#include "support/Parallel.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <thread>

namespace bankwise::all_sizes {
namespace {

/// How each run is evaluated: the analysis options, the program of this
/// kernel alone, and each size's share of the work limit over how many
/// sizes share it.
struct Evaluator {
  AnalysisOptions AO;
  ir::Program One;
  std::size_t Shares = 1;
  std::int64_t Share = 1;
};

/// The evaluator of S's runs.
Evaluator makeEvaluator(const State &S) {
  Evaluator E;
  std::size_t Shares = 0;
  for (const Run &R : S.Runs)
    Shares += !R.SmallCombination;
  E.Shares = std::max<std::size_t>(Shares, 1);
  E.AO = S.Opts.Analysis;
  E.AO.SimulateTime = false;
  // Each run binds a copy of the program: of this kernel alone.
  E.One = S.Prog;
  std::erase_if(E.One.Kernels, [&](const ir::Kernel &X) { return X.Name != S.K.Name; });
  // The work limit bounds the whole analysis: each size gets its share of
  // it, the small combinations (tiny grids) not counted.
  E.Share = std::max<std::int64_t>(1, E.AO.WorkLimit / static_cast<std::int64_t>(E.Shares));
  return E;
}

/// "R = 4, C = 7".
std::string sizesText(const ir::Bindings &Sizes) {
  std::vector<std::string> S;
  for (const auto &[N, V] : Sizes)
    S.push_back(fmt::format("{} = {}", N, V));
  return fmt::format("{}", fmt::join(S, ", "));
}

/// Evaluates run R: its report, or why its size is invalid, why it needs
/// more than its share of the steps, or why the kernel fails at it.
void evaluateRun(const State &S, const Evaluator &E, Run &R) {
  ir::Program Bound;
  try {
    Bound = ir::bindParams(E.One, R.Sizes);
  } catch (const UserError &Err) {
    R.Error = Err.diagnostic().Message;
    return;
  }
  try {
    AnalysisOptions Mine = E.AO;
    Mine.OnlySites = R.Sites;
    Mine.WorkLimit = E.Share;
    R.Rep = analyzeKernel(Bound, *Bound.findKernel(S.K.Name), Mine);
  } catch (const StepLimitError &Err) {
    R.StepError = fmt::format("kernel '{}' needs more than {} evaluation steps at {}, its share of the "
                              "analysis limit of {} over {} sizes{}; give its sizes with -D",
                              S.K.Name, E.Share, sizesText(R.Sizes), E.AO.WorkLimit, E.Shares,
                              Err.Reason.empty()
                                  ? std::string()
                                  : fmt::format(" (it is evaluated warp by warp: {})", Err.Reason));
  } catch (const UserError &Err) {
    R.RunError = Err.what();
  }
}

/// The run of the largest sizes (the product of its sizes; the first of
/// those).
std::size_t largestRun(const std::vector<Run> &Runs) {
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
  return ProbeIndex;
}

/// Puts the runs in the order a budget takes them (budgetOrder), run
/// ProbeIndex first; how many runs it takes to cover every site.
std::size_t orderForBudget(State &S, std::size_t ProbeIndex) {
  std::vector<Run> &Runs = S.Runs;
  const ir::Bindings CornerSizes = bindingOf(S, representatives(S, 0));
  std::size_t Corner = Runs.size();
  for (std::size_t I = 0; I < Runs.size() && Corner == Runs.size(); ++I)
    if (Runs[I].CheckOf < 0 && !Runs[I].SmallCombination && Runs[I].Sizes == CornerSizes)
      Corner = I;
  std::size_t Covering = 1;
  reorderRuns(Runs, budgetOrder(Runs, ProbeIndex, Corner, S.Dep.size(), Covering));
  return Covering;
}

/// What a run costs a budget: its operations and the overhead.
std::int64_t workOf(const Run &R) { return (R.Rep ? R.Rep->Operations : 0) + RunOverhead; }

/// Evaluates the runs over the threads, run ProbeIndex first, handing them
/// out in order until one is refused, one fails, or (Budget) their work
/// reaches the budget past the first MinKept.
void evaluateInParallel(State &S, const Evaluator &E, std::size_t ProbeIndex, bool Budget, std::size_t MinKept) {
  std::vector<Run> &Runs = S.Runs;
  std::int64_t WorkDone = 0;
  std::size_t Next = 0;
  // The first size in run order at which the kernel fails is what the
  // analysis reports (below); no size after a failing one need run.
  std::size_t FailedAt = Runs.size();
  if (!Runs.empty()) {
    evaluateRun(S, E, Runs[ProbeIndex]);
    if (!Runs[ProbeIndex].StepError.empty())
      Next = Runs.size(); // refused: no other size is evaluated
    else if (!Runs[ProbeIndex].RunError.empty())
      FailedAt = ProbeIndex;
    WorkDone = workOf(Runs[ProbeIndex]);
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
            (Budget && WorkDone >= S.Opts.MaxOperations && Next >= MinKept))
          return;
        I = Next++;
      }
      if (I == ProbeIndex)
        continue;
      evaluateRun(S, E, Runs[I]);
      {
        std::lock_guard<std::mutex> G(Lock);
        WorkDone += workOf(Runs[I]);
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
  unsigned Threads = threadCount(S.Opts.Threads);
  Threads = static_cast<unsigned>(std::min<std::size_t>(Threads, Runs.size()));
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Worker);
  Worker();
  for (std::thread &T : Pool)
    T.join();
}

/// Keeps the first runs whose work reaches the budget (at least MinKept),
/// marks the sites a dropped run would have reached, and puts the runs
/// back in the plan's order.
void keepBudgetPrefix(State &S, std::size_t MinKept) {
  std::vector<Run> &Runs = S.Runs;
  // The first runs whose work reaches the budget (at least MinKept: every
  // site's first run and MinRuns).
  std::size_t Keep = Runs.size();
  std::int64_t Sum = 0;
  for (std::size_t I = 0; I < Runs.size(); ++I) {
    Sum += workOf(Runs[I]);
    if (Sum >= S.Opts.MaxOperations && I + 1 >= MinKept) {
      Keep = I + 1;
      break;
    }
  }
  if (Keep < Runs.size()) {
    // The sites a dropped class or small run would have reached.
    S.CutSites.assign(S.Dep.size(), false);
    for (std::size_t I = Keep; I < Runs.size(); ++I)
      if (Runs[I].CheckOf < 0)
        for (std::size_t Site = 0; Site < S.Dep.size(); ++Site)
          S.CutSites[Site] = S.CutSites[Site] || Runs[I].Sites.empty() ||
                             (Site < Runs[I].Sites.size() && Runs[I].Sites[Site]);
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

/// Evaluates the runs (all of them, or under a budget the first ones of
/// budgetOrder), spread over the cores; the results stay in run order.
void evaluateRuns(State &S) {
  const Evaluator E = makeEvaluator(S);
  // The largest size alone, first: the size most likely to need more than
  // its share of the steps (a kernel the fast path cannot count goes warp
  // by warp, a step a warp and more), so that a refusal comes before the
  // work of the other sizes, not after it.
  std::size_t ProbeIndex = largestRun(S.Runs);
  // With a budget (AllSizesOptions::MaxOperations) the runs are handed out
  // in budgetOrder until the work done reaches it; then the first runs of
  // that order whose work reaches it are kept (below). Handing out goes in
  // order, so those were all handed out whatever the threads did.
  const bool Budget = S.Opts.MaxOperations > 0 && !S.Runs.empty();
  for (std::size_t I = 0; I < S.Runs.size(); ++I)
    S.Runs[I].Planned = I;
  std::size_t Covering = 1;
  if (Budget) {
    Covering = orderForBudget(S, ProbeIndex);
    ProbeIndex = 0;
  }
  const std::size_t MinKept =
      std::max(Covering, static_cast<std::size_t>(std::max<std::int64_t>(S.Opts.MinRuns, 1)));
  evaluateInParallel(S, E, ProbeIndex, Budget, MinKept);
  S.Planned = S.Runs.size();
  if (Budget)
    keepBudgetPrefix(S, MinKept);
}

/// Throws the first size in run order that needs more than its share of
/// the steps or at which the kernel fails.
void throwFirstFailure(const State &S) {
  // A size at which the kernel fails (an index out of bounds) is the
  // finding that matters most.
  for (const Run &R : S.Runs) {
    if (!R.StepError.empty())
      throw UserError(S.K.Loc, R.StepError);
    if (!R.RunError.empty())
      throw UserError(S.K.Loc, fmt::format("kernel '{}' fails at {}: {}", S.K.Name, sizesText(R.Sizes),
                                           R.RunError));
  }
}

/// The report of the first run that has one; throws when none has.
const KernelReport &firstReport(const State &S) {
  const KernelReport *First = nullptr;
  for (const Run &R : S.Runs)
    if (R.Rep) {
      First = &*R.Rep;
      break;
    }
  if (!First)
    throw UserError(S.K.Loc, fmt::format("kernel '{}': no size satisfies the constraints ({})", S.K.Name,
                                         S.Runs.empty() ? "none tried" : S.Runs.front().Error));
  return *First;
}

/// Whether the dependence pass lists the sites First reports, in order.
bool sitesAligned(const State &S, const KernelReport &First) {
  const std::vector<SiteSizeDependence> &Dep = S.Dep;
  bool Aligned = Dep.size() == First.Sites.size();
  for (std::size_t I = 0; Aligned && I < Dep.size(); ++I)
    Aligned = Dep[I].Loc.Line == First.Sites[I].Loc.Line && Dep[I].Loc.Col == First.Sites[I].Loc.Col &&
              Dep[I].Array == First.Sites[I].Array && Dep[I].IsWrite == First.Sites[I].IsWrite;
  return Aligned;
}

/// Lists the report's sites as First reports them, each with the sizes
/// that only bound it.
void listSites(State &S, const KernelReport &First) {
  for (const AccessSiteReport &Site : First.Sites) {
    AllSizesSite A;
    A.Loc = Site.Loc;
    A.Array = Site.Array;
    A.Space = Site.Space;
    A.IsWrite = Site.IsWrite;
    A.IsAtomic = Site.IsAtomic;
    A.Op = Site.Op;
    A.Layout = Site.Layout;
    const std::size_t I = S.Rep.Sites.size();
    for (std::size_t P = 0; P < S.Doms.size(); ++P)
      if (I < S.Joint.size() && !S.Joint[I][P])
        A.BoundOnly.push_back(S.Doms[P].Name);
    if (S.Aligned)
      A.Node = S.Dep[I].Node;
    S.Rep.Sites.push_back(A);
  }
}

/// The six models of a site: the range over every size and the figures of
/// one run.
std::array<std::pair<SizeRange *, const CostStats *>, 6> models(AllSizesSite &A, const AccessSiteReport &S) {
  return std::array<std::pair<SizeRange *, const CostStats *>, 6>{
      {{&A.Congestion, &S.Congestion}, {&A.Groups, &S.Groups}, {&A.Wavefronts, &S.Wavefronts},
       {&A.Sectors, &S.Sectors}, {&A.Lines, &S.Lines}, {&A.Serialization, &S.Serialization}}};
}

/// Accumulates each site's min and max per model over every run, and what
/// the runs say of its data and of the fast path.
void accumulateRanges(State &S) {
  AllSizesReport &Rep = S.Rep;
  for (const Run &R : S.Runs) {
    if (!R.Rep)
      continue;
    ++Rep.Bindings;
    Rep.Tried.push_back(R.Sizes);
    if (!R.Rep->FastPath && Rep.FallbackReason.empty())
      Rep.FallbackReason = R.Rep->FallbackReason;
    for (std::size_t I = 0; I < Rep.Sites.size() && I < R.Rep->Sites.size(); ++I) {
      AllSizesSite &A = Rep.Sites[I];
      const AccessSiteReport &Site = R.Rep->Sites[I];
      A.DataDependent = A.DataDependent || Site.DataDependent;
      if (Site.DataGuarded && !A.DataGuarded) {
        A.DataGuarded = true;
        A.GuardSource = Site.GuardSource;
      }
      for (auto [Range, Stats] : models(A, Site)) {
        if (Stats->Count == 0)
          continue;
        Range->Min = Range->Any ? std::min(Range->Min, Stats->Min) : Stats->Min;
        Range->Max = Range->Any ? std::max(Range->Max, Stats->Max) : Stats->Max;
        Range->Any = true;
      }
    }
  }
}

/// Counts each site's worst warp per size class (WorstBySize) and says
/// which classes they are (BySizeOf).
void countWorstBySize(State &S) {
  const std::vector<Domain> &Doms = S.Doms;
  // The worst warp per size class: the histogram of the cost over sizes.
  for (std::size_t I = 0; I < S.Rep.Sites.size(); ++I) {
    AllSizesSite &A = S.Rep.Sites[I];
    // One class per value of the sizes that reach the site (a sampled set's
    // runs repeat a class with the other sizes at two values): its worst.
    std::map<std::vector<std::int64_t>, std::int64_t> WorstOf;
    bool Sampled = false;
    for (const Run &R : S.Runs) {
      const std::uint8_t Mark = I < R.ClassOf.size() ? R.ClassOf[I] : 0;
      if (!Mark || !R.Rep || I >= R.Rep->Sites.size())
        continue;
      const AccessSiteReport &Site = R.Rep->Sites[I];
      const CostStats &Cost = A.Space == ir::MemSpace::Shared ? Site.Wavefronts : Site.Sectors;
      if (Cost.Count == 0)
        continue;
      std::vector<std::int64_t> Key;
      for (std::size_t P = 0; P < Doms.size(); ++P)
        if (I >= S.Joint.size() || S.Joint[I][P])
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
      if (I >= S.Joint.size() || S.Joint[I][P]) {
        const bool Every = S.Vals[P].Classes == S.Vals[P].Small;
        AllValues = AllValues && Every;
        Parts.push_back(Every ? "every value of " + Doms[P].Name : fmt::format("{} mod {}", Doms[P].Name, S.L));
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
}

/// Compares each periodicity check with its class run: Rep.Periodic and,
/// per site, SitePeriodic.
void checkPeriodicity(State &S) {
  // Periodicity: a check run must give its class run's figures.
  S.SitePeriodic.assign(S.Rep.Sites.size(), true);
  for (const Run &R : S.Runs) {
    if (R.CheckOf < 0 || !R.Rep || !S.Runs[static_cast<std::size_t>(R.CheckOf)].Rep)
      continue;
    const Run &Of = S.Runs[static_cast<std::size_t>(R.CheckOf)];
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
        S.Rep.Periodic = false;
        if (I < S.SitePeriodic.size())
          S.SitePeriodic[I] = false;
      }
    }
  }
}

/// Whether a budget dropped a run that would have reached site I.
bool cutByBudget(const State &S, std::size_t I) {
  return I < S.CutSites.size() ? S.CutSites[I] : S.Runs.size() < S.Planned;
}

/// Per size, per residue mod L, for one model of one site: the extremes
/// reached there (AtMax, AtMin), and the residue seen in a run that settles
/// whether it reaches them (SeenMax, SeenMin).
struct ExtremeResidues {
  std::vector<std::vector<bool>> AtMax, AtMin, SeenMax, SeenMin;
};

/// Marks the residues of each size at which model M of site I reaches its
/// extremes, and those seen (Cut: a budget dropped runs of the site); the
/// site's range of M (null: no run reports the site).
SizeRange *markExtremeResidues(State &S, std::size_t I, std::size_t M, bool Cut, ExtremeResidues &X) {
  const std::vector<Domain> &Doms = S.Doms;
  const std::int64_t L = S.L;
  AllSizesSite &A = S.Rep.Sites[I];
  SizeRange *Range = nullptr;
  // Where a budget dropped sizes of this site, a residue of a size is
  // taken as never at the extreme only where a class run of it (not a
  // small size: n = 3 has fewer lanes, not another class) had the
  // others' values seen to reach it with some residue of this size: a
  // random sample would otherwise mark a residue as never worst because
  // it came only with a small value or with the others' unlucky values.
  std::vector<std::map<std::vector<std::int64_t>, std::pair<bool, bool>>> Reach(Doms.size());
  auto Others = [&](const Run &R, std::size_t P) {
    std::vector<std::int64_t> Key;
    for (std::size_t Q = 0; Q < Doms.size(); ++Q)
      if (Q != P)
        Key.push_back(R.Sizes.at(Doms[Q].Name));
    return Key;
  };
  for (int Pass = Cut ? 0 : 1; Pass < 2; ++Pass)
    for (const Run &R : S.Runs) {
      if (!R.Rep || I >= R.Rep->Sites.size())
        continue;
      auto Pairs = models(A, R.Rep->Sites[I]);
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
        const std::size_t Res = static_cast<std::size_t>(((R.Sizes.at(Doms[P].Name) % L) + L) % L);
        std::pair<bool, bool> Reached{true, true};
        if (Cut) // only a class run's residue stands for its class
          Reached = I < R.ClassOf.size() && R.ClassOf[I] ? Reach[P].at(Others(R, P))
                                                          : std::pair<bool, bool>{false, false};
        if (Stats->Max == Range->Max)
          X.AtMax[P][Res] = true;
        if (Stats->Min == Range->Min)
          X.AtMin[P][Res] = true;
        // Seen separately for the two extremes only under a budget.
        X.SeenMax[P][Res] = X.SeenMax[P][Res] || Reached.first;
        X.SeenMin[P][Res] = X.SeenMin[P][Res] || Reached.second;
      }
    }
  return Range;
}

/// Writes Range's MaxWhen and MinWhen, the conditions on each size's
/// residues at its extremes (settling X's unseen residues); how many sizes
/// MaxWhen names.
std::size_t writeResidueConditions(const State &S, std::size_t I, bool Cut, ExtremeResidues &X,
                                   SizeRange &Range) {
  std::vector<std::string> MaxW, MinW;
  for (std::size_t P = 0; P < S.Doms.size(); ++P) {
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
    const bool Free = I < S.Joint.size() && !S.Joint[I][P];
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
    const bool ListMax = Settle(X.AtMax[P], X.SeenMax[P]);
    const bool ListMin = Settle(X.AtMin[P], X.SeenMin[P]);
    if (auto C = residueCondition(S.Doms[P].Name, X.AtMax[P], ListMax, S.Doms[P].Step); !C.empty())
      MaxW.push_back(C);
    if (auto C = residueCondition(S.Doms[P].Name, X.AtMin[P], ListMin, S.Doms[P].Step); !C.empty())
      MinW.push_back(C);
  }
  Range.MaxWhen = fmt::format("{}", fmt::join(MaxW, " and "));
  Range.MinWhen = fmt::format("{}", fmt::join(MinW, " and "));
  return MaxW.size();
}

/// Whether some evaluated size inside the residues AtMax of model M of
/// site I (MaxWhen naming MaxConditions sizes) costs less than Range.Max.
bool maxWhenPartial(State &S, std::size_t I, std::size_t M, std::size_t MaxConditions,
                    const std::vector<std::vector<bool>> &AtMax, const SizeRange &Range) {
  const std::vector<Domain> &Doms = S.Doms;
  const std::int64_t L = S.L;
  // Each size's residues reach the worst with some values of the
  // others; whether every evaluated size inside all of them does. A
  // condition on one size is not held to its values under the period
  // (matrixMul's wB = 17 has rows that share sectors: fewer lanes'
  // worth, not another class, and the rest of its class is worst); one
  // on several is, a budget's sample rarely holding the large pair
  // that shows the worst needs the sizes together.
  for (const Run &R : S.Runs) {
    if (!R.Rep || I >= R.Rep->Sites.size() || R.SmallCombination ||
        (MaxConditions < 2 &&
         std::any_of(Doms.begin(), Doms.end(), [&](const Domain &D) { return R.Sizes.at(D.Name) < L; })))
      continue;
    const CostStats *Stats = models(S.Rep.Sites[I], R.Rep->Sites[I])[M].second;
    if (Stats->Count == 0 || Stats->Max == Range.Max)
      continue;
    bool Inside = true;
    for (std::size_t P = 0; P < Doms.size() && Inside; ++P)
      Inside = AtMax[P][static_cast<std::size_t>(((R.Sizes.at(Doms[P].Name) % L) + L) % L)];
    if (Inside)
      return true;
  }
  return false;
}

/// Derives, per site and model, the conditions on the sizes' residues
/// where the extremes are reached (MaxWhen, MinWhen, MaxWhenPartial).
void deriveConditions(State &S) {
  // Where the extremes are reached: residues of each size mod L.
  for (std::size_t I = 0; I < S.Rep.Sites.size(); ++I) {
    const std::size_t NumModels = 6;
    for (std::size_t M = 0; M < NumModels; ++M) {
      const std::vector<std::vector<bool>> None(S.Doms.size(),
                                                std::vector<bool>(static_cast<std::size_t>(S.L), false));
      ExtremeResidues X{None, None, None, None};
      const bool Cut = cutByBudget(S, I);
      SizeRange *Range = markExtremeResidues(S, I, M, Cut, X);
      if (!Range || !Range->Any)
        continue;
      const std::size_t MaxConditions = writeResidueConditions(S, I, Cut, X, *Range);
      Range->MaxWhenPartial = MaxConditions > 0 && maxWhenPartial(S, I, M, MaxConditions, X.AtMax, *Range);
    }
  }
}

/// Marks each site's figures proven or sampled, and the report proven
/// where none is sampled.
void markSampledSites(State &S) {
  // Proven or sampled, per site: its set's classes and small combinations
  // all evaluated and its periodicity checks agreeing. A site the
  // dependence pass did not list has every set's coverage.
  bool AnySetSampled = false;
  for (const auto &[Set, Sampled] : S.SetSampled)
    AnySetSampled = AnySetSampled || Sampled;
  S.Rep.Proven = true;
  for (std::size_t I = 0; I < S.Rep.Sites.size(); ++I) {
    AllSizesSite &A = S.Rep.Sites[I];
    const auto It = S.Aligned && I < S.Joint.size() ? S.SetSampled.find(S.Joint[I]) : S.SetSampled.end();
    A.Sampled = !S.SitePeriodic[I] || (It != S.SetSampled.end() ? It->second : AnySetSampled) || cutByBudget(S, I);
    for (SizeRange *X : {&A.Congestion, &A.Groups, &A.Wavefronts, &A.Sectors, &A.Lines, &A.Serialization})
      X->Sampled = A.Sampled;
    S.Rep.Proven = S.Rep.Proven && !A.Sampled;
  }
}

/// Writes the report's Method: what was evaluated, in words.
void describeMethod(State &S) {
  AllSizesReport &Rep = S.Rep;
  const std::vector<Run> &Runs = S.Runs;
  const std::string Verdict =
      (Runs.size() < S.Planned
           ? fmt::format("; {} of the {} sizes planned, in an order drawn at random, until their work reached "
                         "the budget of {} operations",
                         Runs.size(), S.Planned, S.Opts.MaxOperations)
           : std::string()) +
      (Rep.Proven ? "; every figure holds for every size"
                  : "; figures marked sampled hold at the sizes tried, not proven for every size");
  bool Bounded = true;
  for (std::size_t I = 0; I < S.Doms.size(); ++I)
    Bounded = Bounded && S.Vals[I].Classes == S.Vals[I].Small;
  if (Bounded && Rep.AllClasses) {
    Rep.Method = fmt::format("{} sizes: every value of {}{}", Rep.Bindings, fmt::join(Rep.Params, ", "), Verdict);
    return;
  }
  // Which sizes were enumerated jointly, per group of sites.
  std::set<std::string> JointText;
  for (const std::vector<bool> &Set : S.Sets) {
    std::vector<std::string> Names;
    for (std::size_t I = 0; I < S.Doms.size(); ++I)
      if (Set[I])
        Names.push_back(S.Doms[I].Name);
    if (!Names.empty())
      JointText.insert(fmt::format("{}", fmt::join(Names, " x ")));
  }
  Rep.Method = fmt::format(
      "{} sizes: {} residue class{} mod {}, at 1024 and above, of the sizes that reach a site "
      "through their values ({}), a size that only bounds a site at one value, {} periodicity "
      "checks one magnitude up and just past the small sizes ({}), and the small sizes: {}{}",
      Rep.Bindings, Rep.AllClasses ? "every joint" : "each size's (the others at two representatives)",
      Rep.AllClasses ? "" : "es", S.L,
      JointText.empty() ? "none" : fmt::format("{}", fmt::join(JointText, "; ")),
      std::count_if(Runs.begin(), Runs.end(), [](const Run &R) { return R.CheckOf >= 0; }),
      Rep.Periodic ? "agreed" : "DISAGREED: figures are sampled, not proven",
      S.SmallText.empty() ? "none" : fmt::format("{}", fmt::join(S.SmallText, "; ")), Verdict);
}

} // namespace
} // namespace bankwise::all_sizes

namespace bankwise {

AllSizesReport analyzeAllSizes(const ir::Program &Prog, const ir::Kernel &K,
                               const AllSizesOptions &Opts) {
  using namespace all_sizes;
  State S{Prog, K, Opts};
  S.Rep.Kernel = K.Name;
  S.Rep.Loc = K.Loc;
  // The plan: the sizes, their values and the runs over them.
  readDomains(S);
  findResiduePeriod(S);
  chooseValues(S);
  groupSitesBySizes(S);
  planClassRuns(S);
  planBoundingRuns(S);
  planSmallRuns(S);
  planPeriodicityChecks(S);
  mergeRepeatedRuns(S);
  evaluateRuns(S);
  throwFirstFailure(S);
  const KernelReport &First = firstReport(S);
  // The dependence pass must see the sites the analysis reports; where it
  // does not, every size is taken as reaching every site.
  S.Aligned = sitesAligned(S, First);
  if (!S.Aligned && !Opts.JointOverAll) {
    AllSizesOptions Again = Opts;
    Again.JointOverAll = true;
    return analyzeAllSizes(Prog, K, Again);
  }
  // Per site, per model: min and max over every size and warp, and the
  // residues of each size where they are reached.
  listSites(S, First);
  accumulateRanges(S);
  countWorstBySize(S);
  checkPeriodicity(S);
  deriveConditions(S);
  markSampledSites(S);
  describeMethod(S);
  return std::move(S.Rep);
}

} // namespace bankwise
