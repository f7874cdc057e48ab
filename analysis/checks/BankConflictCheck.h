// bankwise-bank-conflict: a shared-memory access whose warp needs more
// wavefronts than its bytes do under the sm_90 model (32 banks of 4 bytes;
// 8- and 16-byte accesses take 2 and 4 wavefronts at best).
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One warning per shared site that conflicts ("32-way bank conflict on
/// shared load from 'tile' (lanes stride 32 words)"), with the layout fixes
/// and their predicted wavefronts as notes; a note, not a warning, where the
/// figures are worst cases (data-dependent index, lane mask not known).
std::vector<LintFinding> checkBankConflicts(const std::vector<LintSite> &Sites);

} // namespace bankwise
