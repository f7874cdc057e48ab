#include "ir/Program.h"
#include "support/Bits.h"

#include <algorithm>
#include <array>

namespace bankwise::ir {

namespace {
struct ScalarInfo {
  ScalarType Type;
  std::string_view Name;
  std::int64_t Bytes;
};
constexpr std::array<ScalarInfo, 12> Scalars{{
    {ScalarType::I8, "i8", 1},
    {ScalarType::I16, "i16", 2},
    {ScalarType::I32, "i32", 4},
    {ScalarType::I64, "i64", 8},
    {ScalarType::U8, "u8", 1},
    {ScalarType::U16, "u16", 2},
    {ScalarType::U32, "u32", 4},
    {ScalarType::U64, "u64", 8},
    {ScalarType::F16, "f16", 2},
    {ScalarType::BF16, "bf16", 2},
    {ScalarType::F32, "f32", 4},
    {ScalarType::F64, "f64", 8},
}};

const ScalarInfo &info(ScalarType T) {
  return Scalars[static_cast<std::size_t>(T)];
}

// Shared memory per block (bytes) from the CUDA C Programming Guide's
// "Technical Specifications per Compute Capability" table.
constexpr std::array<TargetInfo, 7> Targets{{
    {"sm_70", 98304, 49152, 1024},
    {"sm_75", 65536, 49152, 1024},
    {"sm_80", 166912, 49152, 1024},
    {"sm_86", 101376, 49152, 1024},
    {"sm_89", 101376, 49152, 1024},
    {"sm_90", 232448, 49152, 1024},
    {"sm_100", 232448, 49152, 1024},
}};

std::int64_t ilog2(std::int64_t N) {
  std::int64_t L = 0;
  while ((std::int64_t{1} << (L + 1)) <= N && L < 62)
    ++L;
  return L;
}
} // namespace

std::int64_t byteSize(ElemType T) { return info(T.Scalar).Bytes * T.Lanes; }

std::vector<ScalarType> atomicTypes(AtomicOp Op) {
  using S = ScalarType;
  switch (Op) {
  case AtomicOp::Add:
    return {S::I32, S::U32, S::U64, S::F32, S::F64};
  case AtomicOp::Sub:
    return {S::I32, S::U32, S::F32, S::F64};
  case AtomicOp::Min:
  case AtomicOp::Max:
    return {S::I32, S::U32, S::I64, S::U64};
  case AtomicOp::And:
  case AtomicOp::Or:
  case AtomicOp::Xor:
  case AtomicOp::Cas:
    return {S::I32, S::U32, S::U64};
  case AtomicOp::Exch:
    return {S::I32, S::U32, S::U64, S::F32};
  case AtomicOp::Inc:
  case AtomicOp::Dec:
    return {S::U32};
  }
  return {};
}

std::string_view cudaSpelling(AtomicOp Op) {
  switch (Op) {
  case AtomicOp::Add:
    return "atomicAdd";
  case AtomicOp::Sub:
    return "atomicSub";
  case AtomicOp::Min:
    return "atomicMin";
  case AtomicOp::Max:
    return "atomicMax";
  case AtomicOp::And:
    return "atomicAnd";
  case AtomicOp::Or:
    return "atomicOr";
  case AtomicOp::Xor:
    return "atomicXor";
  case AtomicOp::Exch:
    return "atomicExch";
  case AtomicOp::Inc:
    return "atomicInc";
  case AtomicOp::Dec:
    return "atomicDec";
  case AtomicOp::Cas:
    return "atomicCAS";
  }
  return "?";
}

std::string spelling(ElemType T) {
  std::string S(info(T.Scalar).Name);
  if (T.Lanes > 1)
    S += "x" + std::to_string(T.Lanes);
  return S;
}

std::optional<ElemType> parseElemType(std::string_view Name) {
  for (const ScalarInfo &I : Scalars) {
    if (Name == I.Name)
      return ElemType{I.Type, 1};
    if (Name.size() == I.Name.size() + 2 &&
        Name.substr(0, I.Name.size()) == I.Name && Name[I.Name.size()] == 'x' &&
        (Name.back() == '2' || Name.back() == '4'))
      return ElemType{I.Type, Name.back() - '0'};
  }
  return std::nullopt;
}

std::string_view spelling(MemSpace S) {
  switch (S) {
  case MemSpace::Global:
    return "global";
  case MemSpace::Shared:
    return "shared";
  case MemSpace::Local:
    return "local";
  }
  return "?";
}

std::string Layout::str() const {
  switch (Kind) {
  case LayoutKind::Pad:
    return "pad(" + std::to_string(ArgValue) + ")";
  case LayoutKind::Rap:
    return "rap(seed: " + std::to_string(ArgValue) + ")";
  default:
    return std::string(spelling(Kind));
  }
}

std::string_view spelling(LayoutKind K) {
  switch (K) {
  case LayoutKind::Raw:
    return "raw";
  case LayoutKind::Pad:
    return "pad";
  case LayoutKind::Xor:
    return "xor";
  case LayoutKind::Diagonal:
    return "diagonal";
  case LayoutKind::Rap:
    return "rap";
  case LayoutKind::Auto:
    return "auto";
  case LayoutKind::Swizzle:
    return "swizzle";
  case LayoutKind::Ras:
    return "ras";
  case LayoutKind::Rap1P:
    return "rap1p";
  case LayoutKind::RapR1P:
    return "rapr1p";
  case LayoutKind::Rap3P:
    return "rap3p";
  case LayoutKind::RapW2P:
    return "rapw2p";
  case LayoutKind::Rap1PW2R:
    return "rap1pw2r";
  }
  return "?";
}

std::string_view spelling(KernelSchedule S) {
  switch (S) {
  case KernelSchedule::None:
    return "none";
  case KernelSchedule::Colored:
    return "colored";
  case KernelSchedule::Bits:
    return "bits";
  case KernelSchedule::Auto:
    return "auto";
  }
  return "?";
}

std::string_view spelling(PermKind K) {
  switch (K) {
  case PermKind::Identity:
    return "identity";
  case PermKind::Shuffle:
    return "shuffle";
  case PermKind::Bitreverse:
    return "bitreverse";
  case PermKind::Transpose:
    return "transpose";
  case PermKind::Stride:
    return "stride";
  case PermKind::Random:
    return "random";
  case PermKind::List:
    return "list";
  case PermKind::File:
    return "file";
  case PermKind::ScheduleSrc:
    return "schedule_src";
  case PermKind::ScheduleDst:
    return "schedule_dst";
  case PermKind::HmmSrc:
    return "hmm_src";
  case PermKind::HmmDst:
    return "hmm_dst";
  }
  return "?";
}

std::int64_t Array::numElements() const {
  std::int64_t N = 1;
  for (std::int64_t D : Shape)
    if (__builtin_mul_overflow(N, D, &N))
      return -1;
  return N;
}

std::optional<std::int64_t> Array::allocatedBytes() const {
  if (Shape.empty() || ViewOf)
    return 0;
  std::int64_t Elems = 1;
  for (std::size_t I = 0; I < Shape.size(); ++I) {
    std::int64_t D = Shape[I];
    if (I + 1 == Shape.size() && Lay.Kind == LayoutKind::Pad &&
        __builtin_add_overflow(D, Lay.ArgValue, &D))
      return std::nullopt;
    if (__builtin_mul_overflow(Elems, D, &Elems))
      return std::nullopt;
  }
  std::int64_t Bytes = 0;
  if (__builtin_mul_overflow(Elems, byteSize(Elem), &Bytes))
    return std::nullopt;
  return Bytes;
}

std::optional<std::int64_t> Machine::arg(std::string_view Name) const {
  for (const MachineArg &A : Args)
    if (A.Name == Name)
      return A.Evaluated;
  return std::nullopt;
}

std::int64_t Machine::warpSize() const {
  if (Kind == MachineKind::Target)
    return 32;
  return arg("w").value_or(32);
}

std::optional<TargetInfo> targetInfo(std::string_view Name) {
  for (const TargetInfo &T : Targets)
    if (T.Name == Name)
      return T;
  return std::nullopt;
}

std::vector<std::string_view> knownTargets() {
  std::vector<std::string_view> Names;
  for (const TargetInfo &T : Targets)
    Names.push_back(T.Name);
  return Names;
}

namespace {
template <typename T>
const T *findByName(const std::vector<T> &Items, std::string_view Name) {
  auto It = std::find_if(Items.begin(), Items.end(),
                         [&](const T &X) { return X.Name == Name; });
  return It == Items.end() ? nullptr : &*It;
}
} // namespace

const Param *Program::findParam(std::string_view Name) const {
  return findByName(Params, Name);
}

std::vector<std::string> Program::runtimeParams() const {
  std::vector<std::string> Out;
  for (const Param &P : Params)
    if (P.Runtime)
      Out.push_back(P.Name);
  return Out;
}
const Permutation *Program::findPerm(std::string_view Name) const {
  return findByName(Perms, Name);
}
const Array *Program::findArray(std::string_view Name) const {
  return findByName(Arrays, Name);
}
namespace {
template <typename KernelT, typename ArrayPtr>
void collectArrays(KernelT &K, std::vector<ArrayPtr> &Out) {
  for (auto &A : K.Params)
    Out.push_back(&A);
  auto Walk = [&Out](auto &Self, auto &Body) -> void {
    for (auto &S : Body) {
      if (auto *D = S.template as<ArrayDecl>())
        Out.push_back(&D->Decl);
      else if (auto *F = S.template as<For>())
        Self(Self, F->Body);
      else if (auto *W = S.template as<While>())
        Self(Self, W->Body);
      else if (auto *I = S.template as<If>()) {
        Self(Self, I->Then);
        Self(Self, I->Else);
      }
    }
  };
  Walk(Walk, K.Body);
}
} // namespace

std::vector<const Array *> Kernel::arrays() const {
  std::vector<const Array *> Out;
  collectArrays(*this, Out);
  return Out;
}

std::vector<Array *> Kernel::arrays() {
  std::vector<Array *> Out;
  collectArrays(*this, Out);
  return Out;
}

const Array *Program::findArray(const Kernel &K, std::string_view Name) const {
  for (const Array *A : K.arrays())
    if (A->Name == Name)
      return A;
  return findArray(Name);
}

const Kernel *Program::findKernel(std::string_view Name) const {
  return findByName(Kernels, Name);
}

const Launch *Program::findLaunch(std::string_view Name) const {
  return findByName(Launches, Name);
}

const Launch *Program::launchOf(std::string_view Kernel) const {
  for (const Launch &L : Launches)
    if (std::find(L.Kernels.begin(), L.Kernels.end(), Kernel) != L.Kernels.end())
      return &L;
  return nullptr;
}

std::optional<std::int64_t> applyClosedForm(const Permutation &P,
                                            std::int64_t I) {
  if (!P.Size || I < 0 || I >= *P.Size)
    return std::nullopt;
  const std::int64_t N = *P.Size;
  switch (P.Kind) {
  case PermKind::Identity:
    return I;
  case PermKind::Shuffle: {
    const std::int64_t M = ilog2(N);
    if (M == 0)
      return I;
    return ((I << 1) | (I >> (M - 1))) & (N - 1);
  }
  case PermKind::Bitreverse: {
    return static_cast<std::int64_t>(reverseBits(static_cast<std::uint64_t>(I), static_cast<int>(ilog2(N))));
  }
  case PermKind::Transpose: {
    const std::int64_t Rows = P.ArgValues[0], Cols = P.ArgValues[1];
    return (I % Cols) * Rows + I / Cols;
  }
  case PermKind::Stride: {
    const std::int64_t S = P.ArgValues[1]; // i = q*s + r -> r*(n/s) + q
    return (I % S) * (N / S) + I / S;
  }
  case PermKind::List:
    return P.ArgValues[static_cast<std::size_t>(I)];
  default:
    return std::nullopt;
  }
}

} // namespace bankwise::ir
