// Which locals of a kernel the memory analysis never needs the value of.
//
// The analysis prices accesses: what it needs of a value is where it sends
// an address (an index), which lanes run something (a condition, a loop's
// bounds, the left side of `&&` and `||` before a read, the condition of a
// `?:` whose arms read, a shuffle's source lane around a read), and the
// values of the locals those read. A sum of loaded data (`s += a[i]`), a
// flag set under a block guard (`if bx == 0 { s = 0 }`) or a float
// computed only to be stored is never one of them: its value changes no
// figure, yet evaluating it per lane cost time, and assigning it under a
// guard on block indices sent whole kernels to the warp-by-warp path.
//
//   let i = bx * 256 + tx       // observed: an index reads it
//   let s = 0                   // unobserved
//   for k in 0..n { s = s + a[i + k] }   // a's index observed; s not
//   b[i] = s                    // a stored value: not observed
//
// Stored values are not observed because the analysis does not track what
// memory holds (a read of an array gives data, or --data's values).
#pragma once

#include "ir/Program.h"

#include <string>
#include <unordered_set>

namespace bankwise {

struct UnobservedParts {
  /// The names of K's locals (lets and assigned names; loop variables are
  /// never among them) whose values reach no index, condition, loop bound,
  /// or lane choice around an access, directly or through other locals. A
  /// name declared more than once counts as one local: observed when any
  /// use of the name is.
  std::unordered_set<std::string> Locals;
  /// K's idle conditionals and loops: no memory read or written in them (in
  /// their conditions and bounds neither), no barrier, no array declared,
  /// and every local they assign from outside unobserved. Nothing they do
  /// changes a figure: `if (x & 32) != 0 { v = 100 } else { v = 0 }` with v
  /// only stored, a loop computing a float. Their conditions are not
  /// observed (the bitwise `&` above needs no evaluation).
  std::unordered_set<const ir::Stmt *> Statements;
};

UnobservedParts unobservedParts(const ir::Kernel &K);

/// unobservedParts(K).Locals.
std::unordered_set<std::string> unobservedLocals(const ir::Kernel &K);

} // namespace bankwise
