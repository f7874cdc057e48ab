// The calibrated cost of moving one offline permutation of global memory,
// b[P(i)] = a[i], by each strategy bankwise has (issue [8] goal 5,
// `schedule auto`):
//
//   scatter  b[P(t)] = a[t]          one pass: a read in whole sectors, b
//                                    written where P sends each lane
//   gather   b[t] = a[P^-1(t)]       one pass: b written in whole sectors, a
//                                    read where P^-1 sends each lane
//   bits     one tiled pass          when P permutes the index bits (BPC)
//   colored  seed 001's three passes 4-byte elements, n with an sm_90 shape
//
// Every pass's cost is counted from P itself, block by block (the kernel's
// consecutive threads), as the sectors each block touches on the scattered
// side:
//
//   full      the block uses the whole 32-byte sector (streamed, like a copy)
//   first     a partial sector touched for the first time
//   reused    a partial sector touched again within ReuseBytes of traffic
//             (still in L2)
//   refetched a partial sector touched again later (fetched from DRAM again)
//
// with the 128-byte lines of the first and refetched sectors counted per
// block beside them,
// and the whole-sector traffic of the other array and of the index table.
// The time is a sum of those counts times per-sector costs fitted to the
// strategies measured side by side on an H100 (bench/results/h100/
// strategies.md; the fit is bench/fit-strategy-model.py), plus a launch
// cost per pass; a working set that fits in L2 (the same buffers moved
// again, as a benchmark or a training loop does) moves at L2's rate.
#pragma once

#include "analysis/models/Permutation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

enum class Strategy { Scatter, Gather, Bits, Colored };
std::string_view spelling(Strategy S);

/// Per-block sector counts of one array accessed at X(t), t = 0..n-1.
struct SectorTraffic {
  std::uint64_t Full = 0, First = 0, Reused = 0, Refetched = 0;
  /// The 128-byte lines of the First and Refetched sectors, counted per
  /// block: DRAM serves the sectors of one line together, so a warp reading
  /// 32 sectors of 8 lines (a stride of 8 floats) costs far less than one
  /// reading 32 sectors of 32 lines (a random gather).
  std::uint64_t FetchedLines = 0;
};

/// The sectors of an array of X.size() elements of ElemBytes (1..32, a
/// power of two) that blocks of BlockThreads consecutive threads touch at
/// X(t), each sector once per block: Full when the block covers it, else a
/// partial sector, Reused when fewer than ReuseThreads threads ran since its
/// last touch and Refetched otherwise.
SectorTraffic sectorTraffic(const Permutation &X, int ElemBytes, std::uint64_t BlockThreads,
                            std::uint64_t ReuseThreads);

/// The H100 (sm_90) constants: microseconds per launch, bytes per
/// microsecond, microseconds per sector or line. Fitted to the medians of
/// bench/results/h100/strategies.md (bench/fit-strategy-model.py).
struct StrategyCosts {
  double LaunchUs = 0;
  double L2Bytes = 0;            ///< the working set L2 holds between runs
  /// One-pass kernels, working set beyond L2: whole-sector bytes, then
  /// each partial sector by class, and each fetched line.
  double StreamBytesPerUs = 0;
  double FirstReadUs = 0, RefetchReadUs = 0, ReusedReadUs = 0, LineReadUs = 0;
  double FirstWriteUs = 0, RefetchWriteUs = 0, ReusedWriteUs = 0, LineWriteUs = 0;
  /// One-pass kernels, working set in L2: whole-sector bytes, and every
  /// partial sector.
  double L2BytesPerUs = 0;
  double ResidentReadUs = 0, ResidentWriteUs = 0;
  /// The tiled bit-permutation pass and the colored passes (a, b, s, d).
  double BitsBytesPerUs = 0;
  double ColoredLaunchUs = 0, ColoredBytesPerUs = 0;
  static StrategyCosts sm90();
};

struct StrategyEstimate {
  Strategy Kind = Strategy::Scatter;
  bool Applies = false;
  double Us = 0;          ///< estimated time, when it applies
  std::string Detail;     ///< the counts behind Us, or why it does not apply
  /// The counts (one-pass strategies: the scattered side's sectors).
  SectorTraffic Traffic;
  double StreamBytes = 0; ///< bytes moved in whole sectors
  int Passes = 0;
  bool Resident = false;  ///< the working set fits in L2
};

struct StrategyInputs {
  const Permutation *P = nullptr;   ///< the map: b[P(i)] = a[i]
  const Permutation *Inv = nullptr; ///< P^-1
  int ElemBytes = 4;
  int BlockThreads = 256; ///< of the one-pass kernels
  /// Bytes of index table each strategy reads per element: 0 where the
  /// permutation has a closed form (bit reversal, shuffle, ...).
  int ScatterTableBytes = 4, GatherTableBytes = 4;
  bool IsBits = false;              ///< P is a BPC permutation (n >= 1024)
  std::string WhyNotBits;
  bool ColoredApplies = false;
  std::string WhyNotColored;
  /// Bytes of metadata per element per pass of the colored schedule.
  int ColoredMetaBytes = 4;
};

struct StrategyChoice {
  std::vector<StrategyEstimate> Estimates; ///< scatter, gather, bits, colored
  Strategy Chosen = Strategy::Gather;
  const StrategyEstimate &chosen() const { return Estimates[static_cast<std::size_t>(Chosen)]; }
};

/// "gather (est. 12.3 us); scatter 20.1 us, colored 19.5 us, bits: <why
/// not>": the choice first, then the others.
std::string describe(const StrategyChoice &C);

/// The runs after which the colored passes have paid for their offline
/// schedule (ScheduleSeconds of CPU, once per P) against the fastest
/// one-pass strategy that applies, by the estimates; 0 when colored is not
/// faster than it.
std::uint64_t breakEvenRuns(const StrategyChoice &C, double ScheduleSeconds);

/// Estimates every strategy and picks the fastest (ties to the earlier of
/// bits, gather, scatter, colored: the fewest passes and tables).
StrategyChoice chooseStrategy(const StrategyInputs &In, const StrategyCosts &C = StrategyCosts::sm90());

} // namespace bankwise
