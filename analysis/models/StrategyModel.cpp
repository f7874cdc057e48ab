#include "analysis/models/StrategyModel.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace bankwise {

std::string_view spelling(Strategy S) {
  switch (S) {
  case Strategy::Scatter: return "scatter";
  case Strategy::Gather: return "gather";
  case Strategy::Bits: return "bits";
  case Strategy::Colored: return "colored";
  }
  return "?";
}

SectorTraffic sectorTraffic(const Permutation &X, int ElemBytes, std::uint64_t BlockThreads,
                            std::uint64_t ReuseThreads) {
  SectorTraffic T;
  const std::uint64_t N = X.size();
  const std::uint64_t PerSector = ElemBytes >= 32 ? 1 : 32 / static_cast<std::uint64_t>(ElemBytes);
  const std::uint64_t SectorsOf = ElemBytes >= 32 ? static_cast<std::uint64_t>(ElemBytes) / 32 : 1;
  const std::uint64_t NumSectors = (N + PerSector - 1) / PerSector;
  const std::uint64_t G = std::clamp<std::uint64_t>(BlockThreads, 1, 1024);
  constexpr std::uint32_t Never = std::numeric_limits<std::uint32_t>::max();
  // The block (t / G) that last touched each sector.
  std::vector<std::uint32_t> Last(static_cast<std::size_t>(NumSectors), Never);
  const std::uint64_t ReuseBlocks = std::max<std::uint64_t>(1, ReuseThreads / G);
  std::vector<std::uint64_t> S(static_cast<std::size_t>(G));
  for (std::uint64_t Blk = 0; Blk * G < N; ++Blk) {
    const std::uint64_t Lanes = std::min<std::uint64_t>(G, N - Blk * G);
    for (std::uint64_t L = 0; L < Lanes; ++L)
      S[static_cast<std::size_t>(L)] = X(Blk * G + L) / PerSector;
    std::sort(S.begin(), S.begin() + static_cast<std::ptrdiff_t>(Lanes));
    std::uint64_t LastLine = 0;
    bool AnyLine = false;
    for (std::uint64_t I = 0; I < Lanes;) {
      std::uint64_t J = I;
      while (J < Lanes && S[static_cast<std::size_t>(J)] == S[static_cast<std::size_t>(I)])
        ++J;
      const std::uint64_t Sector = S[static_cast<std::size_t>(I)];
      std::uint32_t &Seen = Last[static_cast<std::size_t>(Sector)];
      // Elements of 32 bytes or more fill their sectors whatever the lanes;
      // a sector the block fills is written (or read) whole, as in a copy.
      bool Fetched = false;
      if (J - I == PerSector || PerSector == 1)
        T.Full += SectorsOf;
      else if (Seen == Never)
        ++T.First, Fetched = true;
      else if (Blk - Seen <= ReuseBlocks)
        ++T.Reused;
      else
        ++T.Refetched, Fetched = true;
      // Sorted sectors: a new line starts when the line number changes.
      if (Fetched && (Sector / 4 != LastLine || !AnyLine)) {
        ++T.FetchedLines;
        LastLine = Sector / 4;
        AnyLine = true;
      }
      Seen = static_cast<std::uint32_t>(Blk);
      I = J;
    }
  }
  return T;
}

StrategyCosts StrategyCosts::sm90() {
  // Fitted on an H100 80GB HBM3 (strategies.md of 2026-11-24: six P at
  // n = 2^20 and 2^26, f32, blocks of 256); bench/fit-strategy-model.py
  // prints the fit and each row's estimate against its median.
  StrategyCosts C;
  C.LaunchUs = 5.8;
  C.L2Bytes = 40e6;
  C.StreamBytesPerUs = 2.33e6;
  C.FirstReadUs = 11.9e-6;
  C.RefetchReadUs = 0.9e-6;
  C.ReusedReadUs = 0;
  C.LineReadUs = 29.2e-6;
  C.FirstWriteUs = 0;
  C.RefetchWriteUs = 4.5e-6;
  C.ReusedWriteUs = 8.9e-6;
  C.LineWriteUs = 68.3e-6;
  C.L2BytesPerUs = 3.65e6;
  C.ResidentReadUs = 5.4e-6;
  C.ResidentWriteUs = 14.8e-6;
  C.BitsBytesPerUs = 2.75e6;
  // The three pass kernels run back to back: 19.5 us at n = 2^20 (in L2),
  // 973 us at 2^26.
  C.ColoredLaunchUs = 3.1;
  C.ColoredBytesPerUs = 2.39e6;
  return C;
}

std::string describe(const StrategyChoice &C) {
  std::string Others;
  for (const StrategyEstimate &E : C.Estimates) {
    if (E.Kind == C.Chosen)
      continue;
    Others += fmt::format("{}{} ", Others.empty() ? "" : "; ", spelling(E.Kind));
    Others += E.Applies ? fmt::format("{:.4g} us", E.Us) : "does not apply (" + E.Detail + ")";
  }
  return fmt::format("{} (estimated {:.4g} us on sm_90); {}", spelling(C.Chosen), C.chosen().Us, Others);
}

std::uint64_t breakEvenRuns(const StrategyChoice &C, double ScheduleSeconds) {
  const StrategyEstimate &Col = C.Estimates[static_cast<std::size_t>(Strategy::Colored)];
  double Other = std::numeric_limits<double>::infinity();
  for (const StrategyEstimate &E : C.Estimates)
    if (E.Kind != Strategy::Colored && E.Applies)
      Other = std::min(Other, E.Us);
  if (!Col.Applies || !(Other > Col.Us) || Other == std::numeric_limits<double>::infinity())
    return 0;
  return static_cast<std::uint64_t>(std::ceil(ScheduleSeconds * 1e6 / (Other - Col.Us)));
}

StrategyChoice chooseStrategy(const StrategyInputs &In, const StrategyCosts &C) {
  StrategyChoice R;
  const double N = static_cast<double>(In.P->size());
  const double B = In.ElemBytes;
  auto Rate = [&](double WorkingSet) {
    return WorkingSet <= C.L2Bytes ? C.L2BytesPerUs : C.StreamBytesPerUs;
  };
  // One pass; Side is the scattered array's index map, Table the index
  // bytes read per element.
  auto OnePass = [&](Strategy S, const Permutation &Side, int Table, bool Write) {
    StrategyEstimate E;
    E.Kind = S;
    E.Applies = true;
    E.Passes = 1;
    const double Set = N * (2 * B + Table);
    E.Resident = Set <= C.L2Bytes;
    // A sector touched again is still in L2 when the scattered array fits
    // there (the streamed arrays pass through), or when few threads ran in
    // between.
    const auto Reuse = N * B <= C.L2Bytes ? std::numeric_limits<std::uint64_t>::max()
                                          : static_cast<std::uint64_t>(C.L2Bytes / (32 + B + Table));
    E.Traffic = sectorTraffic(Side, In.ElemBytes, static_cast<std::uint64_t>(In.BlockThreads), Reuse);
    const SectorTraffic &T = E.Traffic;
    E.StreamBytes = N * (B + Table) + 32.0 * static_cast<double>(T.Full);
    const double First = static_cast<double>(T.First), Reused = static_cast<double>(T.Reused),
                 Refetched = static_cast<double>(T.Refetched);
    double Us = C.LaunchUs + E.StreamBytes / Rate(Set);
    if (E.Resident) // everything stays in L2: every partial sector is a hit
      Us += (First + Reused + Refetched) * (Write ? C.ResidentWriteUs : C.ResidentReadUs);
    else if (Write)
      Us += First * C.FirstWriteUs + Refetched * C.RefetchWriteUs + Reused * C.ReusedWriteUs +
            static_cast<double>(T.FetchedLines) * C.LineWriteUs;
    else
      Us += First * C.FirstReadUs + Refetched * C.RefetchReadUs + Reused * C.ReusedReadUs +
            static_cast<double>(T.FetchedLines) * C.LineReadUs;
    E.Us = Us;
    E.Detail = fmt::format("{} {} sectors: {} whole, {} partial first, {} partial again in L2, {} partial from "
                           "DRAM again, {} lines fetched; {:.3g} MB in whole sectors{}",
                           Write ? "writes" : "reads", Write ? "b" : "a", T.Full, T.First, T.Reused, T.Refetched,
                           T.FetchedLines,
                           E.StreamBytes / 1e6, E.Resident ? " (working set fits in L2)" : "");
    return E;
  };
  R.Estimates.push_back(OnePass(Strategy::Scatter, *In.P, In.ScatterTableBytes, true));
  R.Estimates.push_back(OnePass(Strategy::Gather, *In.Inv, In.GatherTableBytes, false));
  {
    StrategyEstimate E;
    E.Kind = Strategy::Bits;
    E.Applies = In.IsBits;
    E.Passes = 1;
    if (E.Applies) {
      const double Set = 2 * N * B;
      E.Resident = Set <= C.L2Bytes;
      E.StreamBytes = Set;
      E.Us = C.LaunchUs + Set / (E.Resident ? C.L2BytesPerUs : C.BitsBytesPerUs);
      E.Detail = fmt::format("one tiled pass, {:.3g} MB in whole sectors", Set / 1e6);
    } else
      E.Detail = In.WhyNotBits;
    R.Estimates.push_back(E);
  }
  {
    StrategyEstimate E;
    E.Kind = Strategy::Colored;
    E.Applies = In.ColoredApplies;
    E.Passes = 3;
    if (E.Applies) {
      const double Pass = N * (2 * B + In.ColoredMetaBytes);
      E.Resident = Pass <= C.L2Bytes;
      E.StreamBytes = 3 * Pass;
      E.Us = 3 * C.ColoredLaunchUs + 3 * Pass / (E.Resident ? C.L2BytesPerUs : C.ColoredBytesPerUs);
      E.Detail = fmt::format("three passes of {:.3g} MB (a, b and {} bytes of s and d per element)", Pass / 1e6,
                             In.ColoredMetaBytes);
    } else
      E.Detail = In.WhyNotColored;
    R.Estimates.push_back(E);
  }
  // The fastest; on a tie the fewest passes and tables.
  double Best = std::numeric_limits<double>::infinity();
  for (Strategy S : {Strategy::Bits, Strategy::Gather, Strategy::Scatter, Strategy::Colored}) {
    const StrategyEstimate &E = R.Estimates[static_cast<std::size_t>(S)];
    if (E.Applies && E.Us < Best * (1 - 1e-9)) {
      Best = E.Us;
      R.Chosen = S;
    }
  }
  return R;
}

} // namespace bankwise
