// The bankwise IR: a program is a machine, integer parameters, permutations,
// arrays and kernels; a kernel body is a tree of statements over expressions
// (ir/Expr.h). Everything is a plain value with a deep operator== that ignores
// source locations. Names are resolved and constant parts evaluated by the
// front end (dsl/), so a pass can read Shape, BlockDim, Value and so on
// directly.
#pragma once

#include "ir/Expr.h"

#include <array>
#include <optional>

namespace bankwise::ir {

//===-- Types, layouts, arrays
//---------------------------------------------===//

enum class ScalarType {
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64
};

/// An element type: a scalar, or a CUDA-style vector of 2 or 4 scalars
/// (f32x4 is CUDA's float4).
struct ElemType {
  ScalarType Scalar = ScalarType::F32;
  int Lanes = 1;
  bool operator==(const ElemType &) const = default;
};

/// Bytes of one element: f32 -> 4, bf16 -> 2, f32x4 -> 16.
std::int64_t byteSize(ElemType T);
/// DSL spelling: "f32", "i32x4".
std::string spelling(ElemType T);
/// Parses a spelling; nullopt when Name is not an element type.
std::optional<ElemType> parseElemType(std::string_view Name);

/// The element types CUDA's atomic Op takes, as this tool emits it:
///   add i32 u32 u64 f32 f64; sub i32 u32 f32 f64 (a float's as an add of -v,
///   CUDA having no atomicSub for floats); min, max i32 u32 i64 u64;
///   and, or, xor i32 u32 u64; exch i32 u32 u64 f32; inc, dec u32;
///   cas i32 u32 u64.
std::vector<ScalarType> atomicTypes(AtomicOp Op);
/// CUDA's name of Op: "atomicAdd", ..., "atomicCAS".
std::string_view cudaSpelling(AtomicOp Op);

enum class MemSpace { Global, Shared, Local };
std::string_view spelling(MemSpace S);

/// How logical indices map to addresses. Only recorded for now; analysis/
/// defines the transformations.
///   raw          row-major
///   pad(k)       each innermost row is followed by k unused elements
///   xor          swizzle the innermost index with the row index
///   diagonal     (i, j) -> i*w + (i + j) % w  (seed 001, Section V)
///   rap(seed: s) (i, j) -> i*w + (j + r[i]) % w, r a random permutation
///   auto         let the tool choose
///
/// The models (analysis/models/Layout.h) know more layouts than the DSL
/// spells: CuTe's Swizzle<B, M, S>, seed 002's RAS and its RAP variants for
/// w^2 and w^4 arrays (rap1p ... rap1pw2r), used by `bankwise experiment`
/// and the tests. They are kinds of the same enum, so a layout has one kind
/// type everywhere; the parser accepts only raw ... auto.
enum class LayoutKind {
  Raw, Pad, Xor, Diagonal, Rap, Auto,
  Swizzle, Ras, Rap1P, RapR1P, Rap3P, RapW2P, Rap1PW2R
};
std::string_view spelling(LayoutKind K);

/// An array's layout: the one value the parser, the passes, the analysis
/// and codegen share (the analysis' address function for it is
/// analysis/passes/ArrayLayout.h's arrayLayout).
struct Layout {
  LayoutKind Kind = LayoutKind::Raw;
  /// pad's k or rap's seed as written; absent for the other kinds.
  std::optional<Expr> Arg;
  std::int64_t ArgValue = 0;
  bool operator==(const Layout &) const = default;
  /// The layout by value, as reports name it: "raw", "pad(1)", "xor",
  /// "diagonal", "rap(seed: 7)", "auto" (the printer writes Arg as source).
  std::string str() const;
};

/// A permutation whose table an array holds: `p[i] == P(i)`, or
/// `q[i] == inverse(P)(i)`.
struct PermRef {
  std::string Perm;
  bool Inverse = false;
  bool operator==(const PermRef &) const = default;
};

struct Array {
  std::string Name;
  MemSpace Space = MemSpace::Global;
  ElemType Elem;
  /// The dimensions as written, and their values (all positive).
  std::vector<Expr> Dims;
  std::vector<std::int64_t> Shape;
  Layout Lay;
  std::optional<PermRef> Holds;
  /// `view Name = ViewOf as Elem` (a kernel body's ArrayDecl): no memory of
  /// its own but array ViewOf's, seen as Elem, a vector of its scalar type;
  /// the innermost dimension is ViewOf's divided by Elem's lanes (Dims and
  /// Shape so, raw layout). Element (i, j) is ViewOf's (i, Lanes*j ..
  /// Lanes*j + Lanes - 1), at the same bytes.
  std::optional<std::string> ViewOf = std::nullopt;
  NodeLoc Loc;
  bool operator==(const Array &) const = default;

  /// Product of Shape.
  std::int64_t numElements() const;
  /// Bytes allocated: elements times byteSize(Elem), counting pad(k)'s
  /// k extra elements per innermost row; nullopt on 64-bit overflow. A
  /// view allocates nothing: 0.
  std::optional<std::int64_t> allocatedBytes() const;
};

//===-- Statements
//-----------------------------------------------------------===//

struct Stmt;
using Block = std::vector<Stmt>;

/// `Target = Value`; Target is a local (`x = ...`) or an element (`a[i] =
/// ...`). A compound assignment `t op= v` is held as `t = t op v` with
/// Compound = op (Value is then a Binary of op whose Lhs is the target), so
/// every pass sees the read and the write it means; the printer writes it
/// back as `t op= v`.
struct Assign {
  std::variant<VarRef, ArrayRead> Target;
  Expr Value;
  std::optional<BinaryOp> Compound = std::nullopt;
  bool operator==(const Assign &) const = default;
};

/// `let Name = Init` or `let Name: Type = Init` declares a mutable
/// per-thread local; Type (a scalar element type) fixes its type, otherwise
/// its values decide it (docs/language.md, "Values and their types").
struct Let {
  std::string Name;
  Expr Init;
  std::optional<ElemType> Type = std::nullopt;
  bool operator==(const Let &) const = default;
};

/// `while Cond { Body }`: each thread runs Body while Cond is non-zero.
struct While {
  Expr Cond;
  Block Body;
  bool operator==(const While &) const;
};

/// `for Var in Begin..End step Step { Body }`: Var = Begin, Begin + Step, ...
/// while Var < End (Step > 0) or Var > End (Step < 0). Step defaults to 1.
struct For {
  std::string Var;
  Expr Begin;
  Expr End;
  std::optional<Expr> Step;
  Block Body;
  bool operator==(const For &) const;
};

struct If {
  Expr Cond;
  Block Then;
  Block Else;
  bool operator==(const If &) const;
};

/// Barrier of all threads of a block (`__syncthreads()`).
struct Sync {
  bool operator==(const Sync &) const = default;
};

/// An expression run for its effect, its value dropped: `atomic_add(h[k], 1)`
/// (Sema allows no other expression here).
struct ExprStmt {
  Expr Value;
  bool operator==(const ExprStmt &) const = default;
};

/// A shared or local array declared in a kernel body.
struct ArrayDecl {
  Array Decl;
  bool operator==(const ArrayDecl &) const = default;
};

struct Stmt {
  using Kind = std::variant<Assign, Let, For, If, Sync, ArrayDecl, While, ExprStmt>;
  Kind Node;
  NodeLoc Loc;
  bool operator==(const Stmt &) const = default;

  template <typename T> bool is() const {
    return std::holds_alternative<T>(Node);
  }
  template <typename T> const T *as() const { return std::get_if<T>(&Node); }
  template <typename T> T *as() { return std::get_if<T>(&Node); }
};

inline bool For::operator==(const For &) const = default;
inline bool If::operator==(const If &) const = default;
inline bool While::operator==(const While &) const = default;

//===-- Kernels
//--------------------------------------------------------------===//

/// `threads p` (one flat block of p threads, the papers' T(0..p-1)) or
/// `grid (x, y, z) block (x, y, z)` with 1-3 components each.
struct Geometry {
  bool IsThreads = false;
  /// As written: IsThreads ? Block == {p} and Grid empty : 1-3 each.
  std::vector<Expr> Grid;
  std::vector<Expr> Block;
  /// Values, missing components 1.
  std::array<std::int64_t, 3> GridDim{1, 1, 1};
  std::array<std::int64_t, 3> BlockDim{1, 1, 1};
  NodeLoc Loc;
  bool operator==(const Geometry &) const = default;

  std::int64_t threadsPerBlock() const {
    return BlockDim[0] * BlockDim[1] * BlockDim[2];
  }
};

/// `schedule colored`: the kernel's one shared-memory copy dst[f(t)] =
/// src[g(t)] is one-to-one, and bankwise reassigns the pairs to threads by a
/// König edge coloring so every warp reads and writes distinct banks (seed
/// 003; analysis/passes/ColoredSchedule.h).
/// `schedule bits`: the kernel's one global copy b[f(t)] = a[g(t)] moves a
/// BPC permutation (a permutation of the index bits, then a complement),
/// and bankwise replaces it by one tiled pass whose reads and writes are
/// coalesced (ColoredSchedule.h's BitLowering).
/// `schedule auto`: the kernel's one global copy is a permutation, and
/// bankwise moves it by whichever of scatter, gather, bits and colored its
/// calibrated model (analysis/models/StrategyModel.h) estimates fastest.
enum class KernelSchedule { None, Colored, Bits, Auto };
std::string_view spelling(KernelSchedule S);

/// A size the kernel runs only at multiples of, for a reason its body does
/// not state: the lint's vector cast (`reinterpret_cast<float4 *>(&A[r * K
/// + c])`) faults unless K % 4 == 0, so the all-sizes analysis ranges over
/// those sizes only (frontend/LowerAlignment.cpp). Not written in .bw
/// source; the printer shows it as a comment.
struct SizeMultiple {
  std::string Param;
  std::int64_t Multiple = 1;
  std::string Why; ///< "the float4 access at line 47 is 16-byte aligned only there"
  bool operator==(const SizeMultiple &) const = default;
};

struct Kernel {
  std::string Name;
  std::vector<Array> Params;
  Geometry Geo;
  KernelSchedule Schedule = KernelSchedule::None;
  ir::Block Body;
  NodeLoc Loc;
  std::vector<SizeMultiple> Requires;
  bool operator==(const Kernel &) const = default;

  /// The arrays the kernel declares: its parameters, then the shared and
  /// local arrays of its body (inside loops and branches too), in order.
  std::vector<const Array *> arrays() const;
  std::vector<Array *> arrays();
};

//===-- Program-level declarations
//-----------------------------------------===//

enum class MachineKind { Target, Dmm, Umm, Hmm };

struct MachineArg {
  std::string Name; // "w", "l", "d" or "L"
  Expr Value;
  std::int64_t Evaluated = 0;
  NodeLoc Loc;
  bool operator==(const MachineArg &) const = default;
};

/// `target sm_90`, or a memory machine of seed 000/001:
/// `machine dmm(w: 32, l: 1)`, `machine umm(w: 32, l: 400)`,
/// `machine hmm(d: 132, w: 32, L: 400)`.
struct Machine {
  MachineKind Kind = MachineKind::Target;
  std::string Target; // "sm_90" when Kind == Target
  std::vector<MachineArg> Args;
  NodeLoc Loc;
  bool operator==(const Machine &) const = default;

  /// The value of argument Name; nullopt when absent.
  std::optional<std::int64_t> arg(std::string_view Name) const;
  /// Threads per warp: w on a memory machine, 32 on a GPU target.
  std::int64_t warpSize() const;
};

/// Facts about a GPU target; nullopt for unknown names.
struct TargetInfo {
  std::string_view Name;
  std::int64_t MaxSharedPerBlock;     // with the opt-in attribute
  std::int64_t DefaultSharedPerBlock; // without it (49152)
  std::int64_t MaxThreadsPerBlock;
};
std::optional<TargetInfo> targetInfo(std::string_view Name);
/// Known target names, for "did you mean" style notes.
std::vector<std::string_view> knownTargets();

/// `param N = expr` (a compile-time constant), or `param N` (a runtime
/// size: generated kernels take it as an argument), either with an optional
/// `where` constraint over the params declared so far, itself included:
/// `param N where N % 256 == 0 && N >= 256`. A param whose Init uses a
/// runtime param is runtime too (derived: `param Mid = M - 10`). `-D N=...`
/// binds a runtime param, which then has a Value like any constant.
struct Param {
  std::string Name;
  /// Absent (`param R`): a runtime size.
  std::optional<Expr> Init;
  std::optional<Expr> Where;
  /// No value yet: set for `param R` and for params computed from one,
  /// unless -D bound it. Value is meaningful only when !Runtime.
  bool Runtime = false;
  std::int64_t Value = 0;
  /// Set when a -D override replaced Init's value.
  bool Overridden = false;
  NodeLoc Loc;
  bool operator==(const Param &) const = default;
};

/// Permutation kinds and their arguments (Args, in order):
///   identity(n)            P(i) = i
///   shuffle(n)             rotate the log2(n)-bit index left by one
///   bitreverse(n)          reverse the log2(n)-bit index
///   transpose(r, c)        P(i*c + j) = j*r + i
///   stride(n, s)           P(q*s + r) = r*(n/s) + q, s divides n (the
///                          FFT's L^n_s; equals transpose(n/s, s))
///   random(n, seed: k)     uniformly random, deterministic in k
///   list(e0, e1, ...)      written `[e0, e1, ...]`: P(i) = e_i
///   file("p.bin")          read at analysis time (Path); no Args
///   schedule_src(P, w: w)  S of seed 003: S(i*w + j) = c(i, j)
///   schedule_dst(P, w: w)  D of seed 003: D(i*w + j) = P(c(i, j))
///   hmm_src(P, pass: k)    seed 001's schedule of b[P(i)] = a[i] on sm_90's
///   hmm_dst(P, pass: k)    R x C shape (chooseSm90Shape(n, bytes); an
///                          optional `bytes: 8` is for f64, Args == {k, 8}),
///                          pass k's step
///                          (3): entry b*m + j is the word of block b's row
///                          (passes 0, 2; m = C) or strip (pass 1; m = R*8,
///                          R*4 for 8 bytes)
///                          that thread j gathers from (src) or scatters to
///                          (dst). Each block's m entries are a permutation
///                          of 0..m-1, so these are tables of n entries below
///                          m (held in u16 arrays), not permutations of n.
/// where c(i, j) is the j-th source edge of color i in a König edge coloring
/// of P's bank graph (Base names P; Args == {w}); hmm_src and hmm_dst may
/// name inverse(P) (BaseInverse; Args == {k}).
enum class PermKind {
  Identity,
  Shuffle,
  Bitreverse,
  Transpose,
  Stride,
  Random,
  List,
  File,
  ScheduleSrc,
  ScheduleDst,
  HmmSrc,
  HmmDst
};
std::string_view spelling(PermKind K);

struct Permutation {
  std::string Name;
  PermKind Kind = PermKind::Identity;
  std::vector<Expr> Args;
  std::vector<std::int64_t> ArgValues;
  std::string Base; // schedule_src / schedule_dst / hmm_src / hmm_dst
  bool BaseInverse = false; // hmm_src(inverse(P), pass: k)
  std::string Path; // file
  /// n, the permutation's length; nullopt for file().
  std::optional<std::int64_t> Size;
  NodeLoc Loc;
  bool operator==(const Permutation &) const = default;
};

/// True for the kinds whose tables are not permutations of n (hmm_src,
/// hmm_dst: block-local indices).
inline bool isBlockLocalTable(PermKind K) {
  return K == PermKind::HmmSrc || K == PermKind::HmmDst;
}

/// The element size an hmm_src / hmm_dst table's shape is for: its
/// `bytes:` argument, 4 when it has none (chooseSm90Shape(n, bytes)).
inline std::int64_t hmmElemBytes(const Permutation &P) {
  return P.ArgValues.size() > 1 ? P.ArgValues[1] : 4;
}

/// True for the kinds generated code computes from the index (identity,
/// shuffle, bitreverse, transpose, stride) instead of reading a table.
inline bool hasClosedForm(PermKind K) {
  return K == PermKind::Identity || K == PermKind::Shuffle || K == PermKind::Bitreverse ||
         K == PermKind::Transpose || K == PermKind::Stride;
}

/// `launch NAME = K1, K2, ...`: one host function, launch_NAME, that runs
/// the kernels in order on one stream, each after the previous one has
/// finished (a grid-wide barrier between them). Its arguments are the
/// kernels' global arrays, each once, in order of first appearance. The
/// global `schedule colored` pass lowers a kernel into three kernels and a
/// launch of them under the kernel's name.
struct Launch {
  std::string Name;
  std::vector<std::string> Kernels;
  NodeLoc Loc;
  bool operator==(const Launch &) const = default;
};

struct Program {
  std::optional<Machine> Mach;
  std::vector<Param> Params;
  std::vector<Permutation> Perms;
  /// Arrays declared at the top level (global or shared).
  std::vector<Array> Arrays;
  std::vector<Kernel> Kernels;
  std::vector<Launch> Launches;
  bool operator==(const Program &) const = default;

  const Param *findParam(std::string_view Name) const;
  /// Names of the params without a value (runtime sizes not bound by -D),
  /// in declaration order; empty for a program whose every size is known.
  std::vector<std::string> runtimeParams() const;
  const Permutation *findPerm(std::string_view Name) const;
  const Array *findArray(std::string_view Name) const;
  const Kernel *findKernel(std::string_view Name) const;
  const Launch *findLaunch(std::string_view Name) const;
  /// The launch that runs kernel Name; nullptr when it is launched alone.
  const Launch *launchOf(std::string_view Kernel) const;
  /// The array Name as kernel K sees it: its own arrays first, then the
  /// top-level ones.
  const Array *findArray(const Kernel &K, std::string_view Name) const;
};

/// The closed-form value P(I) for identity, shuffle, bitreverse, transpose,
/// stride and list permutations; nullopt for the others or when I is out of
/// [0, n). E.g. stride(16, 4): 1 -> 4, 4 -> 1; stride(8, 2): 1 -> 4.
std::optional<std::int64_t> applyClosedForm(const Permutation &P,
                                            std::int64_t I);

} // namespace bankwise::ir
