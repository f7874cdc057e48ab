// The module's state: runtime params in expressions, the sizes text, the
// tables (closed forms, stored tables, seed 001's planes) and their names.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

/// Adds the names of the params E mentions to Out.
void paramNames(const Expr &E, std::set<std::string, std::less<>> &Out) {
  ir::forEachSubexpr(E, [&](const Expr &X) {
    if (const auto *V = X.as<ir::VarRef>(); V && V->Kind == ir::VarKind::Param)
      Out.insert(V->Name);
  });
}

bool ModuleState::runtime(const Expr &E) const {
  std::set<std::string, std::less<>> Names;
  paramNames(E, Names);
  return std::any_of(Names.begin(), Names.end(), [&](const std::string &N) { return Runtime.count(N) > 0; });
}

/// "R = 64, C = 64": the representative sizes of the runtime params, in
/// declaration order.
std::string sizesText(const ModuleState &Mod) {
  std::vector<std::string> Parts;
  for (const ir::Param &P : Mod.Prog.Params)
    if (auto It = Mod.Pipe.RepresentativeSizes.find(P.Name); It != Mod.Pipe.RepresentativeSizes.end())
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
  case ir::PermKind::HmmSrc:
  case ir::PermKind::HmmDst:
    return fmt::format("{}({}, pass: {}) (seed 001 schedule plane: 16-bit block-local indices)",
                       ir::spelling(P->Kind), P->BaseInverse ? "inverse(" + P->Base + ")" : P->Base,
                       Args.empty() ? "?" : Args[0]);
  case ir::PermKind::Random:
    return fmt::format("random({}, seed: {})", Args.size() > 0 ? Args[0] : "?",
                       Args.size() > 1 ? Args[1] : "?");
  case ir::PermKind::List:
    return fmt::format("a list of {}", P->Args.size());
  default:
    return fmt::format("{}({})", ir::spelling(P->Kind), fmt::join(Args, ", "));
  }
}



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
  if (const ir::Permutation *P = Prog.findPerm(Perm); P && ir::isBlockLocalTable(P->Kind)) {
    // A plane of seed 001's schedule: its 16-bit entries as they are.
    for (std::size_t I = 0; I < Tables.size(); ++I)
      if (Tables[I].Perm == Perm)
        return static_cast<int>(I);
    TablePlan T;
    T.Perm = Perm;
    T.Describe = permDescription(Prog, Perm);
    T.DeviceType = "std::uint16_t";
    const std::shared_ptr<const HmmSchedule> S = Perms.hmmSchedule(Perm);
    const int Pass = static_cast<int>(P->ArgValues.at(0));
    T.Raw16 = P->Kind == ir::PermKind::HmmSrc ? S->s(Pass) : S->d(Pass);
    T.RawOwner = S;
    T.Size = T.Raw16.size();
    T.Width = 2;
    T.InSource = T.Size * 2 <= Opts.InlineTableLimit;
    T.Hash = T.hash();
    if (!T.InSource)
      T.Offset = nextOffset();
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

bool isClosedForm(const ir::Program &Prog, const std::string &Perm) {
  const ir::Permutation *P = Prog.findPerm(Perm);
  return P && ir::hasClosedForm(P->Kind);
}

} // namespace bankwise::codegen::detail
