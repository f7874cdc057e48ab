// CUDA emission. compileToCuda runs, per kernel, a short script:
//   1. scan: arrays (role, space, layout), locals, loops, tables used;
//   2. facts: value classes of locals (index, exact copy, arithmetic), value
//      ranges (the index type: int when every index value fits), uniformity
//      (for the CPU reference's lockstep form);
//   3. emit: the __global__ function, its launch function, the CPU reference
//      and the harness, each a fmt skeleton filled from the facts.
// Every decision is made here; templates/ supplies only formulas and helpers.

#include "codegen/Codegen.h"

#include "analysis/KernelAnalysis.h"
#include "analysis/Layout.h"
#include "analysis/MemoryModel.h"
#include "analysis/SiteJson.h"
#include "analysis/schedule/HmmSchedule.h"
#include "codegen/Tables.h"
#include "codegen/Templates.h"
#include "ir/Printer.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace bankwise::codegen {

std::string_view templateText(std::string_view Path) {
  for (std::size_t I = 0; I < NumEmbeddedTemplates; ++I)
    if (Path == EmbeddedTemplates[I].Path)
      return EmbeddedTemplates[I].Text;
  return {};
}

namespace {

using ir::BinaryOp;
using ir::Expr;
using ir::Stmt;

//===-- Names ---------------------------------------------------------------===//

const std::set<std::string, std::less<>> &cppKeywords() {
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
std::string cName(const std::string &N) {
  if (cppKeywords().count(N) || N.rfind("bw_", 0) == 0 || N.rfind("__", 0) == 0 ||
      N.rfind("launch_", 0) == 0 || N.rfind("reference_", 0) == 0 || N.rfind("run_", 0) == 0)
    return N + "_";
  return N;
}

std::string cString(const std::string &S) {
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

std::string locText(const SourceLoc &L) { return fmt::format("{}:{}", L.Line, L.Col); }

//===-- Element types -------------------------------------------------------===//

bool isFloat(ir::ScalarType S) {
  return S == ir::ScalarType::F16 || S == ir::ScalarType::BF16 || S == ir::ScalarType::F32 ||
         S == ir::ScalarType::F64;
}
bool isIntElem(ir::ElemType T) { return T.Lanes == 1 && !isFloat(T.Scalar); }
bool isHalfLike(ir::ElemType T) {
  return T.Lanes == 1 && (T.Scalar == ir::ScalarType::F16 || T.Scalar == ir::ScalarType::BF16);
}

std::string scalarType(ir::ScalarType S) {
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
std::string devType(ir::ElemType T) {
  if (T.Lanes == 1)
    return scalarType(T.Scalar);
  return fmt::format("bankwise::Vec<{}, {}>", scalarType(T.Scalar), T.Lanes);
}

/// Host (CPU reference) spelling: f16 and bf16 are held as float.
std::string hostType(ir::ElemType T) { return isHalfLike(T) ? "float" : devType(T); }

//===-- Value classes -------------------------------------------------------===//

/// What a value is: an integer (index arithmetic, 64-bit in the .bw
/// semantics), an exact copy of an element (moved bit for bit), or the result
/// of floating-point arithmetic (float, or double when f64 takes part).
struct VClass {
  enum Kind { Int, Copy, Compute } K = Int;
  ir::ElemType Elem{};
  bool Double = false;
  bool operator==(const VClass &) const = default;
};

VClass intClass() { return {}; }
VClass computeClass(bool Double) { return {VClass::Compute, {}, Double}; }
bool isFloaty(const VClass &C) { return C.K != VClass::Int; }
bool wantsDouble(const VClass &C) {
  return C.K == VClass::Compute ? C.Double : (C.K == VClass::Copy && C.Elem.Scalar == ir::ScalarType::F64);
}

//===-- Ranges ----------------------------------------------------------------===//

using Wide = __int128_t;

/// A closed interval of values, or Unknown (any 64-bit value).
struct Range {
  bool Known = false;
  Wide Lo = 0, Hi = 0;
  bool operator==(const Range &) const = default;
};
Range unknownRange() { return {}; }
Range span(Wide Lo, Wide Hi) {
  if (Lo < Wide(std::numeric_limits<std::int64_t>::min()) ||
      Hi > Wide(std::numeric_limits<std::int64_t>::max()))
    return {};
  return {true, Lo, Hi};
}
Range point(Wide V) { return span(V, V); }
Range join(const Range &A, const Range &B) {
  if (!A.Known || !B.Known)
    return {};
  return span(std::min(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
}
bool fitsInt32(const Range &R) {
  return R.Known && R.Lo >= std::numeric_limits<std::int32_t>::min() &&
         R.Hi <= std::numeric_limits<std::int32_t>::max();
}
Wide floorDivWide(Wide A, Wide B) {
  Wide Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}
int bitWidth(Wide V) {
  int B = 0;
  while (V > 0) {
    ++B;
    V >>= 1;
  }
  return B;
}

/// CUDA's grid limits (x; y and z).
constexpr std::int64_t MaxGridX = 2147483647, MaxGridYZ = 65535;

Range elemRange(ir::ElemType T) {
  if (!isIntElem(T))
    return {};
  const int Bits = static_cast<int>(ir::byteSize(T)) * 8;
  const bool Signed = T.Scalar == ir::ScalarType::I8 || T.Scalar == ir::ScalarType::I16 ||
                      T.Scalar == ir::ScalarType::I32 || T.Scalar == ir::ScalarType::I64;
  if (Bits == 64)
    return Signed ? span(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max())
                  : Range{};
  if (Signed)
    return span(-(Wide(1) << (Bits - 1)), (Wide(1) << (Bits - 1)) - 1);
  return span(0, (Wide(1) << Bits) - 1);
}

//===-- Per-kernel facts -----------------------------------------------------===//

struct LetInfo {
  const ir::Let *Decl = nullptr;
  std::string Name;
  std::vector<const Expr *> Values; ///< init, then every assignment
  VClass Class;
  Range R;
  bool Uniform = true;
  bool Assigned = false;
  bool Read = false;
};

struct LoopInfo {
  const ir::For *Decl = nullptr;
  Range R, Reach;
  bool Uniform = true;
};

enum class Origin { Param, TopLevel, Body };

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
  LayoutFn Lay;          ///< the address formula (analysis/Layout.h)
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
  std::vector<LetInfo> Lets;
  std::vector<LoopInfo> Loops;
  std::map<const ir::VarRef *, int> LetOf, LoopOf;
  std::map<const ir::Let *, int> LetIndex;
  std::map<const ir::For *, int> LoopIndex;
  std::vector<PermUse> PermUses;
  std::set<ir::Builtin> Builtins;
  std::set<std::string> ParamsUsed;
  bool HasCompute = false;
  bool HasSync = false;
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
  /// `schedule colored` on a global copy: seed 001's passes and their table.
  const HmmLowering *Hmm = nullptr;
  int HmmTable = -1;

  std::string indexType() const { return LongIndex ? "long long" : "int"; }
  ArrayPlan &array(const std::string &Name) { return Arrays.at(ArrayIndex.at(Name)); }
  const ArrayPlan &array(const std::string &Name) const { return Arrays.at(ArrayIndex.at(Name)); }
  const PermUse *permUse(const std::string &Perm, bool Inverse) const {
    for (const PermUse &U : PermUses)
      if (U.Perm == Perm && U.Inverse == Inverse)
        return &U;
    return nullptr;
  }

  VClass classOf(const Expr &E) const;
  Range rangeOf(const Expr &E) const;
  bool uniform(const Expr &E) const;

private:
  using Scope = std::vector<std::map<std::string, std::pair<bool, int>, std::less<>>>;
  void addArray(const ir::Array &A, Origin From);
  void scanBlock(const ir::Block &B, Scope &S);
  void scanExpr(const Expr &E, Scope &S);
  std::pair<bool, int> lookup(const Scope &S, const std::string &Name) const;
  void collectRuntime();
  void solve();
  void forEachExpr(const ir::Block &B, const std::function<void(const Expr &)> &F) const;
};

/// Facts shared by the kernels of one module: tables and their storage.
class ModuleState {
public:
  ModuleState(const ir::Program &Prog, const CodegenOptions &Opts)
      : Prog(Prog), Opts(Opts), Perms(Prog), Runtime(Opts.RuntimeParams.begin(), Opts.RuntimeParams.end()) {}
  const ir::Program &Prog;
  const CodegenOptions &Opts;
  PermutationCache Perms;
  std::vector<TablePlan> Tables;
  std::vector<Diagnostic> Warnings;
  /// CodegenOptions::RuntimeParams.
  std::set<std::string, std::less<>> Runtime;

  /// E mentions a runtime param.
  bool runtime(const Expr &E) const;
  /// The table of Perm (inverse when Inverse) with device type DevType.
  int table(const std::string &Perm, bool Inverse, const std::string &DevType, bool Narrow);
  /// The s and d planes of a seed 001 schedule: one table of 6n uint16.
  int hmmTable(const std::string &Kernel, const HmmLowering &L);
  /// The side-file offset of the next stored table.
  std::uint64_t nextOffset() const {
    std::uint64_t Offset = 0;
    for (const TablePlan &O : Tables)
      if (!O.InSource && O.stored())
        Offset += O.Size * static_cast<std::uint64_t>(O.Width);
    return Offset;
  }
};

/// Adds the names of the params E mentions to Out.
void paramNames(const Expr &E, std::set<std::string, std::less<>> &Out) {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param)
            Out.insert(N.Name);
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          paramNames(*N.Operand, Out);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          paramNames(*N.Lhs, Out);
          paramNames(*N.Rhs, Out);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (const Expr &A : N.Args)
            paramNames(A, Out);
        }
      },
      E.Node);
}

bool ModuleState::runtime(const Expr &E) const {
  std::set<std::string, std::less<>> Names;
  paramNames(E, Names);
  return std::any_of(Names.begin(), Names.end(), [&](const std::string &N) { return Runtime.count(N) > 0; });
}

/// "R = 64, C = 64": the representative sizes of the runtime params, in
/// declaration order.
std::string sizesText(const ir::Program &Prog, const CodegenOptions &Opts) {
  std::vector<std::string> Parts;
  for (const ir::Param &P : Prog.Params)
    if (auto It = Opts.RepresentativeSizes.find(P.Name); It != Opts.RepresentativeSizes.end())
      Parts.push_back(fmt::format("{} = {}", P.Name, It->second));
  return fmt::format("{}", fmt::join(Parts, ", "));
}

/// Names the generated host code (harness, CPU reference) uses for its own
/// locals, which a runtime param, a local there too, must not take.
const std::set<std::string, std::less<>> &hostLocalNames() {
  static const std::set<std::string, std::less<>> Names = {
      "A", "Buf", "Bytes", "Checked", "Device", "Elapsed", "Got", "I", "Index", "Json", "Median", "Min",
      "Mismatches", "Ms", "NT", "Ok", "Prop", "Rng", "Runs", "Seed", "Start", "Stop", "Time", "W", "t"};
  return Names;
}

std::string permDescription(const ir::Program &Prog, const std::string &Name) {
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P)
    return Name;
  std::vector<std::string> Args;
  for (const Expr &A : P->Args)
    Args.push_back(ir::print(A));
  switch (P->Kind) {
  case ir::PermKind::File:
    return fmt::format("file(\"{}\")", P->Path);
  case ir::PermKind::ScheduleSrc:
  case ir::PermKind::ScheduleDst:
    return fmt::format("{}({}, w: {}) (seed 003 conflict-free schedule)", ir::spelling(P->Kind),
                       P->Base, Args.empty() ? "?" : Args[0]);
  case ir::PermKind::Random:
    return fmt::format("random({}, seed: {})", Args.size() > 0 ? Args[0] : "?",
                       Args.size() > 1 ? Args[1] : "?");
  case ir::PermKind::List:
    return fmt::format("a list of {}", P->Args.size());
  default:
    return fmt::format("{}({})", ir::spelling(P->Kind), fmt::join(Args, ", "));
  }
}

bool isClosedForm(const ir::Program &Prog, const std::string &Perm);
std::string literal(std::int64_t V, bool Long);

/// Entry I of a closed-form permutation as C++ (the formulas of arith.cuh).
std::string closedFormText(const ir::Permutation &P, bool Inverse, const std::string &I) {
  const std::int64_t N = P.Size.value_or(1);
  std::int64_t Bits = 0;
  while ((std::int64_t(1) << Bits) < N)
    ++Bits;
  switch (P.Kind) {
  case ir::PermKind::Shuffle:
    return fmt::format("bankwise::{}({}, {})", Inverse ? "shuffleInverse" : "shufflePerm", I, Bits);
  case ir::PermKind::Bitreverse:
    return fmt::format("bankwise::bitReverse({}, {})", I, Bits);
  case ir::PermKind::Transpose:
  case ir::PermKind::Stride: {
    std::int64_t Rows = P.Kind == ir::PermKind::Transpose ? P.ArgValues[0] : N / P.ArgValues[1];
    std::int64_t Cols = P.Kind == ir::PermKind::Transpose ? P.ArgValues[1] : P.ArgValues[1];
    if (Inverse)
      std::swap(Rows, Cols);
    return fmt::format("bankwise::transposePerm({}, {}, {})", I, literal(Rows, true), literal(Cols, true));
  }
  default:
    return I;
  }
}

int ModuleState::table(const std::string &Perm, bool Inverse, const std::string &DevType, bool Narrow) {
  if (isClosedForm(Prog, Perm)) {
    const ir::Permutation &P = *Prog.findPerm(Perm);
    for (std::size_t I = 0; I < Tables.size(); ++I)
      if (Tables[I].Perm == Perm && Tables[I].Inverse == Inverse && Tables[I].DeviceType == DevType)
        return static_cast<int>(I);
    TablePlan T;
    T.Perm = Perm;
    T.Inverse = Inverse;
    T.Describe = (Inverse ? "inverse of " : "") + permDescription(Prog, Perm);
    T.DeviceType = DevType;
    T.Size = static_cast<std::uint64_t>(P.Size.value_or(0));
    T.Width = narrowestWidth(T.Size);
    T.ClosedForm = closedFormText(P, Inverse, "I");
    Tables.push_back(std::move(T));
    return static_cast<int>(Tables.size() - 1);
  }
  const std::shared_ptr<const Permutation> Shared = Perms.share(Perm, Inverse);
  const Permutation &Values = *Shared;
  const int Width = narrowestWidth(Values.size());
  const std::string Type = Narrow ? unsignedTypeName(Width) : DevType;
  for (std::size_t I = 0; I < Tables.size(); ++I)
    if (Tables[I].Perm == Perm && Tables[I].Inverse == Inverse && Tables[I].DeviceType == Type)
      return static_cast<int>(I);
  TablePlan T;
  T.Perm = Perm;
  T.Inverse = Inverse;
  T.Describe = (Inverse ? "inverse of " : "") + permDescription(Prog, Perm);
  T.DeviceType = Type;
  T.Values = Shared;
  T.Size = Values.size();
  T.Width = Width;
  const std::uint64_t Bytes = Values.size() * static_cast<std::uint64_t>(Width);
  T.InSource = Bytes <= Opts.InlineTableLimit;
  T.Hash = T.hash();
  if (!T.InSource)
    T.Offset = nextOffset();
  Tables.push_back(std::move(T));
  return static_cast<int>(Tables.size() - 1);
}

int ModuleState::hmmTable(const std::string &Kernel, const HmmLowering &L) {
  const HmmSchedule &S = *L.Schedule;
  TablePlan T;
  T.Perm = L.PlanePrefix;
  T.Describe = fmt::format("kernel '{}': s and d of seed 001's three passes (planes s0, d0, s1, d1, s2, "
                           "d2 of {} entries each)",
                           Kernel, S.size());
  T.DeviceType = "std::uint16_t";
  // HmmSchedule keeps its six planes back to back in one buffer.
  T.Raw16 = std::span<const std::uint16_t>(S.plane(0).data(), 6 * S.size());
  T.RawOwner = L.Schedule;
  T.Size = T.Raw16.size();
  T.Width = 2;
  T.InSource = T.Size * 2 <= Opts.InlineTableLimit;
  T.Hash = T.hash();
  if (!T.InSource)
    T.Offset = nextOffset();
  Tables.push_back(std::move(T));
  return static_cast<int>(Tables.size() - 1);
}

bool isClosedForm(const ir::Program &Prog, const std::string &Perm) {
  const ir::Permutation *P = Prog.findPerm(Perm);
  if (!P)
    return false;
  switch (P->Kind) {
  case ir::PermKind::Identity:
  case ir::PermKind::Shuffle:
  case ir::PermKind::Bitreverse:
  case ir::PermKind::Transpose:
  case ir::PermKind::Stride:
    return true;
  default:
    return false;
  }
}

LayoutFn layoutOf(const ir::Array &A) {
  LayoutKind Kind = LayoutKind::Raw;
  switch (A.Lay.Kind) {
  case ir::LayoutKind::Raw:
  case ir::LayoutKind::Auto: // not resolved: raw, as the analysis does
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
                      static_cast<std::uint64_t>(A.Lay.ArgValue));
  } catch (const UserError &E) {
    throw UserError(A.Loc, fmt::format("array '{}': {}", A.Name, E.diagnostic().Message));
  }
}

KernelFacts::KernelFacts(const ir::Program &Prog, const ir::Kernel &K, ModuleState &M)
    : Prog(Prog), K(K), Mod(M) {
  WarpWidth = Prog.Mach ? Prog.Mach->warpSize() : 32;
  Threads = K.Geo.threadsPerBlock();
  Blocks = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2];
  CudaThreads = std::min<std::int64_t>(Threads, 1024);
  Virtual = Threads > 1024;
  if (Virtual && !K.Geo.IsThreads)
    throw UserError(K.Geo.Loc, fmt::format("kernel '{}' has {} threads in a block; CUDA allows "
                                           "at most 1024",
                                           K.Name, Threads));
  for (const ir::Array &A : K.Params)
    addArray(A, Origin::Param);
  Scope S(1);
  scanBlock(K.Body, S);
  collectRuntime();
  if (Virtual && HasSync)
    throw UserError(K.Geo.Loc, fmt::format("kernel '{}' has {} threads and a 'sync': CUDA blocks hold at most "
                                           "1024 threads, and codegen runs several program threads per CUDA "
                                           "thread only in kernels without 'sync'",
                                           K.Name, Threads));
  solve();
}

void KernelFacts::collectRuntime() {
  if (Mod.Runtime.empty())
    return;
  std::set<std::string, std::less<>> Need(ParamsUsed.begin(), ParamsUsed.end());
  for (const ArrayPlan &A : Arrays)
    if (A.isDeviceParam())
      for (const Expr &D : A.Decl->Dims)
        paramNames(D, Need);
  for (const Expr &G : K.Geo.Grid)
    paramNames(G, Need);
  // A param's Init and `where` name only earlier params: one pass backwards.
  for (auto It = Prog.Params.rbegin(); It != Prog.Params.rend(); ++It) {
    if (!Need.count(It->Name) || !Mod.Runtime.count(It->Name))
      continue;
    if (It->Init)
      paramNames(*It->Init, Need);
    if (It->Where)
      paramNames(*It->Where, Need);
  }
  for (const ir::Param &P : Prog.Params)
    if (Need.count(P.Name) && Mod.Runtime.count(P.Name))
      RuntimeUsed.push_back(&P);
  if (RuntimeUsed.empty())
    return;
  ParamsUsed.insert(Need.begin(), Need.end());
  RuntimeGrid = std::any_of(K.Geo.Grid.begin(), K.Geo.Grid.end(), [&](const Expr &G) { return Mod.runtime(G); });
  for (const ArrayPlan &A : Arrays)
    if (runtimeShape(*A.Decl) && A.Lay.Kind != LayoutKind::Raw)
      throw UserError(A.Decl->Loc, fmt::format("codegen: array '{}' has runtime dimensions and layout {}; "
                                               "such arrays must be raw (bind the sizes with -D for another layout)",
                                               A.Decl->Name, A.LayoutName));
}

bool KernelFacts::runtimeShape(const ir::Array &A) const {
  return std::any_of(A.Dims.begin(), A.Dims.end(), [&](const Expr &D) { return Mod.runtime(D); });
}

void KernelFacts::addArray(const ir::Array &A, Origin From) {
  if (ArrayIndex.count(A.Name)) {
    if (From == Origin::Body)
      throw UserError(A.Loc, fmt::format("codegen needs distinct names for the arrays of a kernel; "
                                         "'{}' is declared twice",
                                         A.Name));
    return;
  }
  ArrayPlan P;
  P.Decl = &A;
  P.Name = cName(A.Name);
  P.From = From;
  P.Local = A.Space == ir::MemSpace::Local;
  P.InShared = A.Space == ir::MemSpace::Shared;
  P.Staged = P.InShared && From != Origin::Body;
  P.Lay = layoutOf(A);
  P.LayoutName = P.Lay.str();
  if (A.Holds && From != Origin::Body && !P.Local)
    P.Table = Mod.table(A.Holds->Perm, A.Holds->Inverse, devType(A.Elem), false);
  ArrayIndex[A.Name] = Arrays.size();
  Arrays.push_back(std::move(P));
}

std::pair<bool, int> KernelFacts::lookup(const Scope &S, const std::string &Name) const {
  for (auto It = S.rbegin(); It != S.rend(); ++It)
    if (auto F = It->find(Name); F != It->end())
      return F->second;
  return {false, -1};
}

void KernelFacts::scanExpr(const Expr &E, Scope &S) {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param) {
            ParamsUsed.insert(N.Name);
          } else {
            const auto [IsLoop, Index] = lookup(S, N.Name);
            if (Index < 0)
              throw UserError(E.Loc, fmt::format("codegen: unresolved name '{}'", N.Name));
            if (IsLoop)
              LoopOf[&N] = Index;
            else {
              LetOf[&N] = Index;
              Lets[static_cast<std::size_t>(Index)].Read = true;
            }
          }
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          Builtins.insert(N.Which);
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          scanExpr(*N.Operand, S);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          scanExpr(*N.Lhs, S);
          scanExpr(*N.Rhs, S);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (const Expr &A : N.Args)
            scanExpr(A, S);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          if (!ArrayIndex.count(N.Array)) {
            const ir::Array *A = Prog.findArray(N.Array);
            if (!A)
              throw UserError(E.Loc, fmt::format("codegen: unknown array '{}'", N.Array));
            addArray(*A, Origin::TopLevel);
          }
          Arrays[ArrayIndex.at(N.Array)].Read = true;
          for (const Expr &I : N.Indices)
            scanExpr(I, S);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          scanExpr(*N.Arg, S);
          if (!isClosedForm(Prog, N.Perm) && !permUse(N.Perm, N.Inverse)) {
            PermUse U;
            U.Perm = N.Perm;
            U.Inverse = N.Inverse;
            U.Table = Mod.table(N.Perm, N.Inverse, "", true);
            U.CName = "bw_perm_" + N.Perm + (N.Inverse ? "_inv" : "");
            PermUses.push_back(std::move(U));
          }
        }
      },
      E.Node);
}

void KernelFacts::scanBlock(const ir::Block &B, Scope &S) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      scanExpr(L->Init, S);
      LetInfo Info;
      Info.Decl = L;
      Info.Name = cName(L->Name);
      Info.Values.push_back(&L->Init);
      LetIndex[L] = static_cast<int>(Lets.size());
      S.back()[L->Name] = {false, static_cast<int>(Lets.size())};
      Lets.push_back(std::move(Info));
    } else if (const auto *A = St.as<ir::Assign>()) {
      scanExpr(A->Value, S);
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const auto [IsLoop, Index] = lookup(S, V->Name);
        if (IsLoop || Index < 0)
          throw UserError(St.Loc, fmt::format("codegen: cannot assign '{}'", V->Name));
        LetOf[V] = Index;
        Lets[static_cast<std::size_t>(Index)].Assigned = true;
        Lets[static_cast<std::size_t>(Index)].Values.push_back(&A->Value);
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        if (!ArrayIndex.count(R.Array)) {
          const ir::Array *Arr = Prog.findArray(R.Array);
          if (!Arr)
            throw UserError(St.Loc, fmt::format("codegen: unknown array '{}'", R.Array));
          addArray(*Arr, Origin::TopLevel);
        }
        Arrays[ArrayIndex.at(R.Array)].Written = true;
        for (const Expr &I : R.Indices)
          scanExpr(I, S);
      }
    } else if (const auto *F = St.as<ir::For>()) {
      scanExpr(F->Begin, S);
      scanExpr(F->End, S);
      if (F->Step)
        scanExpr(*F->Step, S);
      LoopInfo Info;
      Info.Decl = F;
      LoopIndex[F] = static_cast<int>(Loops.size());
      S.emplace_back();
      S.back()[F->Var] = {true, static_cast<int>(Loops.size())};
      Loops.push_back(Info);
      scanBlock(F->Body, S);
      S.pop_back();
    } else if (const auto *I = St.as<ir::If>()) {
      scanExpr(I->Cond, S);
      S.emplace_back();
      scanBlock(I->Then, S);
      S.pop_back();
      S.emplace_back();
      scanBlock(I->Else, S);
      S.pop_back();
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      addArray(D->Decl, Origin::Body);
    } else if (St.is<ir::Sync>()) {
      HasSync = true;
    }
  }
}

void KernelFacts::forEachExpr(const ir::Block &B, const std::function<void(const Expr &)> &F) const {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>())
      F(L->Init);
    else if (const auto *A = St.as<ir::Assign>()) {
      F(A->Value);
      if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target))
        for (const Expr &I : R->Indices)
          F(I);
    } else if (const auto *Fo = St.as<ir::For>()) {
      F(Fo->Begin);
      F(Fo->End);
      if (Fo->Step)
        F(*Fo->Step);
      forEachExpr(Fo->Body, F);
    } else if (const auto *I = St.as<ir::If>()) {
      F(I->Cond);
      forEachExpr(I->Then, F);
      forEachExpr(I->Else, F);
    }
  }
}

VClass joinClass(const VClass &A, const VClass &B, const SourceLoc &Loc) {
  if (A == B)
    return A;
  const bool VecA = A.K == VClass::Copy && A.Elem.Lanes > 1;
  const bool VecB = B.K == VClass::Copy && B.Elem.Lanes > 1;
  if (VecA || VecB)
    throw UserError(Loc, "codegen: a local holds both a vector element and another value");
  if (A.K == VClass::Int && B.K == VClass::Int)
    return A;
  return computeClass(wantsDouble(A) || wantsDouble(B));
}

VClass KernelFacts::classOf(const Expr &E) const {
  return std::visit(
      [&](const auto &N) -> VClass {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Lets[static_cast<std::size_t>(It->second)].Class;
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ir::ElemType Elem = array(N.Array).Decl->Elem;
          if (isIntElem(Elem))
            return intClass();
          return {VClass::Copy, Elem, false};
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const VClass C = classOf(*N.Operand);
          if (C.K == VClass::Copy && C.Elem.Lanes > 1)
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (N.Op == ir::UnaryOp::Neg && isFloaty(C))
            return computeClass(wantsDouble(C));
          if (N.Op == ir::UnaryOp::BitNot && isFloaty(C))
            throw UserError(E.Loc, "codegen: '~' of a floating-point value");
          return intClass();
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const VClass L = classOf(*N.Lhs), R = classOf(*N.Rhs);
          if ((L.K == VClass::Copy && L.Elem.Lanes > 1) || (R.K == VClass::Copy && R.Elem.Lanes > 1))
            throw UserError(E.Loc, "codegen: arithmetic on vector elements is not supported");
          if (!isFloaty(L) && !isFloaty(R))
            return intClass();
          switch (N.Op) {
          case BinaryOp::Add:
          case BinaryOp::Sub:
          case BinaryOp::Mul:
          case BinaryOp::Div:
            return computeClass(wantsDouble(L) || wantsDouble(R));
          case BinaryOp::Lt:
          case BinaryOp::Le:
          case BinaryOp::Gt:
          case BinaryOp::Ge:
          case BinaryOp::Eq:
          case BinaryOp::Ne:
          case BinaryOp::LogAnd:
          case BinaryOp::LogOr:
            return intClass();
          default:
            throw UserError(E.Loc, fmt::format("codegen: '{}' of a floating-point value",
                                               ir::spelling(N.Op)));
          }
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Min || N.Fn == ir::Function::Max) {
            const VClass L = classOf(N.Args[0]), R = classOf(N.Args[1]);
            if (isFloaty(L) || isFloaty(R))
              return computeClass(wantsDouble(L) || wantsDouble(R));
          }
          return intClass();
        } else {
          return intClass();
        }
      },
      E.Node);
}

Range KernelFacts::rangeOf(const Expr &E) const {
  const auto &G = K.Geo;
  return std::visit(
      [&](const auto &N) -> Range {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::IntLit>) {
          return point(N.Value);
        } else if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (N.Kind == ir::VarKind::Param) {
            const ir::Param *P = Prog.findParam(N.Name);
            if (P && Mod.Runtime.count(N.Name)) // any size: at least 1 (docs/language.md)
              return P->Init ? rangeOf(*P->Init) : span(1, std::numeric_limits<std::int64_t>::max());
            return P ? point(P->Value) : unknownRange();
          }
          if (auto It = LetOf.find(&N); It != LetOf.end()) {
            const LetInfo &L = Lets[static_cast<std::size_t>(It->second)];
            return L.Class.K == VClass::Int ? L.R : unknownRange();
          }
          if (auto It = LoopOf.find(&N); It != LoopOf.end())
            return Loops[static_cast<std::size_t>(It->second)].R;
          return unknownRange();
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          switch (N.Which) {
          case ir::Builtin::Tx: return span(0, G.BlockDim[0] - 1);
          case ir::Builtin::Ty: return span(0, G.BlockDim[1] - 1);
          case ir::Builtin::Tz: return span(0, G.BlockDim[2] - 1);
          case ir::Builtin::Bx: return span(0, (RuntimeGrid ? MaxGridX : G.GridDim[0]) - 1);
          case ir::Builtin::By: return span(0, (RuntimeGrid ? MaxGridYZ : G.GridDim[1]) - 1);
          case ir::Builtin::Bz: return span(0, (RuntimeGrid ? MaxGridYZ : G.GridDim[2]) - 1);
          case ir::Builtin::Tid:
            if (RuntimeGrid)
              return span(0, Wide(MaxGridX) * MaxGridYZ * MaxGridYZ * Threads - 1);
            return span(0, Wide(Blocks) * Threads - 1);
          case ir::Builtin::Lane: return span(0, std::min(Threads, WarpWidth) - 1);
          case ir::Builtin::Warp: return span(0, (Threads - 1) / WarpWidth);
          }
          return unknownRange();
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          const Range R = rangeOf(*N.Operand);
          if (N.Op == ir::UnaryOp::Not)
            return span(0, 1);
          if (!R.Known)
            return R;
          if (N.Op == ir::UnaryOp::Neg)
            return span(-R.Hi, -R.Lo);
          return span(-R.Hi - 1, -R.Lo - 1);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          const Range A = rangeOf(*N.Lhs), B = rangeOf(*N.Rhs);
          switch (N.Op) {
          case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
          case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::LogAnd: case BinaryOp::LogOr:
            return span(0, 1);
          default:
            break;
          }
          if (N.Op == BinaryOp::BitAnd) {
            if (A.Known && A.Lo >= 0 && B.Known && B.Lo >= 0)
              return span(0, std::min(A.Hi, B.Hi));
            if (A.Known && A.Lo >= 0)
              return span(0, A.Hi);
            if (B.Known && B.Lo >= 0)
              return span(0, B.Hi);
            return unknownRange();
          }
          if (N.Op == BinaryOp::Mod && B.Known && B.Lo >= 1) {
            if (A.Known && A.Lo >= 0 && A.Hi < B.Lo)
              return A;
            return span(0, B.Hi - 1);
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          switch (N.Op) {
          case BinaryOp::Add: return span(A.Lo + B.Lo, A.Hi + B.Hi);
          case BinaryOp::Sub: return span(A.Lo - B.Hi, A.Hi - B.Lo);
          case BinaryOp::Mul: {
            const Wide P[] = {A.Lo * B.Lo, A.Lo * B.Hi, A.Hi * B.Lo, A.Hi * B.Hi};
            return span(*std::min_element(P, P + 4), *std::max_element(P, P + 4));
          }
          case BinaryOp::Div:
            if (B.Lo >= 1)
              return span(std::min(floorDivWide(A.Lo, B.Lo), floorDivWide(A.Lo, B.Hi)),
                          std::max(floorDivWide(A.Hi, B.Lo), floorDivWide(A.Hi, B.Hi)));
            return unknownRange();
          case BinaryOp::Shl:
            if (B.Lo >= 0 && B.Hi <= 62 && A.Lo >= 0)
              return span(A.Lo << static_cast<int>(B.Lo), A.Hi << static_cast<int>(B.Hi));
            return unknownRange();
          case BinaryOp::Shr:
            if (B.Lo >= 0 && B.Hi <= 63 && A.Lo >= 0)
              return span(A.Lo >> static_cast<int>(B.Hi), A.Hi >> static_cast<int>(B.Lo));
            return unknownRange();
          case BinaryOp::BitOr:
          case BinaryOp::BitXor:
            if (A.Lo >= 0 && B.Lo >= 0)
              return span(0, (Wide(1) << std::max(bitWidth(A.Hi), bitWidth(B.Hi))) - 1);
            return unknownRange();
          default:
            return unknownRange();
          }
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          if (N.Fn == ir::Function::Log2)
            return span(0, 63);
          const Range A = rangeOf(N.Args[0]), B = rangeOf(N.Args[1]);
          if (N.Fn == ir::Function::Bitrev) {
            if (B.Known && B.Hi <= 62 && B.Lo >= 0)
              return span(0, (Wide(1) << static_cast<int>(B.Hi)) - 1);
            return unknownRange();
          }
          if (!A.Known || !B.Known)
            return unknownRange();
          if (N.Fn == ir::Function::Min)
            return span(std::min(A.Lo, B.Lo), std::min(A.Hi, B.Hi));
          return span(std::max(A.Lo, B.Lo), std::max(A.Hi, B.Hi));
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          const ArrayPlan &A = array(N.Array);
          if (A.Table >= 0)
            return span(0, Wide(Mod.Tables[static_cast<std::size_t>(A.Table)].Size) - 1);
          return elemRange(A.Decl->Elem);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          const ir::Permutation *P = Prog.findPerm(N.Perm);
          if (P && P->Size)
            return span(0, Wide(*P->Size) - 1);
          return span(0, Wide(Mod.Perms.get(N.Perm, N.Inverse).size()) - 1);
        } else {
          return unknownRange();
        }
      },
      E.Node);
}

bool KernelFacts::uniform(const Expr &E) const {
  return std::visit(
      [&](const auto &N) -> bool {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::VarRef>) {
          if (auto It = LetOf.find(&N); It != LetOf.end())
            return Lets[static_cast<std::size_t>(It->second)].Uniform;
          if (auto It = LoopOf.find(&N); It != LoopOf.end())
            return Loops[static_cast<std::size_t>(It->second)].Uniform;
          return true;
        } else if constexpr (std::is_same_v<T, ir::BuiltinRef>) {
          return N.Which == ir::Builtin::Bx || N.Which == ir::Builtin::By || N.Which == ir::Builtin::Bz;
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          return uniform(*N.Operand);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          return uniform(*N.Lhs) && uniform(*N.Rhs);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          return std::all_of(N.Args.begin(), N.Args.end(), [&](const Expr &A) { return uniform(A); });
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          return uniform(*N.Arg);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          return false;
        } else {
          return true;
        }
      },
      E.Node);
}

void KernelFacts::solve() {
  // Value classes: a local's class is the join of every value it receives.
  for (LetInfo &L : Lets)
    L.Class = classOf(*L.Values.front());
  for (int Round = 0; Round < 16; ++Round) {
    bool Changed = false;
    for (LetInfo &L : Lets) {
      VClass C = L.Class;
      for (const Expr *V : L.Values)
        C = joinClass(C, classOf(*V), L.Decl->Init.Loc);
      if (!(C == L.Class)) {
        L.Class = C;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Ranges: loops from their bounds, locals from all their values; a local
  // still growing after a few rounds is unknown.
  for (LetInfo &L : Lets)
    L.R = Range{true, 0, 0};
  for (LoopInfo &L : Loops)
    L.R = Range{true, 0, 0};
  for (int Round = 0; Round < 12; ++Round) {
    bool Changed = false;
    for (LoopInfo &L : Loops) {
      const Range B = rangeOf(L.Decl->Begin), E = rangeOf(L.Decl->End);
      const Range S = L.Decl->Step ? rangeOf(*L.Decl->Step) : point(1);
      Range R;
      // Values the body sees; the counter itself also reaches End + Step - 1
      // when the loop ends (Reach, checked for the index type).
      Range Reach;
      if (B.Known && E.Known && S.Known && S.Lo >= 1) {
        R = span(B.Lo, std::max(B.Hi, E.Hi - 1));
        Reach = span(B.Lo, std::max(B.Hi, E.Hi + S.Hi - 1));
      } else if (B.Known && E.Known && S.Known && S.Hi <= -1) {
        R = span(std::min(B.Lo, E.Lo + 1), B.Hi);
        Reach = span(std::min(B.Lo, E.Lo + S.Lo + 1), B.Hi);
      }
      L.Reach = Reach;
      if (!(R == L.R)) {
        L.R = Round >= 8 ? unknownRange() : R;
        Changed = true;
      }
    }
    for (LetInfo &L : Lets) {
      Range R = rangeOf(*L.Values.front());
      for (const Expr *V : L.Values)
        R = join(R, rangeOf(*V));
      if (L.Class.K != VClass::Int)
        R = unknownRange();
      if (!(R == L.R)) {
        L.R = Round >= 8 ? unknownRange() : R;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // Uniformity (the same value in every thread of a block).
  for (int Round = 0; Round < 64; ++Round) {
    bool Changed = false;
    for (LoopInfo &L : Loops) {
      const bool U = uniform(L.Decl->Begin) && uniform(L.Decl->End) &&
                     (!L.Decl->Step || uniform(*L.Decl->Step));
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    for (LetInfo &L : Lets) {
      const bool U = !L.Assigned && L.Class.K == VClass::Int && uniform(*L.Values.front());
      if (U != L.Uniform) {
        L.Uniform = U;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // The index type: int when every integer value of the kernel fits.
  bool Fits = Wide(Blocks) * Threads < (Wide(1) << 31);
  for (const ArrayPlan &A : Arrays)
    if (A.footprint() >= (std::int64_t(1) << 31))
      Fits = false;
  for (const LoopInfo &L : Loops)
    Fits = Fits && fitsInt32(L.R) && fitsInt32(L.Reach);
  for (const LetInfo &L : Lets)
    Fits = Fits && (L.Class.K != VClass::Int || fitsInt32(L.R));
  std::function<void(const Expr &)> Check = [&](const Expr &E) {
    if (classOf(E).K == VClass::Int && !fitsInt32(rangeOf(E)))
      Fits = false;
    if (classOf(E).K == VClass::Compute)
      HasCompute = true;
    std::visit(
        [&](const auto &N) {
          using T = std::decay_t<decltype(N)>;
          if constexpr (std::is_same_v<T, ir::Unary>)
            Check(*N.Operand);
          else if constexpr (std::is_same_v<T, ir::Binary>) {
            Check(*N.Lhs);
            Check(*N.Rhs);
          } else if constexpr (std::is_same_v<T, ir::Call>) {
            for (const Expr &A : N.Args)
              Check(A);
          } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
            for (const Expr &A : N.Indices)
              Check(A);
          } else if constexpr (std::is_same_v<T, ir::PermApply>)
            Check(*N.Arg);
        },
        E.Node);
  };
  forEachExpr(K.Body, Check);
  for (const ir::Param &P : Prog.Params)
    if (ParamsUsed.count(P.Name) && !fitsInt32(point(P.Value)))
      Fits = false;
  // Runtime sizes are not bounded at compile time.
  LongIndex = !Fits || !RuntimeUsed.empty();
}

//===-- Expressions -----------------------------------------------------------===//

constexpr int UnaryPrec = 11;
constexpr int PrimaryPrec = 12;

bool literalOnly(const Expr &E) {
  return std::visit(
      [&](const auto &N) -> bool {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::IntLit>)
          return true;
        else if constexpr (std::is_same_v<T, ir::Unary>)
          return literalOnly(*N.Operand);
        else if constexpr (std::is_same_v<T, ir::Binary>)
          return literalOnly(*N.Lhs) && literalOnly(*N.Rhs);
        else
          return false;
      },
      E.Node);
}

std::string literal(std::int64_t V, bool Long) {
  if (V == std::numeric_limits<std::int64_t>::min())
    return "(-9223372036854775807LL - 1)";
  const bool Big = V > std::numeric_limits<std::int32_t>::max() || V < std::numeric_limits<std::int32_t>::min();
  std::string S = fmt::format("{}{}", V, (Long || Big) ? "LL" : "");
  return V < 0 ? "(" + S + ")" : S;
}

/// Prints expressions of one kernel as C++, on the device (layouts, index
/// type `Index`) or in the CPU reference (logical row-major arrays, per-thread
/// values indexed by the thread t).
class ExprEmitter {
public:
  ExprEmitter(const KernelFacts &F, Mode M) : F(F), M(M) {}

  /// E converted to class Want.
  std::string value(const Expr &E, const VClass &Want, int Prec = 0) const {
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

  std::string rawNode(const Expr &, const ir::VarRef &N, int) const {
    if (auto It = F.LetOf.find(&N); It != F.LetOf.end()) {
      const LetInfo &L = F.Lets[static_cast<std::size_t>(It->second)];
      return (M == Mode::Host && !L.Uniform) ? L.Name + "[t]" : L.Name;
    }
    if (auto It = F.LoopOf.find(&N); It != F.LoopOf.end()) {
      const LoopInfo &L = F.Loops[static_cast<std::size_t>(It->second)];
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

  std::string rawNode(const Expr &, const ir::ArrayRead &N, int) const {
    const ArrayPlan &A = F.array(N.Array);
    std::string Text = element(N.Array, N.Indices);
    const ir::ElemType T = A.Decl->Elem;
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

std::vector<std::string> KernelFacts::dimTexts(const ir::Array &A, Mode M) const {
  std::vector<std::string> Out;
  const ExprEmitter E(*this, M);
  for (std::size_t D = 0; D < A.Shape.size(); ++D)
    Out.push_back(D < A.Dims.size() && Mod.runtime(A.Dims[D]) ? E.index(A.Dims[D], UnaryPrec)
                                                              : literal(A.Shape[D], false));
  return Out;
}

std::string KernelFacts::countText(const ir::Array &A, Mode M) const {
  if (!runtimeShape(A))
    return fmt::format("{}", A.numElements());
  return fmt::format("{}", fmt::join(dimTexts(A, M), " * "));
}

//===-- Kernels ----------------------------------------------------------------===//

/// One line per access site: where, what, the layout and the predicted cost.
std::string siteComment(const AccessSiteReport &S, const KernelFacts &F) {
  std::string What = fmt::format("{} {} of '{}' [{}]", locText(S.Loc),
                                 S.IsWrite ? "write" : "read", S.Array, S.Layout);
  std::string Where = std::string(ir::spelling(S.Space));
  if (F.ArrayIndex.count(S.Array) && F.array(S.Array).Demoted)
    Where += ", kept in global memory by codegen (the prediction is for shared)";
  if (S.DataDependent)
    return fmt::format("{} ({}): data-dependent on '{}', worst congestion {}, expected {:.3g} "
                       "for random indices",
                       What, Where, S.DataSource, S.WorstCongestion, S.ExpectedRapCongestion);
  if (S.Space == ir::MemSpace::Shared)
    return fmt::format("{} ({}): sm_90 wavefronts {}; DMM congestion {}", What, Where,
                       S.Wavefronts.str(), S.Congestion.str());
  return fmt::format("{} ({}): sm_90 sectors {}, lines {}; UMM groups {}", What, Where,
                     S.Sectors.str(), S.Lines.str(), S.Groups.str());
}

/// Predicted cost of a codegen-added contiguous copy between global and
/// shared memory (staging of a shared parameter): one warp of w lanes.
struct StagingCost {
  std::int64_t Wavefronts = 0, Sectors = 0, Lines = 0, WarpExecutions = 0;
};
StagingCost stagingCost(const ArrayPlan &A, std::int64_t Threads) {
  const std::int64_t Bytes = ir::byteSize(A.Decl->Elem);
  const std::int64_t Lanes = std::min<std::int64_t>(32, Threads);
  std::vector<Address> Addrs;
  for (std::int64_t L = 0; L < Lanes; ++L)
    Addrs.push_back(static_cast<Address>(L * Bytes));
  StagingCost C;
  if (isSm90AccessSize(Bytes)) {
    C.Wavefronts = sm90Shared(Addrs, Bytes).Wavefronts;
    const Sm90GlobalCost G = sm90Global(Addrs, Bytes);
    C.Sectors = G.Sectors;
    C.Lines = G.Lines;
  }
  const std::int64_t N = A.Decl->numElements();
  const std::int64_t Rounds = (N + Threads - 1) / Threads;
  C.WarpExecutions = Rounds * ((Threads + 31) / 32);
  return C;
}

class KernelEmitter {
public:
  KernelEmitter(const KernelFacts &F, const KernelReport &Rep, const CodegenOptions &Opts,
                const ModuleState &Mod)
      : F(F), Rep(Rep), Opts(Opts), Mod(Mod), Dev(F, Mode::Device), Host(F, Mode::Host) {
    for (const AccessSiteReport &S : Rep.Sites)
      Sites[{S.Loc.Line, S.Loc.Col}].push_back(&S);
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
    if (F.Hmm) {
      const HmmShape &Sh = F.Hmm->Shape;
      S += fmt::format("/// schedule colored: runs as seed 001's scheduled permutation, three kernels on `stream`\n"
                       "/// ({0}_pass0: {1} -> {2} by rows; {0}_pass1: {2} in place by strips of {3} columns;\n"
                       "/// {0}_pass2: {2} in place by rows) over {4} x {5}; the s and d tables are the module's.\n",
                       kernelName(), hmmSrc(), hmmDst(),
                       Sh.StripCols, Sh.Rows, Sh.Cols);
    }
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
  /// Seed 001's three pass kernels and their launch sequence.
  std::string hmmDevice();
  std::string hmmLaunch() const;
  const ir::Assign &hmmCopy() const { return *F.K.Body.front().as<ir::Assign>(); }
  std::string hmmSrc() const { return hmmCopy().Value.as<ir::ArrayRead>()->Array; }
  std::string hmmDst() const { return std::get<ir::ArrayRead>(hmmCopy().Target).Array; }
  std::string passName(int Pass) const { return fmt::format("{}_pass{}", kernelName(), Pass); }
  /// Bytes of shared memory of a pass block, and whether it needs the opt-in.
  std::int64_t passSmem(int Pass) const {
    return static_cast<std::int64_t>(F.Hmm->Passes[static_cast<std::size_t>(Pass)].Cost.BlockWords) * F.Hmm->ElemBytes;
  }
  bool passDynamic(int Pass) const {
    return passSmem(Pass) > ir::targetInfo(Opts.Arch)->DefaultSharedPerBlock;
  }

private:
  const KernelFacts &F;
  const KernelReport &Rep;
  const CodegenOptions &Opts;
  const ModuleState &Mod;
  ExprEmitter Dev, Host;
  std::map<std::pair<int, int>, std::vector<const AccessSiteReport *>> Sites;
  std::string Out;
  int Counter = 0;

  void line(int Indent, const std::string &S) {
    Out.append(static_cast<std::size_t>(Indent) * 2, ' ');
    Out += S;
    Out += '\n';
  }
  void siteComments(int Indent, const Stmt &St);
  void collectReads(const Expr &E, std::vector<SourceLoc> &Locs) const;
  std::string declType(const LetInfo &L, Mode M) const;
  std::string layoutObject(const ArrayPlan &A) const;
  void emitDeviceArray(int Indent, const ArrayPlan &A);
  void deviceBlock(const ir::Block &B, int Indent);
  void hostBlock(const ir::Block &B, int Indent, const std::string &Mask);
  void perThread(int Indent, const std::string &Mask, const std::vector<std::string> &Body);
};

void KernelEmitter::collectReads(const Expr &E, std::vector<SourceLoc> &Locs) const {
  std::visit(
      [&](const auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          Locs.push_back(E.Loc);
          for (const Expr &I : N.Indices)
            collectReads(I, Locs);
        } else if constexpr (std::is_same_v<T, ir::Unary>) {
          collectReads(*N.Operand, Locs);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          collectReads(*N.Lhs, Locs);
          collectReads(*N.Rhs, Locs);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (const Expr &A : N.Args)
            collectReads(A, Locs);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          collectReads(*N.Arg, Locs);
        }
      },
      E.Node);
}

void KernelEmitter::siteComments(int Indent, const Stmt &St) {
  std::vector<SourceLoc> Locs;
  if (const auto *A = St.as<ir::Assign>()) {
    if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target)) {
      Locs.push_back(St.Loc);
      for (const Expr &I : R->Indices)
        collectReads(I, Locs);
    }
    collectReads(A->Value, Locs);
  } else if (const auto *L = St.as<ir::Let>()) {
    collectReads(L->Init, Locs);
  } else if (const auto *Fo = St.as<ir::For>()) {
    collectReads(Fo->Begin, Locs);
    collectReads(Fo->End, Locs);
  } else if (const auto *I = St.as<ir::If>()) {
    collectReads(I->Cond, Locs);
  }
  std::set<const AccessSiteReport *> Done;
  std::vector<const AccessSiteReport *> List;
  for (const SourceLoc &L : Locs)
    if (auto It = Sites.find({L.Line, L.Col}); It != Sites.end())
      for (const AccessSiteReport *S : It->second)
        if (Done.insert(S).second)
          List.push_back(S);
  std::stable_sort(List.begin(), List.end(), [](const AccessSiteReport *A, const AccessSiteReport *B) {
    return std::pair(A->Loc.Line, A->Loc.Col) < std::pair(B->Loc.Line, B->Loc.Col);
  });
  for (const AccessSiteReport *S : List)
    line(Indent, "// " + siteComment(*S, F));
}

std::string KernelEmitter::declType(const LetInfo &L, Mode M) const {
  switch (L.Class.K) {
  case VClass::Int:
    return "Index";
  case VClass::Copy:
    return M == Mode::Host ? hostType(L.Class.Elem) : devType(L.Class.Elem);
  case VClass::Compute:
    return L.Class.Double ? "double" : "float";
  }
  return "Index";
}

/// `constexpr bankwise::PadLayout<32, 1> tile_layout{};` or a RAP with its
/// packed shift registers.
std::string KernelEmitter::layoutObject(const ArrayPlan &A) const {
  const std::int64_t C = A.Decl->Shape.back();
  switch (A.Lay.Kind) {
  case LayoutKind::Raw:
    return fmt::format("constexpr bankwise::RawLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Pad:
    return fmt::format("constexpr bankwise::PadLayout<{}, {}> {}_layout{{}};", C, A.Lay.Pad, A.Name);
  case LayoutKind::Xor:
    return fmt::format("constexpr bankwise::XorLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Diagonal:
    return fmt::format("constexpr bankwise::DiagonalLayout<{}> {}_layout{{}};", C, A.Name);
  case LayoutKind::Rap: {
    int Bits = 1;
    while ((std::int64_t(1) << Bits) < C)
      ++Bits;
    const int PerWord = 32 / Bits;
    const std::int64_t Words = (C + PerWord - 1) / PerWord;
    std::vector<std::uint32_t> W(static_cast<std::size_t>(Words), 0);
    for (std::int64_t I = 0; I < C; ++I)
      W[static_cast<std::size_t>(I / PerWord)] |= static_cast<std::uint32_t>(A.Lay.Table[static_cast<std::size_t>(I)])
                                                  << (Bits * (I % PerWord));
    std::vector<std::string> Hex;
    for (std::uint32_t X : W)
      Hex.push_back(fmt::format("0x{:08x}u", X));
    return fmt::format("const bankwise::RapLayout<{}, {}, {}> {}_layout{{{{{}}}}};", C, Bits, Words,
                       A.Name, fmt::join(Hex, ", "));
  }
  default:
    throw UserError(A.Decl->Loc, fmt::format("codegen: layout {} is not supported", A.LayoutName));
  }
}

void KernelEmitter::emitDeviceArray(int Indent, const ArrayPlan &A) {
  const std::string T = devType(A.Decl->Elem);
  if (A.Local) {
    line(Indent, fmt::format("{} {}[{}]; // local {}", T, A.Name, A.Decl->numElements(),
                             ir::printArrayType(*A.Decl)));
    return;
  }
  std::string Why = A.Lay.Kind == LayoutKind::Raw
                        ? fmt::format("layout {}", A.LayoutName)
                        : fmt::format("layout {} (analysis/Layout.h)", A.LayoutName);
  for (const LayoutDecision &D : Opts.LayoutDecisions)
    if (D.Array == A.Decl->Name && D.Loc.Line == A.Decl->Loc.Line && D.Loc.Col == A.Decl->Loc.Col && D.Loc.File == A.Decl->Loc.File && D.Chosen < D.Candidates.size())
      for (const LayoutCandidate &C : D.Candidates)
        if (C.Name == "raw")
          Why += fmt::format("; chosen by layout auto: {} {:.6g}, raw {:.6g}", D.Metric,
                             D.Candidates[D.Chosen].Cost, C.Cost);
  if (A.InShared) {
    if (F.UseDynamic)
      line(Indent, fmt::format("{} *const {} = reinterpret_cast<{} *>(bw_smem + {}); // {}", T, A.Name,
                               T, A.SmemOffset, Why));
    else
      line(Indent, fmt::format("__shared__ {} {}[{}]; // {}", T, A.Name, A.footprint(), Why));
  }
  if (A.usesLayoutObject())
    line(Indent, layoutObject(A));
}

void KernelEmitter::deviceBlock(const ir::Block &B, int Indent) {
  for (const Stmt &St : B) {
    siteComments(Indent, St);
    if (const auto *L = St.as<ir::Let>()) {
      const LetInfo &Info = F.Lets[static_cast<std::size_t>(F.LetIndex.at(L))];
      line(Indent, fmt::format("{} {} = {};", declType(Info, Mode::Device), Info.Name,
                               Dev.value(L->Init, Info.Class)));
      if (!Info.Read)
        line(Indent, fmt::format("bankwise::keep({}); // never read: keep its load", Info.Name));
    } else if (const auto *A = St.as<ir::Assign>()) {
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const LetInfo &Info = F.Lets[static_cast<std::size_t>(F.LetOf.at(V))];
        line(Indent, fmt::format("{} = {};", Info.Name, Dev.value(A->Value, Info.Class)));
        if (!Info.Read)
          line(Indent, fmt::format("bankwise::keep({});", Info.Name));
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        line(Indent, fmt::format("{} = {};", Dev.element(R.Array, R.Indices),
                                 Dev.store(F.array(R.Array).Decl->Elem, A->Value)));
      }
    } else if (const auto *Fo = St.as<ir::For>()) {
      const std::string V = cName(Fo->Var);
      const std::string Begin = Dev.index(Fo->Begin);
      std::string End = Dev.index(Fo->End, 7);
      const bool Step = !Fo->Step || Fo->Step->is<ir::IntLit>();
      const std::int64_t StepValue = !Fo->Step ? 1 : Step ? Fo->Step->as<ir::IntLit>()->Value : 0;
      std::string Init = fmt::format("Index {} = {}", V, Begin);
      if (!F.uniform(Fo->End) || !F.rangeOf(Fo->End).Known || Fo->End.is<ir::ArrayRead>()) {
        Init += fmt::format(", {}_end = {}", V, Dev.index(Fo->End));
        End = V + "_end";
      }
      if (Step && StepValue == 1)
        line(Indent, fmt::format("for ({}; {} < {}; ++{}) {{", Init, V, End, V));
      else if (Step && StepValue == -1)
        line(Indent, fmt::format("for ({}; {} > {}; --{}) {{", Init, V, End, V));
      else if (Step)
        line(Indent, fmt::format("for ({}; {} {} {}; {} += {}) {{", Init, V, StepValue > 0 ? "<" : ">", End, V,
                                 literal(StepValue, false)));
      else {
        const std::string S = Dev.index(*Fo->Step);
        line(Indent, fmt::format("for ({}; ({} > 0) ? {} < {} : {} > {}; {} += {}) {{", Init, S, V, End, V,
                                 End, V, S));
      }
      deviceBlock(Fo->Body, Indent + 1);
      line(Indent, "}");
    } else if (const auto *I = St.as<ir::If>()) {
      line(Indent, fmt::format("if ({}) {{", Dev.index(I->Cond)));
      deviceBlock(I->Then, Indent + 1);
      const ir::If *Cur = I;
      while (Cur->Else.size() == 1 && Cur->Else.front().is<ir::If>()) {
        const Stmt &Next = Cur->Else.front();
        Cur = Next.as<ir::If>();
        siteComments(Indent + 1, Next);
        line(Indent, fmt::format("}} else if ({}) {{", Dev.index(Cur->Cond)));
        deviceBlock(Cur->Then, Indent + 1);
      }
      if (!Cur->Else.empty()) {
        line(Indent, "} else {");
        deviceBlock(Cur->Else, Indent + 1);
      }
      line(Indent, "}");
    } else if (St.is<ir::Sync>()) {
      line(Indent, "__syncthreads();");
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      emitDeviceArray(Indent, F.array(D->Decl.Name));
    }
  }
}

std::string KernelEmitter::device() {
  Out.clear();
  const auto &G = F.K.Geo;
  if (F.RuntimeUsed.empty())
    line(0, fmt::format("// Kernel '{}' ({}:{}:{}): grid ({}, {}, {}), block ({}, {}, {}), {} threads.",
                        F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, G.GridDim[0], G.GridDim[1],
                        G.GridDim[2], G.BlockDim[0], G.BlockDim[1], G.BlockDim[2], Rep.Threads));
  else {
    line(0, fmt::format("// Kernel '{}' ({}:{}:{}): grid {}, block ({}, {}, {}); runtime sizes {} (arguments).",
                        F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, gridText(), G.BlockDim[0],
                        G.BlockDim[1], G.BlockDim[2], sizeNames()));
    line(0, fmt::format("// Predicted at {} (representative sizes; `compile --size` sets them): grid ({}, {}, {}), "
                        "{} threads; the model, the layout choices and the site comments below are for these "
                        "sizes only.",
                        sizesText(F.Prog, Opts), G.GridDim[0], G.GridDim[1], G.GridDim[2], Rep.Threads));
  }
  line(0, fmt::format("// Model: {} on {}{}; lower bound {} = {:.6g}; {}.",
                      Rep.TimeSimulated ? fmt::format("{} time units", Rep.Time)
                                        : std::string("time not simulated (too many warp accesses)"),
                      Rep.TimeMachine, Rep.TimeUsesWorstCase ? " (data-dependent sites at worst case)" : "",
                      Rep.LowerBoundFormula, Rep.LowerBound,
                      Rep.FastPath ? (Rep.TableWalk ? "analyzed by class (table reads per lane warp by warp)"
                                                    : "analyzed by class, no warp visited")
                                   : "analyzed warp by warp (" + Rep.FallbackReason + ")"));
  line(0, fmt::format("// Index arithmetic in {} ({}).", F.indexType(),
                      F.LongIndex ? "some index value may exceed 32 bits"
                                  : "every index value of the kernel fits in 32 bits"));
  std::vector<std::string> Ps;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isDeviceParam())
      Ps.push_back(fmt::format("{}{} *{}", A.Written ? "" : "const ", devType(A.Decl->Elem), A.pointerName()));
  for (const PermUse &U : F.PermUses)
    Ps.push_back(fmt::format("const {} *{}", Mod.Tables[static_cast<std::size_t>(U.Table)].DeviceType, U.CName));
  if (!F.RuntimeUsed.empty())
    Ps.push_back(sizeNames(F.indexType() + " "));
  line(0, fmt::format("__global__ void __launch_bounds__({}) {}({}) {{", F.CudaThreads, kernelName(),
                      fmt::join(Ps, ", ")));
  line(1, fmt::format("using Index = {};", F.indexType()));
  for (const ir::Param &P : F.Prog.Params)
    if (F.ParamsUsed.count(P.Name) && !Mod.Runtime.count(P.Name))
      line(1, fmt::format("constexpr Index {} = {}; // param", cName(P.Name), literal(P.Value, F.LongIndex)));
  for (const std::string &D : derivedSizes(Dev, "Index"))
    line(1, D);
  // Thread built-ins.
  const bool Flat3 = G.BlockDim[1] * G.BlockDim[2] > 1;
  const std::string FlatT = Flat3 ? fmt::format("(static_cast<Index>(threadIdx.z) * {} + static_cast<Index>(threadIdx.y)) * {} + static_cast<Index>(threadIdx.x)",
                                                G.BlockDim[1], G.BlockDim[0])
                                  : "static_cast<Index>(threadIdx.x)";
  bool NeedFlat = F.Virtual;
  for (const ArrayPlan &A : F.Arrays)
    NeedFlat = NeedFlat || A.Staged;
  const auto Has = [&](ir::Builtin B) { return F.Builtins.count(B) > 0; };
  NeedFlat = NeedFlat || Has(ir::Builtin::Lane) || Has(ir::Builtin::Warp) || Has(ir::Builtin::Tid);
  if (NeedFlat)
    line(1, fmt::format("const Index bw_t = {}; // thread index in the block", FlatT));
  // In a `threads p` kernel of more than 1024 threads, CUDA thread bw_t runs
  // program threads bw_t, bw_t + 1024, ...; the built-ins follow the program
  // thread, so warps hold the same 32 consecutive threads as in the model.
  const std::string Flat = F.Virtual ? "bw_vt" : "bw_t";
  std::vector<std::string> Defs;
  if (Has(ir::Builtin::Tx))
    Defs.push_back(F.Virtual ? "const Index tx = bw_vt;" : "const Index tx = static_cast<Index>(threadIdx.x);");
  if (Has(ir::Builtin::Ty))
    Defs.push_back("const Index ty = static_cast<Index>(threadIdx.y);");
  if (Has(ir::Builtin::Tz))
    Defs.push_back("const Index tz = static_cast<Index>(threadIdx.z);");
  if (Has(ir::Builtin::Bx))
    Defs.push_back("const Index bx = static_cast<Index>(blockIdx.x);");
  if (Has(ir::Builtin::By))
    Defs.push_back("const Index by = static_cast<Index>(blockIdx.y);");
  if (Has(ir::Builtin::Bz))
    Defs.push_back("const Index bz = static_cast<Index>(blockIdx.z);");
  if (Has(ir::Builtin::Lane))
    Defs.push_back(fmt::format("const Index lane = {} % {};", Flat, F.WarpWidth));
  if (Has(ir::Builtin::Warp))
    Defs.push_back(fmt::format("const Index warp = {} / {};", Flat, F.WarpWidth));
  if (Has(ir::Builtin::Tid)) {
    if (F.RuntimeGrid)
      Defs.push_back(fmt::format("const Index tid = ((static_cast<Index>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * {} + bw_t;",
                                 F.Threads));
    else if (F.Blocks == 1)
      Defs.push_back(fmt::format("const Index tid = {};", Flat));
    else if (G.GridDim[1] * G.GridDim[2] == 1)
      Defs.push_back(fmt::format("const Index tid = static_cast<Index>(blockIdx.x) * {} + bw_t;", F.Threads));
    else
      Defs.push_back(fmt::format("const Index tid = ((static_cast<Index>(blockIdx.z) * {} + static_cast<Index>(blockIdx.y)) * {} + static_cast<Index>(blockIdx.x)) * {} + bw_t;",
                                 G.GridDim[1], G.GridDim[0], F.Threads));
  }
  if (!F.Virtual)
    for (const std::string &D : Defs)
      line(1, D);
  if (F.UseDynamic)
    line(1, fmt::format("extern __shared__ __align__(16) unsigned char bw_smem[]; // {} bytes, opted in by the launch",
                        F.DynamicSmem));
  // Parameters and top-level arrays: layouts, shared copies.
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    if (A.Demoted)
      line(1, fmt::format("// '{}' is shared in the program but does not fit the {} bytes of shared memory "
                          "with the rest: it stays in global memory.",
                          A.Decl->Name, ir::targetInfo(Opts.Arch)->MaxSharedPerBlock));
    if (A.InShared || A.usesLayoutObject())
      emitDeviceArray(1, A);
  }
  bool AnyStaged = false;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.Staged)
      continue;
    AnyStaged = true;
    const StagingCost C = stagingCost(A, F.CudaThreads);
    line(1, fmt::format("// Staging (added by codegen): '{}' is a shared {} of the program; the block copies it "
                        "in from global memory. Predicted: sm_90 sectors {} per request, shared wavefronts {}.",
                        A.Decl->Name, A.From == Origin::Param ? "parameter" : "array", C.Sectors, C.Wavefronts));
    const std::int64_t Cols = A.Decl->Shape.back();
    const std::string Dst = A.Decl->Shape.size() == 1 && A.Lay.Kind == LayoutKind::Raw
                                ? fmt::format("{}[bw_i]", A.Name)
                                : fmt::format("{}[{}_layout.offset(bw_i / {}, bw_i % {})]", A.Name, A.Name, Cols, Cols);
    line(1, fmt::format("for (Index bw_i = bw_t; bw_i < {}; bw_i += {})", A.Decl->numElements(), F.CudaThreads));
    line(2, fmt::format("{} = {}[bw_i];", Dst, A.pointerName()));
  }
  if (AnyStaged)
    line(1, "__syncthreads();");
  if (F.Virtual) {
    line(1, fmt::format("for (Index bw_vt = bw_t; bw_vt < {}; bw_vt += {}) {{ // program thread bw_vt",
                        F.Threads, F.CudaThreads));
    for (const std::string &D : Defs)
      line(2, D);
    deviceBlock(F.K.Body, 2);
    line(1, "}");
  } else {
    deviceBlock(F.K.Body, 1);
  }
  bool AnyBack = false;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.Staged || !A.Written)
      continue;
    if (!AnyBack)
      line(1, "__syncthreads();");
    AnyBack = true;
    const std::int64_t Cols = A.Decl->Shape.back();
    const std::string Src = A.Decl->Shape.size() == 1 && A.Lay.Kind == LayoutKind::Raw
                                ? fmt::format("{}[bw_i]", A.Name)
                                : fmt::format("{}[{}_layout.offset(bw_i / {}, bw_i % {})]", A.Name, A.Name, Cols, Cols);
    line(1, fmt::format("// Staging (added by codegen): '{}' goes back to global memory.", A.Decl->Name));
    line(1, fmt::format("for (Index bw_i = bw_t; bw_i < {}; bw_i += {})", A.Decl->numElements(), F.CudaThreads));
    line(2, fmt::format("{}[bw_i] = {};", A.pointerName(), Src));
  }
  line(0, "}");
  return Out;
}

std::string KernelEmitter::launch() const {
  std::string S = fmt::format("cudaError_t {}({}) {{\n", launchName(), apiParams(false));
  if (!F.RuntimeUsed.empty())
    S += runtimeChecks();
  std::vector<std::string> Checks;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam())
      Checks.push_back(F.runtimeShape(*A.Decl)
                           ? fmt::format("{}_count != static_cast<std::size_t>({})", A.Name, F.countText(*A.Decl, Mode::Host))
                           : fmt::format("{}_count != {}", A.Name, A.footprint()));
  if (!Checks.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Checks, " || "));
  const bool NeedTables = !F.PermUses.empty() ||
                          std::any_of(F.Arrays.begin(), F.Arrays.end(), [](const ArrayPlan &A) { return A.Table >= 0; });
  if (NeedTables)
    S += "  if (const cudaError_t Err = load_tables(); Err != cudaSuccess)\n    return Err;\n";
  if (F.UseDynamic && F.DynamicSmem > ir::targetInfo(Opts.Arch)->DefaultSharedPerBlock)
    S += fmt::format("  if (const cudaError_t Err = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n"
                     "      Err != cudaSuccess)\n    return Err;\n",
                     kernelName(), F.DynamicSmem);
  std::vector<std::string> Args;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    Args.push_back(A.Table >= 0 ? fmt::format("bw_dev_table_{}", A.Table) : A.Name);
  }
  for (const PermUse &U : F.PermUses)
    Args.push_back(fmt::format("bw_dev_table_{}", U.Table));
  if (!F.RuntimeUsed.empty())
    Args.push_back(sizeNames());
  const auto &G = F.K.Geo;
  const std::string Grid = F.RuntimeGrid ? "bw_grid" : fmt::format("dim3({}, {}, {})", G.GridDim[0], G.GridDim[1], G.GridDim[2]);
  S += fmt::format("  {}<<<{}, dim3({}, {}, {}), {}, stream>>>({});\n", kernelName(), Grid,
                   F.Virtual ? F.CudaThreads : G.BlockDim[0], G.BlockDim[1], G.BlockDim[2],
                   F.UseDynamic ? F.DynamicSmem : 0, fmt::join(Args, ", "));
  S += "  return cudaGetLastError();\n}\n";
  return S;
}

std::string KernelEmitter::runtimeChecks() const {
  std::string S;
  for (const std::string &D : derivedSizes(Host, "long long"))
    S += "  " + D + "\n";
  std::vector<std::string> Bad;
  for (const ir::Param *P : F.RuntimeUsed)
    if (P->Where)
      Bad.push_back(fmt::format("!({})", Host.index(*P->Where)));
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam() && F.runtimeShape(*A.Decl))
      for (std::size_t D = 0; D < A.Decl->Dims.size(); ++D)
        if (Mod.runtime(A.Decl->Dims[D]))
          Bad.push_back(fmt::format("{} < 1", Host.index(A.Decl->Dims[D], 10)));
  // Each distinct condition once, in order.
  std::vector<std::string> Unique;
  for (const std::string &B : Bad)
    if (std::find(Unique.begin(), Unique.end(), B) == Unique.end())
      Unique.push_back(B);
  if (!Unique.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Unique, " || "));
  if (F.RuntimeGrid) {
    S += "  " + gridDecl() + "\n";
    S += fmt::format("  if (bw_grid_x < 1 || bw_grid_x > {0} || bw_grid_y < 1 || bw_grid_y > {1} || bw_grid_z < 1 || "
                     "bw_grid_z > {1})\n    return cudaErrorInvalidValue;\n",
                     MaxGridX, MaxGridYZ);
    S += "  const dim3 bw_grid(static_cast<unsigned>(bw_grid_x), static_cast<unsigned>(bw_grid_y), "
         "static_cast<unsigned>(bw_grid_z));\n";
  }
  return S;
}

//===-- Seed 001: the scheduled permutation of global memory ---------------------===//

std::string hmmCostText(const HmmPassCost &C) {
  return fmt::format("largest DMM congestion {} (steps 1, 3, 4); per request at most {} sectors / {} lines / {} "
                     "UMM groups; {} requests, {} sectors; s and d loads {} sectors",
                     C.MaxSharedCongestion, C.MaxSectorsPerRequest, C.MaxLinesPerRequest, C.MaxUmmGroups,
                     C.GlobalRequests, C.Sectors, C.IndexSectors);
}

std::string KernelEmitter::hmmDevice() {
  Out.clear();
  const HmmLowering &L = *F.Hmm;
  const HmmShape &Sh = L.Shape;
  const std::string T = devType(F.array(hmmSrc()).Decl->Elem);
  const std::uint64_t N = L.Schedule->size();
  line(0, fmt::format("// Kernel '{}' ({}:{}:{}): schedule colored on a copy between global arrays, {}[f(t)] = {}[g(t)]",
                      F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, hmmDst(), hmmSrc()));
  line(0, fmt::format("// for {} threads, runs as seed 001's scheduled offline permutation (Secs. V-VII): {}[P(i)] = {}[i]",
                      N, hmmDst(), hmmSrc()));
  line(0, fmt::format("// with P(g(t)) = f(t), over a {} x {} row-major matrix (R x C, chooseSm90Shape), strips of {} columns",
                      Sh.Rows, Sh.Cols, Sh.StripCols));
  line(0, fmt::format("// ({} bytes: one 32-byte sector per strip row), w = {} banks. Schedule: scheduleHmmPermutation, its",
                      Sh.StripCols * static_cast<std::uint32_t>(L.ElemBytes), Sh.Banks));
  line(0, fmt::format("// s and d planes in table {}. Three passes, one block per row (strip), each seed 001's row-wise",
                      F.HmmTable));
  line(0, "// permutation: (1) buf[j] <- src[addr(j)] (coalesced), (2) s[j], d[j] (coalesced 16-bit loads),");
  line(0, "// (3) buf[d[j]] <- buf[s[j]] through registers (conflict-free: seed 003's schedule of the block),");
  line(0, "// (4) dst[addr(j)] <- buf[j] (coalesced). Passes 1 and 2 run in place (src == dst): every block reads");
  line(0, "// its whole row or strip before it writes the same addresses back, so src and dst are not __restrict__.");
  line(0, fmt::format("// As written (one scatter kernel), the model predicts: {}.",
                      [&] {
                        std::vector<std::string> Parts;
                        for (const AccessSiteReport &S : Rep.Sites)
                          Parts.push_back(fmt::format("{} of '{}' sectors {}", S.IsWrite ? "write" : "read", S.Array,
                                                      S.DataDependent ? std::string("data-dependent") : S.Sectors.str()));
                        return fmt::format("{}", fmt::join(Parts, ", "));
                      }()));
  line(0, "");
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    const HmmPassPlan &P = L.Passes[static_cast<std::size_t>(Pass)];
    const bool Strip = P.Cost.Kind == HmmPassKind::Strip;
    const std::uint32_t Words = P.Cost.BlockWords;
    const bool Dyn = passDynamic(Pass);
    line(0, fmt::format("// Pass {} ({}): {} -> {}{}, {} blocks of {} words ({}), {} threads, {} word{} per thread, {} bytes "
                        "of shared memory{}.",
                        Pass, Strip ? "column-wise, by strips" : "row-wise", Pass == 0 ? hmmSrc() : hmmDst(), hmmDst(),
                        Pass == 0 ? "" : " in place", P.Cost.Blocks, Words,
                        Strip ? fmt::format("{} rows x {} columns", Sh.Rows, Sh.StripCols) : "one row", P.Threads,
                        P.PerThread, P.PerThread == 1 ? "" : "s", passSmem(Pass), Dyn ? " (dynamic, opted in by the launch)" : ""));
    line(0, fmt::format("// Predicted (hmmPassCosts): {}.", hmmCostText(P.Cost)));
    line(0, fmt::format("__global__ void __launch_bounds__({}) {}(const {} *src, {} *dst, const std::uint16_t *s, "
                        "const std::uint16_t *d) {{",
                        P.Threads, passName(Pass), T, T));
    line(1, fmt::format("constexpr unsigned Words = {}; // words per block", Words));
    line(1, fmt::format("constexpr unsigned long long Cols = {}; // C", Sh.Cols));
    if (Dyn) {
      line(1, fmt::format("extern __shared__ __align__(16) unsigned char bw_smem[]; // {} bytes, opted in by the launch",
                          passSmem(Pass)));
      line(1, fmt::format("{} *const {} = reinterpret_cast<{} *>(bw_smem);", T, L.BufferName, T));
    } else {
      line(1, fmt::format("__shared__ {} {}[Words];", T, L.BufferName));
    }
    line(1, "const unsigned bw_blk = blockIdx.x;");
    line(1, "const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;");
    line(1, "const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;");
    line(1, fmt::format("{} bw_v[{}];", T, P.PerThread));
    const bool Guard = Words % P.Threads != 0;
    const std::string Addr = fmt::format("bankwise::hmmAddress<{}, {}>(bw_blk, j, Cols)", Strip ? "true" : "false",
                                         Sh.StripCols);
    auto Loop = [&](const std::string &What, const std::vector<std::pair<int, std::string>> &Body) {
      line(1, "// " + What);
      line(1, "#pragma unroll");
      line(1, fmt::format("for (unsigned k = 0; k < {}; ++k) {{", P.PerThread));
      line(2, fmt::format("const unsigned j = threadIdx.x + k * {}u;", P.Threads));
      int In = 2;
      if (Guard) {
        line(2, "if (j < Words) {");
        In = 3;
      }
      for (const auto &[Site, Stmt] : Body) {
        if (Site >= 0)
          line(In, "// " + siteComment(P.Sites[static_cast<std::size_t>(Site)], F));
        line(In, Stmt);
      }
      if (Guard)
        line(2, "}");
      line(1, "}");
    };
    Loop("(1) the block's row (strip) into shared memory, coalesced",
         {{HmmInRead, fmt::format("bw_v[k] = src[{}];", Addr)},
          {HmmBufWrite, fmt::format("{}[j] = bw_v[k];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(2) and (3): read the schedule, gather buf[s[j]] into registers",
         {{HmmSRead, "const unsigned bw_from = bw_s[j];"},
          {HmmBufGather, fmt::format("bw_v[k] = {}[bw_from];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks",
         {{HmmDRead, "const unsigned bw_to = bw_d[j];"},
          {HmmBufScatter, fmt::format("{}[bw_to] = bw_v[k];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(4) the permuted row (strip) back to global memory, coalesced",
         {{HmmBufRead, fmt::format("bw_v[k] = {}[j];", L.BufferName)},
          {HmmOutWrite, fmt::format("dst[{}] = bw_v[k];", Addr)}});
    line(0, "}");
    line(0, "");
  }
  return Out;
}

std::string KernelEmitter::hmmLaunch() const {
  const HmmLowering &L = *F.Hmm;
  const std::uint64_t N = L.Schedule->size();
  std::string S = fmt::format("// Seed 001's launch sequence for '{}': three kernels on one stream, each after the previous.\n",
                              F.K.Name);
  S += fmt::format("cudaError_t {}({}) {{\n", launchName(), apiParams(false));
  std::vector<std::string> Checks;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam())
      Checks.push_back(fmt::format("{}_count != {}", A.Name, A.footprint()));
  if (!Checks.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Checks, " || "));
  S += "  if (const cudaError_t Err = load_tables(); Err != cudaSuccess)\n    return Err;\n";
  const std::string Src = F.array(hmmSrc()).Name, Dst = F.array(hmmDst()).Name;
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    const HmmPassPlan &P = L.Passes[static_cast<std::size_t>(Pass)];
    const bool Dyn = passDynamic(Pass);
    S += fmt::format("  // Pass {} ({}): {} -> {}{}. Predicted: {}.\n", Pass,
                     P.Cost.Kind == HmmPassKind::Strip ? "strips" : "rows", Pass == 0 ? Src : Dst, Dst,
                     Pass == 0 ? "" : " in place", hmmCostText(P.Cost));
    if (Dyn)
      S += fmt::format("  if (const cudaError_t Err = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n"
                       "      Err != cudaSuccess)\n    return Err;\n",
                       passName(Pass), passSmem(Pass));
    S += fmt::format("  {}<<<dim3({}, 1, 1), dim3({}, 1, 1), {}, stream>>>({}, {}, bw_dev_table_{} + {}ULL, "
                     "bw_dev_table_{} + {}ULL);\n",
                     passName(Pass), P.Cost.Blocks, P.Threads, Dyn ? passSmem(Pass) : 0, Pass == 0 ? Src : Dst, Dst,
                     F.HmmTable, 2 * static_cast<std::uint64_t>(Pass) * N, F.HmmTable,
                     (2 * static_cast<std::uint64_t>(Pass) + 1) * N);
    if (Pass + 1 < HmmSchedule::NumPasses)
      S += "  if (const cudaError_t Err = cudaGetLastError(); Err != cudaSuccess)\n    return Err;\n";
  }
  S += "  return cudaGetLastError();\n}\n";
  return S;
}

//===-- The CPU reference ------------------------------------------------------===//

void KernelEmitter::perThread(int Indent, const std::string &Mask, const std::vector<std::string> &Body) {
  line(Indent, "for (Index t = 0; t < NT; ++t) {");
  if (!Mask.empty())
    line(Indent + 1, fmt::format("if (!{}[t])", Mask)), line(Indent + 2, "continue;");
  for (const std::string &S : Body)
    line(Indent + 1, S);
  line(Indent, "}");
}

void KernelEmitter::hostBlock(const ir::Block &B, int Indent, const std::string &Mask) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<ir::Let>()) {
      const LetInfo &Info = F.Lets[static_cast<std::size_t>(F.LetIndex.at(L))];
      if (Info.Uniform) {
        line(Indent, fmt::format("const Index {} = {};", Info.Name, Host.value(L->Init, Info.Class)));
      } else {
        line(Indent, fmt::format("std::vector<{}> {}(NT);", declType(Info, Mode::Host), Info.Name));
        perThread(Indent, Mask, {fmt::format("{}[t] = {};", Info.Name, Host.value(L->Init, Info.Class))});
      }
    } else if (const auto *A = St.as<ir::Assign>()) {
      if (const auto *V = std::get_if<ir::VarRef>(&A->Target)) {
        const LetInfo &Info = F.Lets[static_cast<std::size_t>(F.LetOf.at(V))];
        perThread(Indent, Mask, {fmt::format("{}[t] = {};", Info.Name, Host.value(A->Value, Info.Class))});
      } else {
        const auto &R = std::get<ir::ArrayRead>(A->Target);
        perThread(Indent, Mask,
                  {fmt::format("{} = {};", Host.element(R.Array, R.Indices),
                               Host.store(F.array(R.Array).Decl->Elem, A->Value))});
      }
    } else if (const auto *Fo = St.as<ir::For>()) {
      const LoopInfo &Info = F.Loops[static_cast<std::size_t>(F.LoopIndex.at(Fo))];
      const std::string V = cName(Fo->Var);
      const std::string Step = Fo->Step ? Host.index(*Fo->Step) : "1";
      if (Info.Uniform) {
        const std::string Cond = !Fo->Step ? "<"
                                 : Fo->Step->is<ir::IntLit>() ? (Fo->Step->as<ir::IntLit>()->Value > 0 ? "<" : ">")
                                                              : "";
        line(Indent, fmt::format("for (Index {} = {}, {}_end = {}; {}; {} += {}) {{", V, Host.index(Fo->Begin), V,
                                 Host.index(Fo->End),
                                 Cond.empty() ? fmt::format("({} > 0) ? {} < {}_end : {} > {}_end", Step, V, V, V, V)
                                              : fmt::format("{} {} {}_end", V, Cond, V),
                                 V, Step));
        hostBlock(Fo->Body, Indent + 1, Mask);
        line(Indent, "}");
      } else {
        // Bounds differ between threads: each thread keeps its own counter,
        // and the body runs for the threads still inside the loop.
        const std::string Id = std::to_string(++Counter);
        const std::string Active = "bw_m" + Id;
        line(Indent, "{");
        line(Indent + 1, fmt::format("std::vector<Index> {}(NT), {}_end(NT), {}_step(NT);", V, V, V));
        line(Indent + 1, fmt::format("std::vector<char> {}(NT);", Active));
        perThread(Indent + 1, Mask,
                  {fmt::format("{}[t] = {};", V, Host.index(Fo->Begin)),
                   fmt::format("{}_end[t] = {};", V, Host.index(Fo->End)),
                   fmt::format("{}_step[t] = {};", V, Step)});
        line(Indent + 1, "for (;;) {");
        line(Indent + 2, "bool bw_any = false;");
        line(Indent + 2, "for (Index t = 0; t < NT; ++t) {");
        line(Indent + 3, fmt::format("{}[t] = {}({}_step[t] > 0 ? {}[t] < {}_end[t] : {}[t] > {}_end[t]);", Active,
                                     Mask.empty() ? "" : Mask + "[t] && ", V, V, V, V, V));
        line(Indent + 3, fmt::format("bw_any = bw_any || {}[t];", Active));
        line(Indent + 2, "}");
        line(Indent + 2, "if (!bw_any)");
        line(Indent + 3, "break;");
        hostBlock(Fo->Body, Indent + 2, Active);
        line(Indent + 2, "for (Index t = 0; t < NT; ++t)");
        line(Indent + 3, fmt::format("if ({}[t])", Active));
        line(Indent + 4, fmt::format("{}[t] += {}_step[t];", V, V));
        line(Indent + 1, "}");
        line(Indent, "}");
      }
    } else if (const auto *I = St.as<ir::If>()) {
      if (F.uniform(I->Cond)) {
        line(Indent, fmt::format("if ({}) {{", Host.index(I->Cond)));
        hostBlock(I->Then, Indent + 1, Mask);
        if (!I->Else.empty()) {
          line(Indent, "} else {");
          hostBlock(I->Else, Indent + 1, Mask);
        }
        line(Indent, "}");
      } else {
        // Per-thread condition, evaluated for every thread before either branch.
        const std::string Id = std::to_string(++Counter);
        const std::string Then = "bw_then" + Id, Else = "bw_else" + Id;
        line(Indent, "{");
        if (I->Else.empty()) {
          line(Indent + 1, fmt::format("std::vector<char> {}(NT);", Then));
          perThread(Indent + 1, Mask, {fmt::format("{}[t] = ({}) != 0;", Then, Host.index(I->Cond))});
        } else {
          line(Indent + 1, fmt::format("std::vector<char> {}(NT), {}(NT);", Then, Else));
          perThread(Indent + 1, Mask,
                    {fmt::format("{}[t] = ({}) != 0;", Then, Host.index(I->Cond)),
                     fmt::format("{}[t] = !{}[t];", Else, Then)});
        }
        hostBlock(I->Then, Indent + 1, Then);
        if (!I->Else.empty())
          hostBlock(I->Else, Indent + 1, Else);
        line(Indent, "}");
      }
    } else if (St.is<ir::Sync>()) {
      line(Indent, "// sync: every thread finished the statements above (lockstep).");
    } else if (const auto *D = St.as<ir::ArrayDecl>()) {
      const ArrayPlan &A = F.array(D->Decl.Name);
      if (A.Local)
        line(Indent, fmt::format("std::vector<{}> {}(NT * {}); // local, per thread", hostType(A.Decl->Elem),
                                 A.Name, A.Decl->numElements()));
      else
        line(Indent, fmt::format("std::vector<{}> {}({}); // shared, per block", hostType(A.Decl->Elem), A.Name,
                                 A.Decl->numElements()));
    }
  }
}

/// Host parameters of the reference: every device array as a logical host
/// image, tables as their device type.
std::string referenceParams(const KernelFacts &F, const ModuleState &Mod) {
  std::vector<std::string> Ps;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    if (A.Table >= 0)
      Ps.push_back(fmt::format("const std::vector<{}> &{}", devType(A.Decl->Elem), A.Name));
    else
      Ps.push_back(fmt::format("{}std::vector<{}> &{}", A.Written ? "" : "const ", hostType(A.Decl->Elem), A.Name));
  }
  for (const PermUse &U : F.PermUses)
    Ps.push_back(fmt::format("const std::vector<{}> &{}", Mod.Tables[static_cast<std::size_t>(U.Table)].DeviceType,
                             U.CName));
  return fmt::format("{}", fmt::join(Ps, ", "));
}

std::string KernelEmitter::reference() {
  Out.clear();
  Counter = 0;
  const auto &G = F.K.Geo;
  line(0, fmt::format("// CPU reference of '{}': the .bw semantics run directly on logical (row-major)", F.K.Name));
  line(0, "// arrays, one block after another; inside a block each statement runs for every");
  line(0, "// thread before the next one starts (statement-level lockstep), which is exact");
  line(0, "// for race-free programs. Per-thread locals are arrays indexed by the thread t.");
  std::string Params = referenceParams(F, Mod);
  if (!F.RuntimeUsed.empty())
    Params += (Params.empty() ? "" : ", ") + sizeNames("long long ");
  line(0, fmt::format("static void reference_{}({}) {{", F.K.Name, Params));
  line(1, "using Index = long long;");
  line(1, fmt::format("constexpr Index NT = {};", F.Threads));
  for (const std::string &D : derivedSizes(Host, "Index"))
    line(1, D);
  if (F.RuntimeGrid)
    line(1, gridDecl());
  const auto Bound = [&](int Axis) {
    const char *Axes[] = {"x", "y", "z"};
    return F.RuntimeGrid ? fmt::format("bw_grid_{}", Axes[Axis]) : fmt::format("{}", G.GridDim[static_cast<std::size_t>(Axis)]);
  };
  line(1, fmt::format("for (Index bz = 0; bz < {}; ++bz)", Bound(2)));
  line(1, fmt::format("for (Index by = 0; by < {}; ++by)", Bound(1)));
  line(1, fmt::format("for (Index bx = 0; bx < {}; ++bx) {{", Bound(0)));
  line(2, "(void)bx, (void)by, (void)bz;");
  hostBlock(F.K.Body, 2, "");
  line(1, "}");
  line(0, "}");
  return Out;
}

//===-- The harness -------------------------------------------------------------===//

std::string KernelEmitter::harnessRun() const {
  std::string S;
  auto L = [&](int Indent, const std::string &T) {
    S.append(static_cast<std::size_t>(Indent) * 2, ' ');
    S += T;
    S += '\n';
  };
  const std::size_t KernelIndex = static_cast<std::size_t>(&F.K - &F.Prog.Kernels.front());
  L(0, fmt::format("// Runs '{}' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks", F.K.Name));
  L(0, "// every element it writes against reference_" + F.K.Name + ", and times it with CUDA events.");
  const bool Runtime = !F.RuntimeUsed.empty();
  L(0, fmt::format("static bool run_{}(unsigned long long Seed, int Runs, bool Time, std::string &Json{}) {{", F.K.Name,
                   Runtime ? ", " + sizeNames("long long ") : ""));
  for (const std::string &D : derivedSizes(Host, "long long"))
    L(1, D);
  L(1, fmt::format("bankwise::HarnessRng Rng{{Seed + {}ULL}};", KernelIndex));
  L(1, "std::size_t Checked = 0, Mismatches = 0;");
  L(1, "double Bytes = 0;");
  const double Tol = !F.HasCompute ? 0.0 : 1e-5;
  std::vector<std::string> RefArgs, LaunchArgs;
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isDeviceParam())
      continue;
    const std::string T = devType(A.Decl->Elem), H = hostType(A.Decl->Elem);
    const std::int64_t C = A.Decl->Shape.back();
    const bool RuntimeShape = F.runtimeShape(*A.Decl); // raw, so the footprint is the count
    const std::string N = F.countText(*A.Decl, Mode::Host);
    const std::string Foot = RuntimeShape ? N : fmt::format("{}", A.footprint());
    if (A.Table >= 0) {
      L(1, fmt::format("// '{}' holds {}: the module's table {}.", A.Decl->Name,
                       Mod.Tables[static_cast<std::size_t>(A.Table)].Describe, A.Table));
      L(1, fmt::format("std::vector<{}> {}_ref;", T, A.Name));
      L(1, fmt::format("if (!bw_read_table_{}({}_ref)) {{", A.Table, A.Name));
      L(2, fmt::format("std::fprintf(stderr, \"harness: cannot read table {} (side file '%s')\\n\", bw_table_file);", A.Table));
      L(2, "return false;");
      L(1, "}");
      RefArgs.push_back(A.Name + "_ref");
      continue;
    }
    const bool Input = A.Read;
    const char *Role = A.Read && A.Written ? "read and written: random" : A.Written ? "written only: poisoned" : "read: random";
    L(1, fmt::format("// '{}': {} {}, {}.", A.Decl->Name, ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl), Role));
    if (RuntimeShape) {
      L(1, fmt::format("if ({} < 1) {{", N));
      L(2, fmt::format("std::fprintf(stderr, \"harness: these sizes give '{}' %lld elements\\n\", static_cast<long long>({}));",
                       A.Decl->Name, N));
      L(2, "return false;");
      L(1, "}");
    }
    L(1, fmt::format("std::vector<{}> {}_img({}); // the device bytes", T, A.Name, Foot));
    L(1, fmt::format("std::memset(static_cast<void *>({}_img.data()), 0xFF, {}_img.size() * sizeof({}));", A.Name, A.Name, T));
    std::string Phys = "I";
    if (A.Lay.Kind != LayoutKind::Raw) {
      L(1, layoutObject(A));
      Phys = fmt::format("{}_layout.offset(I / {}, I % {})", A.Name, C, C);
    }
    if (Input) {
      L(1, fmt::format("for (long long I = 0; I < {}; ++I)", N));
      L(2, fmt::format("{}_img[{}] = bankwise::randomElement<{}>(Rng);", A.Name, Phys, T));
    }
    L(1, fmt::format("std::vector<{}> {}_ref({});", H, A.Name, N));
    L(1, fmt::format("for (long long I = 0; I < {}; ++I)", N));
    L(2, fmt::format("{}_ref[I] = bankwise::toHost({}_img[{}]);", A.Name, A.Name, Phys));
    L(1, fmt::format("{} *{} = nullptr;", T, A.Name));
    L(1, fmt::format("BANKWISE_CHECK(cudaMalloc(&{}, {}_img.size() * sizeof({})));", A.Name, A.Name, T));
    L(1, fmt::format("BANKWISE_CHECK(cudaMemcpy({}, {}_img.data(), {}_img.size() * sizeof({}), cudaMemcpyHostToDevice));",
                     A.Name, A.Name, A.Name, T));
    if (RuntimeShape)
      L(1, fmt::format("Bytes += {}.0 * static_cast<double>({}) * sizeof({});", (A.Read ? 1 : 0) + (A.Written ? 1 : 0), N, T));
    else
      L(1, fmt::format("Bytes += {}.0 * sizeof({});", (A.Read ? A.Decl->numElements() : 0) + (A.Written ? A.Decl->numElements() : 0), T));
    RefArgs.push_back(A.Name + "_ref");
    LaunchArgs.push_back(fmt::format("{}, {}", A.Name, RuntimeShape ? A.Name + "_img.size()" : Foot));
  }
  for (const PermUse &U : F.PermUses) {
    const TablePlan &T = Mod.Tables[static_cast<std::size_t>(U.Table)];
    L(1, fmt::format("std::vector<{}> {};", T.DeviceType, U.CName));
    L(1, fmt::format("if (!bw_read_table_{}({}))", U.Table, U.CName));
    L(2, "return false;");
    RefArgs.push_back(U.CName);
  }
  if (Runtime) {
    LaunchArgs.push_back(sizeNames());
    RefArgs.push_back(sizeNames());
  }
  LaunchArgs.push_back("0");
  L(1, fmt::format("BANKWISE_CHECK({}({}));", launchName(), fmt::join(LaunchArgs, ", ")));
  L(1, "BANKWISE_CHECK(cudaDeviceSynchronize());");
  L(1, fmt::format("reference_{}({});", F.K.Name, fmt::join(RefArgs, ", ")));
  for (const ArrayPlan &A : F.Arrays) {
    if (!A.isApiParam() || !A.Written)
      continue;
    const std::string T = devType(A.Decl->Elem);
    const std::string N = F.countText(*A.Decl, Mode::Host);
    const std::int64_t C = A.Decl->Shape.back();
    const std::string Phys = A.Lay.Kind == LayoutKind::Raw ? "I" : fmt::format("{}_layout.offset(I / {}, I % {})", A.Name, C, C);
    L(1, fmt::format("BANKWISE_CHECK(cudaMemcpy({}_img.data(), {}, {}_img.size() * sizeof({}), cudaMemcpyDeviceToHost));",
                     A.Name, A.Name, A.Name, T));
    L(1, fmt::format("for (long long I = 0; I < {}; ++I) {{", N));
    L(2, fmt::format("const auto Got = bankwise::toHost({}_img[{}]);", A.Name, Phys));
    L(2, "++Checked;");
    L(2, fmt::format("if (!bankwise::sameValue(Got, {}_ref[I], {})) {{", A.Name, Tol));
    L(3, "if (Mismatches < 5)");
    L(4, fmt::format("std::fprintf(stderr, \"{}: {}[%lld] is %s, the reference says %s\\n\", I, "
                     "bankwise::showValue(Got).c_str(), bankwise::showValue({}_ref[I]).c_str());",
                     F.K.Name, A.Decl->Name, A.Name));
    L(3, "++Mismatches;");
    L(2, "}");
    L(1, "}");
  }
  L(1, "std::vector<double> Ms;");
  L(1, "if (Time) {");
  L(2, "cudaEvent_t Start, Stop;");
  L(2, "BANKWISE_CHECK(cudaEventCreate(&Start));");
  L(2, "BANKWISE_CHECK(cudaEventCreate(&Stop));");
  L(2, "for (int W = 0; W < 3; ++W) // warm-up");
  L(3, fmt::format("BANKWISE_CHECK({}({}));", launchName(), fmt::join(LaunchArgs, ", ")));
  L(2, Runtime ? "for (int bw_run = 0; bw_run < Runs; ++bw_run) {" : "for (int R = 0; R < Runs; ++R) {");
  L(3, "BANKWISE_CHECK(cudaEventRecord(Start, 0));");
  L(3, fmt::format("BANKWISE_CHECK({}({}));", launchName(), fmt::join(LaunchArgs, ", ")));
  L(3, "BANKWISE_CHECK(cudaEventRecord(Stop, 0));");
  L(3, "BANKWISE_CHECK(cudaEventSynchronize(Stop));");
  L(3, "float Elapsed = 0;");
  L(3, "BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));");
  L(3, "Ms.push_back(Elapsed);");
  L(2, "}");
  L(2, "BANKWISE_CHECK(cudaEventDestroy(Start));");
  L(2, "BANKWISE_CHECK(cudaEventDestroy(Stop));");
  L(1, "}");
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam())
      L(1, fmt::format("BANKWISE_CHECK(cudaFree({}));", A.Name));
  L(1, "const double Median = Ms.empty() ? 0 : bankwise::median(Ms);");
  L(1, "const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());");
  L(1, "char Buf[512];");
  L(1, fmt::format("std::snprintf(Buf, sizeof Buf, \"{{\\\"kernel\\\":\\\"{}\\\",\\\"correct\\\":%s,\\\"checked\\\":%zu,"
                   "\\\"mismatches\\\":%zu,\\\"runs\\\":%zu,\\\"warmup\\\":%d,\\\"median_ms\\\":%.6f,\\\"min_ms\\\":%.6f,"
                   "\\\"bytes\\\":%.0f,\\\"gbps\\\":%.3f}}\",",
                   F.K.Name));
  L(2, "Mismatches == 0 ? \"true\" : \"false\", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,");
  L(2, "Median > 0 ? Bytes / (Median * 1e6) : 0.0);");
  L(1, "Json += Buf;");
  L(1, "return Mismatches == 0;");
  L(0, "}");
  return S;
}

//===-- The module ----------------------------------------------------------------===//

/// Places the kernel's shared arrays: demotes staged arrays that do not fit
/// (largest first) to global memory, and switches to dynamic shared memory
/// above the 48 KB a block gets without opting in.
void planShared(KernelFacts &F, const ir::TargetInfo &T, std::vector<Diagnostic> &Warnings) {
  auto Bytes = [](const ArrayPlan &A) {
    const std::int64_t B = A.footprint() * ir::byteSize(A.Decl->Elem);
    return (B + 15) / 16 * 16;
  };
  auto Total = [&] {
    std::int64_t S = 0;
    for (const ArrayPlan &A : F.Arrays)
      if (A.InShared)
        S += Bytes(A);
    return S;
  };
  while (Total() > T.MaxSharedPerBlock) {
    ArrayPlan *Largest = nullptr;
    for (ArrayPlan &A : F.Arrays)
      if (A.Staged && (!Largest || Bytes(A) > Bytes(*Largest)))
        Largest = &A;
    if (!Largest)
      throw UserError(F.K.Loc, fmt::format("kernel '{}' needs {} bytes of shared memory; {} has {} per block",
                                           F.K.Name, Total(), T.Name, T.MaxSharedPerBlock));
    Warnings.push_back({Severity::Warning, Largest->Decl->Loc,
                        fmt::format("shared array '{}' ({} bytes) does not fit {}'s {} bytes of shared memory "
                                    "with the rest of kernel '{}'; the generated code keeps it in global memory",
                                    Largest->Decl->Name, Bytes(*Largest), T.Name, T.MaxSharedPerBlock, F.K.Name),
                        {}});
    Largest->InShared = false;
    Largest->Staged = false;
    Largest->Demoted = true;
  }
  for (const ArrayPlan &A : F.Arrays)
    if (A.Staged && A.Written && (F.Blocks > 1 || F.RuntimeGrid))
      throw UserError(A.Decl->Loc, fmt::format("shared array '{}' is written by kernel '{}' of {} blocks: "
                                               "codegen cannot give every block its own copy back",
                                               A.Decl->Name, F.K.Name,
                                               F.RuntimeGrid ? "a runtime number of" : std::to_string(F.Blocks)));
  const std::int64_t All = Total();
  F.UseDynamic = All > T.DefaultSharedPerBlock;
  if (F.UseDynamic) {
    std::int64_t Offset = 0;
    for (ArrayPlan &A : F.Arrays)
      if (A.InShared) {
        A.SmemOffset = Offset;
        Offset += Bytes(A);
      }
    F.DynamicSmem = Offset;
  }
  F.StaticSmem = All;
}

/// templates/Path, guarded and without its own includes, for pasting.
std::string embedTemplate(const std::string &Path) {
  const std::string_view Text = templateText(Path);
  assert(!Text.empty() && "unknown template");
  std::string Guard = "BANKWISE_TEMPLATE_";
  for (char C : Path)
    Guard += std::isalnum(static_cast<unsigned char>(C)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(C))) : '_';
  std::string Out = fmt::format("// ---- templates/{} ----\n#ifndef {}\n#define {}\n", Path, Guard, Guard);
  std::istringstream In{std::string(Text)};
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line == "#pragma once" || Line.rfind("#include \"bankwise/", 0) == 0)
      continue;
    Out += Line;
    Out += '\n';
  }
  Out += fmt::format("#endif // {}\n// ---- end of templates/{} ----\n", Guard, Path);
  return Out;
}

std::string tableSection(const ModuleState &Mod, const CodegenOptions &Opts) {
  std::string S;
  std::uint64_t Entries = 0;
  bool Side = false;
  for (const TablePlan &T : Mod.Tables) {
    Entries += T.Size;
    Side = Side || !T.InSource;
  }
  S += fmt::format("// Offline tables: {} table{}, {} entries, each stored at its narrowest width; a table of\n"
                   "// at most {} bytes is a constant array here, a larger one lives in the side file.\n",
                   Mod.Tables.size(), Mod.Tables.size() == 1 ? "" : "s", Entries, Opts.InlineTableLimit);
  S += fmt::format("const char *bw_table_file = {}; // the side file\n\n", cString(Opts.SideFileName));
  S += "void set_table_file(const char *path) { bw_table_file = path; }\n\n";
  for (std::size_t I = 0; I < Mod.Tables.size(); ++I) {
    const TablePlan &T = Mod.Tables[I];
    const std::string Narrow = unsignedTypeName(T.Width);
    if (!T.stored()) {
      S += fmt::format("// Table {}: '{}' = {}; {} entries of {}, computed by its closed form (nothing stored).\n", I,
                       T.Perm, T.Describe, T.Size, T.DeviceType);
      S += fmt::format("static bool bw_read_table_{}(std::vector<{}> &Out) {{\n  Out.resize({});\n"
                       "  for (long long I = 0; I < {}; ++I)\n    Out[static_cast<std::size_t>(I)] = static_cast<{}>({});\n"
                       "  return true;\n}}\n",
                       I, T.DeviceType, T.Size, T.Size, T.DeviceType, T.ClosedForm);
    } else {
      S += fmt::format("// Table {}: '{}' = {}; {} entries stored as {}, used as {}{}.\n", I, T.Perm, T.Describe,
                       T.Size, Narrow, T.DeviceType,
                       T.InSource ? "" : fmt::format(", in the side file at byte {}", 8 + T.Offset));
    }
    if (!T.stored()) {
    } else if (T.InSource) {
      S += fmt::format("static const {} bw_table_{}_data[{}] = {{\n", Narrow, I, T.Size);
      const std::vector<std::uint32_t> V = T.Values ? T.Values->map() : std::vector<std::uint32_t>(T.Raw16.begin(), T.Raw16.end());
      for (std::size_t J = 0; J < V.size(); J += 16) {
        std::vector<std::uint32_t> Row(V.begin() + static_cast<std::ptrdiff_t>(J),
                                       V.begin() + static_cast<std::ptrdiff_t>(std::min(V.size(), J + 16)));
        S += fmt::format("    {},\n", fmt::join(Row, ", "));
      }
      S += "};\n";
      S += fmt::format("static bool bw_read_table_{}(std::vector<{}> &Out) {{\n  bankwise::widenTable(bw_table_{}_data, {}, Out);\n"
                       "  return true;\n}}\n",
                       I, T.DeviceType, I, T.Size);
    } else {
      S += fmt::format("static bool bw_read_table_{}(std::vector<{}> &Out) {{\n"
                       "  return bankwise::readTable<{}>(bw_table_file, {}ULL, {}, 0x{:016x}ULL, Out);\n}}\n",
                       I, T.DeviceType, Narrow, T.Offset, T.Size, T.Hash);
    }
    S += fmt::format("static {} *bw_dev_table_{} = nullptr;\n\n", T.DeviceType, I);
  }
  (void)Side;
  S += "static bool bw_tables_loaded = false;\n\n";
  S += "cudaError_t load_tables() {\n  if (bw_tables_loaded)\n    return cudaSuccess;\n  cudaError_t Err = cudaSuccess;\n";
  for (std::size_t I = 0; I < Mod.Tables.size(); ++I) {
    const TablePlan &T = Mod.Tables[I];
    S += "  {\n";
    S += fmt::format("    std::vector<{}> Host;\n", T.DeviceType);
    S += fmt::format("    if (!bw_read_table_{}(Host))\n      return cudaErrorFileNotFound;\n", I);
    S += fmt::format("    if ((Err = cudaMalloc(&bw_dev_table_{}, Host.size() * sizeof({}))) != cudaSuccess)\n      return Err;\n",
                     I, T.DeviceType);
    S += fmt::format("    if ((Err = cudaMemcpy(bw_dev_table_{}, Host.data(), Host.size() * sizeof({}), "
                     "cudaMemcpyHostToDevice)) != cudaSuccess)\n      return Err;\n",
                     I, T.DeviceType);
    S += "  }\n";
  }
  S += "  bw_tables_loaded = true;\n  return cudaSuccess;\n}\n\n";
  S += "cudaError_t free_tables() {\n  cudaError_t Err = cudaSuccess;\n";
  for (std::size_t I = 0; I < Mod.Tables.size(); ++I)
    S += fmt::format("  if (const cudaError_t E = cudaFree(bw_dev_table_{}); E != cudaSuccess)\n    Err = E;\n"
                     "  bw_dev_table_{} = nullptr;\n",
                     I, I);
  S += "  bw_tables_loaded = false;\n  return Err;\n}\n";
  return S;
}

} // namespace

std::string cppIdentifier(const std::string &S) {
  std::string R;
  for (char C : S)
    R += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  if (R.empty() || std::isdigit(static_cast<unsigned char>(R[0])))
    R = "m_" + R;
  if (cppKeywords().count(R))
    R += '_';
  return R;
}

/// The harness main's runtime sizes: declarations (the representative sizes
/// by default), their `NAME=VALUE` arguments, the `where` checks, and their
/// part of the JSON line. All empty for a program of constant sizes.
struct HarnessSizes {
  std::string Helper, Decls, Parse, Usage, Checks, JsonFormat, JsonArgs;
};

HarnessSizes harnessSizes(const ir::Program &Prog, const CodegenOptions &Opts, const ModuleState &Mod,
                          const KernelFacts &Any) {
  HarnessSizes H;
  if (Opts.RuntimeParams.empty())
    return H;
  const ExprEmitter Host(Any, Mode::Host);
  std::vector<std::string> Json, Args;
  H.Helper = "// A runtime size argument of the harness: true when A is `Name=VALUE`, VALUE a positive integer, which\n"
             "// goes to V; exits with 2 when A is `Name=` followed by anything else.\n"
             "static bool bw_size_argument(const std::string &A, const char *Name, long long &V) {\n"
             "  const std::string Prefix = std::string(Name) + \"=\";\n"
             "  if (A.compare(0, Prefix.size(), Prefix) != 0)\n    return false;\n"
             "  const char *Text = A.c_str() + Prefix.size();\n  char *End = nullptr;\n"
             "  const long long Value = std::strtoll(Text, &End, 10);\n"
             "  if (End == Text || *End != '\\0' || Value < 1) {\n"
             "    std::fprintf(stderr, \"harness: bad size '%s': expected %s=VALUE, VALUE a positive integer\\n\", A.c_str(), Name);\n"
             "    std::exit(2);\n  }\n  V = Value;\n  return true;\n}\n\n";
  H.Decls += "  // Runtime sizes: NAME=VALUE arguments, by default the sizes the predictions were made at.\n";
  for (const ir::Param &P : Prog.Params) {
    if (!Mod.Runtime.count(P.Name))
      continue;
    const std::string Name = cName(P.Name);
    if (P.Init) {
      H.Checks += fmt::format("  [[maybe_unused]] const long long {} = {}; // param (runtime)\n", Name, Host.index(*P.Init));
    } else {
      H.Decls += fmt::format("  long long {} = {}LL;\n", Name, P.Value);
      H.Parse += fmt::format("    else if (bw_size_argument(A, \"{}\", {}))\n      ;\n", P.Name, Name);
      H.Usage += fmt::format(" [{}=VALUE]", P.Name);
      Json.push_back(fmt::format("\\\"{}\\\":%lld", P.Name));
      Args.push_back(Name);
    }
    if (P.Where)
      H.Checks += fmt::format("  if (!({})) {{\n    std::fprintf(stderr, \"harness: the sizes break param {}'s constraint "
                              "`where {}`\\n\");\n    return 2;\n  }}\n",
                              Host.index(*P.Where), P.Name, ir::print(*P.Where));
  }
  H.JsonFormat = fmt::format("\\\"sizes\\\":{{{}}},", fmt::join(Json, ","));
  H.JsonArgs = fmt::format("{}", fmt::join(Args, ", "));
  return H;
}

CompileResult compileToCuda(const ir::Program &Prog, const CodegenOptions &Opts) {
  const std::optional<ir::TargetInfo> Target = ir::targetInfo(Opts.Arch);
  if (!Target)
    throw UserError(fmt::format("unknown architecture '{}' (known: {})", Opts.Arch,
                                fmt::join(ir::knownTargets(), ", ")));
  const std::string Ns = cppIdentifier(Opts.Namespace);
  for (const std::string &Name : Opts.RuntimeParams)
    if (hostLocalNames().count(Name))
      throw UserError(Prog.findParam(Name) ? static_cast<SourceLoc>(Prog.findParam(Name)->Loc) : SourceLoc{},
                      fmt::format("codegen: runtime param '{}' would clash with a local of the generated host "
                                  "code; rename it (reserved: {})",
                                  Name, fmt::join(hostLocalNames(), ", ")));
  ModuleState Mod(Prog, Opts);
  std::vector<std::unique_ptr<KernelFacts>> Facts;
  std::vector<KernelReport> Reports;
  // Seed 001's plans of the kernels left `schedule colored` (global copies):
  // the caller's, else planned here on a copy of the program.
  std::vector<ColoredScheduleReport> Planned = Opts.ColoredSchedules;
  for (const ir::Kernel &K : Prog.Kernels)
    if (isHmmScheduled(K) && std::none_of(Planned.begin(), Planned.end(), [&](const ColoredScheduleReport &C) {
          return C.Kernel == K.Name && C.Hmm;
        })) {
      ir::Program Copy = Prog;
      for (ColoredScheduleReport &C : applyColoredSchedules(Copy))
        Planned.push_back(std::move(C));
      break;
    }
  for (const ir::Kernel &K : Prog.Kernels) {
    Facts.push_back(std::make_unique<KernelFacts>(Prog, K, Mod));
    planShared(*Facts.back(), *Target, Mod.Warnings);
    Reports.push_back(analyzeKernel(Prog, K));
    if (!isHmmScheduled(K))
      continue;
    if (!Facts.back()->RuntimeUsed.empty())
      throw UserError(K.Loc, fmt::format("kernel '{}': schedule colored on a global copy needs constant sizes; "
                                         "bind the runtime params with -D",
                                         K.Name));
    for (const ColoredScheduleReport &C : Planned)
      if (C.Kernel == K.Name && C.Hmm) {
        Facts.back()->Hmm = C.Hmm.get();
        break;
      }
    if (!Facts.back()->Hmm)
      throw UserError(K.Loc, fmt::format("kernel '{}': schedule colored was not planned", K.Name));
    Facts.back()->HmmTable = Mod.hmmTable(K.Name, *Facts.back()->Hmm);
  }
  std::vector<KernelEmitter> Emitters;
  for (std::size_t I = 0; I < Facts.size(); ++I)
    Emitters.emplace_back(*Facts[I], Reports[I], Opts, Mod);

  bool NeedLayout = false, ApiNeedsTypes = false, NeedHmm = false;
  for (const auto &F : Facts)
    NeedHmm = NeedHmm || F->Hmm;
  for (const auto &F : Facts)
    for (const ArrayPlan &A : F->Arrays) {
      NeedLayout = NeedLayout || (A.usesLayoutObject() && !A.Local);
      if (A.isApiParam() && (A.Decl->Elem.Lanes > 1 || isHalfLike(A.Decl->Elem)))
        ApiNeedsTypes = true;
    }
  const bool HasTables = !Mod.Tables.empty();

  // The header: parameters and the launch API.
  const std::string Banner = fmt::format("// Generated by bankwise {} from {} for {}. Do not edit: rerun `bankwise compile`.\n",
                                         "0.1.0", Opts.SourceName, Opts.Arch);
  std::string Api;
  Api += fmt::format("namespace {} {{\n\n", Ns);
  for (const ir::Param &P : Prog.Params) {
    if (Mod.Runtime.count(P.Name)) {
      if (P.Init)
        Api += fmt::format("// param {} = {}: runtime, computed by each launch function that uses it.\n", P.Name,
                           ir::print(*P.Init));
      else
        Api += fmt::format("// param {}: a runtime size, an argument of the launch functions that use it.\n", P.Name);
      continue;
    }
    Api += fmt::format("inline constexpr long long {} = {}; // param{}\n", cName(P.Name), literal(P.Value, true),
                       P.Overridden ? " (set with -D)" : "");
  }
  if (!Prog.Params.empty())
    Api += "\n";
  for (const KernelEmitter &E : Emitters)
    Api += E.declaration() + "\n";
  if (HasTables)
    Api += "/// Reads the module's offline tables (permutations, schedules) and uploads them once; every\n"
           "/// launch function calls it. cudaErrorFileNotFound when the side file is missing or corrupt.\n"
           "cudaError_t load_tables();\n/// Frees the uploaded tables.\ncudaError_t free_tables();\n"
           "/// Where the side file is (default: its name when it was generated, relative to the working directory).\n"
           "void set_table_file(const char *path);\n\n";
  Api += fmt::format("}} // namespace {}\n", Ns);

  std::string Header = Banner + fmt::format("// Host API of module '{}'.\n#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\n"
                                            "#include <cuda_runtime_api.h>\n\n",
                                            Ns);
  if (ApiNeedsTypes)
    Header += embedTemplate("bankwise/arith.cuh") + embedTemplate("bankwise/types.cuh") + "\n";
  Header += Api;

  // The source.
  std::string Src = Banner;
  Src += fmt::format("// Module '{}': {} kernel{}", Ns, Prog.Kernels.size(), Prog.Kernels.size() == 1 ? "" : "s");
  Src += Opts.Harness ? ", with a harness (main) that checks them against a CPU reference and times them.\n" : ".\n";
  if (!Opts.HeaderInclude.empty())
    Src += fmt::format("#include {}\n\n", cString(Opts.HeaderInclude));
  Src += "#include <algorithm>\n#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n"
         "#include <string>\n#include <vector>\n\n#include <cuda_runtime.h>\n\n";
  Src += embedTemplate("bankwise/arith.cuh") + embedTemplate("bankwise/types.cuh");
  if (NeedLayout)
    Src += embedTemplate("bankwise/layout.cuh");
  if (HasTables)
    Src += embedTemplate("bankwise/tables.cuh");
  if (NeedHmm)
    Src += embedTemplate("bankwise/hmm_pass.cuh");
  if (Opts.Harness)
    Src += embedTemplate("bankwise/harness.cuh");
  Src += "\n";
  if (Opts.HeaderInclude.empty())
    Src += Api + "\n";
  Src += fmt::format("namespace {} {{\n\n", Ns);
  if (HasTables)
    Src += tableSection(Mod, Opts) + "\n";
  for (std::size_t I = 0; I < Emitters.size(); ++I)
    Src += Facts[I]->Hmm ? Emitters[I].hmmDevice() : Emitters[I].device() + "\n";
  for (std::size_t I = 0; I < Emitters.size(); ++I)
    Src += (Facts[I]->Hmm ? Emitters[I].hmmLaunch() : Emitters[I].launch()) + "\n";
  if (Opts.Harness) {
    for (KernelEmitter &E : Emitters)
      Src += E.reference() + "\n";
    for (const KernelEmitter &E : Emitters)
      Src += E.harnessRun() + "\n";
  }
  Src += fmt::format("}} // namespace {}\n", Ns);
  if (Opts.Harness) {
    std::vector<std::string> Calls;
    const HarnessSizes Sizes = harnessSizes(Prog, Opts, Mod, *Facts.front());
    Src += Sizes.Helper.empty() ? "" : "\n" + Sizes.Helper.substr(0, Sizes.Helper.size() - 1);
    Src += fmt::format("\n// Harness: `./a.out [--seed S] [--runs R] [--check-only]{}` prints one JSON line and exits\n"
                       "// with 0 when every kernel matches its CPU reference, 1 when one does not.\n"
                       "int main(int argc, char **argv) {{\n  unsigned long long Seed = {}ULL;\n  int Runs = 21;\n"
                       "  bool Time = true;\n",
                       Sizes.Usage, Opts.Seed);
    Src += Sizes.Decls;
    Src += "  for (int I = 1; I < argc; ++I) {\n    const std::string A = argv[I];\n"
           "    if (A == \"--seed\" && I + 1 < argc)\n      Seed = std::strtoull(argv[++I], nullptr, 10);\n"
           "    else if (A == \"--runs\" && I + 1 < argc)\n      Runs = std::max(20, std::atoi(argv[++I]));\n"
           "    else if (A == \"--check-only\")\n      Time = false;\n" +
           Sizes.Parse + "    else {\n" +
           fmt::format("      std::fprintf(stderr, \"usage: %s [--seed S] [--runs R (>= 20)] [--check-only]{}\\n\", argv[0]);\n",
                       Sizes.Usage) +
           "      return 2;\n    }\n  }\n" + Sizes.Checks;
    Src += "  int Device = 0;\n  BANKWISE_CHECK(cudaGetDevice(&Device));\n  cudaDeviceProp Prop;\n"
           "  BANKWISE_CHECK(cudaGetDeviceProperties(&Prop, Device));\n  std::string Json;\n  bool Ok = true;\n";
    for (std::size_t I = 0; I < Prog.Kernels.size(); ++I) {
      if (I > 0)
        Src += "  Json += \",\";\n";
      const std::string Args = Emitters[I].sizeNames();
      Src += fmt::format("  Ok = {}::run_{}(Seed, Runs, Time, Json{}) && Ok;\n", Ns, Prog.Kernels[I].Name,
                         Args.empty() ? "" : ", " + Args);
    }
    if (HasTables)
      Src += fmt::format("  BANKWISE_CHECK({}::free_tables());\n", Ns);
    std::string Program = cString(Opts.SourceName);
    std::string Escaped;
    for (char C : Program)
      Escaped += (C == '"' || C == '\\') ? std::string("\\") + C : std::string(1, C);
    if (Sizes.JsonFormat.empty())
      Src += fmt::format("  std::printf(\"{{\\\"program\\\":%s,\\\"device\\\":\\\"%s\\\",\\\"seed\\\":%llu,\\\"correct\\\":%s,"
                         "\\\"kernels\\\":[%s]}}\\n\",\n              \"{}\", Prop.name, Seed, Ok ? \"true\" : \"false\", "
                         "Json.c_str());\n",
                         Escaped);
    else
      Src += fmt::format("  std::printf(\"{{\\\"program\\\":%s,\\\"device\\\":\\\"%s\\\",\\\"seed\\\":%llu,{}\\\"correct\\\":%s,"
                         "\\\"kernels\\\":[%s]}}\\n\",\n              \"{}\", Prop.name, Seed, {}, Ok ? \"true\" : \"false\", "
                         "Json.c_str());\n",
                         Sizes.JsonFormat, Escaped, Sizes.JsonArgs);
    Src += "  return Ok ? 0 : 1;\n}\n";
  }

  // The report: every site's prediction, the ones codegen added included.
  nlohmann::json J;
  J["program"] = Opts.SourceName;
  J["arch"] = Opts.Arch;
  J["namespace"] = Ns;
  if (!Opts.RuntimeParams.empty()) {
    J["runtime_params"] = Opts.RuntimeParams;
    J["predicted_at"] = nlohmann::json::object();
    for (const auto &[Name, Value] : Opts.RepresentativeSizes)
      J["predicted_at"][Name] = Value;
  }
  J["kernels"] = nlohmann::json::array();
  for (std::size_t I = 0; I < Facts.size(); ++I) {
    const KernelFacts &F = *Facts[I];
    const KernelReport &R = Reports[I];
    if (F.Hmm) {
      // Seed 001: one entry per pass kernel, its sites as the comments name them.
      const KernelEmitter &E = Emitters[I];
      for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
        const HmmPassPlan &P = F.Hmm->Passes[static_cast<std::size_t>(Pass)];
        const std::string Src = Pass == 0 ? E.hmmSrc() : E.hmmDst();
        nlohmann::json JK = {{"kernel", E.passName(Pass)},
                             {"program_kernel", F.K.Name},
                             {"schedule", "seed 001 scheduled permutation"},
                             {"pass", Pass},
                             {"pass_kind", P.Cost.Kind == HmmPassKind::Strip ? "strip" : "row"},
                             {"shape", {{"rows", F.Hmm->Shape.Rows}, {"cols", F.Hmm->Shape.Cols},
                                        {"strip_cols", F.Hmm->Shape.StripCols}, {"banks", F.Hmm->Shape.Banks}}},
                             {"threads", static_cast<std::int64_t>(P.Cost.Blocks) * P.Cost.BlockWords},
                             {"threads_per_block", P.Threads},
                             {"blocks", P.Cost.Blocks},
                             {"index_type", "unsigned"},
                             {"shared_bytes", E.passSmem(Pass)},
                             {"dynamic_shared", E.passDynamic(Pass)},
                             {"predicted", {{"max_shared_congestion", P.Cost.MaxSharedCongestion},
                                            {"global_requests", P.Cost.GlobalRequests},
                                            {"sectors", P.Cost.Sectors},
                                            {"max_sectors_per_request", P.Cost.MaxSectorsPerRequest},
                                            {"max_lines_per_request", P.Cost.MaxLinesPerRequest},
                                            {"max_umm_groups", P.Cost.MaxUmmGroups},
                                            {"index_sectors", P.Cost.IndexSectors}}},
                             {"sites", nlohmann::json::array()}};
        static const char *const Roles[HmmNumSites] = {
            "(1) load of the block's row or strip",     "(1) store into the shared buffer",
            "(2) load of s[j]",                         "(3) gather buf[s[j]]",
            "(2) load of d[j]",                         "(3) scatter buf[d[j]]",
            "(4) read of buf[j]",                       "(4) store of the permuted row or strip"};
        for (std::size_t SI = 0; SI < P.Sites.size(); ++SI) {
          const AccessSiteReport &S = P.Sites[SI];
          // Every site of a pass kernel has a `line:col` marker in the .cu, so none
          // counts as added_by_codegen (which the staging copies' "staging-in/out"
          // locations mean); "seed001_step" says which step of the pass it is.
          nlohmann::json JS = siteJson(S, fmt::format("{}:{}:{}", Opts.SourceName, S.Loc.Line, S.Loc.Col));
          JS["added_by_codegen"] = false;
          JS["seed001_step"] = Roles[SI];
          JK["sites"].push_back(JS);
        }
        J["kernels"].push_back(JK);
      }
      continue;
    }
    nlohmann::json JK = {{"kernel", F.K.Name},
                         {"threads", R.Threads},
                         {"threads_per_block", F.CudaThreads},
                         {"blocks", F.Blocks},
                         {"index_type", F.indexType()},
                         {"shared_bytes", F.StaticSmem},
                         {"dynamic_shared", F.UseDynamic},
                         {"model_time", R.TimeSimulated ? nlohmann::json(R.Time) : nlohmann::json()},
                         {"time_machine", R.TimeMachine},
                         {"sites", nlohmann::json::array()}};
    for (const AccessSiteReport &S : R.Sites) {
      nlohmann::json JS = siteJson(S, fmt::format("{}:{}:{}", Opts.SourceName, S.Loc.Line, S.Loc.Col));
      JS["added_by_codegen"] = false;
      if (F.ArrayIndex.count(S.Array) && F.array(S.Array).Demoted)
        JS["device_space"] = "global";
      JK["sites"].push_back(JS);
    }
    for (const ArrayPlan &A : F.Arrays) {
      if (!A.Staged)
        continue;
      const StagingCost C = stagingCost(A, F.CudaThreads);
      auto Point = [](std::int64_t V) { return nlohmann::json{{"min", V}, {"mean", V}, {"max", V}}; };
      for (int Back = 0; Back < (A.Written ? 2 : 1); ++Back) {
        for (int Global = 0; Global < 2; ++Global) {
          nlohmann::json JS = {{"location", Back ? "staging-out" : "staging-in"},
                               {"array", A.Decl->Name},
                               {"space", Global ? "global" : "shared"},
                               {"access", (Global != 0) == (Back != 0) ? "write" : "read"},
                               {"layout", A.LayoutName},
                               {"elem_bytes", ir::byteSize(A.Decl->Elem)},
                               {"warp_executions", C.WarpExecutions},
                               {"data_dependent", false},
                               {"added_by_codegen", true}};
          if (Global)
            JS["sm90_sectors"] = Point(C.Sectors), JS["sm90_lines"] = Point(C.Lines);
          else
            JS["sm90_wavefronts"] = Point(C.Wavefronts);
          JK["sites"].push_back(JS);
        }
      }
    }
    J["kernels"].push_back(JK);
  }

  CompileResult R;
  R.Source = std::move(Src);
  R.Header = std::move(Header);
  if (HasTables)
    for (const TablePlan &T : Mod.Tables)
      if (!T.InSource && T.stored())
        R.SideFile.Tables.push_back(T);
  R.ReportJson = J.dump(1) + "\n";
  R.Warnings = Mod.Warnings;
  return R;
}

} // namespace bankwise::codegen
