// Prints IR as DSL text. The output parses back to an equal value:
// parseProgram(print(P)) == P for every P the parser produced (given the
// same -D overrides). Output is deterministic and fully canonical: two-space
// indentation, minimal parentheses, declarations grouped as
// target, params, machine, permutations, arrays, kernels, launches.
#pragma once

#include "ir/Program.h"

#include <string>

namespace bankwise::ir {

/// What the printer adds to the program's text.
struct PrintOptions {
  /// Each statement's access sites' ids (ir/Sites.h) as a comment at the
  /// end of its line (a compound statement's: after its `{`):
  /// `out[i] = a[j]  # sites #1 out, #2 a`. The text parses back the same.
  bool SiteIds = false;
};

/// DSL text of a whole program, ending in a newline.
std::string print(const Program &P);
std::string print(const Program &P, const PrintOptions &Opts);
/// DSL text of one expression, with the fewest parentheses that keep its
/// shape: `(a + b) * c`, `a - (b - c)`.
std::string print(const Expr &E);
/// DSL text of one statement at the given indentation (in levels of two
/// spaces), ending in a newline.
std::string print(const Stmt &S, int Indent = 0);
std::string print(const Stmt &S, int Indent, const PrintOptions &Opts);
/// `f32[N][N] layout pad(1)`: the element type, dims and attributes.
std::string printArrayType(const Array &A);

} // namespace bankwise::ir
