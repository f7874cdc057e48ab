// bankwise-shared-race: two different threads of one block access the same
// shared element between the same two barriers (no `sync` between them),
// at least one of them writing. CUDA orders them in no way, so the read
// gets the old value or the new one, and of two writes either survives.
// Exact: the kernel's trace (analysis/passes/ThreadTrace.h) has every
// thread's element and barrier interval. Lanes of one warp count as
// different threads: CUDA orders a warp's lanes only through __syncwarp(),
// which the language does not have, and since Volta they need not run in
// lockstep.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One error per pair of sites that race (a site with itself when two
/// threads write one element through it), at the write, naming the first
/// pair of threads found, the element and the block, with a note at the
/// other site and the fix.
std::vector<LintFinding> checkSharedRaces(const CheckedProgram &P);

/// Accesses of one block grouped by (array, interval, element), the order
/// both the race check and the uninitialized-read check walk them in.
std::vector<TracedAccess> sortedByElement(const KernelTrace &T, const BlockTrace &B);

/// "(block (1, 0, 0))" for a grid of more than one block, else "".
std::string blockSuffix(const KernelTrace &T, const BlockTrace &B);

} // namespace bankwise
