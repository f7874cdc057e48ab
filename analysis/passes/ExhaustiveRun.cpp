// The exhaustive run of analyzeKernel (the warp-by-warp path): every warp
// of every block through the warp evaluator with its indices as numbers,
// each access costed as it happens, then the time simulated from the
// warps' traces, phase by phase. The other run, counting warps by class,
// is in ClassCounting.cpp; what the two share is detail/WarpRun.h.
#include "analysis/passes/detail/WarpRun.h"

#include <fmt/format.h>

namespace bankwise::kernel_analysis {

void Analyzer::ExhaustiveRun::run(KernelReport &Rep) {
  if (static_cast<Wide>(An.NumBlocks) * An.WarpsPerBlock > An.Opts.MaxWarps)
    throw UserError(An.Kern.Loc, fmt::format("kernel '{}' has {} blocks of {} threads and "
                                             "needs thread-by-thread analysis ({}); that "
                                             "path handles up to {} warps of {}",
                                             An.Kern.Name, An.NumBlocks, An.Tpb, Rep.FallbackReason,
                                             An.Opts.MaxWarps, An.W));
  // A step a warp at least: refused before any warp is walked.
  An.WalkReason = Rep.FallbackReason;
  if (static_cast<Wide>(An.NumBlocks) * An.WarpsPerBlock > An.Opts.WorkLimit - An.WorkDone)
    An.spend(An.NumBlocks * An.WarpsPerBlock);
  Rep.Sites = emptyReports(An.Sites);
  An.DataExpected.assign(An.Sites.size(), {});
  Reports = &Rep.Sites;
  const std::int64_t NumWarps = An.NumBlocks * An.WarpsPerBlock;
  std::vector<std::vector<WarpAccess>> Traces(static_cast<std::size_t>(NumWarps));
  for (std::int64_t B = 0; B < An.NumBlocks; ++B)
    for (std::int64_t Wib = 0; Wib < An.WarpsPerBlock; ++Wib) {
      An.spend(1);
      An.setupWarp(B, Wib);
      Phase = 0;
      Trace = &Traces[static_cast<std::size_t>(B * An.WarpsPerBlock + Wib)];
      Mask M = An.Lanes == 64 ? ~Mask(0) : (Mask(1) << An.Lanes) - 1;
      An.exec(An.Kern.Body, M);
    }
  simulate(Traces, Rep);
  Rep.EvaluationSteps = An.WorkDone;
}

void Analyzer::ExhaustiveRun::simulate(const std::vector<std::vector<WarpAccess>> &Traces,
                                       KernelReport &Rep) const {
  // Time: phase by phase, round r = every warp's r-th access in the phase.
  SimOptions SO;
  SO.BlockThreads = An.WarpsPerBlock * machineWidth(An.TimeModel);
  Simulator Sim(An.TimeModel, static_cast<std::int64_t>(Traces.size()) * machineWidth(An.TimeModel), SO);
  std::vector<std::size_t> Pos(Traces.size(), 0);
  for (std::int32_t Ph = 0;; ++Ph) {
    bool Any = false;
    for (std::size_t Wp = 0; Wp < Traces.size(); ++Wp)
      if (Pos[Wp] < Traces[Wp].size())
        Any = true;
    if (!Any)
      break;
    bool FirstRound = true;
    while (true) {
      // One round: each warp's next access within this phase.
      bool RoundAny = false;
      for (std::size_t Wp = 0; Wp < Traces.size(); ++Wp)
        if (Pos[Wp] < Traces[Wp].size() && Traces[Wp][Pos[Wp]].Phase == Ph)
          RoundAny = true;
      if (!RoundAny)
        break;
      // A round's space: the HMM routes each warp by its own site's space,
      // so split the round into a shared and a global half.
      for (Space Sp : {Space::Global, Space::Shared}) {
        bool Started = false;
        for (std::size_t Wp = 0; Wp < Traces.size(); ++Wp) {
          if (Pos[Wp] >= Traces[Wp].size() || Traces[Wp][Pos[Wp]].Phase != Ph)
            continue;
          const WarpAccess &A = Traces[Wp][Pos[Wp]];
          if (spaceOf(An.Sites[static_cast<std::size_t>(A.Site)]) != Sp)
            continue;
          if (!Started) {
            Sim.beginRound(Sp, FirstRound && Ph > 0);
            Started = true;
            FirstRound = false;
          }
          Sim.warpCost(static_cast<std::int64_t>(Wp), A.K, A.Requests);
        }
      }
      for (std::size_t Wp = 0; Wp < Traces.size(); ++Wp)
        if (Pos[Wp] < Traces[Wp].size() && Traces[Wp][Pos[Wp]].Phase == Ph)
          ++Pos[Wp];
    }
  }
  const SimResult Res = Sim.finish();
  Rep.Time = Res.Time;
  Rep.Requests = Res.Requests;
}

void Analyzer::ExhaustiveRun::blockIndex(int Dim, Val &R) const {
  R.U.C = An.CurBlockIdx[static_cast<std::size_t>(Dim)];
}

void Analyzer::ExhaustiveRun::blockOffset(Val &R) const { R.U.C = An.CurBlock * An.Tpb; }

void Analyzer::ExhaustiveRun::forLoop(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End,
                                      const Val &Step, Mask M) {
  An.execLaneFor(F, Loc, Begin, End, Step, M);
}

void Analyzer::ExhaustiveRun::dataForTrips(const ir::For &F, const SourceLoc &Loc, const Val &Begin,
                                           const Val &Step, Mask M,
                                           const std::function<Mask(const Val &)> &Within) {
  An.sampleLaneDataFor(F, Loc, Begin, Step, M, Within);
}

void Analyzer::ExhaustiveRun::whileLoop(const ir::While &Wh, const SourceLoc &Loc, Mask M) {
  An.execLaneWhile(Wh, Loc, M);
}

/// The access's costs into its site's report, and its time cost into the
/// warp's trace.
void Analyzer::ExhaustiveRun::record(int Site, const Val &Addr, Mask M) {
  const int Active = std::popcount(M);
  An.spend(1);
  const SiteInfo &S = An.Sites[static_cast<std::size_t>(Site)];
  AccessCosts C;
  std::vector<Address> Lanes_;
  std::optional<DataCongestion> Data;
  if (!Addr.Unknown || Addr.DataUniform) {
    // Known addresses are in bounds; a data-shifted lane's known part may
    // be below 0.
    Lanes_ = liftedLanes(An.Lanes, M, costPeriod(S, An.W), [&](int L) { return Addr.lane(L); });
    if (!Addr.Unknown) {
      C = An.costsOf(S, Lanes_);
    } else {
      // Known up to one shift of every lane: the DMM congestion does not
      // depend on it (the banks rotate); the other models' costs may.
      const UniformDataCosts U = An.uniformDataCosts(S, Lanes_, Addr.DataStep);
      C = U.Worst;
      if (!U.Exact)
        Data = DataCongestion{C.Congestion, static_cast<double>(C.Congestion)};
    }
  } else {
    Data = An.dataCongestion(S, Active, Addr.ReachWorst);
  }
  AccessSiteReport &R = (*Reports)[static_cast<std::size_t>(Site)];
  if (Data && R.DataSource.empty())
    R.DataSource = Addr.UnknownSrc;
  if (!An.Guards.empty()) {
    An.markGuarded(R);
    if (!Data) {
      // The half-lane expectation depends on the banks alone, which a
      // shift by whole periods (data-shifted lanes' lift) keeps.
      R.ExpectedGuardCongestion += perLaneAtomic(S) ? expectedHalfLaneAtomicCongestion(Lanes_, An.W)
                                                    : expectedHalfLaneCongestion(Lanes_, An.W);
    }
  }
  if (Data)
    An.DataExpected[static_cast<std::size_t>(Site)][Data->Expected] += 1;
  An.addStats(R, C, Data ? &*Data : nullptr, Active, 1);
  Trace->push_back({Site,
                    Data && !Addr.DataUniform ? An.timeCost(S, C, true, Active) : An.timeCost(S, C, false, Active),
                    Active, Phase});
}

} // namespace bankwise::kernel_analysis
