#include "analysis/checks/LintSites.h"

#include "analysis/passes/ArrayLayout.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/WarpLanes.h"
#include "ir/Bind.h"
#include "ir/Eval.h"
#include "ir/Sites.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <set>
#include <tuple>

namespace bankwise {

namespace {

//===-- Lane stride: lanes 0 and 1 walked through the kernel ------------------===//

std::optional<double> laneStride(const ir::Program &P, const ir::Kernel &K, const ir::ArrayRead *Node,
                                 const ir::Bindings &Sizes) {
  if (!Node || K.Geo.threadsPerBlock() < 2)
    return std::nullopt;
  const ir::Array *A = P.findArray(K, Node->Array);
  const std::vector<std::int64_t> A0 = threadSiteElements(P, K, Node, {0, 0, 0}, 0, Sizes, 1);
  const std::vector<std::int64_t> A1 = threadSiteElements(P, K, Node, {0, 0, 0}, 1, Sizes, 1);
  if (!A || A0.empty() || A1.empty() || A0[0] < 0 || A1[0] < 0)
    return std::nullopt;
  return static_cast<double>(A1[0] - A0[0]) * static_cast<double>(byteSize(A->Elem)) / 4.0;
}

//===-- Figures ----------------------------------------------------------------===//

SizeRange rangeOf(const CostStats &S) {
  SizeRange R;
  R.Any = S.Count > 0;
  R.Min = S.Min;
  R.Max = S.Max;
  return R;
}

/// The worse of two ranges (larger max; its condition), min of both. An
/// extreme both reach keeps a condition only where both state the same one
/// (the sizes reaching it are those of either); sampled if either is.
void mergeRange(SizeRange &Into, const SizeRange &O) {
  if (!O.Any)
    return;
  if (!Into.Any) {
    Into = O;
    return;
  }
  Into.Sampled = Into.Sampled || O.Sampled;
  if (O.Max > Into.Max) {
    Into.Max = O.Max;
    Into.MaxWhen = O.MaxWhen;
    Into.MaxWhenPartial = O.MaxWhenPartial;
  } else if (O.Max == Into.Max && O.MaxWhen != Into.MaxWhen) {
    Into.MaxWhen.clear();
    Into.MaxWhenPartial = false;
  } else if (O.Max == Into.Max) {
    Into.MaxWhenPartial = Into.MaxWhenPartial || O.MaxWhenPartial;
  }
  if (O.Min < Into.Min) {
    Into.Min = O.Min;
    Into.MinWhen = O.MinWhen;
  } else if (O.Min == Into.Min && O.MinWhen != Into.MinWhen) {
    Into.MinWhen.clear();
  }
}

/// One record per (location, array, load/store) of the per-node figures.
struct RawSite {
  SourceLoc Loc;
  std::string Array;
  ir::MemSpace Space;
  bool IsWrite;
  bool DataDependent;
  std::string DataSource;
  SizeRange Wavefronts, Sectors, Lines;
  const ir::ArrayRead *Node; ///< in the program the strides are taken from
  std::int64_t Requests = -1; ///< at fixed sizes: warp executions, and sums
  double WavefrontsTotal = 0, SectorsTotal = 0;
  bool IsAtomic = false;
  SizeRange Serialization; ///< atomics: same-address serialization
  CostCounts Costs;        ///< LintSite::Costs
  std::string CostsOf;
};

struct Figures {
  std::vector<RawSite> Sites;
  std::string Domain;
  /// The program and kernel the site nodes are in, and the values of its
  /// runtime sizes the strides are taken at.
  const ir::Program *StrideProgram = nullptr;
  const ir::Kernel *StrideKernel = nullptr;
  ir::Bindings StrideSizes;
  /// The program the figures were taken on when it is not the caller's:
  /// the sizes this kernel does not read bound (the site nodes are its).
  std::shared_ptr<const ir::Program> Narrowed;
};

/// The runtime params K reads: in its body, geometry and arrays, the
/// program's global arrays and permutations, through derived params'
/// expressions and the `where` constraints that tie sizes together.
std::set<std::string> runtimeParamsRead(const ir::Program &Prog, const ir::Kernel &K) {
  auto CollectInto = [&](const ir::Expr &E, std::set<std::string> &Into) {
    ir::forEachSubexpr(E, [&](const ir::Expr &X) {
      const auto *V = X.as<ir::VarRef>();
      const ir::Param *P = V && V->Kind == ir::VarKind::Param ? Prog.findParam(V->Name) : nullptr;
      if (P && P->Runtime)
        Into.insert(P->Name);
    });
  };
  std::set<std::string> Read;
  auto Collect = [&](const ir::Expr &E) { CollectInto(E, Read); };
  ir::forEachStmtExpr(K.Body, Collect);
  for (const std::vector<ir::Expr> *G : {&K.Geo.Grid, &K.Geo.Block})
    for (const ir::Expr &E : *G)
      Collect(E);
  for (const ir::Array *A : K.arrays()) {
    for (const ir::Expr &E : A->Dims)
      Collect(E);
    if (A->Lay.Arg)
      Collect(*A->Lay.Arg);
  }
  for (const ir::Array &A : Prog.Arrays) {
    for (const ir::Expr &E : A.Dims)
      Collect(E);
    if (A.Lay.Arg)
      Collect(*A.Lay.Arg);
  }
  for (const ir::Permutation &P : Prog.Perms)
    for (const ir::Expr &E : P.Args)
      Collect(E);
  for (std::size_t Before = 0; Before != Read.size();) {
    Before = Read.size();
    for (const ir::Param &P : Prog.Params) {
      if (!P.Runtime)
        continue;
      std::set<std::string> Mine; // what P's expression and constraint read
      if (P.Init)
        CollectInto(*P.Init, Mine);
      if (P.Where)
        CollectInto(*P.Where, Mine);
      const bool Reads = Read.count(P.Name) > 0;
      const bool Ties = std::any_of(Mine.begin(), Mine.end(),
                                    [&](const std::string &N) { return N != P.Name && Read.count(N); });
      if (Reads || Ties) {
        Read.insert(P.Name);
        Read.insert(Mine.begin(), Mine.end());
      }
    }
  }
  return Read;
}

/// Every site's figures: at Prog's sizes, or over all sizes. Bound is set
/// (to the program at representative sizes) only when a kernel that does
/// not use the program's runtime sizes is analyzed at those.
Figures figuresOf(const ir::Program &Prog, const ir::Kernel &K, const LintSiteOptions &Opts, ir::Program &Bound) {
  AnalysisOptions AO;
  AO.SimulateTime = false;
  Figures F;
  const std::set<std::string> Read = runtimeParamsRead(Prog, K);
  if (!Prog.runtimeParams().empty() && Read.empty()) {
    // Sizes of other kernels: any value will do for this one.
    Bound = ir::bindParams(Prog, ir::representativeSizes(Prog, {}));
    if (const ir::Kernel *BK = Bound.findKernel(K.Name))
      return figuresOf(Bound, *BK, Opts, Bound);
  }
  if (Prog.runtimeParams().empty()) {
    const KernelReport R = analyzeKernel(Prog, K, AO);
    for (const AccessSiteReport &S : R.Sites)
      F.Sites.push_back({S.Loc, S.Array, S.Space, S.IsWrite, S.DataDependent, S.DataSource,
                         rangeOf(S.Wavefronts), rangeOf(S.Sectors), rangeOf(S.Lines), S.Node.Read,
                         std::max(S.Wavefronts.Count, S.Sectors.Count), S.Wavefronts.Sum, S.Sectors.Sum,
                         S.IsAtomic, rangeOf(S.Serialization),
                         (S.Space == ir::MemSpace::Shared ? S.Wavefronts : S.Sectors).Counts, {}});
    F.StrideProgram = &Prog;
    F.StrideKernel = &K;
    return F;
  }
  // A file's program holds every kernel's sizes: the ones this kernel does
  // not read are bound (any value will do), so the figures range over its
  // own only (each size is a dimension of the runs).
  {
    ir::Bindings Unread;
    for (const ir::Param &P : Prog.Params)
      if (P.Runtime && !P.Init && !Read.count(P.Name))
        Unread[P.Name] = 0;
    if (!Unread.empty()) {
      std::optional<ir::Program> N;
      try {
        const ir::Bindings Reps = ir::representativeSizes(Prog, {});
        for (auto &[Name, V] : Unread)
          V = Reps.at(Name);
        N = ir::bindParams(Prog, Unread);
      } catch (const UserError &) {
        // no representative sizes: every size is ranged over
      }
      if (N && N->findKernel(K.Name)) {
        auto Owned = std::make_shared<const ir::Program>(std::move(*N));
        Figures G = figuresOf(*Owned, *Owned->findKernel(K.Name), Opts, Bound);
        G.Narrowed = std::move(Owned);
        return G;
      }
    }
  }
  AllSizesOptions SO;
  SO.Analysis = AO;
  SO.Threads = Opts.Threads;
  SO.MaxOperations = std::min<std::int64_t>(Opts.SizeBudget, std::int64_t(1) << 40) * 1000000;
  const AllSizesReport R = analyzeAllSizes(Prog, K, SO);
  F.Domain = R.Domain;
  // The strides: the nodes are Prog's, walked at representative sizes.
  F.StrideProgram = &Prog;
  F.StrideKernel = &K;
  try {
    F.StrideSizes = ir::representativeSizes(Prog, {});
  } catch (const UserError &) {
    F.StrideProgram = nullptr; // no strides: the figures stand on their own
  }
  for (const AllSizesSite &S : R.Sites)
    F.Sites.push_back({S.Loc, S.Array, S.Space, S.IsWrite, S.DataDependent, {}, S.Wavefronts, S.Sectors, S.Lines,
                       S.Node, -1, 0, 0, S.IsAtomic, S.Serialization, S.WorstBySize, S.BySizeOf});
  return F;
}

using SiteKey = std::tuple<int, int, std::string, bool>;

SiteKey keyOf(const SourceLoc &L, const std::string &Array, bool IsWrite) {
  return {L.Line, L.Col, Array, IsWrite};
}

/// The worst wavefronts at each merged site under figures F.
std::map<SiteKey, SizeRange> wavefrontsBySite(const Figures &F) {
  std::map<SiteKey, SizeRange> Out;
  for (const RawSite &S : F.Sites)
    mergeRange(Out[keyOf(S.Loc, S.Array, S.IsWrite)], S.Wavefronts);
  return Out;
}

std::int64_t idealWavefronts(std::int64_t ElemBytes) { return std::max<std::int64_t>(1, ElemBytes / 4); }

/// Layout fixes for an array of inner extent C: padding (the fewest extra
/// elements that could help), the XOR swizzle (C a power of two) and RAP.
std::vector<std::pair<std::string, ir::Layout>> fixCandidates(const ir::Array &A) {
  std::vector<std::pair<std::string, ir::Layout>> Out;
  const std::int64_t C = A.Shape.back();
  const std::int64_t Bytes = byteSize(A.Elem);
  // Enough extra elements to move a row by one 4-byte word, and by one
  // access's worth of words for 8- and 16-byte elements.
  std::vector<std::int64_t> Pads = {std::max<std::int64_t>(1, 4 / Bytes)};
  if (Bytes > 4)
    Pads = {1};
  for (std::int64_t K : Pads) {
    ir::Layout L;
    L.Kind = ir::LayoutKind::Pad;
    L.Arg = ir::makeInt(K);
    L.ArgValue = K;
    Out.push_back({fmt::format("pad the inner dimension to {}", C + K), L});
  }
  if (std::has_single_bit(static_cast<std::uint64_t>(C))) {
    ir::Layout L;
    L.Kind = ir::LayoutKind::Xor;
    Out.push_back({fmt::format("XOR swizzle: index [r][c ^ (r % {})]", C), L});
  }
  ir::Layout R;
  R.Kind = ir::LayoutKind::Rap;
  R.Arg = ir::makeInt(1);
  R.ArgValue = 1;
  Out.push_back({"RAP: rotate each row by a random permutation of the columns (seed 002; seed 1 here)", R});
  return Out;
}

/// The lanes of Node's warps (LintSite::Lanes) in F's program, its
/// runtime sizes bound once into Bound (the walk needs their extents;
/// Bound holds the kernel once bound).
SiteLanes siteLanes(const Figures &F, const ir::ArrayRead *Node, ir::Program &Bound) {
  if (F.StrideProgram->runtimeParams().empty())
    return sampleSiteLanes(*F.StrideProgram, *F.StrideKernel, Node, {});
  try {
    if (!Bound.findKernel(F.StrideKernel->Name))
      Bound = ir::bindParams(*F.StrideProgram, F.StrideSizes);
  } catch (const UserError &) {
    return {};
  }
  const ir::Kernel *BK = Bound.findKernel(F.StrideKernel->Name);
  const ir::ArrayRead *BN = BK ? ir::findSite(*BK, Node->Site) : nullptr;
  return BN ? sampleSiteLanes(Bound, *BK, BN, {}) : SiteLanes{};
}

/// Array Name of K (its layout as K declares it) as a layout function.
LayoutFn layoutFnOf(const ir::Kernel &K, const std::string &Name) {
  for (const ir::Array *A : K.arrays())
    if (A->Name == Name) {
      try {
        return arrayLayout(*A);
      } catch (const UserError &) {
        return makeLayout(LayoutKind::Raw, A->Shape);
      }
    }
  return {};
}

/// lintSites but the drawings.
std::vector<LintSite> lintSiteFigures(const ir::Program &Prog, const ir::Kernel &K, const LintSiteOptions &Opts) {
  ir::Program Bound;
  const Figures F = figuresOf(Prog, K, Opts, Bound);
  std::vector<LintSite> Out;
  std::map<SiteKey, std::size_t> Index;
  std::map<SiteKey, std::int64_t> WorstOf; // the worst copy's wavefronts or sectors
  // F's stride program with its sizes bound, for Opts.Lanes: where that is
  // Prog at its representative sizes, Bound, which the fixes below bind
  // the same way (one binding for both).
  ir::Program Narrowed;
  ir::Program &LaneProgram = F.StrideProgram == &Prog ? Bound : Narrowed;
  for (const RawSite &S : F.Sites) {
    const SiteKey Key = keyOf(S.Loc, S.Array, S.IsWrite);
    auto [It, New] = Index.try_emplace(Key, Out.size());
    if (New) {
      LintSite L;
      L.Loc = S.Loc;
      L.Array = S.Array;
      const auto Src = Opts.SourceNames.find(S.Array);
      L.Source = Src == Opts.SourceNames.end() ? S.Array : Src->second;
      L.Space = S.Space;
      L.IsWrite = S.IsWrite;
      if (const ir::Array *A = Prog.findArray(K, S.Array)) {
        L.ElemBytes = byteSize(A->Elem);
        L.Dims = static_cast<std::int64_t>(A->Shape.size());
        L.InnerDim = A->Shape.back();
      }
      L.Domain = F.Domain;
      L.UncertainMask = std::find(Opts.UncertainMask.begin(), Opts.UncertainMask.end(), S.Loc) !=
                        Opts.UncertainMask.end();
      Out.push_back(L);
    }
    LintSite &L = Out[It->second];
    if (New || (L.Requests >= 0 && S.Requests >= 0)) {
      L.Requests = (New ? 0 : L.Requests) + S.Requests;
      L.WavefrontsTotal += S.WavefrontsTotal;
      L.SectorsTotal += S.SectorsTotal;
    } else {
      L.Requests = -1;
    }
    L.DataDependent |= S.DataDependent;
    if (L.DataSource.empty())
      L.DataSource = S.DataSource;
    mergeRange(L.Wavefronts, S.Wavefronts);
    mergeRange(L.Sectors, S.Sectors);
    mergeRange(L.Lines, S.Lines);
    L.IsAtomic |= S.IsAtomic;
    mergeRange(L.Serialization, S.Serialization);
    if (F.Domain.empty()) // every execution at this location
      L.Costs.merge(S.Costs);
    const SizeRange &Cost = S.Space == ir::MemSpace::Shared ? S.Wavefronts : S.Sectors;
    auto [W, First] = WorstOf.try_emplace(Key, Cost.Max);
    const bool Worst = First || Cost.Max > W->second;
    W->second = std::max(W->second, Cost.Max);
    if (Worst && !F.Domain.empty()) { // the worst copy's classes
      L.Costs = S.Costs;
      L.CostsOf = S.CostsOf;
    }
    if (Worst && F.StrideProgram && S.Node) {
      L.LaneStrideWords = laneStride(*F.StrideProgram, *F.StrideKernel, S.Node, F.StrideSizes);
      if (Opts.Lanes)
        L.Lanes = siteLanes(F, S.Node, LaneProgram);
    }
  }
  if (!Opts.Fixes)
    return Out;
  // Layout fixes of conflicting shared arrays of two or more dimensions:
  // the kernel analyzed again with the array's layout changed.
  std::map<std::string, std::vector<std::pair<std::string, ir::Layout>>> Arrays;
  for (const LintSite &S : Out)
    if (S.Space == ir::MemSpace::Shared && !S.DataDependent && S.Dims >= 2 && S.Wavefronts.Any &&
        S.Wavefronts.Max > idealWavefronts(S.ElemBytes))
      if (const ir::Array *A = Prog.findArray(K, S.Array))
        Arrays[S.Array] = fixCandidates(*A);
  // At representative sizes: a layout's effect on a shared site does not
  // depend on the runtime sizes the way alignment does, and one analysis
  // is far cheaper than the figures over every size.
  if (Arrays.empty())
    return Out;
  if (!Prog.runtimeParams().empty() && !Bound.findKernel(K.Name)) {
    try {
      Bound = ir::bindParams(Prog, ir::representativeSizes(Prog, {}));
    } catch (const UserError &) {
      return Out; // no representative sizes: no fixes' figures
    }
  }
  const ir::Program &Base = Prog.runtimeParams().empty() ? Prog : Bound;
  if (&Base == &Bound && !Bound.findKernel(K.Name))
    return Out;
  for (const auto &[Array, Candidates] : Arrays)
    for (const auto &[Fix, Layout] : Candidates) {
      ir::Program Changed = Base;
      ir::Kernel *CK = nullptr;
      for (ir::Kernel &X : Changed.Kernels)
        if (X.Name == K.Name)
          CK = &X;
      for (ir::Array *A : CK->arrays())
        if (A->Name == Array)
          A->Lay = Layout;
      std::map<SiteKey, SizeRange> Waves;
      try {
        ir::Program Unused;
        Waves = wavefrontsBySite(figuresOf(Changed, *CK, Opts, Unused));
      } catch (const UserError &) {
        continue; // this layout does not apply here
      }
      for (LintSite &S : Out)
        if (S.Array == Array)
          if (auto It = Waves.find(keyOf(S.Loc, S.Array, S.IsWrite)); It != Waves.end())
            S.Fixes.push_back({Fix, Layout, layoutFnOf(*CK, Array), It->second});
    }
  return Out;
}

} // namespace

std::vector<LintSite> lintSites(const ir::Program &Prog, const ir::Kernel &K, const LintSiteOptions &Opts) {
  std::vector<LintSite> Out = lintSiteFigures(Prog, K, Opts);
  for (LintSite &S : Out) {
    if (S.Lanes.Shape.empty())
      continue;
    S.Drawings.push_back(drawLanes(S.Lanes, S.Lanes.Layout));
    for (const FixFigure &F : S.Fixes)
      S.Drawings.push_back(drawLanes(S.Lanes, F.Fn));
  }
  return Out;
}

} // namespace bankwise
