// Monte-Carlo reproduction of seed 002's congestion tables:
//   Table II: a w x w matrix under RAW, RAS and RAP, accessed by a warp in
//             contiguous, stride, diagonal and random order;
//   Table IV: a w^4 array under RAW, RAS and the RAPs of Sec. VII, accessed
//             contiguously, along each of the three outer dimensions, at
//             random, and by the worst ("malicious") pattern a search finds.
// Each figure is the expected DMM congestion of one warp access: the mean
// over random layouts (fresh tables every trial) and over the access's
// position (which row, column, ... the warp takes).
#pragma once

#include "analysis/models/Layout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

struct RapTableOptions {
  std::vector<std::int64_t> Widths = {16, 32, 64, 128, 256};
  std::int64_t Trials = 1000; ///< random layouts drawn per (w, layout)
  std::uint64_t Seed = 1;
  int Dims = 2;               ///< 2: Table II; 4: Table IV
};

struct RapTableCell {
  std::int64_t W = 0;
  std::string Layout;  ///< "raw", "ras", "rap", "rap3p", ...
  std::string Pattern; ///< "contiguous", "stride", ..., "malicious"
  double Mean = 0;     ///< expected congestion
  double StdErr = 0;   ///< standard error of the mean
  std::string Detail;  ///< malicious: the pattern found
};

/// Runs the experiment; deterministic for a given Options.Seed.
std::vector<RapTableCell> runRapTable(const RapTableOptions &Options);

} // namespace bankwise
