#include "analysis/models/Simulator.h"

#include "analysis/models/detail/Stages.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>

namespace bankwise {

namespace {

struct Pipeline {
  std::int64_t NextFree = 0; ///< first unit whose first stage is free
  std::int64_t Latency = 1;
  detail::StageRule Rule = detail::StageRule::Bank;
};

} // namespace

struct Simulator::Impl {
  std::int64_t W = 32;
  std::int64_t Threads = 0;
  std::int64_t BlockThreads = 0; // HMM
  std::int64_t NumDmms = 0;      // HMM: D; otherwise 0
  SimOptions Opts;
  /// DMM/UMM: one pipeline. HMM: D shared pipelines, then the global one.
  std::vector<Pipeline> Pipes;
  std::vector<std::int64_t> Ready; // per thread: first unit it may issue
  std::vector<std::int64_t> WarpReady; // warpCost mode: per warp
  std::vector<std::int32_t> Stage;
  std::vector<detail::LaneKey> Scratch;
  SimResult Result;
  Space Current = Space::Shared;
  std::int64_t BarrierAt = 0;
  std::int64_t LastWarp = -1;
  bool InRound = false;

  Pipeline &pipelineFor(std::int64_t Warp) {
    if (NumDmms == 0)
      return Pipes[0];
    if (Current == Space::Global)
      return Pipes[static_cast<std::size_t>(NumDmms)];
    const std::int64_t Block = Warp * W / BlockThreads;
    return Pipes[static_cast<std::size_t>(Block % NumDmms)];
  }
};

Simulator::Simulator(const Machine &M, std::int64_t Threads, SimOptions Opts)
    : P(std::make_unique<Impl>()) {
  validateMachine(M);
  if (Threads < 1)
    throw UserError(fmt::format("a trace needs at least one thread, got {}",
                                Threads));
  P->W = machineWidth(M);
  P->Threads = Threads;
  P->Opts = Opts;
  if (const auto *D = std::get_if<Dmm>(&M)) {
    P->Pipes.push_back({0, D->L, detail::StageRule::Bank});
  } else if (const auto *U = std::get_if<Umm>(&M)) {
    P->Pipes.push_back({0, U->L, detail::StageRule::Group});
  } else {
    const Hmm &H = std::get<Hmm>(M);
    P->NumDmms = H.D;
    std::int64_t Block = Opts.BlockThreads;
    if (Block == 0) {
      Block = (Threads + H.D - 1) / H.D;
      Block = (Block + H.W - 1) / H.W * H.W;
    }
    if (Block < 1 || Block % H.W != 0)
      throw UserError(fmt::format(
          "hmm block size must be a positive multiple of w = {}, got {}", H.W,
          Block));
    P->BlockThreads = Block;
    P->Pipes.assign(static_cast<std::size_t>(H.D),
                    {0, 1, detail::StageRule::Bank});
    P->Pipes.push_back({0, H.L, detail::StageRule::Group});
  }
  P->Stage.assign(static_cast<std::size_t>(P->W), 0);
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator &&) noexcept = default;
Simulator &Simulator::operator=(Simulator &&) noexcept = default;

void Simulator::beginRound(Space S, bool Barrier) {
  Impl &I = *P;
  I.Current = S;
  I.InRound = true;
  I.LastWarp = -1;
  if (I.Opts.Barrier || Barrier)
    I.BarrierAt = I.Result.Time;
  I.Result.Rounds.push_back({});
}

void Simulator::warpAccess(std::int64_t Warp, std::span<const Address> Lanes) {
  Impl &I = *P;
  assert(I.InRound && "warpAccess before beginRound");
  assert(Warp > I.LastWarp && "warps must come in increasing order");
  assert(static_cast<std::int64_t>(Lanes.size()) <= I.W);
  I.LastWarp = Warp;
  if (I.Ready.empty()) // allocated on first use: warpCost needs none
    I.Ready.assign(static_cast<std::size_t>(I.Threads), 0);
  const std::int64_t FirstThread = Warp * I.W;
  Pipeline &Pipe = I.pipelineFor(Warp);
  const std::int64_t K =
      detail::assignStages(Lanes, I.W, Pipe.Rule, I.Stage, I.Scratch);
  if (K == 0)
    return; // no request: the warp is skipped
  std::int64_t Start = std::max(Pipe.NextFree, I.BarrierAt);
  for (const detail::LaneKey &Key : I.Scratch)
    Start = std::max(Start, I.Ready[static_cast<std::size_t>(FirstThread + Key.Lane)]);
  Pipe.NextFree = Start + K;

  RoundStats &R = I.Result.Rounds.back();
  if (R.WarpAccesses == 0)
    R.Start = Start;
  R.Start = std::min(R.Start, Start);
  R.Stages += K;
  R.WarpAccesses += 1;
  R.MaxWarpCost = std::max(R.MaxWarpCost, K);
  for (const detail::LaneKey &Key : I.Scratch) {
    const std::int64_t Done =
        Start + I.Stage[static_cast<std::size_t>(Key.Lane)] + Pipe.Latency;
    I.Ready[static_cast<std::size_t>(FirstThread + Key.Lane)] = Done;
    R.End = std::max(R.End, Done);
  }
  R.Requests += static_cast<std::int64_t>(I.Scratch.size());
  I.Result.Requests += static_cast<std::int64_t>(I.Scratch.size());
  I.Result.Time = std::max(I.Result.Time, R.End);
}

void Simulator::warpCost(std::int64_t Warp, std::int64_t K,
                         std::int64_t Requests) {
  Impl &I = *P;
  assert(I.InRound && "warpCost before beginRound");
  assert(Warp > I.LastWarp && "warps must come in increasing order");
  I.LastWarp = Warp;
  if (K == 0)
    return;
  if (I.WarpReady.empty())
    I.WarpReady.assign(static_cast<std::size_t>((I.Threads + I.W - 1) / I.W), 0);
  Pipeline &Pipe = I.pipelineFor(Warp);
  std::int64_t &Ready = I.WarpReady[static_cast<std::size_t>(Warp)];
  const std::int64_t Start = std::max({Pipe.NextFree, I.BarrierAt, Ready});
  Pipe.NextFree = Start + K;
  const std::int64_t Done = Start + K - 1 + Pipe.Latency;
  Ready = Done;
  RoundStats &R = I.Result.Rounds.back();
  R.Start = R.WarpAccesses == 0 ? Start : std::min(R.Start, Start);
  R.Stages += K;
  R.WarpAccesses += 1;
  R.MaxWarpCost = std::max(R.MaxWarpCost, K);
  R.End = std::max(R.End, Done);
  R.Requests += Requests;
  I.Result.Requests += Requests;
  I.Result.Time = std::max(I.Result.Time, Done);
}

SimResult Simulator::finish() {
  P->InRound = false;
  return std::move(P->Result);
}

SimResult simulate(const Machine &M, const Trace &T, SimOptions Opts) {
  Simulator Sim(M, T.Threads, Opts);
  const std::int64_t W = machineWidth(M);
  for (std::size_t R = 0; R < T.Rounds.size(); ++R) {
    const Round &Rd = T.Rounds[R];
    if (static_cast<std::int64_t>(Rd.Addr.size()) != T.Threads)
      throw UserError(fmt::format(
          "round {} has {} thread entries, expected {} (one per thread)", R,
          Rd.Addr.size(), T.Threads));
    for (std::size_t Th = 0; Th < Rd.Addr.size(); ++Th)
      if (Rd.Addr[Th] < 0 && Rd.Addr[Th] != NoAccess)
        throw UserError(fmt::format("round {}, thread {}: negative address {}",
                                    R, Th, Rd.Addr[Th]));
    Sim.beginRound(Rd.Where);
    for (std::int64_t First = 0, Warp = 0; First < T.Threads;
         First += W, ++Warp) {
      const std::int64_t Len = std::min(W, T.Threads - First);
      Sim.warpAccess(Warp, std::span<const Address>(Rd.Addr).subspan(
                               static_cast<std::size_t>(First),
                               static_cast<std::size_t>(Len)));
    }
  }
  return Sim.finish();
}

} // namespace bankwise
