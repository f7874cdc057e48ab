// Expressions of the bankwise IR: integer expressions over parameters, loop
// variables, locals, thread built-ins, array reads and permutation
// applications. Every node is a plain value with a deep operator== that
// ignores source locations.
#pragma once

#include "support/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace bankwise::ir {

/// Where a node came from. Locations are metadata: two IR values that differ
/// only in where they were written compare equal, so `parse(print(X)) == X`.
struct NodeLoc : SourceLoc {
  NodeLoc() = default;
  NodeLoc(SourceLoc L) : SourceLoc(std::move(L)) {}
  friend bool operator==(const NodeLoc &, const NodeLoc &) { return true; }
};

/// An owning pointer with value semantics: copies deeply, compares deeply.
template <typename T> class Box {
public:
  Box() : Ptr(std::make_unique<T>()) {}
  Box(T Value) : Ptr(std::make_unique<T>(std::move(Value))) {}
  Box(const Box &Other) : Ptr(std::make_unique<T>(*Other.Ptr)) {}
  Box(Box &&) noexcept = default;
  Box &operator=(const Box &Other) {
    if (this != &Other)
      Ptr = std::make_unique<T>(*Other.Ptr);
    return *this;
  }
  Box &operator=(Box &&) noexcept = default;

  T &operator*() { return *Ptr; }
  const T &operator*() const { return *Ptr; }
  T *operator->() { return Ptr.get(); }
  const T *operator->() const { return Ptr.get(); }
  friend bool operator==(const Box &A, const Box &B) {
    return *A.Ptr == *B.Ptr;
  }

private:
  std::unique_ptr<T> Ptr; // Never null, except after a move.
};

/// Thread built-ins. Tid is the flat global thread id; Lane and Warp are the
/// position of the thread in its warp and the warp's index in its block.
enum class Builtin { Tid, Lane, Warp, Tx, Ty, Tz, Bx, By, Bz };

enum class UnaryOp { Neg, Not, BitNot };

/// Binary operators. Div and Mod round toward negative infinity (Python's
/// rule), so `(t - i) % w` is in [0, w) for w > 0 as in the papers.
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  LogAnd,
  LogOr
};

/// Built-in functions: min(a, b), max(a, b), log2(x) = floor(log2 x) for
/// x > 0, bitrev(x, bits) reverses the low `bits` bits of x.
enum class Function { Min, Max, Log2, Bitrev };

/// Atomic read-modify-write operations (CUDA's atomicAdd ... atomicCAS). Each
/// replaces the element e by a new value and yields the old e:
///   add e + v, sub e - v, min, max, and e & v, or e | v, xor e ^ v, exch v,
///   inc (e >= v ? 0 : e + 1), dec ((e == 0 || e > v) ? v : e - 1),
///   cas(c, v) (e == c ? v : e).
enum class AtomicOp { Add, Sub, Min, Max, And, Or, Xor, Exch, Inc, Dec, Cas };

/// Warp shuffles (CUDA's __shfl_sync family, full mask, width 32): the
/// value of an expression in another lane of the warp, lane l reading lane
///   Idx   s mod 32                         (shfl(v, s))
///   Xor   l ^ m, or l when that is not in 0..31   (shfl_xor(v, m))
///   Up    l - d, or l when that is below 0        (shfl_up(v, d))
///   Down  l + d, or l when that is above 31       (shfl_down(v, d))
enum class ShuffleOp { Idx, Xor, Up, Down };

/// What a variable name refers to; Unresolved only between parsing and
/// semantic analysis.
enum class VarKind { Unresolved, Param, Let, Loop };

struct Expr;

struct IntLit {
  std::int64_t Value = 0;
  bool operator==(const IntLit &) const = default;
};

/// A floating-point literal (`0.5`, `1e-3`, `2.5f`): a value for data
/// arithmetic, never an index. It is f32 (CUDA's `0.5f`) unless it meets an
/// f64 value, where it is f64 (docs/language.md, "Values and their types").
struct FloatLit {
  double Value = 0;
  bool operator==(const FloatLit &) const = default;
};

struct VarRef {
  std::string Name;
  VarKind Kind = VarKind::Unresolved;
  bool operator==(const VarRef &) const = default;
};

struct BuiltinRef {
  Builtin Which = Builtin::Tid;
  bool operator==(const BuiltinRef &) const = default;
};

struct Unary {
  UnaryOp Op = UnaryOp::Neg;
  Box<Expr> Operand;
  bool operator==(const Unary &) const = default;
};

struct Binary {
  BinaryOp Op = BinaryOp::Add;
  Box<Expr> Lhs;
  Box<Expr> Rhs;
  bool operator==(const Binary &) const = default;
};

struct Call {
  Function Fn = Function::Min;
  std::vector<Expr> Args;
  bool operator==(const Call &) const;
};

/// A read of one element: `Array[Indices[0]][Indices[1]]...`.
struct ArrayRead {
  std::string Array;
  std::vector<Expr> Indices;
  /// The access site's id in its program (ir/Sites.h): given when the
  /// program is made, kept by every copy and pass; 0 before numbering. Not
  /// part of equality (two reads of one element at different sites are the
  /// same expression).
  int Site = 0;
  bool operator==(const ArrayRead &) const;
};

/// `Perm(Arg)`, or `inverse(Perm)(Arg)` when Inverse is set.
struct PermApply {
  std::string Perm;
  bool Inverse = false;
  Box<Expr> Arg;
  bool operator==(const PermApply &) const = default;
};

/// `Cond ? Then : Else`: each thread evaluates Cond, then only the arm it
/// chooses (so only that arm's reads are accesses of the thread).
struct Select {
  Box<Expr> Cond;
  Box<Expr> Then;
  Box<Expr> Else;
  bool operator==(const Select &) const = default;
};

/// `atomic_add(Target, v)`, ..., `atomic_cas(Target, c, v)`: one thread's
/// indivisible read-modify-write of element Target (shared or global); its
/// value is the element's old value. Args is {v}, or {c, v} for cas. Sema
/// allows it only as a statement of its own (ExprStmt), as a let's
/// initializer or as the value assigned to a local, so it runs once, where
/// the statement runs.
struct Atomic {
  AtomicOp Op = AtomicOp::Add;
  ArrayRead Target;
  std::vector<Expr> Args;
  /// As a statement of its own (ExprStmt): the CUDA it was lowered from
  /// uses the old value (`int old = atomicAdd(...)`), which the lint keeps
  /// as data. nvcc issues such an atomic differently from one whose value
  /// is dropped (analysis/passes/AtomicIssue.h). A let's initializer or an
  /// assigned value uses it whatever this says.
  bool OldValueUsed = false;
  bool operator==(const Atomic &) const;
};

/// `shfl(Value, Lane)` ...: Value as the source lane (ShuffleOp) computed
/// it; Lane is the source lane, the mask or the distance. No memory traffic.
struct Shuffle {
  ShuffleOp Op = ShuffleOp::Idx;
  Box<Expr> Value;
  Box<Expr> Lane;
  bool operator==(const Shuffle &) const = default;
};

struct Expr {
  using Kind = std::variant<IntLit, VarRef, BuiltinRef, Unary, Binary, Call,
                            ArrayRead, PermApply, FloatLit, Select, Atomic, Shuffle>;
  Kind Node;
  /// The first character of the node; for Unary and Binary, the operator.
  NodeLoc Loc;

  bool operator==(const Expr &) const = default;

  template <typename T> bool is() const {
    return std::holds_alternative<T>(Node);
  }
  template <typename T> const T *as() const { return std::get_if<T>(&Node); }
  template <typename T> T *as() { return std::get_if<T>(&Node); }
};

inline bool Call::operator==(const Call &) const = default;
inline bool ArrayRead::operator==(const ArrayRead &O) const {
  return Array == O.Array && Indices == O.Indices;
}
inline bool Atomic::operator==(const Atomic &) const = default;

/// Makes an expression node; handy in tests and passes.
inline Expr makeInt(std::int64_t V, SourceLoc L = {}) {
  return Expr{IntLit{V}, NodeLoc(std::move(L))};
}
inline Expr makeVar(std::string Name, VarKind K, SourceLoc L = {}) {
  return Expr{VarRef{std::move(Name), K}, NodeLoc(std::move(L))};
}
inline Expr makeBinary(BinaryOp Op, Expr L, Expr R, SourceLoc Loc = {}) {
  return Expr{Binary{Op, std::move(L), std::move(R)}, NodeLoc(std::move(Loc))};
}

/// DSL spelling of each operator, function and built-in ("+", "min", "tid").
std::string_view spelling(UnaryOp Op);
std::string_view spelling(BinaryOp Op);
std::string_view spelling(Function Fn);
std::string_view spelling(Builtin B);
/// "atomic_add", ..., "atomic_cas".
std::string_view spelling(AtomicOp Op);
/// "shfl", "shfl_xor", "shfl_up", "shfl_down".
std::string_view spelling(ShuffleOp Op);
/// CUDA's name: "__shfl_sync", "__shfl_xor_sync", "__shfl_up_sync",
/// "__shfl_down_sync".
std::string_view cudaSpelling(ShuffleOp Op);
/// The lane that lane L of a 32-lane warp reads in shuffle Op with
/// argument Arg (a source lane, mask or distance; a negative mask or
/// distance reads L): shuffleSource(Xor, 5, 1) == 4, shuffleSource(Down,
/// 30, 4) == 30, shuffleSource(Idx, 0, -1) == 31.
std::int64_t shuffleSource(ShuffleOp Op, std::int64_t L, std::int64_t Arg);
/// Number of arguments Fn takes: 1 for log2, 2 otherwise.
int arity(Function Fn);
/// Number of value arguments after the element: 2 for cas, 1 otherwise.
int arity(AtomicOp Op);

/// The shortest text that reads back as V and lexes as a floating-point
/// literal: 0.5 -> "0.5", 1 -> "1.0", 1e-30 -> "1e-30".
std::string floatSpelling(double V);

/// Binding strength of a binary operator, C's order: 1 for ||, ..., 10 for
/// * / %. All binary operators associate to the left.
int precedence(BinaryOp Op);

} // namespace bankwise::ir
