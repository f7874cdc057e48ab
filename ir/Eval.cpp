#include "ir/Eval.h"

#include <fmt/format.h>

namespace bankwise::ir {

namespace {

EvalResult overflow(const SourceLoc &Loc, std::int64_t A, BinaryOp Op,
                    std::int64_t B) {
  return EvalResult::error(
      Loc, fmt::format("integer overflow: {} {} {} does not fit in 64 bits", A,
                       spelling(Op), B));
}

EvalResult shiftOut(const SourceLoc &Loc, std::int64_t B) {
  return EvalResult::error(
      Loc, fmt::format("shift amount {} is out of range [0, 63]", B));
}

struct Evaluator {
  const EvalHooks &Hooks;

  EvalResult eval(const Expr &E) {
    return std::visit([&](const auto &N) { return evalNode(N, E.Loc); },
                      E.Node);
  }

  EvalResult evalNode(const IntLit &N, const SourceLoc &) {
    return EvalResult::value(N.Value);
  }

  EvalResult evalNode(const FloatLit &N, const SourceLoc &Loc) {
    return EvalResult::notConstant(
        Loc, fmt::format("floating-point literal '{}' is not an integer",
                         floatSpelling(N.Value)));
  }

  /// Only the chosen arm is evaluated (its errors only when chosen).
  EvalResult evalNode(const Select &N, const SourceLoc &) {
    EvalResult C = eval(*N.Cond);
    if (!C.ok())
      return C;
    return eval(C.Value != 0 ? *N.Then : *N.Else);
  }

  EvalResult evalNode(const Atomic &N, const SourceLoc &Loc) {
    return EvalResult::notConstant(
        Loc, fmt::format("'{}' updates memory; it is not a constant",
                         spelling(N.Op)));
  }

  EvalResult evalNode(const Shuffle &N, const SourceLoc &Loc) {
    return EvalResult::notConstant(
        Loc, fmt::format("'{}' reads another lane; it is not a constant",
                         spelling(N.Op)));
  }

  EvalResult evalNode(const VarRef &N, const SourceLoc &Loc) {
    if (Hooks.Var)
      if (auto V = Hooks.Var(N))
        return EvalResult::value(*V);
    return EvalResult::notConstant(
        Loc, fmt::format("'{}' is not a constant", N.Name));
  }

  EvalResult evalNode(const BuiltinRef &N, const SourceLoc &Loc) {
    if (Hooks.BuiltinValue)
      if (auto V = Hooks.BuiltinValue(N.Which))
        return EvalResult::value(*V);
    return EvalResult::notConstant(
        Loc, fmt::format("thread built-in '{}' is not a constant",
                         spelling(N.Which)));
  }

  EvalResult evalNode(const Unary &N, const SourceLoc &Loc) {
    EvalResult R = eval(*N.Operand);
    if (!R.ok())
      return R;
    switch (N.Op) {
    case UnaryOp::Neg:
      if (R.Value == INT64_MIN)
        return EvalResult::error(
            Loc, fmt::format("integer overflow: -({}) does not fit in 64 bits",
                             R.Value));
      return EvalResult::value(-R.Value);
    case UnaryOp::Not:
      return EvalResult::value(R.Value == 0 ? 1 : 0);
    case UnaryOp::BitNot:
      return EvalResult::value(~R.Value);
    }
    return R;
  }

  EvalResult evalNode(const Binary &N, const SourceLoc &Loc) {
    EvalResult L = eval(*N.Lhs);
    if (!L.ok())
      return L;
    if (N.Op == BinaryOp::LogAnd || N.Op == BinaryOp::LogOr) {
      const bool LhsTrue = L.Value != 0;
      if (N.Op == BinaryOp::LogAnd ? !LhsTrue : LhsTrue)
        return EvalResult::value(LhsTrue ? 1 : 0);
      EvalResult R = eval(*N.Rhs);
      if (!R.ok())
        return R;
      return EvalResult::value(R.Value != 0 ? 1 : 0);
    }
    EvalResult R = eval(*N.Rhs);
    if (!R.ok())
      return R;
    return applyBinary(N.Op, L.Value, R.Value, Loc);
  }

  EvalResult evalNode(const Call &N, const SourceLoc &Loc) {
    std::vector<std::int64_t> Args;
    for (const Expr &A : N.Args) {
      EvalResult R = eval(A);
      if (!R.ok())
        return R;
      Args.push_back(R.Value);
    }
    return applyCall(N.Fn, Args, Loc);
  }

  EvalResult evalNode(const ArrayRead &N, const SourceLoc &Loc) {
    std::vector<std::int64_t> Indices;
    for (const Expr &I : N.Indices) {
      EvalResult R = eval(I);
      if (!R.ok())
        return R;
      Indices.push_back(R.Value);
    }
    if (Hooks.Read)
      if (auto V = Hooks.Read(N.Array, Indices))
        return EvalResult::value(*V);
    return EvalResult::notConstant(
        Loc, fmt::format("read of array '{}' is not a constant", N.Array));
  }

  EvalResult evalNode(const PermApply &N, const SourceLoc &Loc) {
    EvalResult A = eval(*N.Arg);
    if (!A.ok())
      return A;
    if (Hooks.Perm)
      if (auto V = Hooks.Perm(N.Perm, N.Inverse, A.Value))
        return EvalResult::value(*V);
    return EvalResult::notConstant(
        Loc, fmt::format("permutation '{}' is not a constant", N.Perm));
  }
};

} // namespace

EvalResult applyBinary(BinaryOp Op, std::int64_t A, std::int64_t B,
                       const SourceLoc &Loc) {
  std::int64_t R = 0;
  switch (Op) {
  case BinaryOp::Add:
    if (__builtin_add_overflow(A, B, &R))
      return overflow(Loc, A, Op, B);
    return EvalResult::value(R);
  case BinaryOp::Sub:
    if (__builtin_sub_overflow(A, B, &R))
      return overflow(Loc, A, Op, B);
    return EvalResult::value(R);
  case BinaryOp::Mul:
    if (__builtin_mul_overflow(A, B, &R))
      return overflow(Loc, A, Op, B);
    return EvalResult::value(R);
  case BinaryOp::Div:
  case BinaryOp::Mod: {
    if (B == 0)
      return EvalResult::error(Loc, Op == BinaryOp::Div ? "division by zero"
                                                        : "modulo by zero");
    if (A == INT64_MIN && B == -1) {
      if (Op == BinaryOp::Mod)
        return EvalResult::value(0);
      return overflow(Loc, A, Op, B);
    }
    std::int64_t Q = A / B, M = A % B;
    if (M != 0 && ((M < 0) != (B < 0))) {
      --Q;
      M += B;
    }
    return EvalResult::value(Op == BinaryOp::Div ? Q : M);
  }
  case BinaryOp::Shl: {
    if (B < 0 || B > 63)
      return shiftOut(Loc, B);
    if (B == 63) { // 2^63 is not an int64_t: only 0 and -1 survive.
      if (A == 0 || A == -1)
        return EvalResult::value(A == 0 ? 0 : INT64_MIN);
      return overflow(Loc, A, Op, B);
    }
    if (__builtin_mul_overflow(A, std::int64_t{1} << B, &R))
      return overflow(Loc, A, Op, B);
    return EvalResult::value(R);
  }
  case BinaryOp::Shr:
    if (B < 0 || B > 63)
      return shiftOut(Loc, B);
    return EvalResult::value(A >> B);
  case BinaryOp::BitAnd:
    return EvalResult::value(A & B);
  case BinaryOp::BitOr:
    return EvalResult::value(A | B);
  case BinaryOp::BitXor:
    return EvalResult::value(A ^ B);
  case BinaryOp::Lt:
    return EvalResult::value(A < B);
  case BinaryOp::Le:
    return EvalResult::value(A <= B);
  case BinaryOp::Gt:
    return EvalResult::value(A > B);
  case BinaryOp::Ge:
    return EvalResult::value(A >= B);
  case BinaryOp::Eq:
    return EvalResult::value(A == B);
  case BinaryOp::Ne:
    return EvalResult::value(A != B);
  case BinaryOp::LogAnd:
    return EvalResult::value(A != 0 && B != 0);
  case BinaryOp::LogOr:
    return EvalResult::value(A != 0 || B != 0);
  }
  return EvalResult::value(0);
}

EvalResult applyCall(Function Fn, const std::vector<std::int64_t> &Args,
                     const SourceLoc &Loc) {
  if (static_cast<int>(Args.size()) != arity(Fn))
    return EvalResult::error(
        Loc, fmt::format("'{}' takes {} argument{}, got {}", spelling(Fn),
                         arity(Fn), arity(Fn) == 1 ? "" : "s", Args.size()));
  switch (Fn) {
  case Function::Min:
    return EvalResult::value(std::min(Args[0], Args[1]));
  case Function::Max:
    return EvalResult::value(std::max(Args[0], Args[1]));
  case Function::Log2: {
    if (Args[0] <= 0)
      return EvalResult::error(
          Loc, fmt::format("log2 of non-positive value {}", Args[0]));
    return EvalResult::value(
        63 - __builtin_clzll(static_cast<std::uint64_t>(Args[0])));
  }
  case Function::Bitrev: {
    const std::int64_t X = Args[0], Bits = Args[1];
    if (Bits < 0 || Bits > 63)
      return EvalResult::error(
          Loc, fmt::format("bitrev width {} is out of range [0, 63]", Bits));
    if (X < 0)
      return EvalResult::error(Loc,
                               fmt::format("bitrev of negative value {}", X));
    std::int64_t R = 0;
    for (std::int64_t B = 0; B < Bits; ++B)
      R |= ((X >> B) & 1) << (Bits - 1 - B);
    return EvalResult::value(R);
  }
  }
  return EvalResult::value(0);
}

EvalResult evaluate(const Expr &E, const EvalHooks &Hooks) {
  return Evaluator{Hooks}.eval(E);
}

std::optional<std::int64_t> evalConstant(const Expr &E, const ConstEnv &Env,
                                         DiagnosticEngine &Diags) {
  EvalHooks Hooks;
  Hooks.Var = [&](const VarRef &V) -> std::optional<std::int64_t> {
    auto It = Env.find(V.Name);
    if (It == Env.end())
      return std::nullopt;
    return It->second;
  };
  EvalResult R = evaluate(E, Hooks);
  if (R.ok())
    return R.Value;
  Diags.error(R.Loc, R.Message);
  return std::nullopt;
}

} // namespace bankwise::ir
