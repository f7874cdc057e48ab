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

/// The sizes at which the passes (schedules, layout choice) and codegen's
/// predictions decide for Prog's runtime params (`param R`; the ones
/// computed from them follow): Given's
/// value where it names one, else the smallest value from 64 up that meets
/// the param's `where` (in declaration order, each with the earlier ones
/// bound): {R: 64, C: 64} for `param R` and `param C`, {N: 256} for `param N
/// where N % 256 == 0`. Throws UserError when Given names no runtime param or
/// breaks a constraint, or when no value up to 2^20 meets a `where`.
Bindings representativeSizes(const Program &Prog, const Bindings &Given);

/// Whether E reads a runtime param of Prog (one without a value).
bool readsRuntimeParam(const Program &Prog, const Expr &E);

/// The values of every param that has one (constants and bound runtime
/// params): the environment of evalConstant.
ConstEnv paramValues(const Program &Prog);

} // namespace bankwise::ir
