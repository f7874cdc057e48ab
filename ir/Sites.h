// Access sites' ids (ArrayRead::Site). Every element access of a program
// (a read, an assignment's target, an atomic's target) is numbered when the
// program is made (dsl::parseProgram, the lint's lowering) and keeps its
// number through every copy (bindParams, a pass's deep copy, a per-size
// instance); a pass that makes new accesses numbers them after the others
// (runPipeline does, after each pass). Code that holds a site of one copy
// finds it in another by id (findSite) instead of walking both programs in
// step; --dump-ir-after prints the ids.
#pragma once

#include "ir/Program.h"

#include <vector>

namespace bankwise::ir {

/// Gives every access of P without an id (Site == 0) the next free one,
/// in program order (kernels, their statements, each statement's
/// expressions parents first), above both P's highest id and Floor (a
/// pass that replaced accesses passes the highest id before it, so no id
/// names two accesses over the passes); ids already given are kept.
/// Returns P's highest id after.
int numberSites(Program &P, int Floor = 0);

/// The access of K with id Site; nullptr when K has none (or Site is 0).
const ArrayRead *findSite(const Kernel &K, int Site);

/// The accesses a statement holds itself (not those of nested blocks), in
/// source order: what the printer lists after the statement's line.
std::vector<const ArrayRead *> ownSites(const Stmt &S);

} // namespace bankwise::ir
