// Binding runtime params: a program whose params have no value (`param R`)
// keeps its shapes and grids as expressions; bindParams gives those params
// values and evaluates everything that depends on them, as `-D` would, so
// every pass that needs concrete sizes runs on the bound copy.
#pragma once

#include "ir/Eval.h"
#include "ir/Program.h"

#include <cstdint>
#include <map>
#include <string>

namespace bankwise::ir {

using Bindings = std::map<std::string, std::int64_t, std::less<>>;

/// Prog with each runtime param named in Values set (Runtime cleared,
/// Overridden set), the params computed from them re-evaluated, and every
/// global array shape and grid recomputed. Throws UserError, located, when a
/// value breaks a `where` constraint, makes a dimension non-positive or a
/// grid exceed CUDA's limits, or overflows. Params not named stay runtime;
/// naming a param that is not runtime is an error.
Program bindParams(const Program &Prog, const Bindings &Values);

/// The values of every param that has one (constants and bound runtime
/// params): the environment of evalConstant.
ConstEnv paramValues(const Program &Prog);

} // namespace bankwise::ir
