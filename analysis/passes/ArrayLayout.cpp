#include "analysis/passes/ArrayLayout.h"

#include "support/Diagnostic.h"

#include <fmt/format.h>

namespace bankwise {

LayoutFn arrayLayout(const ir::Array &A) {
  LayoutKind Kind = LayoutKind::Raw;
  switch (A.Lay.Kind) {
  case ir::LayoutKind::Raw:
  case ir::LayoutKind::Auto: // not resolved: raw
    Kind = LayoutKind::Raw;
    break;
  case ir::LayoutKind::Pad:
    Kind = LayoutKind::Pad;
    break;
  case ir::LayoutKind::Xor:
    Kind = LayoutKind::Xor;
    break;
  case ir::LayoutKind::Diagonal:
    Kind = LayoutKind::Diagonal;
    break;
  case ir::LayoutKind::Rap:
    Kind = LayoutKind::Rap;
    break;
  }
  try {
    return makeLayout(Kind, A.Shape, A.Lay.Kind == ir::LayoutKind::Pad ? A.Lay.ArgValue : 0,
                      A.Lay.Kind == ir::LayoutKind::Rap ? static_cast<std::uint64_t>(A.Lay.ArgValue) : 0);
  } catch (const UserError &E) {
    throw UserError(A.Loc, fmt::format("array '{}': {}", A.Name, E.diagnostic().Message));
  }
}

} // namespace bankwise
