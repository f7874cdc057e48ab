// bankwise-unwritten-output: an output (a global array the kernel, or the
// `launch` it is part of, writes and never reads) with elements no thread
// writes. The classic cause is a grid rounded down, `grid (N / 32)` with N
// = 100, which leaves out[96..99] as they were, and the generated harness,
// which checks the elements the kernel writes, cannot notice. Arrays that
// are also read are in-place data (`sum` halves its array): elements they
// keep are not unwritten outputs. Exact over every block of the launch
// (the trace's coverage); a launch too large to evaluate is not checked.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One warning per unwritten output, at its declaration: how many of its
/// elements no thread writes and the first of them, with the grid and the
/// fix as notes.
std::vector<LintFinding> checkUnwrittenOutputs(const CheckedProgram &P);

} // namespace bankwise
