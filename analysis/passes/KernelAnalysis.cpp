#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include "analysis/models/Layout.h"
#include "analysis/models/Permutation.h"
#include "analysis/passes/PermutationTables.h"
#include "analysis/models/Simulator.h"
#include "ir/Eval.h"
#include "support/Random.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <thread>
#include <exception>
#include <unordered_map>

namespace bankwise {

void CostCounts::add(std::int64_t Cost, std::int64_t Times) {
  if (Times <= 0)
    return;
  auto It = std::lower_bound(Bars.begin(), Bars.end(), Cost,
                             [](const std::pair<std::int64_t, std::int64_t> &B, std::int64_t C) { return B.first < C; });
  if (It != Bars.end() && It->first == Cost)
    It->second += Times;
  else
    Bars.insert(It, {Cost, Times});
}

void CostCounts::merge(const CostCounts &O) {
  for (const auto &[Cost, Times] : O.Bars)
    add(Cost, Times);
}

std::int64_t CostCounts::total() const {
  std::int64_t N = 0;
  for (const auto &B : Bars)
    N += B.second;
  return N;
}

void CostStats::add(std::int64_t V, std::int64_t Times) {
  if (Times <= 0)
    return;
  Counts.add(V, Times);
  Min = Count == 0 ? V : std::min(Min, V);
  Max = Count == 0 ? V : std::max(Max, V);
  Count += Times;
  Sum += static_cast<double>(V) * static_cast<double>(Times);
}

void CostStats::merge(const CostStats &O) {
  if (O.Count == 0)
    return;
  Min = Count == 0 ? O.Min : std::min(Min, O.Min);
  Max = Count == 0 ? O.Max : std::max(Max, O.Max);
  Count += O.Count;
  Sum += O.Sum;
  Counts.merge(O.Counts);
}

std::string CostStats::str() const {
  if (Count == 0)
    return "-";
  if (Min == Max)
    return fmt::format("{}", Min);
  return fmt::format("{}..{} (mean {:.3g})", Min, Max, mean());
}

double expectedMaxLoad(std::int64_t K, std::int64_t W) {
  if (K <= 0 || W <= 0)
    return 0;
  // The same few (K, W) come at every size of the all-sizes analysis.
  static std::mutex Mu;
  static std::map<std::pair<std::int64_t, std::int64_t>, double> Memo;
  {
    const std::lock_guard<std::mutex> Lock(Mu);
    if (const auto It = Memo.find({K, W}); It != Memo.end())
      return It->second;
  }
  // P(max <= M) = K! [x^K] (sum_{j<=M} x^j / j!)^W / W^K. Work with
  // probabilities directly: throw balls bin by bin, Prob[k] = probability
  // that the first bins got k balls, each bin at most M.
  const auto Kz = static_cast<std::size_t>(K);
  std::vector<double> LogFact(Kz + 1, 0.0);
  for (std::size_t I = 1; I <= Kz; ++I)
    LogFact[I] = LogFact[I - 1] + std::log(static_cast<double>(I));
  // Term[J] = 1 / (J! W^J): one bin taking J of the balls.
  std::vector<double> Term(Kz + 1);
  for (std::size_t J = 0; J <= Kz; ++J)
    Term[J] = std::exp(-LogFact[J] - static_cast<double>(J) * std::log(static_cast<double>(W)));
  double Expected = 0;
  for (std::int64_t M = 0; M < K; ++M) {
    std::vector<double> Poly(Kz + 1, 0.0);
    Poly[0] = 1;
    for (std::int64_t Bin = 0; Bin < W; ++Bin) {
      std::vector<double> Next(Kz + 1, 0.0);
      for (std::size_t Have = 0; Have <= Kz; ++Have) {
        if (Poly[Have] == 0)
          continue;
        for (std::size_t J = 0; J <= static_cast<std::size_t>(M) && Have + J <= Kz; ++J)
          Next[Have + J] += Poly[Have] * Term[J];
      }
      Poly.swap(Next);
    }
    const double AtMost = Poly[Kz] * std::exp(LogFact[Kz]);
    Expected += 1.0 - AtMost; // sum over M of P(max > M)
  }
  const std::lock_guard<std::mutex> Lock(Mu);
  Memo[{K, W}] = Expected;
  return Expected;
}

std::vector<std::int64_t> loadDataFile(const std::string &Path,
                                       ir::ElemType Elem,
                                       std::int64_t ExpectedCount) {
  const SourceLoc Loc{Path, 0, 0};
  if (Elem.Lanes != 1 || Elem.Scalar == ir::ScalarType::F16 ||
      Elem.Scalar == ir::ScalarType::BF16 || Elem.Scalar == ir::ScalarType::F32 ||
      Elem.Scalar == ir::ScalarType::F64)
    throw UserError(Loc, fmt::format("--data needs an integer array; this one "
                                     "holds {}",
                                     ir::spelling(Elem)));
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw UserError(Loc, "cannot open data file");
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)),
                          std::istreambuf_iterator<char>());
  const std::int64_t Size = ir::byteSize(Elem);
  if (static_cast<std::int64_t>(Bytes.size()) != ExpectedCount * Size)
    throw UserError(Loc, fmt::format("data file has {} bytes; the array needs "
                                     "{} elements of {} bytes ({} bytes)",
                                     Bytes.size(), ExpectedCount, Size,
                                     ExpectedCount * Size));
  const bool Signed = Elem.Scalar == ir::ScalarType::I8 ||
                      Elem.Scalar == ir::ScalarType::I16 ||
                      Elem.Scalar == ir::ScalarType::I32 ||
                      Elem.Scalar == ir::ScalarType::I64;
  std::vector<std::int64_t> Out(static_cast<std::size_t>(ExpectedCount));
  const auto *Raw = reinterpret_cast<const unsigned char *>(Bytes.data());
  for (std::int64_t I = 0; I < ExpectedCount; ++I) {
    std::uint64_t V = 0;
    for (std::int64_t B = Size - 1; B >= 0; --B)
      V = (V << 8) | Raw[I * Size + B];
    if (Signed && Size < 8 && (V >> (8 * Size - 1)) & 1)
      V |= ~std::uint64_t(0) << (8 * Size); // sign-extend
    if (!Signed && Size == 8 && V > static_cast<std::uint64_t>(
                                        std::numeric_limits<std::int64_t>::max()))
      throw UserError(Loc, fmt::format("element {} is {}, too large for a "
                                       "64-bit signed index",
                                       I, V));
    Out[static_cast<std::size_t>(I)] = static_cast<std::int64_t>(V);
  }
  return Out;
}

namespace kernel_analysis {

Analyzer::Spares &Analyzer::spares() {
  thread_local Spares S;
  return S;
}

Analyzer::~Analyzer() {
  // Handed back empty, with their capacity, for the next analysis here
  // (a very large kernel's are let go).
  constexpr std::size_t Keep = std::size_t(1) << 16;
  Spares &Spare = spares();
  if (Atoms.capacity() <= Keep) {
    Atoms.clear();
    Spare.Atoms = std::move(Atoms);
  }
  if (Preds.capacity() <= 4 * Keep) {
    Preds.clear();
    Spare.Preds = std::move(Preds);
  }
  if (Templates.capacity() <= Keep) {
    Templates.clear();
    Spare.Templates = std::move(Templates);
  }
}

Analyzer::Analyzer(const ir::Program &Prog, const ir::Kernel &K,
                   const AnalysisOptions &Opts)
    : Prog(Prog), Kern(K), Opts(Opts), Perms(Prog, Opts.Schedules) {
  const SourceLoc KLoc = K.Loc;
  // The formulas' and templates' buffers of the last analysis on this
  // thread, kept with their capacity: an atom holds a lane array, and the
  // all-sizes analysis runs thousands of analyses, each of which regrew
  // these from nothing (a reallocation and fresh pages each time).
  Spares &Spare = spares();
  Atoms = std::move(Spare.Atoms);
  Preds = std::move(Spare.Preds);
  Templates = std::move(Spare.Templates); // empty: ~Analyzer cleared them
  Atoms.reserve(64);
  Preds.reserve(256);
  Templates.reserve(64);
  if (const auto Runtime = Prog.runtimeParams(); !Runtime.empty())
    throw UserError(KLoc, fmt::format("kernel '{}' is analyzed at concrete sizes "
                                      "here; give the runtime param{} {} with -D",
                                      K.Name, Runtime.size() > 1 ? "s" : "",
                                      fmt::join(Runtime, ", ")));
  if (Prog.Mach)
    W = Prog.Mach->warpSize();
  if (W < 1 || W > MaxLanes)
    throw UserError(KLoc, fmt::format("analyze supports warp widths from 1 to "
                                      "{}; the machine has w = {}",
                                      MaxLanes, W));
  Grid = K.Geo.GridDim;
  BlockDim = K.Geo.BlockDim;
  Tpb = K.Geo.threadsPerBlock();
  WarpsPerBlock = (Tpb + W - 1) / W;
  const Wide Blocks = static_cast<Wide>(Grid[0]) * Grid[1] * Grid[2];
  // Counting by class has no launch-size limit of its own; the totals must
  // fit in 64 bits (2^62 threads, far beyond what a GPU runs).
  if (Blocks * Tpb > (Wide(1) << 62))
    throw UserError(KLoc, fmt::format("kernel '{}' launches more than 2^62 threads",
                                      K.Name));
  NumBlocks = static_cast<std::int64_t>(Blocks);
  // Each warp position of a block is evaluated once (a memory machine's
  // `threads p` is one block of p threads).
  if (WarpsPerBlock > Opts.MaxWarpsPerBlock)
    throw UserError(KLoc, fmt::format("kernel '{}' has {} blocks of {} threads; analyze "
                                      "handles blocks of up to {} warps of {}",
                                      K.Name, NumBlocks, Tpb, Opts.MaxWarpsPerBlock, W));
  Full = W == 64 ? ~Mask(0) : (Mask(1) << W) - 1;

  // The machine the time is simulated on.
  if (!Prog.Mach || Prog.Mach->Kind == ir::MachineKind::Target) {
    TimeModel = Hmm{132, 32, 400};
    TimeModelName = "hmm(d: 132, w: 32, L: 400), the sm_90 stand-in";
  } else {
    const ir::Machine &M = *Prog.Mach;
    auto Arg = [&](const char *N, std::int64_t Def) {
      return M.arg(N).value_or(Def);
    };
    if (M.Kind == ir::MachineKind::Dmm)
      TimeModel = Dmm{Arg("w", 32), Arg("l", 1)};
    else if (M.Kind == ir::MachineKind::Umm)
      TimeModel = Umm{Arg("w", 32), Arg("l", 1)};
    else
      TimeModel = Hmm{Arg("d", 1), Arg("w", 32), Arg("L", 1)};
    TimeModelName = machineName(TimeModel);
  }
  collectArrays();
  if (!Prog.Mach || Prog.Mach->Kind == ir::MachineKind::Target)
    AtomicIssues = atomicIssues(Prog, K);
  collectSites(K.Body);
  {
    UnobservedParts Parts = unobservedParts(K);
    Unobserved = std::move(Parts.Locals);
    SkipStmts.insert(Parts.Statements.begin(), Parts.Statements.end()); // idle: nothing to evaluate
  }
  std::stable_sort(Sites.begin(), Sites.end(), [](const SiteInfo &A, const SiteInfo &B) {
    return std::pair(A.Loc.Line, A.Loc.Col) < std::pair(B.Loc.Line, B.Loc.Col);
  });
  for (std::size_t I = 0; I < Sites.size(); ++I)
    SiteOf[Sites[I].Read] = static_cast<int>(I);
  if (!Opts.OnlySites.empty()) {
    markSkippable(K.Body);
    skipAfterLastKept(K.Body);
  }
}

void Analyzer::skipAfterLastKept(const ir::Block &Body) {
  // The kernel's statements after the last one that holds a kept site run
  // after every kept access: nothing they do (a local they assign, a loop)
  // reaches a kept site's figures. A bitonic sort's network after its one
  // size-dependent load is so left out of the runs at that load's sizes.
  const auto Kept = [&](const ir::ArrayRead &R) { return keptSite(R); };
  const auto ReadsKept = [&](const ir::Expr &E) { return readsKeptSite(E); };
  const std::function<bool(const ir::Stmt &)> Holds = [&](const ir::Stmt &S) {
    const auto Any = [&](const ir::Block &B) { return std::any_of(B.begin(), B.end(), Holds); };
    if (const auto *A = S.as<ir::Assign>()) {
      const auto *T = std::get_if<ir::ArrayRead>(&A->Target);
      return ReadsKept(A->Value) ||
             (T && (Kept(*T) || std::any_of(T->Indices.begin(), T->Indices.end(), ReadsKept)));
    }
    if (const auto *L = S.as<ir::Let>())
      return ReadsKept(L->Init);
    if (const auto *X = S.as<ir::ExprStmt>())
      return ReadsKept(X->Value);
    if (const auto *F = S.as<ir::For>())
      return ReadsKept(F->Begin) || ReadsKept(F->End) || (F->Step && ReadsKept(*F->Step)) || Any(F->Body);
    if (const auto *W = S.as<ir::While>())
      return ReadsKept(W->Cond) || Any(W->Body);
    if (const auto *I = S.as<ir::If>())
      return ReadsKept(I->Cond) || Any(I->Then) || Any(I->Else);
    return false; // sync, array declarations
  };
  for (std::size_t I = Body.size(); I-- > 0 && !Holds(Body[I]);)
    SkipStmts.insert(&Body[I]);
}

bool Analyzer::keptSite(const ir::ArrayRead &R) const {
  const auto It = SiteOf.find(&R);
  if (It == SiteOf.end())
    return false;
  const auto I = static_cast<std::size_t>(It->second);
  return I < Opts.OnlySites.size() && Opts.OnlySites[I];
}

bool Analyzer::readsKeptSite(const ir::Expr &E) const {
  return ir::anySubexpr(E, [&](const ir::Expr &X) {
    const ir::ArrayRead *R = X.as<ir::ArrayRead>();
    const ir::ArrayRead *T = ir::atomicTarget(X);
    return (R && keptSite(*R)) || (T && keptSite(*T));
  });
}

bool Analyzer::markSkippable(const ir::Block &B) {
  const auto Kept = [&](const ir::ArrayRead &R) { return keptSite(R); };
  const auto ReadsKept = [&](const ir::Expr &E) { return readsKeptSite(E); };
  bool Needed = false;
  for (const ir::Stmt &S : B) {
    bool Here = false;
    if (const auto *A = S.as<ir::Assign>()) {
      const auto *T = std::get_if<ir::ArrayRead>(&A->Target);
      Here = !T || Kept(*T) || ReadsKept(A->Value) ||
             std::any_of(T->Indices.begin(), T->Indices.end(), ReadsKept);
    } else if (const auto *L = S.as<ir::Let>()) {
      Here = ReadsKept(L->Init);
    } else if (const auto *X = S.as<ir::ExprStmt>()) {
      Here = ReadsKept(X->Value);
    } else if (const auto *F = S.as<ir::For>()) {
      Here = markSkippable(F->Body) || ReadsKept(F->Begin) || ReadsKept(F->End) ||
             (F->Step && ReadsKept(*F->Step));
      if (!Here)
        SkipStmts.insert(&S);
    } else if (const auto *W = S.as<ir::While>()) {
      Here = markSkippable(W->Body) || ReadsKept(W->Cond);
      if (!Here)
        SkipStmts.insert(&S);
    } else if (const auto *I = S.as<ir::If>()) {
      const bool Then = markSkippable(I->Then), Else = markSkippable(I->Else);
      Here = Then || Else || ReadsKept(I->Cond);
      if (!Here)
        SkipStmts.insert(&S);
    }
    Needed = Needed || Here;
  }
  return Needed;
}

const Permutation &Analyzer::permutation(const std::string &Name, bool Inverse) {
  return Perms.get(Name, Inverse);
}

void Analyzer::collectArrays() {
  auto Add = [&](const ir::Array &A) {
    if (A.Space == ir::MemSpace::Local)
      return;
    ArrayInfo Info;
    Info.Decl = &A;
    Info.ElemBytes = ir::byteSize(A.Elem);
    Info.Layout = arrayLayout(A);
    if (auto It = Opts.Data.find(A.Name); It != Opts.Data.end())
      Info.Data = &It->second;
    Arrays[A.Name] = std::move(Info);
  };
  for (const ir::Array &A : Prog.Arrays)
    Add(A);
  for (const ir::Array *A : Kern.arrays()) // the kernel's own shadow globals
    Add(*A);
  for (auto &[Name, Info] : Arrays)
    if (Info.Decl->Holds)
      Info.Holds = Perms.table(Info.Decl->Holds->Perm, Info.Decl->Holds->Inverse);
}

void Analyzer::collectSitesInExpr(const ir::Expr &E) {
  // Children first: an index's reads come before the read they index.
  ir::forEachChild(E, [&](const ir::Expr &C) { collectSitesInExpr(C); });
  if (const auto *R = E.as<ir::ArrayRead>())
    if (auto It = Arrays.find(R->Array); It != Arrays.end())
      Sites.push_back({R, E.Loc, false, &It->second});
  if (const auto *A = E.as<ir::Atomic>()) { // after its values, as it runs
    if (auto It = Arrays.find(A->Target.Array); It != Arrays.end()) {
      const auto I = AtomicIssues.find(A);
      Sites.push_back({&A->Target, E.Loc, true, &It->second, A,
                       I != AtomicIssues.end() ? I->second : AtomicIssue::PerLane});
    }
  }
}

void Analyzer::collectSites(const ir::Block &B) {
  for (const ir::Stmt &S : B) {
    if (const auto *A = S.as<ir::Assign>()) {
      collectSitesInExpr(A->Value);
      if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
        for (const ir::Expr &I : T->Indices)
          collectSitesInExpr(I);
        if (auto It = Arrays.find(T->Array); It != Arrays.end())
          Sites.push_back({T, S.Loc, true, &It->second});
      }
    } else if (const auto *L = S.as<ir::Let>()) {
      collectSitesInExpr(L->Init);
    } else if (const auto *X = S.as<ir::ExprStmt>()) {
      collectSitesInExpr(X->Value);
    } else if (const auto *F = S.as<ir::For>()) {
      collectSitesInExpr(F->Begin);
      collectSitesInExpr(F->End);
      if (F->Step)
        collectSitesInExpr(*F->Step);
      collectSites(F->Body);
    } else if (const auto *W = S.as<ir::While>()) {
      collectSitesInExpr(W->Cond);
      collectSites(W->Body);
    } else if (const auto *I = S.as<ir::If>()) {
      collectSitesInExpr(I->Cond);
      collectSites(I->Then);
      collectSites(I->Else);
    }
  }
}

void Analyzer::spend(std::int64_t Work) {
  WorkDone += Work;
  Operations += Work;
  if (WorkDone > Opts.WorkLimit)
    throw StepLimitError(Kern.Loc,
                         fmt::format("kernel '{}' needs more than {} evaluation steps to analyze{}; "
                                     "reduce its parameters with -D",
                                     Kern.Name, Opts.WorkLimit,
                                     WalkReason.empty()
                                         ? std::string()
                                         : fmt::format(" (it is evaluated warp by warp: {})", WalkReason)),
                         WalkReason);
}

void Analyzer::runtimeError(const SourceLoc &Loc, const std::string &Msg,
                            int Lane) {
  std::string Who;
  if (Lane >= 0) { // symbolic runs evaluate block 0
    const std::int64_t T = LinT[static_cast<std::size_t>(Lane)];
    Who = fmt::format(" (thread tid = {}: block ({}, {}, {}), thread ({}, {}, "
                      "{}))",
                      CurBlock * Tpb + T, CurBlockIdx[0], CurBlockIdx[1],
                      CurBlockIdx[2], Tx[static_cast<std::size_t>(Lane)],
                      Ty[static_cast<std::size_t>(Lane)],
                      Tz[static_cast<std::size_t>(Lane)]);
  }
  throw UserError(Loc, Msg + Who);
}

AccessCosts Analyzer::costsOf(const SiteInfo &S, const std::vector<Address> &Addrs) const {
  const bool Shared = S.Arr->Decl->Space == ir::MemSpace::Shared;
  // An atomic reads and writes: its lanes never pair up as a load's do.
  const SharedOp Op = S.IsWrite || S.Atomic ? SharedOp::Store : SharedOp::Load;
  if (S.Atomic) {
    // An atomic moves what a plain access of its lanes moves (sectors,
    // groups); its DMM congestion counts repeats, and its lanes on one
    // address serialize. In shared memory sm_90 serializes them in the
    // banks too: measured on H100 (bench/results/h100/gpu-verify.md,
    // samples/histogram_atomics.bw), a warp of 4-byte atomics takes one
    // wavefront per lane in its busiest bank, repeats counted (32 lanes on
    // one word: 32; lanes 2l: 2; lane l: 1), where reads of one word merge.
    //
    // nvcc combines some atomics before they reach memory (AtomicIssue.h):
    // one per warp keeps the first active lane's, one per address the first
    // lane's at each address; what is left takes turns as above.
    const std::vector<Address> Issued = issuedLanes(Addrs, S.Issue);
    AccessCosts C = warpAccessCosts(Issued, W, S.Arr->ElemBytes, Shared, Op);
    C.Serialization = atomicSerialization(Issued);
    C.Congestion = dmmAtomicCongestion(Issued, W);
    if (Shared && C.Wavefronts > 0) {
      std::vector<Address> Words(Issued.begin(), Issued.end());
      for (Address &A : Words)
        if (A != NoAccess)
          A = A * S.Arr->ElemBytes / 4;
      C.Wavefronts = std::max(C.Wavefronts, dmmAtomicCongestion(Words, 32));
    }
    return C;
  }
  // A whole warp of 4- or 8-byte shared elements below 2^16 (seed 001's
  // gather and scatter through its planes, 2^21 warps a site at n = 2^26):
  // the same costs by sharedWordWarpCosts' bank mask, without the general
  // sort.
  if (Shared && W == 32 && (S.Arr->ElemBytes == 4 || S.Arr->ElemBytes == 8) && Addrs.size() == 32) {
    std::array<std::uint16_t, 32> Words;
    bool Fits = true;
    for (std::size_t I = 0; I < 32 && Fits; ++I) {
      Fits = Addrs[I] >= 0 && Addrs[I] < 65536;
      Words[I] = static_cast<std::uint16_t>(Addrs[I]);
    }
    if (Fits)
      return sharedWordWarpCosts(Words, S.Arr->ElemBytes, Op);
  }
  return warpAccessCosts(Addrs, W, S.Arr->ElemBytes, Shared, Op);
}

std::int64_t Analyzer::timeCost(const SiteInfo &S, const AccessCosts &C,
                                bool Unknown, int Active) const {
  if (Unknown)
    return Active; // worst case: every lane in one bank or group
  const bool Shared = S.Arr->Decl->Space == ir::MemSpace::Shared;
  if (std::holds_alternative<Dmm>(TimeModel) ||
      (std::holds_alternative<Hmm>(TimeModel) && Shared))
    return C.Congestion; // an atomic's counts its repeats
  // Global atomics on one address take their turns too.
  return S.Atomic ? std::max(C.Groups, C.Serialization) : C.Groups;
}

void Analyzer::addStats(AccessSiteReport &R, const AccessCosts &C, const DataCongestion *Data,
                        int Active, std::int64_t Times) const {
  R.WarpExecutions += Times;
  R.ThreadAccesses += Times * Active;
  if (Data) {
    // The expected figure's executions are counted by the caller
    // (DataExpected); the mean is taken when the run ends.
    R.DataDependent = true;
    R.WorstCongestion = std::max(R.WorstCongestion, Data->Worst);
    return;
  }
  R.Congestion.add(C.Congestion, Times);
  R.Groups.add(C.Groups, Times);
  if (R.IsAtomic)
    R.Serialization.add(C.Serialization, Times);
  if (R.Space == ir::MemSpace::Shared)
    R.Wavefronts.add(C.Wavefronts, Times);
  else {
    R.Sectors.add(C.Sectors, Times);
    R.Lines.add(C.Lines, Times);
  }
}

DataCongestion Analyzer::dataCongestion(const SiteInfo &S, int Active, std::int64_t Reach) {
  // What one bank can receive; every lane for an atomic (repeats count).
  DataCongestion D;
  D.Worst = Reach > 0 && !perLaneAtomic(S) ? std::min<std::int64_t>(Reach, Active) : Active;
  const auto K = static_cast<std::size_t>(std::max(Active, 0));
  if (MaxLoadOf.size() <= K)
    MaxLoadOf.resize(K + 1, -1);
  if (MaxLoadOf[K] < 0)
    MaxLoadOf[K] = expectedMaxLoad(Active, W);
  // Random indices cannot do worse than the worst the warp can reach (a
  // row of w words: one address per bank, whatever the layout).
  D.Expected = std::min(MaxLoadOf[K], static_cast<double>(D.Worst));
  return D;
}

Analyzer::UniformDataCosts Analyzer::uniformDataCosts(const SiteInfo &S, const std::vector<Address> &Known,
                                                      std::int64_t Step) const {
  // Every model's cost repeats when the addresses move by Period elements
  // (w banks or groups, 128 bytes); the shift's residues mod Period are the
  // multiples of gcd(Step, Period).
  const std::int64_t Period = costPeriod(S, W);
  const std::int64_t G = std::gcd(std::max<std::int64_t>(Step, 1), Period);
  std::vector<Address> Base = Known; // lifted: none negative (liftedLanes)
  // A shift by a multiple of G leaves the shifts' residues as they are:
  // warps whose lanes differ by one find their costs in the cache.
  Address Lowest = -1;
  for (Address A : Base)
    if (A != NoAccess && (Lowest < 0 || A < Lowest))
      Lowest = A;
  for (Address &A : Base)
    if (A != NoAccess)
      A -= Lowest - Lowest % G;
  Base.push_back(G);
  const auto Key = std::make_pair(static_cast<const void *>(&S), Base);
  Base.pop_back();
  if (auto It = UniformCostsCache.find(Key); It != UniformCostsCache.end())
    return It->second;
  if (UniformCostsCache.size() > (std::size_t(1) << 14))
    UniformCostsCache.clear();
  UniformDataCosts Out;
  std::vector<Address> Shifted(Base.size());
  for (std::int64_t R = 0; R < Period; R += G) {
    for (std::size_t L = 0; L < Base.size(); ++L)
      Shifted[L] = Base[L] == NoAccess ? NoAccess : Base[L] + R;
    const AccessCosts C = costsOf(S, Shifted);
    if (R == 0) {
      Out.Worst = C;
      continue;
    }
    AccessCosts &Wc = Out.Worst;
    Out.Exact = Out.Exact && C.Congestion == Wc.Congestion && C.Groups == Wc.Groups &&
                C.Wavefronts == Wc.Wavefronts && C.Sectors == Wc.Sectors && C.Lines == Wc.Lines &&
                C.Serialization == Wc.Serialization;
    Wc.Congestion = std::max(Wc.Congestion, C.Congestion);
    Wc.Groups = std::max(Wc.Groups, C.Groups);
    Wc.Wavefronts = std::max(Wc.Wavefronts, C.Wavefronts);
    Wc.Sectors = std::max(Wc.Sectors, C.Sectors);
    Wc.Lines = std::max(Wc.Lines, C.Lines);
    Wc.Serialization = std::max(Wc.Serialization, C.Serialization);
  }
  UniformCostsCache.emplace(Key, Out);
  return Out;
}

void Analyzer::markGuarded(AccessSiteReport &R) const {
  if (!R.DataGuarded) {
    R.DataGuarded = true;
    R.GuardSource = Guards.front().Source;
    R.GuardLoc = Guards.front().Loc;
    R.GuardIsLoop = Guards.front().Loop;
  }
}

void Analyzer::setupWarp(std::int64_t BlockLin, std::int64_t Wib) {
  CurBlock = BlockLin;
  CurWib = Wib;
  CurBlockIdx = {BlockLin % Grid[0], BlockLin / Grid[0] % Grid[1],
                 BlockLin / (Grid[0] * Grid[1])};
  Lanes = static_cast<int>(std::min(W, Tpb - Wib * W));
  // The first lane's thread index by division, the others by counting on
  // (three divisions per lane per warp were a seventh of a warp-by-warp run).
  const std::int64_t T0 = Wib * W;
  std::int64_t X = T0 % BlockDim[0], Y = T0 / BlockDim[0] % BlockDim[1], Z = T0 / (BlockDim[0] * BlockDim[1]);
  for (int L = 0; L < Lanes; ++L) {
    const auto I = static_cast<std::size_t>(L);
    LinT[I] = T0 + L;
    Tx[I] = X;
    Ty[I] = Y;
    Tz[I] = Z;
    if (++X == BlockDim[0]) {
      X = 0;
      if (++Y == BlockDim[1]) {
        Y = 0;
        ++Z;
      }
    }
  }
  Locals.clear();
  DeclMasks.clear();
  Guards.clear();
  CurPred = -1;
  PredMark = 0;
  PendingOob = -1;
  LoopStack.clear();
  WhileCounters.clear();
  Domains.assign(FirstLoopVar, {});
  for (int D = 0; D < 3; ++D)
    Domains[static_cast<std::size_t>(D)] = {0, Grid[static_cast<std::size_t>(D)] - 1};
}

std::optional<Analyzer::WarpFamily> Analyzer::warpFamily(const std::array<std::int64_t, 3> &B, std::int64_t W) {
  const std::int64_t Tpb = B[0] * B[1] * B[2];
  if (Tpb % W != 0 || Tpb / W < 2)
    return std::nullopt;
  WarpFamily F;
  if (B[0] % W == 0) { // tx = W wx + l, ty = wy, tz = wz
    F.N = {B[0] / W, B[1], B[2]};
    F.Coef[0][0] = W;
    F.Coef[1][1] = 1;
    F.Coef[2][2] = 1;
  } else if (W % B[0] == 0 && (B[0] * B[1]) % W == 0) { // W / Bx rows a warp: ty = (W / Bx) wy + l / Bx
    F.N = {1, B[0] * B[1] / W, B[2]};
    F.Coef[1][1] = W / B[0];
    F.Coef[2][2] = 1;
  } else if (W % (B[0] * B[1]) == 0) { // W / (Bx By) planes a warp: tz = (W / (Bx By)) wz + l / (Bx By)
    F.N = {1, 1, Tpb / W};
    F.Coef[2][2] = W / (B[0] * B[1]);
  } else {
    return std::nullopt;
  }
  // Check the form against the thread numbering at every thread.
  for (std::int64_t T = 0; T < Tpb; ++T) {
    const std::int64_t Wp = T / W, L = T % W;
    const std::int64_t V[3] = {Wp % F.N[0], Wp / F.N[0] % F.N[1], Wp / (F.N[0] * F.N[1])};
    const std::int64_t Got[3] = {T % B[0], T / B[0] % B[1], T / (B[0] * B[1])};
    const std::int64_t Base[3] = {L % B[0], L / B[0] % B[1], L / (B[0] * B[1])};
    for (int D = 0; D < 3; ++D) {
      std::int64_t X = Base[D];
      for (int K = 0; K < 3; ++K)
        X += F.Coef[static_cast<std::size_t>(D)][static_cast<std::size_t>(K)] * V[K];
      if (X != Got[D])
        return std::nullopt;
    }
  }
  return F;
}

void Analyzer::resetFast() {
  Templates.clear();
  Atoms.clear();
  Preds.clear();
  Opaques.clear();
  LaneTables.clear();
  DataExpected.clear();
  CurTree = nullptr;
}

KernelReport Analyzer::run() {
  KernelReport Rep;
  Rep.Kernel = Kern.Name;
  Rep.Loc = Kern.Loc;
  Rep.Threads = NumBlocks * Tpb;
  Rep.WarpSize = W;
  Rep.Warps = NumBlocks * WarpsPerBlock;
  Rep.TimeMachine = TimeModelName;
  bool Done = false;
  if (!Opts.Exhaustive) {
    // The block's warps as one family first; where that leaves the affine
    // domain (a loop bound on ty that was a number per warp position), a
    // run per warp position.
    std::vector<std::optional<WarpFamily>> Tries;
    if (std::optional<WarpFamily> F = warpFamily(BlockDim, W))
      Tries.push_back(F);
    Tries.push_back(std::nullopt);
    for (const std::optional<WarpFamily> &Try : Tries) {
      ClassCountingRun Fast(*this, Try);
      WorkDone = 0; // each try has the whole step limit, as the exhaustive path has
      try {
        Rep.TableWalk = false;
        Fast.run(Rep);
        Rep.FastPath = true;
        Rep.WarpFamily = Try.has_value();
        Rep.FallbackReason.clear();
        Done = true;
        break;
      } catch (const NotAffine &E) {
        Rep.FallbackReason = E.Reason;
        resetFast();
      } catch (const StepLimitError &) {
        // A family's counting can need more steps than the runs per
        // position (its warp variables enumerated with guarded block
        // indices): those runs get the limit afresh.
        if (!Try)
          throw;
        resetFast();
      }
    }
  } else {
    Rep.FallbackReason = "exhaustive evaluation requested";
  }
  if (!Done) {
    WorkDone = 0;
    ExhaustiveRun(*this).run(Rep);
    if (!Opts.OnlySites.empty()) { // some sites' accesses are not in the time
      Rep.TimeSimulated = false;
      Rep.Time = 0;
    }
  }
  for (std::size_t I = 0; I < Rep.Sites.size(); ++I) {
    AccessSiteReport &S = Rep.Sites[I];
    if (S.DataDependent) {
      // Over every execution, known ones at their congestion (a warp of one
      // lane reads data alike in all its lanes). Weighted by the share of
      // each value, in the value's order: the same figure whichever path
      // counted the executions, and one value's exactly.
      std::map<double, std::int64_t> Of =
          I < DataExpected.size() ? DataExpected[I] : std::map<double, std::int64_t>{};
      for (auto [Cost, Times] : S.Congestion.Counts.Bars)
        Of[static_cast<double>(Cost)] += Times;
      if (S.Congestion.Count)
        S.WorstCongestion = std::max(S.WorstCongestion, S.Congestion.Max);
      double Mean = 0;
      for (auto [Value, Times] : Of)
        Mean += Value * (static_cast<double>(Times) / static_cast<double>(S.WarpExecutions));
      S.ExpectedRapCongestion = Mean;
      Rep.TimeUsesWorstCase = true;
    }
    if (S.DataGuarded) { // the sum over executions, then the mean
      S.ExpectedGuardCongestion =
          S.DataDependent || !S.WarpExecutions ? 0 : S.ExpectedGuardCongestion / static_cast<double>(S.WarpExecutions);
      Rep.TimeUsesWorstCase = true;
    }
  }
  // Lower bounds that hold for every schedule of these requests (seed 000
  // Thm 4.1, seed 004 Sec. 5): the pipeline takes at most w requests a unit
  // and the last one needs l - 1 more (bandwidth), and some thread makes at
  // least ceil(n/p) requests of l units each (latency). The papers write
  // their sum, Omega(n/w + nl/p); the larger of the two is a true bound. On
  // the HMM (seed 001 Sec. VII) the global requests give n/w + L - 1.
  std::int64_t Global = 0;
  for (const AccessSiteReport &S : Rep.Sites)
    if (S.Space != ir::MemSpace::Shared)
      Global += S.ThreadAccesses;
  const std::int64_t N = Rep.Requests;
  const std::int64_t P = std::max<std::int64_t>(Rep.Threads, 1);
  auto CeilDiv = [](std::int64_t A, std::int64_t B) { return (A + B - 1) / B; };
  if (N == 0) {
    Rep.LowerBound = 0;
    Rep.LowerBoundFormula = "no requests";
  } else if (std::holds_alternative<Hmm>(TimeModel)) {
    const Hmm &H = std::get<Hmm>(TimeModel);
    Rep.LowerBound = Global ? static_cast<double>(CeilDiv(Global, H.W) + H.L - 1)
                            : static_cast<double>(CeilDiv(N, H.W * H.D));
    Rep.LowerBoundFormula = Global ? "n/w + L - 1 over the n global requests"
                                   : "n/(dw) over the n shared requests";
  } else {
    const std::int64_t Wd = machineWidth(TimeModel);
    const std::int64_t L = std::holds_alternative<Dmm>(TimeModel)
                               ? std::get<Dmm>(TimeModel).L
                               : std::get<Umm>(TimeModel).L;
    const std::int64_t Bandwidth = CeilDiv(N, Wd) + L - 1;
    const std::int64_t Latency = CeilDiv(N, P) * L;
    Rep.LowerBound = static_cast<double>(std::max(Bandwidth, Latency));
    Rep.LowerBoundFormula = "max(n/w + l - 1, (n/p) l)";
  }
  Rep.Operations = Operations;
  return Rep;
}

} // namespace kernel_analysis

KernelReport analyzeKernel(const ir::Program &Prog, const ir::Kernel &K,
                           const AnalysisOptions &Opts) {
  return kernel_analysis::Analyzer(Prog, K, Opts).run();
}

} // namespace bankwise
