// Internal to codegen/: what the parts of code generation share. The facts
// of a kernel (KernelFacts: arrays, locals, loops, value classes, ranges,
// uniformity) and of the module (ModuleState: tables, names), the expression
// printer (ExprEmitter) and the kernel emitter (KernelEmitter), whose member
// functions live in the part that uses them:
//   ModuleState.cpp   tables, closed forms and names of the module
//   KernelFacts.cpp   the scan and the dataflow facts of one kernel
//   DeviceCode.cpp    the __global__ function, its launch function, checks
//   Launches.cpp      launch_NAME of a `launch` (kernels run in sequence)
//   Reference.cpp     the CPU reference
//   Harness.cpp       the harness's run of one kernel
//   Codegen.cpp       the module: shared-memory plan, tables, compileToCuda
#pragma once

#include "codegen/Codegen.h"

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/models/Layout.h"
#include "analysis/passes/ArrayLayout.h"
#include "analysis/passes/ValueFacts.h"
#include "analysis/schedule/HmmSchedule.h"
#include "codegen/Tables.h"
#include "codegen/Templates.h"
#include "ir/Printer.h"
#include "ir/Walk.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace bankwise::codegen::detail {

using ir::BinaryOp;
using ir::Expr;
using ir::Stmt;

//===-- Names ---------------------------------------------------------------===//

inline const std::set<std::string, std::less<>> &cppKeywords() {
  static const std::set<std::string, std::less<>> Words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main", "std",
      "bankwise", "dim3", "Index", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
      "min", "max", "t"};
  return Words;
}

/// The C++ name of a .bw name: keywords and the generated prefix get a '_'.
inline std::string cName(const std::string &N) {
  if (cppKeywords().count(N) || N.rfind("bw_", 0) == 0 || N.rfind("__", 0) == 0 ||
      N.rfind("launch_", 0) == 0 || N.rfind("reference_", 0) == 0 || N.rfind("run_", 0) == 0)
    return N + "_";
  return N;
}

inline std::string cString(const std::string &S) {
  std::string R = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    if (static_cast<unsigned char>(C) < 0x20)
      R += fmt::format("\\x{:02x}", static_cast<unsigned char>(C));
    else
      R += C;
  }
  return R + "\"";
}

inline std::string locText(const SourceLoc &L) { return fmt::format("{}:{}", L.Line, L.Col); }

//===-- Element types -------------------------------------------------------===//

inline bool isFloat(ir::ScalarType S) {
  return S == ir::ScalarType::F16 || S == ir::ScalarType::BF16 || S == ir::ScalarType::F32 ||
         S == ir::ScalarType::F64;
}
inline bool isHalfLike(ir::ElemType T) {
  return T.Lanes == 1 && (T.Scalar == ir::ScalarType::F16 || T.Scalar == ir::ScalarType::BF16);
}

inline std::string scalarType(ir::ScalarType S) {
  switch (S) {
  case ir::ScalarType::I8: return "std::int8_t";
  case ir::ScalarType::I16: return "std::int16_t";
  case ir::ScalarType::I32: return "std::int32_t";
  case ir::ScalarType::I64: return "std::int64_t";
  case ir::ScalarType::U8: return "std::uint8_t";
  case ir::ScalarType::U16: return "std::uint16_t";
  case ir::ScalarType::U32: return "std::uint32_t";
  case ir::ScalarType::U64: return "std::uint64_t";
  case ir::ScalarType::F16: return "__half";
  case ir::ScalarType::BF16: return "__nv_bfloat16";
  case ir::ScalarType::F32: return "float";
  case ir::ScalarType::F64: return "double";
  }
  return "float";
}

/// Device spelling: f32 -> float, f16 -> __half, f32x4 -> bankwise::Vec<float, 4>.
inline std::string devType(ir::ElemType T) {
  if (T.Lanes == 1)
    return scalarType(T.Scalar);
  return fmt::format("bankwise::Vec<{}, {}>", scalarType(T.Scalar), T.Lanes);
}

/// Host (CPU reference) spelling: f16 and bf16 are held as float.
inline std::string hostType(ir::ElemType T) { return isHalfLike(T) ? "float" : devType(T); }

//===-- Value facts (analysis/passes/ValueFacts.h) ---------------------------===//

using VClass = ValueClass;
using Range = ValueRange;
using Wide = WideInt;

//===-- Per-kernel facts -----------------------------------------------------===//

using LetInfo = LocalFacts;
using LoopInfo = LoopFacts;

enum class Origin { Param, TopLevel, Body };

/// The largest element the harness draws for an integer array whose values
/// bound a loop: 32, the iterations the analysis counts of such a loop.
inline constexpr int HarnessLoopBound = 32;

struct ArrayPlan {
  const ir::Array *Decl = nullptr;
  std::string Name; ///< C++ name in kernel bodies
  Origin From = Origin::Param;
  bool Read = false, Written = false;
  int Table = -1;        ///< holds a permutation: index into the module's tables
  bool Local = false;    ///< per-thread registers
  bool InShared = false; ///< lives in shared memory on the device
  bool Staged = false;   ///< shared data that comes from (and goes back to) global memory
  bool Demoted = false;  ///< a shared array codegen keeps in global memory
  bool HasView = false;  ///< a view reads it in vectors: aligned to 16 bytes
  /// Its values reach a loop bound (directly or through locals): the
  /// harness draws its elements in 0..HarnessLoopBound.
  bool BoundsLoop = false;
  LayoutFn Lay;          ///< the address formula (analysis/models/Layout.h)
  std::string LayoutName;
  std::int64_t SmemOffset = -1; ///< bytes into dynamic shared memory
  /// Addressed through a layout policy object (1-D raw arrays index directly).
  bool usesLayoutObject() const {
    return (InShared || Lay.Kind != LayoutKind::Raw) &&
           !(Lay.Kind == LayoutKind::Raw && Decl->Shape.size() == 1);
  }
  /// Global pointer name: the array's own, or name_global when staged.
  std::string pointerName() const { return Staged ? Name + "_global" : Name; }
  bool isDeviceParam() const { return From != Origin::Body && !Local; }
  /// The launch API passes it (tables come from the module).
  bool isApiParam() const { return isDeviceParam() && Table < 0; }
  std::int64_t footprint() const { return Lay.footprint(); }
};

/// A table-driven permutation applied in an index (P(i) of a random, file,
/// list or schedule permutation).
struct PermUse {
  std::string Perm;
  bool Inverse = false;
  int Table = -1;
  std::string CName; ///< bw_perm_P or bw_perm_P_inv
};

class ModuleState;

enum class Mode { Device, Host };

class KernelFacts {
public:
  KernelFacts(const ir::Program &Prog, const ir::Kernel &K, ModuleState &M);

  const ir::Program &Prog;
  const ir::Kernel &K;
  ModuleState &Mod;
  std::vector<ArrayPlan> Arrays;
  std::map<std::string, std::size_t, std::less<>> ArrayIndex;
  /// Value classes, ranges and uniformity (analysis/passes/ValueFacts.h):
  /// the pipeline's value-facts pass's.
  const ValueFacts *Values = nullptr;
  /// The place-shared pass's placement of the kernel's shared arrays.
  const SharedPlacement *Placement = nullptr;
  /// The placement of shared array A (staged, in shared memory).
  const SharedArrayPlacement &placed(const ArrayPlan &A) const {
    const SharedArrayPlacement *X = Placement ? Placement->find(A.Decl->Name) : nullptr;
    assert(X && "a shared array without a placement");
    return *X;
  }
  std::vector<PermUse> PermUses;
  std::set<ir::Builtin> Builtins;
  std::set<std::string> ParamsUsed;
  bool HasCompute = false;
  bool HasSync = false;
  bool HasShuffle = false;
  bool LongIndex = false;
  std::int64_t WarpWidth = 32;
  std::int64_t Threads = 1, Blocks = 1;
  /// CUDA threads per block: Threads, or 1024 when a `threads p` kernel has
  /// more and each CUDA thread runs p / 1024 of the program's threads.
  std::int64_t CudaThreads = 1;
  bool Virtual = false;
  std::int64_t StaticSmem = 0, DynamicSmem = 0;
  bool UseDynamic = false;
  /// The runtime params the kernel needs (in its body, its arrays' dims, its
  /// grid, and what their Inits and `where`s use), in declaration order;
  /// empty for a kernel of constant sizes.
  std::vector<const ir::Param *> RuntimeUsed;
  /// The grid depends on a runtime param: computed at launch.
  bool RuntimeGrid = false;
  /// A dimension of A depends on a runtime param.
  bool runtimeShape(const ir::Array &A) const;
  /// The dimensions of A as C++ (literals, or the expressions of runtime ones).
  std::vector<std::string> dimTexts(const ir::Array &A, Mode M) const;
  /// The element count of A as C++: a literal, or the product of its dims.
  std::string countText(const ir::Array &A, Mode M) const;
  /// The launch that runs this kernel with others (`launch L = ...`), or
  /// null when the kernel is launched alone.
  const ir::Launch *InLaunch = nullptr;

  std::string indexType() const { return LongIndex ? "long long" : "int"; }
  ArrayPlan &array(const std::string &Name) { return Arrays.at(ArrayIndex.at(Name)); }
  const ArrayPlan &array(const std::string &Name) const { return Arrays.at(ArrayIndex.at(Name)); }
  const PermUse *permUse(const std::string &Perm, bool Inverse) const {
    for (const PermUse &U : PermUses)
      if (U.Perm == Perm && U.Inverse == Inverse)
        return &U;
    return nullptr;
  }

  VClass classOf(const Expr &E) const { return Values->classOf(E); }
  Range rangeOf(const Expr &E) const { return Values->rangeOf(E); }
  bool uniform(const Expr &E) const { return Values->uniform(E); }
  const LetInfo &let(const ir::Let *L) const { return Values->Lets[static_cast<std::size_t>(Values->LetIndex.at(L))]; }
  const LetInfo &let(const ir::VarRef *V) const { return Values->Lets[static_cast<std::size_t>(Values->LetOf.at(V))]; }
  const LoopInfo &loop(const ir::For *F) const { return Values->Loops[static_cast<std::size_t>(Values->LoopIndex.at(F))]; }

private:
  void addArray(const ir::Array &A, Origin From);
  /// Name's plan (a top-level array added on first use), marked read or
  /// written, and so is the array a view of it points into.
  ArrayPlan &touch(const std::string &Name, const SourceLoc &Loc, bool Read, bool Written);
  void scanBlock(const ir::Block &B);
  /// Sets BoundsLoop on the arrays whose values reach a loop bound in B.
  void markLoopBounds(const ir::Block &B);
  void scanExpr(const Expr &E);
  void collectRuntime();
  void chooseIndexType();
};

/// Facts shared by the kernels of one module: tables and their storage.
class ModuleState {
public:
  ModuleState(const PipelineResult &Pipe, const CodegenOptions &Opts)
      : Prog(Pipe.Program), Pipe(Pipe), Opts(Opts), Perms(Prog, Pipe.Schedules.get()),
        Runtime(Pipe.RuntimeParams.begin(), Pipe.RuntimeParams.end()) {}
  const ir::Program &Prog;
  /// The pipeline's result: the decisions and analyses codegen quotes.
  const PipelineResult &Pipe;
  const CodegenOptions &Opts;
  PermutationCache Perms;
  std::vector<TablePlan> Tables;
  std::vector<Diagnostic> Warnings;
  /// PipelineResult::RuntimeParams.
  std::set<std::string, std::less<>> Runtime;

  /// E mentions a runtime param.
  bool runtime(const Expr &E) const;
  /// The table of Perm (inverse when Inverse) with device type DevType.
  int table(const std::string &Perm, bool Inverse, const std::string &DevType, bool Narrow);
  /// The side-file offset of the next stored table.
  std::uint64_t nextOffset() const {
    std::uint64_t Offset = 0;
    for (const TablePlan &O : Tables)
      if (!O.InSource && O.stored())
        Offset += O.Size * static_cast<std::uint64_t>(O.Width);
    return Offset;
  }
};

// Defined in the parts named above; used across them.
void paramNames(const Expr &E, std::set<std::string, std::less<>> &Out);
std::string sizesText(const ModuleState &Mod);
const std::set<std::string, std::less<>> &hostLocalNames();
std::string permDescription(const ir::Program &Prog, const std::string &Name);
std::string closedFormText(const ir::Permutation &P, bool Inverse, const std::string &I);
bool isClosedForm(const ir::Program &Prog, const std::string &Perm);
VClass joinClass(const VClass &A, const VClass &B, const SourceLoc &Loc);
std::string siteComment(const AccessSiteReport &S, const KernelFacts &F);
std::string referenceParams(const KernelFacts &F, const ModuleState &Mod);
std::string embedTemplate(const std::string &Path);
std::string fillHoles(const std::string &Path, const std::map<std::string, std::string> &Holes);

//===-- Expressions -----------------------------------------------------------===//

constexpr int UnaryPrec = 11;
constexpr int PrimaryPrec = 12;

inline bool literalOnly(const Expr &E) {
  return !ir::anySubexpr(E, [](const Expr &X) {
    return !X.is<ir::IntLit>() && !X.is<ir::Unary>() && !X.is<ir::Binary>();
  });
}

inline std::string literal(std::int64_t V, bool Long) {
  if (V == std::numeric_limits<std::int64_t>::min())
    return "(-9223372036854775807LL - 1)";
  const bool Big = V > std::numeric_limits<std::int32_t>::max() || V < std::numeric_limits<std::int32_t>::min();
  std::string S = fmt::format("{}{}", V, (Long || Big) ? "LL" : "");
  return V < 0 ? "(" + S + ")" : S;
}

/// A floating-point literal as C++: `0.5f`, or `0.5` for a double.
inline std::string floatLiteral(double V, bool Double) {
  return ir::floatSpelling(V) + (Double ? "" : "f");
}

/// Prints expressions of one kernel as C++, on the device (layouts, index
/// type `Index`) or in the CPU reference (logical row-major arrays, per-thread
/// values indexed by the thread t).
class ExprEmitter {
public:
  ExprEmitter(const KernelFacts &F, Mode M) : F(F), M(M) {}

  /// E converted to class Want.
  std::string value(const Expr &E, const VClass &Want, int Prec = 0) const {
    if (const auto *L = E.as<ir::FloatLit>()) // f32 unless it meets a double
      return floatLiteral(L->Value, Want.K == VClass::Compute && Want.Double);
    const VClass C = F.classOf(E);
    if (Want.K == VClass::Int) {
      if (C.K == VClass::Int)
        return raw(E, Prec);
      return fmt::format("static_cast<Index>({})", compute(E, C));
    }
    if (Want.K == VClass::Compute) {
      if (C.K == VClass::Copy)
        return compute(E, C);
      return raw(E, Prec);
    }
    return raw(E, Prec); // exact copies keep their type
  }
  std::string index(const Expr &E, int Prec = 0) const { return value(E, intClass(), Prec); }

  /// The value V converted for a store into an element of type T.
  std::string store(ir::ElemType T, const Expr &V) const {
    const VClass C = F.classOf(V);
    if (C.K == VClass::Copy && C.Elem == T)
      return raw(V, 0);
    if (const auto *R = V.as<ir::ArrayRead>(); R && F.array(R->Array).Decl->Elem == T)
      return element(R->Array, R->Indices); // an exact copy of an integer element
    if (T.Lanes > 1)
      throw UserError(V.Loc, fmt::format("codegen: a {} element can only be copied from another",
                                         ir::spelling(T)));
    if (isIntElem(T))
      return fmt::format("static_cast<{}>({})", devType(T), index(V));
    if (M == Mode::Host && isHalfLike(T))
      return fmt::format("bankwise::roundTo<{}>({})", devType(T), value(V, computeClass(false)));
    if (M == Mode::Device && isHalfLike(T))
      return fmt::format("bankwise::fromCompute<{}>({})", devType(T), value(V, computeClass(false)));
    const bool Double = T.Scalar == ir::ScalarType::F64;
    if (C.K == VClass::Int || wantsDouble(C) != Double)
      return fmt::format("static_cast<{}>({})", Double ? "double" : "float", value(V, computeClass(Double)));
    return value(V, computeClass(Double));
  }

  /// The element a[i][j]... as an lvalue.
  std::string element(const std::string &Array, const std::vector<Expr> &Idx) const {
    const ArrayPlan &A = F.array(Array);
    const auto &Shape = A.Decl->Shape;
    const std::size_t Rank = Shape.size();
    const std::string Base = M == Mode::Device ? A.Name : A.Name;
    const std::vector<std::string> Dims = F.dimTexts(*A.Decl, M);
    if (A.Local || M == Mode::Host || !A.usesLayoutObject()) {
      std::string Lin = linear(Idx, Dims);
      if (A.Local && M == Mode::Host)
        return fmt::format("{}[t * {} + {}]", Base, A.Decl->numElements(), Lin);
      return fmt::format("{}[{}]", Base, Lin);
    }
    // Layout object: row (all but the last index, row-major) and column.
    std::string Row = "0";
    if (Rank >= 2) {
      std::vector<Expr> Head(Idx.begin(), Idx.end() - 1);
      std::vector<std::string> HeadDims(Dims.begin(), Dims.end() - 1);
      Row = linear(Head, HeadDims);
    } else if (A.Lay.Kind == LayoutKind::Raw) {
      return fmt::format("{}[{}]", Base, index(Idx.back()));
    }
    return fmt::format("{}[{}_layout.offset({}, {})]", Base, A.Name, Row, index(Idx.back()));
  }

  /// Row-major linear index of Idx in Shape: i0 * D1 * ... + ...
  std::string linear(const std::vector<Expr> &Idx, const std::vector<std::string> &Dims) const {
    if (Idx.size() == 1)
      return index(Idx[0]);
    std::string S = index(Idx[0], 10);
    for (std::size_t D = 1; D < Idx.size(); ++D) {
      const std::string Mul = fmt::format("{} * {}", S, Dims[D]);
      S = fmt::format("{} + {}", Mul, index(Idx[D], 10));
      if (D + 1 < Idx.size())
        S = "(" + S + ")";
    }
    return S;
  }

  std::string raw(const Expr &E, int Prec) const {
    return std::visit([&](const auto &N) { return rawNode(E, N, Prec); }, E.Node);
  }

  /// An expression statement (Sema: an atomic) as C++ whose value is dropped.
  std::string effect(const Expr &E) const {
    if (const auto *A = E.as<ir::Atomic>())
      return atomicCall(*A);
    return raw(E, 0);
  }

  /// An atomic's call, its value the element's old value (of the element's
  /// type). On the device CUDA's atomicAdd ...: a float's sub is an add of
  /// -v (CUDA has no atomicSub for floats), and 64-bit elements go through
  /// CUDA's (unsigned) long long. In the CPU reference, one thread's
  /// read-modify-write of the host element, run in thread order.
  std::string atomicCall(const ir::Atomic &A) const {
    const ir::ElemType T = F.array(A.Target.Array).Decl->Elem;
    const std::string Elem = element(A.Target.Array, A.Target.Indices);
    std::vector<std::string> Vals;
    for (const Expr &V : A.Args)
      Vals.push_back(store(T, V));
    if (M == Mode::Host) {
      const std::string H = hostType(T);
      const std::string &V = Vals.back();
      std::string New;
      switch (A.Op) {
      case ir::AtomicOp::Add: New = fmt::format("static_cast<{}>(e + {})", H, V); break;
      case ir::AtomicOp::Sub: New = fmt::format("static_cast<{}>(e - {})", H, V); break;
      case ir::AtomicOp::Min: New = fmt::format("({} < e ? {} : e)", V, V); break;
      case ir::AtomicOp::Max: New = fmt::format("(e < {} ? {} : e)", V, V); break;
      case ir::AtomicOp::And: New = fmt::format("static_cast<{}>(e & {})", H, V); break;
      case ir::AtomicOp::Or: New = fmt::format("static_cast<{}>(e | {})", H, V); break;
      case ir::AtomicOp::Xor: New = fmt::format("static_cast<{}>(e ^ {})", H, V); break;
      case ir::AtomicOp::Exch: New = V; break;
      case ir::AtomicOp::Inc: New = fmt::format("(e >= {} ? {}(0) : static_cast<{}>(e + 1))", V, H, H); break;
      case ir::AtomicOp::Dec:
        New = fmt::format("((e == 0 || e > {}) ? {} : static_cast<{}>(e - 1))", V, V, H);
        break;
      case ir::AtomicOp::Cas: New = fmt::format("(e == {} ? {} : e)", Vals.front(), V); break;
      }
      return fmt::format("[&]({} &e) {{ const {} old = e; e = {}; return old; }}({})", H, H, New, Elem);
    }
    const bool Float = T.Scalar == ir::ScalarType::F32 || T.Scalar == ir::ScalarType::F64;
    std::string Fn(ir::cudaSpelling(A.Op));
    if (A.Op == ir::AtomicOp::Sub && Float) {
      Fn = "atomicAdd";
      Vals.back() = "-(" + Vals.back() + ")";
    }
    std::string Ptr = "&" + Elem;
    // std::int64_t and std::uint64_t are long on LP64; CUDA's are long long.
    const char *Wide = T.Scalar == ir::ScalarType::I64 ? "long long"
                       : T.Scalar == ir::ScalarType::U64 ? "unsigned long long"
                                                         : nullptr;
    if (Wide) { // integers: the values straight to CUDA's type
      Ptr = fmt::format("reinterpret_cast<{} *>({})", Wide, Ptr);
      for (std::size_t I = 0; I < Vals.size(); ++I)
        Vals[I] = fmt::format("static_cast<{}>({})", Wide, index(A.Args[I]));
    }
    return fmt::format("{}({}, {})", Fn, Ptr, fmt::join(Vals, ", "));
  }

private:
  const KernelFacts &F;
  Mode M;

  bool longIndex() const { return M == Mode::Host || F.LongIndex; }

  std::string compute(const Expr &E, const VClass &C) const {
    if (C.K == VClass::Copy && isHalfLike(C.Elem) && M == Mode::Device)
      return fmt::format("bankwise::toCompute({})", raw(E, 0));
    return raw(E, UnaryPrec);
  }

  static std::string paren(std::string S, int Own, int Prec) {
    return Own < Prec ? "(" + S + ")" : S;
  }

  std::string rawNode(const Expr &, const ir::IntLit &N, int) const { return literal(N.Value, false); }

  std::string rawNode(const Expr &, const ir::FloatLit &N, int) const { return floatLiteral(N.Value, false); }

  /// `c ? a : b`, each arm converted to the class of the whole.
  std::string rawNode(const Expr &E, const ir::Select &N, int) const {
    const VClass C = F.classOf(E);
    auto Arm = [&](const Expr &X) {
      return C.K == VClass::Int ? index(X, 1) : C.K == VClass::Compute ? value(X, C, 1) : raw(X, 1);
    };
    return fmt::format("({} ? {} : {})", index(*N.Cond, 1), Arm(*N.Then), Arm(*N.Else));
  }

  std::string rawNode(const Expr &, const ir::VarRef &N, int) const {
    if (auto It = F.Values->LetOf.find(&N); It != F.Values->LetOf.end()) {
      const LetInfo &L = F.Values->Lets[static_cast<std::size_t>(It->second)];
      return (M == Mode::Host && !L.Uniform) ? cName(L.Decl->Name) + "[t]" : cName(L.Decl->Name);
    }
    if (auto It = F.Values->LoopOf.find(&N); It != F.Values->LoopOf.end()) {
      const LoopInfo &L = F.Values->Loops[static_cast<std::size_t>(It->second)];
      return (M == Mode::Host && !L.Uniform) ? cName(L.Decl->Var) + "[t]" : cName(L.Decl->Var);
    }
    return cName(N.Name);
  }

  std::string rawNode(const Expr &, const ir::BuiltinRef &N, int Prec) const {
    if (M == Mode::Device)
      return std::string(ir::spelling(N.Which));
    const auto &B = F.K.Geo.BlockDim;
    const auto &G = F.K.Geo.GridDim;
    switch (N.Which) {
    case ir::Builtin::Tx:
      return B[1] * B[2] == 1 ? "t" : paren(fmt::format("t % {}", B[0]), 10, Prec);
    case ir::Builtin::Ty:
      return B[1] == 1 ? "0" : paren(fmt::format("t / {} % {}", B[0], B[1]), 10, Prec);
    case ir::Builtin::Tz:
      return B[2] == 1 ? "0" : paren(fmt::format("t / {}", B[0] * B[1]), 10, Prec);
    case ir::Builtin::Bx:
      return "bx";
    case ir::Builtin::By:
      return "by";
    case ir::Builtin::Bz:
      return "bz";
    case ir::Builtin::Lane:
      return paren(fmt::format("t % {}", F.WarpWidth), 10, Prec);
    case ir::Builtin::Warp:
      return paren(fmt::format("t / {}", F.WarpWidth), 10, Prec);
    case ir::Builtin::Tid: {
      if (F.Blocks == 1 && !F.RuntimeGrid)
        return "t";
      std::string Block = "bx";
      if (F.RuntimeGrid)
        Block = "(bz * bw_grid_y + by) * bw_grid_x + bx";
      else if (G[1] > 1 || G[2] > 1)
        Block = fmt::format("(bz * {} + by) * {} + bx", G[1], G[0]);
      return paren(fmt::format("({}) * {} + t", Block, F.Threads), 9, Prec);
    }
    }
    return "0";
  }

  std::string rawNode(const Expr &E, const ir::Unary &N, int Prec) const {
    const VClass C = F.classOf(E);
    std::string Op = std::string(ir::spelling(N.Op));
    std::string Operand = C.K == VClass::Compute ? value(*N.Operand, C, UnaryPrec)
                                                 : value(*N.Operand, intClass(), UnaryPrec);
    if (!Operand.empty() && (Operand[0] == '-' || Operand[0] == '~' || Operand[0] == '!'))
      Operand = "(" + Operand + ")";
    return paren(Op + Operand, UnaryPrec, Prec);
  }

  std::string rawNode(const Expr &E, const ir::Binary &N, int Prec) const {
    const VClass C = F.classOf(E);
    const VClass L = F.classOf(*N.Lhs), R = F.classOf(*N.Rhs);
    const int Own = ir::precedence(N.Op);
    if (C.K == VClass::Int && literalOnly(E) && longIndex()) {
      // A constant subexpression whose C++ int arithmetic could overflow is
      // printed folded.
      const Range V = F.rangeOf(E);
      bool Small = fitsInt32(V);
      std::function<void(const Expr &)> Walk = [&](const Expr &X) {
        if (!fitsInt32(F.rangeOf(X)))
          Small = false;
        if (const auto *B = X.as<ir::Binary>()) {
          Walk(*B->Lhs);
          Walk(*B->Rhs);
        } else if (const auto *U = X.as<ir::Unary>())
          Walk(*U->Operand);
      };
      Walk(E);
      if (!Small && V.Known)
        return literal(static_cast<std::int64_t>(V.Lo), true);
    }
    const bool Bitwise = N.Op == BinaryOp::BitAnd || N.Op == BinaryOp::BitOr ||
                         N.Op == BinaryOp::BitXor || N.Op == BinaryOp::Shl ||
                         N.Op == BinaryOp::Shr || N.Op == BinaryOp::LogAnd ||
                         N.Op == BinaryOp::LogOr || Own == 6 || Own == 7;
    const int LPrec = Bitwise ? UnaryPrec : Own, RPrec = Bitwise ? UnaryPrec : Own + 1;
    const bool Floaty = isFloaty(L) || isFloaty(R);
    auto Side = [&](const Expr &X, int P) {
      if (Floaty)
        return value(X, computeClass(wantsDouble(L) || wantsDouble(R)), P);
      return index(X, P);
    };
    if (!Floaty && (N.Op == BinaryOp::Div || N.Op == BinaryOp::Mod)) {
      const Range A = F.rangeOf(*N.Lhs), B = F.rangeOf(*N.Rhs);
      if (!(A.Known && A.Lo >= 0 && B.Known && B.Lo >= 1))
        return fmt::format("bankwise::{}({}, {})", N.Op == BinaryOp::Div ? "floorDiv" : "floorMod",
                           index(*N.Lhs), index(*N.Rhs));
    }
    std::string Lhs = Side(*N.Lhs, LPrec);
    if (N.Op == BinaryOp::Shl && longIndex() && N.Lhs->is<ir::IntLit>())
      Lhs = literal(N.Lhs->as<ir::IntLit>()->Value, true);
    return paren(fmt::format("{} {} {}", Lhs, ir::spelling(N.Op), Side(*N.Rhs, RPrec)), Own, Prec);
  }

  std::string rawNode(const Expr &E, const ir::Call &N, int) const {
    const VClass C = F.classOf(E);
    auto Arg = [&](std::size_t I) {
      return C.K == VClass::Compute ? value(N.Args[I], C) : index(N.Args[I]);
    };
    switch (N.Fn) {
    case ir::Function::Min:
      return fmt::format("bankwise::minOf({}, {})", Arg(0), Arg(1));
    case ir::Function::Max:
      return fmt::format("bankwise::maxOf({}, {})", Arg(0), Arg(1));
    case ir::Function::Log2:
      return fmt::format("bankwise::log2Floor({})", Arg(0));
    case ir::Function::Bitrev:
      return fmt::format("bankwise::bitReverse({}, {})", Arg(0), Arg(1));
    }
    return "0";
  }

  /// A warp shuffle, its value of the class of the whole. On the device
  /// CUDA's __shfl_*_sync with the full mask; in the CPU reference the value
  /// evaluated for the source thread (a lambda over the thread t, the
  /// source lane by ir::shuffleSource's rule), or the value itself when it
  /// is the same in every thread.
  std::string rawNode(const Expr &E, const ir::Shuffle &N, int) const {
    const VClass C = F.classOf(E);
    if (C.K == VClass::Copy && C.Elem.Lanes > 1)
      throw UserError(E.Loc, fmt::format("codegen: '{}' moves scalars; this value is a {} element",
                                         ir::spelling(N.Op), ir::spelling(C.Elem)));
    const std::string V = C.K == VClass::Int ? index(*N.Value, 1) : C.K == VClass::Compute ? value(*N.Value, C, 1)
                                                                                          : raw(*N.Value, 1);
    const std::string L = index(*N.Lane);
    if (M == Mode::Device)
      return fmt::format("{}(0xffffffffu, {}, static_cast<{}>({}))", ir::cudaSpelling(N.Op), V,
                         N.Op == ir::ShuffleOp::Up || N.Op == ir::ShuffleOp::Down ? "unsigned" : "int", L);
    if (F.uniform(*N.Value))
      return "(" + V + ")";
    std::string Src;
    switch (N.Op) {
    case ir::ShuffleOp::Idx: Src = "((s % 32) + 32) % 32"; break;
    case ir::ShuffleOp::Xor: Src = "s >= 0 && (l ^ s) < 32 ? l ^ s : l"; break;
    case ir::ShuffleOp::Up: Src = "s >= 0 && l - s >= 0 ? l - s : l"; break;
    case ir::ShuffleOp::Down: Src = "s >= 0 && s < 32 && l + s < 32 ? l + s : l"; break;
    }
    return fmt::format("[&](Index t) {{ return {}; }}(t - t % 32 + [](Index{}, Index s) {{ return {}; }}(t % 32, {}))",
                       V, N.Op == ir::ShuffleOp::Idx ? "" : " l", Src, L);
  }

  /// The old value of an atomic, converted as a read of its element is.
  std::string rawNode(const Expr &, const ir::Atomic &N, int) const {
    return elementValue(atomicCall(N), F.array(N.Target.Array).Decl->Elem);
  }

  std::string rawNode(const Expr &, const ir::ArrayRead &N, int) const {
    return elementValue(element(N.Array, N.Indices), F.array(N.Array).Decl->Elem);
  }

  /// Text, a value of element type T, as the value of an element read: an
  /// integer as Index.
  std::string elementValue(std::string Text, ir::ElemType T) const {
    if (isIntElem(T)) {
      const bool Same = (T.Scalar == ir::ScalarType::I32 && !longIndex()) ||
                        (T.Scalar == ir::ScalarType::I64 && longIndex());
      if (!Same)
        Text = fmt::format("static_cast<Index>({})", Text);
    }
    return Text;
  }

  std::string rawNode(const Expr &, const ir::PermApply &N, int Prec) const {
    const ir::Permutation *P = F.Prog.findPerm(N.Perm);
    const std::int64_t Size = P && P->Size ? *P->Size : 0;
    const std::string X = index(*N.Arg);
    auto Bits = [&] {
      std::int64_t B = 0;
      while ((std::int64_t(1) << B) < Size)
        ++B;
      return B;
    };
    if (P && isClosedForm(F.Prog, N.Perm)) {
      switch (P->Kind) {
      case ir::PermKind::Identity:
        return index(*N.Arg, Prec);
      case ir::PermKind::Shuffle:
        return fmt::format("bankwise::{}({}, {})", N.Inverse ? "shuffleInverse" : "shufflePerm", X, Bits());
      case ir::PermKind::Bitreverse:
        return fmt::format("bankwise::bitReverse({}, {})", X, Bits());
      case ir::PermKind::Transpose: {
        std::int64_t Rows = P->ArgValues[0], Cols = P->ArgValues[1];
        if (N.Inverse)
          std::swap(Rows, Cols);
        return fmt::format("bankwise::transposePerm({}, {}, {})", X, literal(Rows, longIndex()),
                           literal(Cols, longIndex()));
      }
      case ir::PermKind::Stride: {
        std::int64_t Rows = Size / P->ArgValues[1], Cols = P->ArgValues[1];
        if (N.Inverse)
          std::swap(Rows, Cols);
        return fmt::format("bankwise::transposePerm({}, {}, {})", X, literal(Rows, longIndex()),
                           literal(Cols, longIndex()));
      }
      default:
        break;
      }
    }
    const PermUse *U = F.permUse(N.Perm, N.Inverse);
    assert(U && "table permutation without a table");
    return fmt::format("static_cast<Index>({}[{}])", U->CName, X);
  }
};

/// Predicted cost of a codegen-added contiguous copy between global and
/// shared memory (staging of a shared parameter): one warp of w lanes.

class KernelEmitter;

/// What runs as one unit (the harness runs it, --torch makes it an op): a
/// kernel launched alone, or a `launch` of kernels in order.
struct Runnable {
  std::string Name, LaunchFn;
  std::vector<const KernelEmitter *> Stages;
  std::size_t SeedIndex;
};

/// A PyTorch op of a Runnable (Torch.cpp): its C++ functions, the schemas
/// it defines and the registrations of their CUDA implementations; or,
/// when Skipped is set, why there is none.
struct TorchOp {
  std::string Code;
  std::vector<std::string> Schemas;
  std::vector<std::string> Impls;
  std::string Usage; ///< a line of the loader's docstring: how to call it
  std::optional<std::string> Skipped;
};

/// The extension's files for the Runnables of module Ns (Torch.cpp).
TorchExtension torchExtension(const CodegenOptions &Opts, const std::string &Ns, const std::vector<Runnable> &Runnables);

struct HarnessRun;
struct TorchOpBuild;

class KernelEmitter {
  /// The shared state and steps of harnessRunOf (Harness.cpp) and torchOp
  /// (Torch.cpp), which read the stages' facts and printers.
  friend struct HarnessRun;
  friend struct TorchOpBuild;

public:
  KernelEmitter(const KernelFacts &F, const KernelReport &Rep, const CodegenOptions &Opts,
                const ModuleState &Mod)
      : F(F), Rep(Rep), Opts(Opts), Mod(Mod), Dev(F, Mode::Device), Host(F, Mode::Host) {
    for (const AccessSiteReport &S : Rep.Sites)
      Sites[S.Node.Read].push_back(&S);
  }

  std::string kernelName() const { return cName(F.K.Name); }
  /// The runtime params the kernel takes as arguments (`param R`; the ones
  /// computed from them are recomputed from these).
  std::vector<const ir::Param *> sizeArgs() const {
    std::vector<const ir::Param *> Out;
    for (const ir::Param *P : F.RuntimeUsed)
      if (!P->Init)
        Out.push_back(P);
    return Out;
  }
  /// Names of sizeArgs(), each with Prefix: "R, C".
  std::string sizeNames(const std::string &Prefix = "") const {
    std::vector<std::string> Out;
    for (const ir::Param *P : sizeArgs())
      Out.push_back(Prefix + cName(P->Name));
    return fmt::format("{}", fmt::join(Out, ", "));
  }
  /// `const Type Mid = M - 10;` for each runtime param the kernel computes.
  std::vector<std::string> derivedSizes(const ExprEmitter &E, const std::string &Type) const {
    std::vector<std::string> Out;
    for (const ir::Param *P : F.RuntimeUsed)
      if (P->Init)
        Out.push_back(fmt::format("[[maybe_unused]] const {} {} = {}; // param (runtime)", Type, cName(P->Name), E.index(*P->Init)));
    return Out;
  }
  /// "grid (6, 8, 1)", or the grid's expressions when it depends on a runtime param.
  std::string gridText() const {
    const auto &G = F.K.Geo;
    if (!F.RuntimeGrid)
      return fmt::format("({}, {}, {})", G.GridDim[0], G.GridDim[1], G.GridDim[2]);
    std::vector<std::string> Parts;
    for (std::size_t D = 0; D < 3; ++D)
      Parts.push_back(D < G.Grid.size() ? ir::print(G.Grid[D]) : "1");
    return fmt::format("({})", fmt::join(Parts, ", "));
  }
  /// `bw_grid_x = ..., ...` computing a runtime grid in host code.
  std::string gridDecl() const {
    const auto &G = F.K.Geo;
    std::vector<std::string> Parts;
    const char *Axes[] = {"x", "y", "z"};
    for (std::size_t D = 0; D < 3; ++D)
      Parts.push_back(fmt::format("bw_grid_{} = {}", Axes[D], D < G.Grid.size() ? Host.index(G.Grid[D]) : "1"));
    return fmt::format("const long long {};", fmt::join(Parts, ", "));
  }
  std::string launchName() const { return "launch_" + F.K.Name; }

  /// `const float *in, std::size_t in_count, ...` of the launch API.
  std::string apiParams(bool WithDefaults) const {
    std::vector<std::string> Ps;
    for (const ArrayPlan &A : F.Arrays)
      if (A.isApiParam())
        Ps.push_back(fmt::format("{}{} *{}, std::size_t {}_count", A.Written ? "" : "const ",
                                 devType(A.Decl->Elem), A.Name, A.Name));
    for (const ir::Param *P : sizeArgs())
      Ps.push_back("long long " + cName(P->Name));
    Ps.push_back(WithDefaults ? "cudaStream_t stream = 0" : "cudaStream_t stream");
    return fmt::format("{}", fmt::join(Ps, ", "));
  }

  std::string apiDoc() const {
    std::string S = fmt::format("/// Kernel '{}' ({}:{}): grid {} x block ({}, {}, {}).\n",
                                F.K.Name, Opts.SourceName, F.K.Loc.Line, gridText(), F.K.Geo.BlockDim[0],
                                F.K.Geo.BlockDim[1], F.K.Geo.BlockDim[2]);
    for (const ArrayPlan &A : F.Arrays) {
      if (!A.isDeviceParam())
        continue;
      const char *Role = A.Table >= 0 ? "a table the module uploads itself"
                         : A.Read && A.Written ? "read and written"
                         : A.Written           ? "written"
                                               : "read";
      S += fmt::format("///   {}: {} {}, {} elements ({}), {}.\n", A.Decl->Name,
                       ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl),
                       F.runtimeShape(*A.Decl) ? F.countText(*A.Decl, Mode::Host) : fmt::format("{}", A.footprint()),
                       A.Lay.Kind == LayoutKind::Raw ? "row-major" : A.LayoutName, Role);
    }
    if (F.InLaunch)
      S += fmt::format("/// Stage {} of launch_{}, which runs it after the stages before it.\n",
                       std::find(F.InLaunch->Kernels.begin(), F.InLaunch->Kernels.end(), F.K.Name) -
                           F.InLaunch->Kernels.begin(),
                       F.InLaunch->Name);
    if (F.RuntimeUsed.empty()) {
      S += "/// Returns cudaErrorInvalidValue when a count differs from the one above.\n";
      return S;
    }
    for (const ir::Param *P : sizeArgs())
      S += fmt::format("///   {}: a runtime size{}.\n", P->Name, P->Where ? ", where " + ir::print(*P->Where) : "");
    for (const ir::Param *P : F.RuntimeUsed)
      if (P->Init)
        S += fmt::format("///   {} = {} (computed){}.\n", P->Name, ir::print(*P->Init),
                         P->Where ? ", where " + ir::print(*P->Where) : "");
    S += "/// Returns cudaErrorInvalidValue, launching nothing, when a size breaks its `where`, a dimension\n"
         "/// is not positive, a count differs from the one above, or the grid exceeds CUDA's limits.\n";
    return S;
  }

  std::string declaration() const {
    return apiDoc() + fmt::format("cudaError_t {}({});\n", launchName(), apiParams(true));
  }

  std::string device();
  std::string launch() const;
  /// The launch function's checks of runtime sizes: derived params, `where`
  /// constraints, positive dimensions, and the grid (bw_grid) within CUDA's limits.
  std::string runtimeChecks() const;
  std::string reference();
  std::string harnessRun() const;
  /// The harness run of Stages launched by LaunchFn one after another
  /// (a kernel alone, or a `launch`): the union of their arrays, each
  /// stage's CPU reference in order, one comparison of what they wrote.
  static std::string harnessRunOf(const std::string &Name, const std::string &LaunchFn,
                                  const std::vector<const KernelEmitter *> &Stages, std::size_t SeedIndex);
  /// launch_NAME of `launch NAME = K1, ...`: its declaration (with the API
  /// doc) or its definition, over the stages' emitters in order.
  static std::string launchSequence(const ir::Launch &L, const std::vector<const KernelEmitter *> &Stages,
                                    bool Declaration);
  /// The runtime sizes the stages take, each once, in declaration order.
  static std::vector<const ir::Param *> sizeArgsOf(const std::vector<const KernelEmitter *> &Stages);
  /// The PyTorch op of R (Torch.cpp), registered in module Module.
  static TorchOp torchOp(const Runnable &R, const std::string &Module);

private:
  const KernelFacts &F;
  const KernelReport &Rep;
  const CodegenOptions &Opts;
  const ModuleState &Mod;
  ExprEmitter Dev, Host;
  /// Reports by the IR node of their site (the analysis ran on this program).
  std::map<const ir::ArrayRead *, std::vector<const AccessSiteReport *>> Sites;
  std::string Out;
  int Counter = 0;

  void line(int Indent, const std::string &S) {
    Out.append(static_cast<std::size_t>(Indent) * 2, ' ');
    Out += S;
    Out += '\n';
  }
  void siteComments(int Indent, const Stmt &St);
  std::string declType(const LetInfo &L, Mode M) const;
  std::string layoutObject(const ArrayPlan &A) const;
  void emitDeviceArray(int Indent, const ArrayPlan &A);
  // The steps of device(), in order.
  /// The comment above the kernel: its geometry and sizes, the schedules
  /// that made it, the model's prediction, the index type.
  void deviceComment();
  /// The __global__ function's opening: its parameters, Index, the params it
  /// uses and the runtime sizes it computes.
  void deviceSignature();
  /// Declares bw_t, the thread's index in the block, when anything uses it;
  /// returns the definitions of the thread built-ins the body uses.
  std::vector<std::string> threadBuiltins();
  /// Dynamic shared memory, the arrays' layouts and shared copies, and the
  /// staged arrays copied in from global memory.
  void deviceArrays();
  /// The written staged arrays copied back to global memory.
  void stageBack();
  void deviceBlock(const ir::Block &B, int Indent);
  /// Fo gets `#pragma unroll`: constant bounds, at most 64 trips, and a
  /// local array indexed by its variable (else the array lives in local
  /// memory, a global-memory round trip per access).
  bool unrollsLocals(const ir::For &Fo) const;
  void hostBlock(const ir::Block &B, int Indent, const std::string &Mask);
  void perThread(int Indent, const std::string &Mask, const std::vector<std::string> &Body);
};

} // namespace bankwise::codegen::detail
