// Exact timing simulator for the DMM, UMM and HMM, with the papers' pipeline
// semantics (seed 000 Sec. 2, 001 Sec. II, 004 Sec. 2):
//   - warps are dispatched round-robin, W(0), W(1), ...; a warp with no
//     request in a round is skipped;
//   - a warp access of cost k (DMM congestion, UMM groups) occupies k
//     consecutive pipeline stages; the j-th stage takes the j-th smallest
//     distinct address of each bank (DMM) or the j-th address group (UMM);
//   - a request entering the pipeline in time unit u completes l units later,
//     at the end of unit u + l - 1;
//   - a thread cannot issue a request before its previous one completed, and
//     a warp issues when all its requesting threads can.
// Time units are counted from 0; the result is the unit count until the last
// request completed. Worked example (seed 001 Fig. 3, w = 4, l = 5):
//   W(0) -> m[7], m[5], m[15], m[0]; W(1) -> m[10], m[11], m[12], m[9]
//   DMM: stages 2 + 1, time 3 + 5 - 1 = 7; UMM: stages 3 + 2, time 9.
// On the HMM, shared rounds go to the DMM of the thread's block (latency 1)
// and global rounds to the one UMM (latency L); each has its own pipeline.
#pragma once

#include "analysis/models/MemoryModel.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bankwise {

enum class Space : std::uint8_t { Shared, Global };

/// One round of memory access: per thread, an address or NoAccess.
struct Round {
  Space Where = Space::Shared;
  std::vector<Address> Addr;
  bool operator==(const Round &) const = default;
};

struct Trace {
  std::int64_t Threads = 0;
  std::vector<Round> Rounds;
  bool operator==(const Trace &) const = default;
};

struct SimOptions {
  /// Start every round only after the previous one completed, as the papers
  /// count time with synchronous rounds (a __syncthreads between rounds).
  bool Barrier = false;
  /// HMM only: threads per block; block b runs on DMM b mod d. 0 means
  /// ceil(p / d) rounded up to whole warps. Must be a multiple of w.
  std::int64_t BlockThreads = 0;
};

struct RoundStats {
  std::int64_t Stages = 0;       ///< pipeline stages used (sum of warp costs)
  std::int64_t WarpAccesses = 0; ///< warps that had a request
  std::int64_t Requests = 0;     ///< thread requests
  std::int64_t MaxWarpCost = 0;  ///< worst congestion / group count
  std::int64_t Start = 0;        ///< first unit a request of the round entered
  std::int64_t End = 0;          ///< unit count when its last request completed
};

struct SimResult {
  std::int64_t Time = 0;
  std::int64_t Requests = 0;
  std::vector<RoundStats> Rounds;
};

/// Streaming simulator: feed rounds in order, and within a round the warps in
/// increasing order, without materializing a trace.
class Simulator {
public:
  /// Throws UserError for invalid machine parameters or block size.
  Simulator(const Machine &M, std::int64_t Threads, SimOptions Opts = {});
  ~Simulator();
  Simulator(Simulator &&) noexcept;
  Simulator &operator=(Simulator &&) noexcept;

  /// Starts the next round of accesses to space S; with Barrier (or
  /// SimOptions::Barrier) it begins after every earlier request completed.
  void beginRound(Space S, bool Barrier = false);
  /// Warp Warp's lanes (at most w of them; lane i is thread Warp * w + i).
  void warpAccess(std::int64_t Warp, std::span<const Address> Lanes);
  /// Cost-only variant of warpAccess for analyses that know a warp access's
  /// cost K but not its lanes' stages: the access occupies K stages and the
  /// warp issues again once all of it completed (warp-synchronous issue).
  /// K = 0 means no request. Do not mix with warpAccess in one simulation.
  void warpCost(std::int64_t Warp, std::int64_t K, std::int64_t Requests);
  /// Ends the simulation and returns its statistics.
  SimResult finish();

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

/// Simulates a whole trace. Throws UserError for a malformed trace (a round
/// whose length is not Threads, a negative address other than NoAccess).
SimResult simulate(const Machine &M, const Trace &T, SimOptions Opts = {});

} // namespace bankwise
