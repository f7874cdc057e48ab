#include "analysis/passes/LayoutChoice.h"

#include "support/Parallel.h"

#include <bit>
#include <exception>
#include <fmt/format.h>

namespace bankwise {

namespace {

/// Every array declaration of Prog a kernel can name, with the kernels that
/// see it: top-level arrays are visible to all kernels. Kernel = -1 and
/// Index into Prog.Arrays for those; else the kernel's index and the index
/// into its arrays(): the same array in a copy of the program.
struct ArraySlot {
  ir::Array *Decl;
  std::vector<const ir::Kernel *> Kernels;
  int Kernel = -1;
  std::size_t Index = 0;
};

ir::Array &arrayAt(ir::Program &P, const ArraySlot &S) {
  return S.Kernel < 0 ? P.Arrays[S.Index] : *P.Kernels[static_cast<std::size_t>(S.Kernel)].arrays()[S.Index];
}

/// Bytes of every array with a size (global and shared).
std::int64_t footprint(const ir::Program &P) {
  std::int64_t Total = 0;
  auto Add = [&](const ir::Array &A) { Total += A.allocatedBytes().value_or(0); };
  for (const ir::Array &A : P.Arrays)
    Add(A);
  for (const ir::Kernel &K : P.Kernels)
    for (const ir::Array *A : K.arrays())
      Add(*A);
  return Total;
}

std::vector<ArraySlot> autoSharedArrays(ir::Program &Prog) {
  std::vector<ArraySlot> Out;
  auto IsAuto = [](const ir::Array &A) {
    return A.Space == ir::MemSpace::Shared && A.Lay.Kind == ir::LayoutKind::Auto;
  };
  for (std::size_t I = 0; I < Prog.Arrays.size(); ++I)
    if (IsAuto(Prog.Arrays[I])) {
      ArraySlot S{&Prog.Arrays[I], {}, -1, I};
      for (const ir::Kernel &K : Prog.Kernels)
        S.Kernels.push_back(&K);
      Out.push_back(S);
    }
  for (std::size_t KI = 0; KI < Prog.Kernels.size(); ++KI) {
    ir::Kernel &K = Prog.Kernels[KI];
    const std::vector<ir::Array *> As = K.arrays();
    for (std::size_t I = 0; I < As.size(); ++I)
      if (IsAuto(*As[I]))
        Out.push_back({As[I], {&K}, static_cast<int>(KI), I});
  }
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

std::vector<ir::Bindings> layoutSizeSamples(const ir::Program &Unbound, const ir::Bindings &Representative,
                                            std::string *Text) {
  std::vector<ir::Bindings> Out{Representative};
  std::vector<std::string> At, Names;
  for (const auto &[Name, Value] : Representative)
    At.push_back(fmt::format("{} = {}", Name, Value));
  std::int64_t Base = 0;
  try {
    Base = footprint(ir::bindParams(Unbound, Representative));
  } catch (const UserError &) {
    Base = 0;
  }
  for (const auto &[Name, Value] : Representative) {
    Names.push_back(Name);
    for (std::int64_t R = 1; R < 32; ++R) {
      ir::Bindings B = Representative;
      B[Name] = Value + R;
      try {
        const std::int64_t F = footprint(ir::bindParams(Unbound, B));
        if (Base > 0 && F > 4 * Base) {
          continue;
        }
      } catch (const UserError &) {
        continue; // breaks a `where`, or the sizes are out of range
      }
      Out.push_back(std::move(B));
    }
  }
  if (Text) {
    const std::size_t Full = 31 * Names.size();
    *Text = Out.size() - 1 == Full
                ? fmt::format("{}, and each of {} at the 31 values above it (every residue mod 32)",
                              fmt::join(At, ", "), fmt::join(Names, ", "))
                : fmt::format("{}, and each of {} at values above it ({} of {}: the others break a `where` "
                              "or hold over 4 times the elements)",
                              fmt::join(At, ", "), fmt::join(Names, ", "), Out.size() - 1, Full);
  }
  return Out;
}

namespace {

/// The candidates for A, in tie order: raw; for arrays of two or more
/// dimensions pad(1), pad(2), xor (a power-of-two row), diagonal and RAP.
std::vector<ir::Layout> candidateLayouts(const ir::Array &A, std::uint64_t Seed) {
  std::vector<ir::Layout> Cands = {makeIrLayout(ir::LayoutKind::Raw, 0)};
  if (A.Shape.size() >= 2) {
    Cands.push_back(makeIrLayout(ir::LayoutKind::Pad, 1));
    Cands.push_back(makeIrLayout(ir::LayoutKind::Pad, 2));
    if (std::has_single_bit(static_cast<std::uint64_t>(A.Shape.back())))
      Cands.push_back(makeIrLayout(ir::LayoutKind::Xor, 0));
    Cands.push_back(makeIrLayout(ir::LayoutKind::Diagonal, 0));
    Cands.push_back(makeIrLayout(ir::LayoutKind::Rap, static_cast<std::int64_t>(Seed)));
  }
  return Cands;
}

/// The chosen candidate: the lowest cost among those that fit; the
/// candidates are already in tie order except that pad's footprint ranks
/// after equal-cost raw (index order holds). Over size samples (Sampled),
/// the lowest worst sample first (no size left with a conflict another
/// candidate avoids), then the lowest pooled cost.
std::size_t bestCandidate(const std::vector<LayoutCandidate> &Cs, bool Sampled) {
  auto Better = [&](const LayoutCandidate &X, const LayoutCandidate &Y) {
    if (Sampled) {
      constexpr double Tol = 1e-9;
      if (X.Worst < Y.Worst - Tol)
        return true;
      if (X.Worst > Y.Worst + Tol)
        return false;
    }
    return X.Cost < Y.Cost;
  };
  std::size_t Best = 0;
  bool Any = false;
  for (std::size_t I = 0; I < Cs.size(); ++I) {
    const LayoutCandidate &C = Cs[I];
    if (!C.Fits)
      continue;
    if (!Any || Better(C, Cs[Best])) {
      Best = I;
      Any = true;
    }
  }
  return Best;
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
  // With size samples: the program bound at each, its auto arrays raw too.
  std::vector<ir::Program> Samples;
  if (Opts.Unbound && !Opts.SizeSamples.empty() && !Slots.empty()) {
    ir::Program U = *Opts.Unbound;
    for (const ArraySlot &S : Slots)
      arrayAt(U, S).Lay = makeIrLayout(ir::LayoutKind::Raw, 0);
    for (const ir::Bindings &B : Opts.SizeSamples)
      Samples.push_back(ir::bindParams(U, B));
  }
  std::vector<LayoutDecision> &Out = Result.Decisions;
  for (ArraySlot &S : Slots) {
    ir::Array &A = *S.Decl;
    LayoutDecision D;
    D.Array = A.Name;
    D.Loc = A.Loc;
    D.Seed = Opts.Seed;
    D.Metric = OnTarget ? "sm_90 wavefronts" : "DMM congestion";
    D.MeasuredAt = Samples.empty() ? "" : Opts.SamplesText;
    D.Samples = Samples.size();
    for (const ir::Kernel *K : S.Kernels)
      D.Kernels.push_back(K->Name);
    const std::vector<ir::Layout> Cands = candidateLayouts(A, Opts.Seed);
    // Each candidate at each place (the bound program alone, or every size
    // sample): its cost, warp executions and fit. The places are measured
    // in parallel, each on its own program; the sums below run in candidate
    // and place order, so the result does not depend on the thread count.
    struct Measure {
      double Cost = 0;
      std::int64_t Execs = 0;
      bool Fits = true;
    };
    std::vector<ir::Program *> Where{&Prog};
    if (!Samples.empty()) {
      Where.clear();
      for (ir::Program &P : Samples)
        Where.push_back(&P);
    }
    std::vector<std::vector<Measure>> At(Where.size(), std::vector<Measure>(Cands.size()));
    // Per place, the first candidate whose analysis failed: the error the
    // candidate-by-candidate order would have met first is rethrown.
    std::vector<std::exception_ptr> Errors(Where.size());
    std::vector<std::size_t> ErrorCand(Where.size(), Cands.size());
    parallelFor(Where.size(), Where.size() > 1 ? threadCount(Opts.Threads) : 1, [&](std::size_t PI, unsigned) {
      ir::Program *P = Where[PI];
      ir::Array &Here = P == &Prog ? A : arrayAt(*P, S);
      for (std::size_t CI = 0; CI < Cands.size(); ++CI) {
        const ir::Layout &L = Cands[CI];
        Here.Lay = L;
        Measure &M = At[PI][CI];
        try {
          for (const ir::Kernel *K0 : S.Kernels) {
            const ir::Kernel *K = &P->Kernels[static_cast<std::size_t>(K0 - Prog.Kernels.data())];
            if (sharedBytes(*P, *K) > MaxShared)
              M.Fits = false;
            AnalysisOptions AO = Opts.Analysis;
            AO.SimulateTime = false;
            AO.OnlyArray = A.Name; // a candidate changes only its array's costs
            const KernelReport R = analyzeKernel(*P, *K, AO);
            for (const AccessSiteReport &Site : R.Sites) {
              if (Site.Array != A.Name)
                continue;
              M.Execs += Site.WarpExecutions;
              if (Site.DataDependent) {
                const double PerWarp = L.Kind == ir::LayoutKind::Rap
                                           ? Site.ExpectedRapCongestion
                                           : static_cast<double>(Site.WorstCongestion);
                M.Cost += PerWarp * static_cast<double>(Site.WarpExecutions);
              } else {
                M.Cost += OnTarget ? Site.Wavefronts.Sum : Site.Congestion.Sum;
              }
            }
          }
        } catch (...) {
          Errors[PI] = std::current_exception();
          ErrorCand[PI] = CI;
          return;
        }
      }
    });
    std::size_t FirstError = Where.size();
    for (std::size_t PI = 0; PI < Where.size(); ++PI)
      if (Errors[PI] && (FirstError == Where.size() || ErrorCand[PI] < ErrorCand[FirstError]))
        FirstError = PI;
    if (FirstError < Where.size())
      std::rethrow_exception(Errors[FirstError]);
    for (std::size_t CI = 0; CI < Cands.size(); ++CI) {
      LayoutCandidate C;
      C.Layout = Cands[CI];
      C.Name = Cands[CI].str();
      std::int64_t Execs = 0;
      for (std::size_t PI = 0; PI < Where.size(); ++PI) {
        const Measure &M = At[PI][CI];
        C.Fits = C.Fits && M.Fits;
        C.Cost += M.Cost;
        Execs += M.Execs;
        if (M.Execs > 0)
          C.Worst = std::max(C.Worst, M.Cost / static_cast<double>(M.Execs));
      }
      D.Executions = Execs;
      D.Candidates.push_back(C);
    }
    D.Chosen = bestCandidate(D.Candidates, !Samples.empty());
    A.Lay = D.Candidates[D.Chosen].Layout;
    for (ir::Program &P : Samples)
      arrayAt(P, S).Lay = A.Lay;
    Out.push_back(std::move(D));
  }
  return Result;
}

} // namespace bankwise
