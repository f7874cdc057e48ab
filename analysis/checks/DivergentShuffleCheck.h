// bankwise-divergent-shuffle: a warp shuffle (`shfl`, `shfl_xor`, `shfl_up`,
// `shfl_down`, CUDA's __shfl_*_sync with the full mask) that not every lane
// of its warp runs, or runs as often as the others: CUDA leaves a full-mask
// shuffle with a lane missing undefined. Found in the thread-by-thread
// trace (analysis/passes/ThreadTrace.h), which knows which threads run
// what; the condition that splits the warp is named by
// analysis/passes/ValueFacts.h's uniformity, as for a divergent `sync`.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One error per shuffle that some warp of a traced block runs with lanes
/// missing (or has fewer than 32 threads), naming the warp, the block and
/// two lanes that differ, with a note at the innermost condition or loop
/// around it that differs between threads, and the fix.
std::vector<LintFinding> checkDivergentShuffles(const CheckedProgram &P);

} // namespace bankwise
