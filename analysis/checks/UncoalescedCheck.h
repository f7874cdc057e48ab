// bankwise-uncoalesced: a global-memory access whose warp touches more
// 32-byte sectors than its bytes need, by more than the one extra sector a
// misaligned but contiguous warp costs.
#pragma once

#include "analysis/checks/Checks.h"

namespace bankwise {

/// One warning per global site with more sectors per request than the
/// ideal + 1 ("uncoalesced global load from 'in': 32 sectors per request,
/// 4 at best (lanes stride 64 words)").
std::vector<LintFinding> checkUncoalesced(const std::vector<LintSite> &Sites);

} // namespace bankwise
