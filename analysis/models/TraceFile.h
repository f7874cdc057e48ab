// A plain-text trace of warp accesses for `bankwise model --trace`:
//
//   # seed 001, Fig. 3 (p = 8, w = 4)
//   round            # or "round shared" / "round global" (HMM spaces)
//   7 5 15 0         # W(0): one address per lane, '-' for an inactive lane
//   10 11 12 9       # W(1)
//
// Every non-blank line after a "round" line is the next warp of that round.
// A warp line has at most w entries (missing lanes are inactive). Comments
// run from '#' to the end of the line. The trace has as many threads as the
// widest round needs, in whole warps.
#pragma once

#include "analysis/models/Simulator.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace bankwise {

/// Parses Text (named File in diagnostics). Throws UserError with the line
/// and column of the first problem.
Trace parseTrace(std::string_view Text, const std::string &File,
                 std::int64_t W);

/// Reads and parses the file at Path.
Trace loadTraceFile(const std::string &Path, std::int64_t W);

} // namespace bankwise
