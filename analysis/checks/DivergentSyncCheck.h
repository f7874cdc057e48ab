// bankwise-divergent-sync: a `sync` (CUDA's __syncthreads()) under an `if`
// whose condition, or in a loop whose bounds, may differ between threads of
// one block. Threads that skip it never arrive at the barrier: CUDA leaves
// that undefined (a hang, or a barrier that does not wait). Uniformity is
// analysis/passes/ValueFacts.h's, the facts codegen decides by: built-ins
// other than bx, by, bz differ between threads, so do memory reads and
// locals assigned after their `let`.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One error per `sync` under a non-uniform condition or loop ("'sync'
/// under a condition that differs between threads of a block"), with a note
/// at the outermost such condition naming what differs, and the fix.
std::vector<LintFinding> checkDivergentSync(const CheckedProgram &P);

class ValueFacts;
/// What makes E differ between threads, by VF: "'tx'", "a read of 'a'",
/// "'i', which differs between threads"; a generic phrase when no part does.
std::string firstVarying(const ir::Expr &E, const ValueFacts &VF);

} // namespace bankwise
