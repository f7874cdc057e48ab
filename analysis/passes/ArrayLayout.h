// An array's address function: the one translation from the IR's layout
// value (ir::Layout, as declared or as layout auto chose it) to the models'
// LayoutFn, for the analysis and for codegen alike, so both map an index to
// the same address.
#pragma once

#include "analysis/models/Layout.h"
#include "ir/Program.h"

namespace bankwise {

/// The layout function of A as declared; `auto` that no pass resolved is
/// raw. Throws UserError, located at A, when the layout does not fit A's
/// shape (xor needs a power-of-two row).
LayoutFn arrayLayout(const ir::Array &A);

} // namespace bankwise
