// Throughput of the timing simulator: 10^8 thread-requests per machine, fed
// warp by warp through the streaming interface (no trace in memory). The
// addresses mix contiguous, stride and random rounds so the congestion
// computation sees easy and hard warps. The simulated time is checked against
// an independent count of the stages so the run cannot silently do nothing.
//
//   bench_simulator [--requests N] [--markdown]

#include "analysis/models/Simulator.h"
#include "support/Random.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <vector>

using namespace bankwise;

namespace {

struct Row {
  std::string Machine;
  std::int64_t Requests;
  double Seconds;
  std::int64_t Time;
};

Row benchOne(const Machine &M, std::int64_t TotalRequests) {
  const std::int64_t W = machineWidth(M);
  const std::int64_t P = 1 << 16; // threads
  const std::int64_t Rounds = (TotalRequests + P - 1) / P;
  Rng R(1);
  std::vector<Address> Lanes(static_cast<std::size_t>(W));
  const auto Start = std::chrono::steady_clock::now();
  Simulator Sim(M, P);
  std::int64_t StagesSeen = 0;
  for (std::int64_t T = 0; T < Rounds; ++T) {
    const int Kind = static_cast<int>(T % 3);
    Sim.beginRound(T % 2 ? Space::Global : Space::Shared);
    for (std::int64_t Warp = 0; Warp < P / W; ++Warp) {
      for (std::int64_t L = 0; L < W; ++L) {
        const std::int64_t I = Warp * W + L;
        Lanes[static_cast<std::size_t>(L)] =
            Kind == 0   ? T * P + I                                // contiguous
            : Kind == 1 ? I * 33 + T                               // stride 33
                        : static_cast<Address>(R.below(1u << 24)); // random
      }
      Sim.warpAccess(Warp, Lanes);
    }
  }
  const SimResult Res = Sim.finish();
  const double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  for (const RoundStats &St : Res.Rounds)
    StagesSeen += St.Stages;
  // One pipeline moves at most one stage per time unit, so its time is at
  // least the stages it used; every request must have been counted.
  const bool OnePipeline = !std::holds_alternative<Hmm>(M);
  if (Res.Requests != Rounds * P || Res.Time <= 0 ||
      (OnePipeline && Res.Time < StagesSeen)) {
    std::fprintf(stderr, "check failed: requests %lld, time %lld, stages %lld\n",
                 static_cast<long long>(Res.Requests),
                 static_cast<long long>(Res.Time),
                 static_cast<long long>(StagesSeen));
    std::exit(1);
  }
  return {machineName(M), Res.Requests, Secs, Res.Time};
}

} // namespace

int main(int Argc, char **Argv) {
  std::int64_t Requests = 100'000'000;
  bool Markdown = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--requests") && I + 1 < Argc)
      Requests = std::stoll(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--markdown"))
      Markdown = true;
  }
  std::vector<Row> Rows;
  for (const Machine &M : {Machine(Dmm{32, 1}), Machine(Umm{32, 400}),
                           Machine(Hmm{132, 32, 400})})
    Rows.push_back(benchOne(M, Requests));
  if (Markdown) {
    fmt::print("| machine | thread-requests | seconds | requests/s | simulated time units |\n");
    fmt::print("|---|---:|---:|---:|---:|\n");
  }
  for (const Row &R : Rows) {
    if (Markdown)
      fmt::print("| {} | {} | {:.2f} | {:.3g} | {} |\n", R.Machine, R.Requests,
                 R.Seconds, static_cast<double>(R.Requests) / R.Seconds, R.Time);
    else
      fmt::print("{:<28} {:>12} requests in {:6.2f} s ({:.3g}/s), time {} units\n",
                 R.Machine, R.Requests, R.Seconds,
                 static_cast<double>(R.Requests) / R.Seconds, R.Time);
  }
  return 0;
}
