// Evaluation of IR expressions with 64-bit checked arithmetic. One set of
// semantics for every consumer: the front end folds constants with it and an
// analysis evaluates index expressions per thread through its hooks.
#pragma once

#include "ir/Expr.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace bankwise::ir {

/// The outcome of evaluating an expression: a value; "not constant" when a
/// leaf has no value (Loc and Message say which); or an error such as
/// overflow or division by zero (Loc is the operator).
struct EvalResult {
  enum class Status { Value, NotConstant, Error };
  Status St = Status::Value;
  std::int64_t Value = 0;
  SourceLoc Loc;
  std::string Message;

  bool ok() const { return St == Status::Value; }
  static EvalResult value(std::int64_t V) { return {Status::Value, V, {}, {}}; }
  static EvalResult notConstant(SourceLoc L, std::string M) {
    return {Status::NotConstant, 0, std::move(L), std::move(M)};
  }
  static EvalResult error(SourceLoc L, std::string M) {
    return {Status::Error, 0, std::move(L), std::move(M)};
  }
};

/// Values for the leaves that are not literals. An unset hook, or one that
/// returns nullopt, makes the leaf "not constant".
struct EvalHooks {
  std::function<std::optional<std::int64_t>(const VarRef &)> Var;
  std::function<std::optional<std::int64_t>(Builtin)> BuiltinValue;
  /// Array name and evaluated indices -> element value.
  std::function<std::optional<std::int64_t>(const std::string &,
                                            const std::vector<std::int64_t> &)>
      Read;
  /// Permutation name, inverse?, argument -> value.
  std::function<std::optional<std::int64_t>(const std::string &, bool,
                                            std::int64_t)>
      Perm;
};

/// Evaluates E bottom-up; && and || short-circuit. Semantics: / and % round
/// toward negative infinity (-7 / 2 == -4, -1 % 4 == 3); << and >> need a
/// shift in [0, 63]; comparisons give 0 or 1; overflow is an error.
EvalResult evaluate(const Expr &E, const EvalHooks &Hooks);

/// Op applied to A and B into R, as applyBinary does; false where
/// applyBinary gives an error (overflow, division by zero, a shift out of
/// range), leaving R unspecified. Inline: the analyses apply it per lane.
inline bool tryApplyBinary(BinaryOp Op, std::int64_t A, std::int64_t B, std::int64_t &R) {
  switch (Op) {
  case BinaryOp::Add: return !__builtin_add_overflow(A, B, &R);
  case BinaryOp::Sub: return !__builtin_sub_overflow(A, B, &R);
  case BinaryOp::Mul: return !__builtin_mul_overflow(A, B, &R);
  case BinaryOp::Div:
  case BinaryOp::Mod: {
    if (B == 0 || (A == INT64_MIN && B == -1))
      return false; // (INT64_MIN mod -1 is 0: applyBinary says so)
    std::int64_t Q = A / B, M = A % B;
    if (M != 0 && ((M < 0) != (B < 0))) {
      --Q;
      M += B;
    }
    R = Op == BinaryOp::Div ? Q : M;
    return true;
  }
  case BinaryOp::Shl:
    return B >= 0 && B < 63 && !__builtin_mul_overflow(A, std::int64_t{1} << B, &R);
  case BinaryOp::Shr:
    if (B < 0 || B > 63)
      return false;
    R = A >> B;
    return true;
  case BinaryOp::BitAnd: R = A & B; return true;
  case BinaryOp::BitOr: R = A | B; return true;
  case BinaryOp::BitXor: R = A ^ B; return true;
  case BinaryOp::Lt: R = A < B; return true;
  case BinaryOp::Le: R = A <= B; return true;
  case BinaryOp::Gt: R = A > B; return true;
  case BinaryOp::Ge: R = A >= B; return true;
  case BinaryOp::Eq: R = A == B; return true;
  case BinaryOp::Ne: R = A != B; return true;
  case BinaryOp::LogAnd: R = A != 0 && B != 0; return true;
  case BinaryOp::LogOr: R = A != 0 || B != 0; return true;
  }
  return false;
}

/// One binary operation with the semantics above (not for && and ||, which
/// short-circuit in evaluate). Loc is used for an error.
EvalResult applyBinary(BinaryOp Op, std::int64_t A, std::int64_t B,
                       const SourceLoc &Loc = {});

/// One built-in function call (min, max, log2, bitrev) with the semantics
/// above; checks the number of arguments. Loc is used for an error.
EvalResult applyCall(Function Fn, const std::vector<std::int64_t> &Args,
                     const SourceLoc &Loc = {});

/// Values of parameters visible to a constant expression.
using ConstEnv = std::map<std::string, std::int64_t, std::less<>>;

/// Evaluates a constant expression whose only names are in Env. On error
/// (overflow, division by zero, a name not in Env, a thread built-in, a
/// memory read) reports it to Diags at its location and returns nullopt.
std::optional<std::int64_t> evalConstant(const Expr &E, const ConstEnv &Env,
                                         DiagnosticEngine &Diags);

} // namespace bankwise::ir
