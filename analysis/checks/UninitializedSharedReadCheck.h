// bankwise-uninitialized-shared-read: a read of an element of a shared array
// declared in the kernel's body (or at the top level) that no thread of the
// block wrote before it: not in an earlier barrier interval, not earlier in
// the reading thread. Shared memory starts with whatever the previous block
// left, so the value read is garbage. A shared kernel parameter models data
// already in shared memory and counts as written. A warning, not an error:
// the program is well defined CUDA, and the value read may go unused (a
// guard later discards it); the message names the element and the thread.
// A write by another thread in the same interval makes the read a race
// (bankwise-shared-race), not this.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One warning per read site that reads an element no thread wrote before
/// it, naming the first such element, thread and block, with the number of
/// such reads, where the element is first written (when it is, later), and
/// the fix.
std::vector<LintFinding> checkUninitializedSharedReads(const CheckedProgram &P);

} // namespace bankwise
