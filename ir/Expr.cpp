#include "ir/Expr.h"

#include <fmt/format.h>

namespace bankwise::ir {

std::string_view spelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  }
  return "?";
}

std::string_view spelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::LogAnd:
    return "&&";
  case BinaryOp::LogOr:
    return "||";
  }
  return "?";
}

std::string_view spelling(Function Fn) {
  switch (Fn) {
  case Function::Min:
    return "min";
  case Function::Max:
    return "max";
  case Function::Log2:
    return "log2";
  case Function::Bitrev:
    return "bitrev";
  }
  return "?";
}

std::string_view spelling(Builtin B) {
  switch (B) {
  case Builtin::Tid:
    return "tid";
  case Builtin::Lane:
    return "lane";
  case Builtin::Warp:
    return "warp";
  case Builtin::Tx:
    return "tx";
  case Builtin::Ty:
    return "ty";
  case Builtin::Tz:
    return "tz";
  case Builtin::Bx:
    return "bx";
  case Builtin::By:
    return "by";
  case Builtin::Bz:
    return "bz";
  }
  return "?";
}

std::string_view spelling(AtomicOp Op) {
  switch (Op) {
  case AtomicOp::Add:
    return "atomic_add";
  case AtomicOp::Sub:
    return "atomic_sub";
  case AtomicOp::Min:
    return "atomic_min";
  case AtomicOp::Max:
    return "atomic_max";
  case AtomicOp::And:
    return "atomic_and";
  case AtomicOp::Or:
    return "atomic_or";
  case AtomicOp::Xor:
    return "atomic_xor";
  case AtomicOp::Exch:
    return "atomic_exch";
  case AtomicOp::Inc:
    return "atomic_inc";
  case AtomicOp::Dec:
    return "atomic_dec";
  case AtomicOp::Cas:
    return "atomic_cas";
  }
  return "?";
}

std::string_view spelling(ShuffleOp Op) {
  switch (Op) {
  case ShuffleOp::Idx:
    return "shfl";
  case ShuffleOp::Xor:
    return "shfl_xor";
  case ShuffleOp::Up:
    return "shfl_up";
  case ShuffleOp::Down:
    return "shfl_down";
  }
  return "?";
}

std::string_view cudaSpelling(ShuffleOp Op) {
  switch (Op) {
  case ShuffleOp::Idx:
    return "__shfl_sync";
  case ShuffleOp::Xor:
    return "__shfl_xor_sync";
  case ShuffleOp::Up:
    return "__shfl_up_sync";
  case ShuffleOp::Down:
    return "__shfl_down_sync";
  }
  return "?";
}

std::int64_t shuffleSource(ShuffleOp Op, std::int64_t L, std::int64_t Arg) {
  switch (Op) {
  case ShuffleOp::Idx:
    return ((Arg % 32) + 32) % 32;
  case ShuffleOp::Xor:
    return Arg >= 0 && (L ^ Arg) < 32 ? L ^ Arg : L;
  case ShuffleOp::Up:
    return Arg >= 0 && L - Arg >= 0 ? L - Arg : L;
  case ShuffleOp::Down:
    return Arg >= 0 && Arg < 32 && L + Arg < 32 ? L + Arg : L;
  }
  return L;
}

int arity(Function Fn) { return Fn == Function::Log2 ? 1 : 2; }

int arity(AtomicOp Op) { return Op == AtomicOp::Cas ? 2 : 1; }

int precedence(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::LogOr:
    return 1;
  case BinaryOp::LogAnd:
    return 2;
  case BinaryOp::BitOr:
    return 3;
  case BinaryOp::BitXor:
    return 4;
  case BinaryOp::BitAnd:
    return 5;
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    return 6;
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
    return 7;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    return 8;
  case BinaryOp::Add:
  case BinaryOp::Sub:
    return 9;
  case BinaryOp::Mul:
  case BinaryOp::Div:
  case BinaryOp::Mod:
    return 10;
  }
  return 0;
}

std::string floatSpelling(double V) {
  std::string S = fmt::format("{}", V);
  if (S.find_first_of(".eEn") == std::string::npos) // not 1e+20, inf or nan
    S += ".0";
  return S;
}

} // namespace bankwise::ir
