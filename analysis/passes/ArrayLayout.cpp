#include "analysis/passes/ArrayLayout.h"

#include "support/Diagnostic.h"

#include <fmt/format.h>

namespace bankwise {

LayoutFn arrayLayout(const ir::Array &A) {
  // The IR's kind is the models' (an unresolved auto is laid out as raw).
  const LayoutKind Kind = A.Lay.Kind == LayoutKind::Auto ? LayoutKind::Raw : A.Lay.Kind;
  try {
    return makeLayout(Kind, A.Shape, A.Lay.Kind == ir::LayoutKind::Pad ? A.Lay.ArgValue : 0,
                      A.Lay.Kind == ir::LayoutKind::Rap ? static_cast<std::uint64_t>(A.Lay.ArgValue) : 0);
  } catch (const UserError &E) {
    throw UserError(A.Loc, fmt::format("array '{}': {}", A.Name, E.diagnostic().Message));
  }
}

} // namespace bankwise
