// The lint analyzes kernels that lower to one IR once (a template's
// instantiations whose parameter the IR does not see): figuresKey says
// which kernels those are.
#pragma once

#include "frontend/CudaLowering.h"
#include "ir/Program.h"

#include <string>

namespace bankwise::driver {

/// What lintSites reads of a lowered kernel, its name aside: the program
/// One (its params and this kernel alone) as printed, every location in the
/// kernel's IR, and the lowering's lane-mask and source-name facts. Kernels
/// with one key (instantiations of a template whose parameter the IR does
/// not see, as mergeSort's sortDir in a data comparison) get the same sites.
std::string figuresKey(const ir::Program &One, const frontend::LoweredKernel &LK);

} // namespace bankwise::driver
