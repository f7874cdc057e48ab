#include "analysis/passes/LayoutChoice.h"

#include <bit>
#include <fmt/format.h>

namespace bankwise {

namespace {

/// Every array declaration of Prog a kernel can name, with the kernels that
/// see it: top-level arrays are visible to all kernels.
struct ArraySlot {
  ir::Array *Decl;
  std::vector<const ir::Kernel *> Kernels;
};

std::vector<ArraySlot> autoSharedArrays(ir::Program &Prog) {
  std::vector<ArraySlot> Out;
  auto IsAuto = [](const ir::Array &A) {
    return A.Space == ir::MemSpace::Shared && A.Lay.Kind == ir::LayoutKind::Auto;
  };
  for (ir::Array &A : Prog.Arrays)
    if (IsAuto(A)) {
      ArraySlot S{&A, {}};
      for (const ir::Kernel &K : Prog.Kernels)
        S.Kernels.push_back(&K);
      Out.push_back(S);
    }
  for (ir::Kernel &K : Prog.Kernels)
    for (ir::Array *A : K.arrays())
      if (IsAuto(*A))
        Out.push_back({A, {&K}});
  return Out;
}

/// Shared bytes a kernel sees, as Sema counts them.
std::int64_t sharedBytes(const ir::Program &Prog, const ir::Kernel &K) {
  std::int64_t Total = 0;
  auto Add = [&](const ir::Array &A) {
    if (A.Space == ir::MemSpace::Shared)
      Total += A.allocatedBytes().value_or(0);
  };
  for (const ir::Array &A : Prog.Arrays)
    Add(A);
  for (const ir::Array *A : K.arrays())
    Add(*A);
  return Total;
}

ir::Layout makeIrLayout(ir::LayoutKind Kind, std::int64_t Arg) {
  ir::Layout L;
  L.Kind = Kind;
  if (Kind == ir::LayoutKind::Pad || Kind == ir::LayoutKind::Rap) {
    L.Arg = ir::makeInt(Arg);
    L.ArgValue = Arg;
  }
  return L;
}

} // namespace

LayoutChoice chooseLayouts(const ir::Program &Input, const LayoutChoiceOptions &Opts) {
  LayoutChoice Result{Input, {}};
  ir::Program &Prog = Result.Program;
  const bool OnTarget = !Prog.Mach || Prog.Mach->Kind == ir::MachineKind::Target;
  std::int64_t MaxShared = INT64_MAX;
  if (OnTarget)
    if (auto Info = ir::targetInfo(Prog.Mach ? Prog.Mach->Target : "sm_90"))
      MaxShared = Info->MaxSharedPerBlock;
  std::vector<ArraySlot> Slots = autoSharedArrays(Prog);
  // Analyze every auto array as raw first, so each candidate is measured
  // with the others fixed (sites of one array do not depend on another's
  // layout).
  for (ArraySlot &S : Slots)
    S.Decl->Lay = makeIrLayout(ir::LayoutKind::Raw, 0);
  std::vector<LayoutDecision> &Out = Result.Decisions;
  for (ArraySlot &S : Slots) {
    ir::Array &A = *S.Decl;
    LayoutDecision D;
    D.Array = A.Name;
    D.Loc = A.Loc;
    D.Seed = Opts.Seed;
    D.Metric = OnTarget ? "sm_90 wavefronts" : "DMM congestion";
    for (const ir::Kernel *K : S.Kernels)
      D.Kernels.push_back(K->Name);
    std::vector<ir::Layout> Cands = {makeIrLayout(ir::LayoutKind::Raw, 0)};
    if (A.Shape.size() >= 2) {
      Cands.push_back(makeIrLayout(ir::LayoutKind::Pad, 1));
      Cands.push_back(makeIrLayout(ir::LayoutKind::Pad, 2));
      if (std::has_single_bit(static_cast<std::uint64_t>(A.Shape.back())))
        Cands.push_back(makeIrLayout(ir::LayoutKind::Xor, 0));
      Cands.push_back(makeIrLayout(ir::LayoutKind::Diagonal, 0));
      Cands.push_back(makeIrLayout(ir::LayoutKind::Rap, static_cast<std::int64_t>(Opts.Seed)));
    }
    for (const ir::Layout &L : Cands) {
      A.Lay = L;
      LayoutCandidate C;
      C.Layout = L;
      C.Name = L.str();
      std::int64_t Execs = 0;
      for (const ir::Kernel *K : S.Kernels) {
        if (sharedBytes(Prog, *K) > MaxShared)
          C.Fits = false;
        AnalysisOptions AO = Opts.Analysis;
        AO.SimulateTime = false;
        AO.OnlyArray = A.Name; // a candidate changes only its array's costs
        const KernelReport R = analyzeKernel(Prog, *K, AO);
        for (const AccessSiteReport &Site : R.Sites) {
          if (Site.Array != A.Name)
            continue;
          Execs += Site.WarpExecutions;
          if (Site.DataDependent) {
            const double PerWarp = L.Kind == ir::LayoutKind::Rap
                                       ? Site.ExpectedRapCongestion
                                       : static_cast<double>(Site.WorstCongestion);
            C.Cost += PerWarp * static_cast<double>(Site.WarpExecutions);
          } else {
            C.Cost += OnTarget ? Site.Wavefronts.Sum : Site.Congestion.Sum;
          }
        }
      }
      D.Executions = Execs;
      D.Candidates.push_back(C);
    }
    // Lowest cost among those that fit; Cands is already in tie order except
    // that pad's footprint ranks after equal-cost raw (index order holds).
    std::size_t Best = 0;
    bool Any = false;
    for (std::size_t I = 0; I < D.Candidates.size(); ++I) {
      const LayoutCandidate &C = D.Candidates[I];
      if (!C.Fits)
        continue;
      if (!Any || C.Cost < D.Candidates[Best].Cost) {
        Best = I;
        Any = true;
      }
    }
    D.Chosen = Best;
    A.Lay = D.Candidates[Best].Layout;
    Out.push_back(std::move(D));
  }
  return Result;
}

} // namespace bankwise
