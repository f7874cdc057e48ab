// Dataflow facts of a kernel's values: what each value is (an integer, an
// exact copy of an element, or floating-point arithmetic), the interval it
// lies in, and whether it is the same in every thread of a block. Code
// generation decides by them (C++ types, the 32- or 64-bit index type, what
// the CPU reference computes once per block), so they are computed here,
// over the IR, as one pass, with per-local and per-loop results reachable
// from the IR nodes.
//
//   let s = a[i]        // Copy of a's element (moved bit for bit)
//   let x = s * 2       // Compute (float; double when an f64 takes part)
//   let r = by * 32 + ty   // Int in [0, 32 * gy - 1], not uniform (ty)
#pragma once

#include "ir/Program.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bankwise {

/// What a value is: an integer (index arithmetic, 64-bit in the .bw
/// semantics), an exact copy of an element (moved bit for bit), or the result
/// of floating-point arithmetic (float, or double when f64 takes part).
struct ValueClass {
  enum Kind { Int, Copy, Compute } K = Int;
  ir::ElemType Elem{};
  bool Double = false;
  bool operator==(const ValueClass &) const = default;
};

inline ValueClass intClass() { return {}; }
inline ValueClass computeClass(bool Double) { return {ValueClass::Compute, {}, Double}; }
inline bool isFloaty(const ValueClass &C) { return C.K != ValueClass::Int; }
inline bool wantsDouble(const ValueClass &C) {
  return C.K == ValueClass::Compute ? C.Double
                                    : (C.K == ValueClass::Copy && C.Elem.Scalar == ir::ScalarType::F64);
}
/// The class of a local that receives A and B (UserError at Loc when one is
/// a vector element and the other is not the same).
ValueClass joinClass(const ValueClass &A, const ValueClass &B, const SourceLoc &Loc);

/// An integer element type (not a float, not a vector).
bool isIntElem(ir::ElemType T);
/// The class of a local declared with scalar type T (`let acc: f32 = 0`):
/// Int for integers, Compute in float for f16, bf16 and f32, in double for f64.
ValueClass typedClass(ir::ElemType T);

using WideInt = __int128_t;

/// A closed interval of values, or Unknown (any 64-bit value).
struct ValueRange {
  bool Known = false;
  WideInt Lo = 0, Hi = 0;
  bool operator==(const ValueRange &) const = default;
};
inline ValueRange unknownRange() { return {}; }
inline ValueRange span(WideInt Lo, WideInt Hi) {
  if (Lo < WideInt(std::numeric_limits<std::int64_t>::min()) ||
      Hi > WideInt(std::numeric_limits<std::int64_t>::max()))
    return {};
  return {true, Lo, Hi};
}
inline ValueRange point(WideInt V) { return span(V, V); }
inline ValueRange join(const ValueRange &A, const ValueRange &B) {
  if (!A.Known || !B.Known)
    return {};
  return span(std::min(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
}
inline bool fitsInt32(const ValueRange &R) {
  return R.Known && R.Lo >= std::numeric_limits<std::int32_t>::min() &&
         R.Hi <= std::numeric_limits<std::int32_t>::max();
}
/// The values an element of type T can hold; unknown for floats and u64.
ValueRange elemRange(ir::ElemType T);

/// CUDA's grid limits (x; y and z): a runtime grid's block indices stay below.
constexpr std::int64_t MaxGridX = 2147483647, MaxGridYZ = 65535;

struct LocalFacts {
  const ir::Let *Decl = nullptr;
  std::vector<const ir::Expr *> Values; ///< init, then every assignment
  ValueClass Class;
  ValueRange R;
  bool Uniform = true; ///< the same in every thread of a block
  /// The same in every thread of a block as far as control flow goes: all
  /// its values uniform and every assignment under conditions that are
  /// (a counter `k += 1` in `while k < 4`); Uniform also asks that it is
  /// never assigned, since codegen computes uniform values once a block.
  bool ControlUniform = true;
  /// Per assignment (Values[1..]), the conditions and loop bounds around it
  /// inside the local's scope.
  std::vector<std::vector<const ir::Expr *>> Contexts;
  std::size_t CtxDepth = 0;
  bool Assigned = false;
  bool Read = false;
};

struct LoopFacts {
  const ir::For *Decl = nullptr;
  /// Values the body sees; Reach also the counter's value when it ends.
  ValueRange R, Reach;
  bool Uniform = true;
};

/// What the facts need from outside the IR.
struct ValueFactsInput {
  /// Params without a value (runtime sizes, derived ones included).
  std::set<std::string, std::less<>> Runtime;
  /// A bound on the entries of a table (P or its inverse, or an hmm_src /
  /// hmm_dst plane): P(i) and a `holds` array's elements lie in [0, bound).
  std::function<std::uint64_t(const std::string &Perm, bool Inverse)> TableBound;
};

/// The facts of kernel K of Prog (a least fixed point over its locals and
/// loops; a range still growing after a few rounds is unknown). They keep
/// pointers into Prog's arrays, params and permutations and into K, not
/// Prog itself: they stay valid when Prog is moved, not when it is copied
/// or destroyed. Throws
/// UserError for values codegen cannot type (arithmetic on vector elements,
/// '~' of a float, a local holding a vector and something else).
class ValueFacts {
public:
  ValueFacts(const ir::Program &Prog, const ir::Kernel &K, ValueFactsInput In);

  std::vector<LocalFacts> Lets;
  std::vector<LoopFacts> Loops;
  /// Each name's declaration: a `let` or a loop (indices into Lets, Loops).
  std::map<const ir::VarRef *, int> LetOf, LoopOf;
  std::map<const ir::Let *, int> LetIndex;
  std::map<const ir::For *, int> LoopIndex;
  /// The grid depends on a runtime size (computed at launch).
  bool RuntimeGrid = false;
  /// Some value is floating-point arithmetic (not only copies), or an
  /// atomic adds floats.
  bool HasCompute = false;
  /// Every integer value (loop counters at their end too) fits in 32 bits.
  bool IntsFit32 = true;

  ValueClass classOf(const ir::Expr &E) const;
  ValueRange rangeOf(const ir::Expr &E) const;
  /// Control: by ControlUniform (what barriers need), not Uniform. For
  /// Control, a read at indices that are the same in every thread is too
  /// when its array is shared (every thread reads the word the last barrier
  /// left: a write in between is a race, which bankwise-shared-race reports)
  /// or never written by the kernel (`if (amLast)` after `if (tid == 0)
  /// amLast = ...; __syncthreads();`).
  bool uniform(const ir::Expr &E, bool Control = false) const;

private:
  /// What the facts look up of the program, by name (Program::findArray
  /// for K, findParam, findPerm): pointers into its arrays, params and
  /// permutations, which stay where they are when the program is moved
  /// (the pipeline's result holds the facts beside the program).
  std::map<std::string, const ir::Array *, std::less<>> ArrayOf;
  std::map<std::string, const ir::Param *, std::less<>> ParamOf;
  std::map<std::string, const ir::Permutation *, std::less<>> PermOf;
  const ir::Array *array(std::string_view Name) const;
  const ir::Param *param(std::string_view Name) const;
  const ir::Permutation *perm(std::string_view Name) const;
  const ir::Kernel &K;
  ValueFactsInput In;
  std::int64_t Threads = 1, Blocks = 1, WarpWidth = 32;
  /// Arrays the kernel stores to or updates atomically.
  std::set<std::string, std::less<>> Written;
  using Scope = std::vector<std::map<std::string, std::pair<bool, int>, std::less<>>>;
  void scanBlock(const ir::Block &B, Scope &S);
  /// The conditions and loop bounds around the statement being scanned.
  std::vector<const ir::Expr *> Ctx;
  void scanExpr(const ir::Expr &E, const Scope &S);
  void solve();
};

} // namespace bankwise
