// The PyTorch route (`compile --torch DIR`, docs/torch.md): an op per kernel
// launched alone and per `launch`, taking tensors. Each op checks its
// tensors (CUDA device, dtype, rank, contiguity, shape), takes the runtime
// sizes from their dimensions, allocates its outputs (or takes them as
// `out=`), and calls the module's launch function on the current stream.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

namespace {

struct TorchDtype {
  const char *Aten;   ///< at::kFloat
  const char *Python; ///< torch.float32
};

/// The dtype of a tensor that holds elements of T; nullopt for vectors and
/// for u16, u32 and u64, which PyTorch has no general dtype for.
std::optional<TorchDtype> torchDtype(ir::ElemType T) {
  if (T.Lanes != 1)
    return std::nullopt;
  switch (T.Scalar) {
  case ir::ScalarType::I8: return TorchDtype{"at::kChar", "torch.int8"};
  case ir::ScalarType::I16: return TorchDtype{"at::kShort", "torch.int16"};
  case ir::ScalarType::I32: return TorchDtype{"at::kInt", "torch.int32"};
  case ir::ScalarType::I64: return TorchDtype{"at::kLong", "torch.int64"};
  case ir::ScalarType::U8: return TorchDtype{"at::kByte", "torch.uint8"};
  case ir::ScalarType::F16: return TorchDtype{"at::kHalf", "torch.float16"};
  case ir::ScalarType::BF16: return TorchDtype{"at::kBFloat16", "torch.bfloat16"};
  case ir::ScalarType::F32: return TorchDtype{"at::kFloat", "torch.float32"};
  case ir::ScalarType::F64: return TorchDtype{"at::kDouble", "torch.float64"};
  default: return std::nullopt;
  }
}

/// A name as an argument of a schema (Python calls it by keyword): Python's
/// keywords get a '_' ("in" -> "in_").
std::string schemaName(const std::string &N) {
  static const std::set<std::string, std::less<>> Words = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
      "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "self"};
  return Words.count(N) ? N + "_" : N;
}

/// "a", "b", ... "z", "a1": alias sets of the schemas' mutable tensors.
std::string aliasSet(std::size_t I) {
  const std::string Letter(1, static_cast<char>('a' + I % 26));
  return I < 26 ? Letter : Letter + std::to_string(I / 26);
}

} // namespace

/// One tensor of an op: an array the launch function takes.
struct TorchArg {
  const ArrayPlan *A = nullptr;
  const KernelFacts *F = nullptr; ///< a stage that has it: its dims print with its emitter
  bool Read = false, Written = false;
  TorchDtype Dtype{};
  std::string Name;   ///< the C++ name (the launch function's)
  std::string Schema; ///< the schema's name
  std::string Decl;   ///< "global f32[R][C]"
  bool output() const { return Written && !Read; }
};

/// What the steps of KernelEmitter::torchOp share: the runnable, its tensors
/// and sizes, the parts of its schemas, and the op built so far. A friend of
/// KernelEmitter: the steps that are its members read the stages' facts.
struct TorchOpBuild {
  TorchOpBuild(const Runnable &R, const std::string &Module)
      : R(R), Module(Module), First(*R.Stages.front()), Prog(First.F.Prog), Mod(First.Mod),
        What(R.Stages.size() == 1 ? fmt::format("kernel '{}'", R.Name) : fmt::format("launch '{}'", R.Name)) {}

  const Runnable &R;
  const std::string &Module;
  const KernelEmitter &First;
  const ir::Program &Prog;
  const ModuleState &Mod;
  /// "kernel 'k'" or "launch 'l'", as the notes say.
  const std::string What;
  TorchOp Op;
  /// The arrays, as launchSequence orders them: every stage's, each once.
  std::vector<TorchArg> Args;
  /// The runtime sizes the stages take; the computed params the dims use,
  /// in declaration order.
  std::vector<const ir::Param *> Sizes, Derived;
  /// Every tensor, and the ones the op reads (all but the outputs).
  std::vector<const TorchArg *> All, Inputs;
  /// The statements that take the sizes from every tensor's dimensions, or
  /// from the inputs' alone.
  std::string DeriveAll, DeriveInputs;
  bool HasOutputs = false;
  /// The outputs' shapes follow from the inputs: the op has a functional form.
  bool Functional = false;
  /// `  bw_run_NAME(...);` and the return of the outputs.
  std::string RunCall, Return;
  /// The schemas' inputs and outputs, and the C++ parameters in the same order.
  std::vector<std::string> InSchema, OutSchema, OutReturns, InParams, OutParams, Outs, OutSchemaNames, Usage;

  /// Fills Args; false, with Op.Skipped saying why, when an array cannot be a
  /// tensor or there is none.
  bool collectArgs();
  /// Fills Sizes and Derived.
  void collectSizes();
  /// The printer of P's expressions: a param's expressions print with the
  /// emitter of a stage that uses it.
  const ExprEmitter &hostOf(const ir::Param *P) const;
  /// bw_run_NAME: every tensor checked, the sizes derived, the launch; and RunCall.
  void emitRunFunction();
};

namespace {

/// What solving tensor dimensions for the runtime sizes shares: the sizes
/// found so far (Solved) and the statements that take them (Text).
struct SizeSolver {
  const ir::Program &Prog;
  const ModuleState &Mod;
  const std::string &OpName;
  std::set<std::string> &Solved;
  std::string Text;
};

/// Adds to Names the runtime params X mentions, and theirs through their Inits.
void collectRuntimeNames(const SizeSolver &Solver, const Expr &X, std::set<std::string, std::less<>> &Names) {
  std::set<std::string, std::less<>> Here;
  paramNames(X, Here);
  for (const std::string &N : Here)
    if (const ir::Param *P = Solver.Prog.findParam(N); P && Solver.Mod.Runtime.count(N) && !Names.count(N)) {
      Names.insert(N);
      if (P->Init)
        collectRuntimeNames(Solver, *P->Init, Names);
    }
}

/// Takes the size E leads to from a dimension of value Value (its C++; From,
/// its name in messages): E the size itself, or `1 << e`, `e + c`, `e - c` or
/// `c * e` inverted, through the params the size computes. False when E
/// leads to no size not yet found.
bool solveDim(SizeSolver &Solver, const Expr &E, const std::string &Value, const std::string &From) {
  if (const auto *V = E.as<ir::VarRef>()) {
    const ir::Param *P = Solver.Prog.findParam(V->Name);
    if (!P || !Solver.Mod.Runtime.count(P->Name))
      return false;
    if (P->Init)
      return solveDim(Solver, *P->Init, Value, From);
    if (Solver.Solved.count(P->Name))
      return false;
    Solver.Solved.insert(P->Name);
    Solver.Text += fmt::format("  const std::int64_t {} = {}; // from {}\n", cName(P->Name), Value, From);
    return true;
  }
  const auto *B = E.as<ir::Binary>();
  if (!B)
    return false;
  const auto *L = B->Lhs->as<ir::IntLit>(), *Rt = B->Rhs->as<ir::IntLit>();
  // Only a dim that leads to a size not yet found is solved.
  std::set<std::string, std::less<>> Names;
  collectRuntimeNames(Solver, E, Names);
  const bool Open = std::any_of(Names.begin(), Names.end(), [&](const std::string &N) {
    return !Solver.Prog.findParam(N)->Init && !Solver.Solved.count(N);
  });
  if (!Open)
    return false;
  if (B->Op == BinaryOp::Shl && L && L->Value == 1)
    return solveDim(Solver, *B->Rhs,
                    fmt::format("bankwise::torch_checks::log2OfDim(\"{}\", \"{}\", {})", Solver.OpName, From, Value),
                    "log2(" + From + ")");
  if (B->Op == BinaryOp::Add && (L || Rt))
    return solveDim(Solver, L ? *B->Rhs : *B->Lhs, fmt::format("{} - {}", Value, L ? L->Value : Rt->Value),
                    fmt::format("{} - {}", From, L ? L->Value : Rt->Value));
  if (B->Op == BinaryOp::Sub && Rt)
    return solveDim(Solver, *B->Lhs, fmt::format("{} + {}", Value, Rt->Value), fmt::format("{} + {}", From, Rt->Value));
  if (B->Op == BinaryOp::Mul && ((L && L->Value > 0) || (Rt && Rt->Value > 0))) {
    const std::int64_t C = L ? L->Value : Rt->Value;
    return solveDim(Solver, L ? *B->Rhs : *B->Lhs,
                    fmt::format("bankwise::torch_checks::divideDim(\"{}\", \"{}\", {}, {})", Solver.OpName, From, Value, C),
                    fmt::format("{} / {}", From, C));
  }
  return false;
}

/// Statements that take each size from the first dimension of Tensors
/// that determines it: a dim that is the size itself, or one the inverse
/// of `1 << e`, `e + c`, `e - c` or `c * e` leads to it through the
/// params the size computes. Solved: the sizes so found.
std::string sizeStatements(const TorchOpBuild &B, const std::vector<const TorchArg *> &Tensors,
                           std::set<std::string> &Solved) {
  SizeSolver Solver{B.Prog, B.Mod, B.R.Name, Solved, {}};
  for (const TorchArg *T : Tensors)
    for (std::size_t D = 0; D < T->A->Decl->Dims.size(); ++D)
      if (B.Mod.runtime(T->A->Decl->Dims[D]))
        solveDim(Solver, T->A->Decl->Dims[D], fmt::format("{}.size({})", T->Name, D),
                 fmt::format("{}.size({})", T->Schema, D));
  return Solver.Text;
}

/// Every size of Sizes is in Solved.
bool allSolved(const std::vector<const ir::Param *> &Sizes, const std::set<std::string> &Solved) {
  return std::all_of(Sizes.begin(), Sizes.end(), [&](const ir::Param *P) { return Solved.count(P->Name) > 0; });
}

/// Fills B's tensor lists and the statements that take the sizes from their
/// dimensions; false, with Op.Skipped saying why, when no dimension gives a size.
bool solveSizes(TorchOpBuild &B) {
  for (const TorchArg &T : B.Args) {
    B.All.push_back(&T);
    if (!T.output())
      B.Inputs.push_back(&T);
  }
  std::set<std::string> FromAll, FromInputs;
  B.DeriveAll = sizeStatements(B, B.All, FromAll);
  B.DeriveInputs = sizeStatements(B, B.Inputs, FromInputs);
  if (!allSolved(B.Sizes, FromAll)) {
    std::vector<std::string> Missing;
    for (const ir::Param *P : B.Sizes)
      if (!FromAll.count(P->Name))
        Missing.push_back(P->Name);
    B.Op.Skipped = fmt::format("{} has no op: no tensor dimension determines {} (a dimension must be the size, or "
                               "1 << it, it + c, it - c or c * it)",
                               B.What, fmt::join(Missing, ", "));
    return false;
  }
  // A functional form needs the outputs' shapes from the inputs alone.
  B.HasOutputs = B.Inputs.size() < B.Args.size();
  B.Functional = allSolved(B.Sizes, FromInputs);
  return true;
}

/// The sizes and the computed params, as C++ names or quoted (the
/// arguments of checkShape).
std::string sizeList(const TorchOpBuild &B, bool Quoted) {
  std::vector<std::string> Out;
  std::vector<const ir::Param *> Both = B.Sizes;
  Both.insert(Both.end(), B.Derived.begin(), B.Derived.end());
  for (const ir::Param *P : Both)
    Out.push_back(Quoted ? cString(P->Name) : cName(P->Name));
  return fmt::format("{}", fmt::join(Out, ", "));
}

/// The checks after the sizes: `where`s, the computed params, shapes (of
/// Shaped).
std::string afterSizes(const TorchOpBuild &B, const std::vector<const TorchArg *> &Shaped) {
  std::string S;
  auto Where = [&](const ir::Param *P) {
    if (P->Where)
      S += fmt::format("  TORCH_CHECK({}, \"{}: {} = \", std::to_string({}), \" breaks `where {}`\");\n",
                       B.hostOf(P).index(*P->Where), B.R.Name, P->Name, cName(P->Name), ir::print(*P->Where));
  };
  for (const ir::Param *P : B.Sizes)
    Where(P);
  for (const ir::Param *P : B.Derived) {
    S += fmt::format("  const std::int64_t {} = {}; // param (runtime)\n", cName(P->Name), B.hostOf(P).index(*P->Init));
    Where(P);
  }
  for (const TorchArg *T : Shaped)
    S += fmt::format("  bankwise::torch_checks::checkShape(\"{}\", \"{}\", \"{}\", {}, {{{}}}, {{{}}}, {{{}}});\n",
                     B.R.Name, T->Schema, T->Decl, T->Name, fmt::join(T->F->dimTexts(*T->A->Decl, Mode::Host), ", "),
                     sizeList(B, true), sizeList(B, false));
  return S;
}

/// Each of Tensors checked: CUDA, on the first one's device, dtype, rank, contiguity.
std::string tensorChecks(const TorchOpBuild &B, const std::vector<const TorchArg *> &Tensors) {
  std::string S;
  for (const TorchArg *T : Tensors)
    S += fmt::format("  bankwise::torch_checks::checkTensor(\"{}\", \"{}\", \"{}\", {}, {}, {}, \"{}\", {});\n",
                     B.R.Name, T->Schema, T->Decl, T->Name, Tensors.front()->Name, T->Dtype.Aten, T->Dtype.Python,
                     T->A->Decl->Dims.size());
  return S;
}

/// The C++ parameter of tensor T: `const at::Tensor &x`, or `at::Tensor &x`.
std::string tensorParam(const TorchArg &T, bool Mutable) {
  return fmt::format("{}at::Tensor &{}", Mutable ? "" : "const ", T.Name);
}

/// The C++ return type and the schema's returns of outputs Schema, each of
/// C++ type Type: the one, or a tuple.
std::pair<std::string, std::string> returnsOf(const std::string &Type, const std::vector<std::string> &Schema) {
  return Schema.size() == 1 ? std::pair(Type, Schema.front())
                            : std::pair(fmt::format("std::tuple<{}>", fmt::join(std::vector<std::string>(Schema.size(), Type), ", ")),
                                        fmt::format("({})", fmt::join(Schema, ", ")));
}

/// The schemas' parts: the inputs (mutable when written in place), then the
/// outputs; C++ parameters in the same order; the return of the outputs.
void collectSchemas(TorchOpBuild &B) {
  std::size_t Alias = 0;
  for (const TorchArg &T : B.Args)
    if (!T.output()) {
      B.InSchema.push_back(T.Written ? fmt::format("Tensor({}!) {}", aliasSet(Alias++), T.Schema) : "Tensor " + T.Schema);
      B.InParams.push_back(tensorParam(T, T.Written));
      B.Usage.push_back(T.Schema);
    }
  for (const TorchArg &T : B.Args)
    if (T.output()) {
      const std::string Set = aliasSet(Alias++);
      B.OutSchema.push_back(fmt::format("Tensor({}!) {}", Set, T.Schema));
      B.OutReturns.push_back(fmt::format("Tensor({}!)", Set));
      B.OutParams.push_back(tensorParam(T, true));
      B.Outs.push_back(T.Name);
      B.OutSchemaNames.push_back(T.Schema);
    }
  B.Return = B.Outs.size() == 1 ? fmt::format("  return {};\n", B.Outs.front())
                                : fmt::format("  return {{{}}};\n", fmt::join(B.Outs, ", "));
}

/// The functional form (the outputs allocated, uninitialized, and returned)
/// when the op has one, or the in-place form when it has no outputs.
void emitFunctionalOrInPlace(TorchOpBuild &B) {
  const Runnable &R = B.R;
  TorchOp &Op = B.Op;
  std::string &C = Op.Code;
  // The functional form: the outputs allocated (uninitialized) and returned.
  if (B.Functional && B.HasOutputs) {
    const auto [Cxx, Schema] = returnsOf("at::Tensor", std::vector<std::string>(B.Outs.size(), "Tensor"));
    Op.Schemas.push_back(fmt::format("{}({}) -> {}", R.Name, fmt::join(B.InSchema, ", "), Schema));
    C += fmt::format("{} bw_op_{}({}) {{\n", Cxx, R.Name, fmt::join(B.InParams, ", "));
    C += tensorChecks(B, B.Inputs) + B.DeriveInputs + afterSizes(B, {});
    for (const TorchArg &T : B.Args)
      if (T.output())
        C += fmt::format("  at::Tensor {} = at::empty({{{}}}, {}.options().dtype({}));\n", T.Name,
                         fmt::join(T.F->dimTexts(*T.A->Decl, Mode::Host), ", "), B.Inputs.front()->Name, T.Dtype.Aten);
    C += B.RunCall + B.Return + "}\n\n";
    Op.Impls.push_back(fmt::format("m.impl(\"{}\", &bw_op_{});", R.Name, R.Name));
    Op.Usage = fmt::format("{} = ops.{}({})", fmt::join(B.OutSchemaNames, ", "), R.Name, fmt::join(B.Usage, ", "));
  } else if (!B.HasOutputs) { // every written array is read: in place
    Op.Schemas.push_back(fmt::format("{}({}) -> ()", R.Name, fmt::join(B.InSchema, ", ")));
    C += fmt::format("void bw_op_{}({}) {{\n{}}}\n\n", R.Name, fmt::join(B.InParams, ", "), B.RunCall);
    Op.Impls.push_back(fmt::format("m.impl(\"{}\", &bw_op_{});", R.Name, R.Name));
    Op.Usage = fmt::format("ops.{}({})  # in place", R.Name, fmt::join(B.Usage, ", "));
  }
}

/// The out= form, when the op has outputs: the outputs given, checked like
/// the inputs.
void emitOutForm(TorchOpBuild &B) {
  if (!B.HasOutputs)
    return;
  const Runnable &R = B.R;
  TorchOp &Op = B.Op;
  std::vector<std::string> Schema = B.InSchema, Params = B.InParams;
  Schema.push_back("*");
  Schema.insert(Schema.end(), B.OutSchema.begin(), B.OutSchema.end());
  Params.insert(Params.end(), B.OutParams.begin(), B.OutParams.end());
  const auto [Cxx, Returns] = returnsOf("at::Tensor &", B.OutReturns);
  Op.Schemas.push_back(fmt::format("{}.out({}) -> {}", R.Name, fmt::join(Schema, ", "), Returns));
  Op.Code += fmt::format("{}{}bw_op_{}_out({}) {{\n{}{}}}\n\n", Cxx, B.Outs.size() == 1 ? "" : " ", R.Name,
                         fmt::join(Params, ", "), B.RunCall, B.Return);
  Op.Impls.push_back(fmt::format("m.impl(\"{}.out\", &bw_op_{}_out);", R.Name, R.Name));
  if (!B.Functional) {
    for (const std::string &N : B.OutSchemaNames)
      B.Usage.push_back(N + "=" + N);
    Op.Usage = fmt::format("ops.{}.out({})", R.Name, fmt::join(B.Usage, ", "));
  }
}

} // namespace

bool TorchOpBuild::collectArgs() {
  for (const KernelEmitter *E : R.Stages)
    for (const ArrayPlan &A : E->F.Arrays) {
      if (!A.isApiParam())
        continue;
      auto It = std::find_if(Args.begin(), Args.end(), [&](const TorchArg &X) { return X.A->Name == A.Name; });
      if (It != Args.end()) {
        It->Read = It->Read || A.Read;
        It->Written = It->Written || A.Written;
        continue;
      }
      const std::optional<TorchDtype> D = torchDtype(A.Decl->Elem);
      if (!D) {
        Op.Skipped = fmt::format("{} has no op: array '{}' has elements of type {}, which no PyTorch dtype holds",
                                 What, A.Decl->Name, ir::spelling(A.Decl->Elem));
        return false;
      }
      if (A.Decl->Space != ir::MemSpace::Global || A.Lay.Kind != LayoutKind::Raw ||
          A.footprint() != A.Decl->numElements()) {
        Op.Skipped = fmt::format("{} has no op: array '{}' is {} {} with layout {}; a tensor holds a raw global "
                                 "array only",
                                 What, A.Decl->Name, ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl),
                                 A.LayoutName);
        return false;
      }
      Args.push_back({&A, &E->F, A.Read, A.Written, *D, A.Name, schemaName(A.Decl->Name),
                      fmt::format("{} {}", ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl))});
    }
  if (Args.empty()) {
    Op.Skipped = fmt::format("{} has no op: it takes no arrays", What);
    return false;
  }
  // An array neither read nor written is an input.
  for (TorchArg &T : Args)
    T.Read = T.Read || !T.Written;
  return true;
}

void TorchOpBuild::collectSizes() {
  Sizes = KernelEmitter::sizeArgsOf(R.Stages);
  // The computed params the dims use, in declaration order.
  for (const ir::Param &P : Prog.Params)
    if (P.Init && Mod.Runtime.count(P.Name))
      for (const KernelEmitter *E : R.Stages)
        if (std::find(E->F.RuntimeUsed.begin(), E->F.RuntimeUsed.end(), &P) != E->F.RuntimeUsed.end()) {
          Derived.push_back(&P);
          break;
        }
}

const ExprEmitter &TorchOpBuild::hostOf(const ir::Param *P) const {
  for (const KernelEmitter *E : R.Stages)
    if (std::find(E->F.RuntimeUsed.begin(), E->F.RuntimeUsed.end(), P) != E->F.RuntimeUsed.end())
      return E->Host;
  return First.Host;
}

void TorchOpBuild::emitRunFunction() {
  // bw_run_NAME: every tensor checked, the sizes derived, the launch.
  std::string &C = Op.Code;
  const ir::Launch *InLaunch = R.Stages.size() > 1 ? Prog.launchOf(First.F.K.Name) : nullptr;
  C += fmt::format("// Op '{}' ({}:{}): {} through {}::{}.\n", R.Name, First.Opts.SourceName,
                   InLaunch ? InLaunch->Loc.Line : First.F.K.Loc.Line, What, Module, R.LaunchFn);
  for (const TorchArg &T : Args)
    C += fmt::format("//   {}: {}, a contiguous {} tensor; {}.\n", T.Schema, T.Decl, T.Dtype.Python,
                     T.output() ? (Functional ? "returned, or given as out=" : "given as out=")
                     : T.Written ? "read and written in place"
                                 : "read");
  std::vector<std::string> RunParams, RunNames;
  for (const TorchArg &T : Args) {
    RunParams.push_back(tensorParam(T, false));
    RunNames.push_back(T.Name);
  }
  C += fmt::format("void bw_run_{}({}) {{\n", R.Name, fmt::join(RunParams, ", "));
  C += tensorChecks(*this, All) + DeriveAll + afterSizes(*this, All);
  C += fmt::format("  const c10::cuda::CUDAGuard bw_guard({}.device());\n", Args.front().Name);
  std::vector<std::string> LaunchArgs;
  for (const TorchArg &T : Args)
    LaunchArgs.push_back(fmt::format("static_cast<{}{} *>({}.data_ptr()), static_cast<std::size_t>({}.numel())",
                                     T.Written ? "" : "const ", devType(T.A->Decl->Elem), T.Name, T.Name));
  for (const ir::Param *P : Sizes)
    LaunchArgs.push_back(cName(P->Name));
  LaunchArgs.push_back("c10::cuda::getCurrentCUDAStream().stream()");
  C += fmt::format("  bankwise::torch_checks::checkLaunch(\"{}\", {}::{}({}));\n}}\n\n", R.Name, Module, R.LaunchFn,
                   fmt::join(LaunchArgs, ", "));
  RunCall = fmt::format("  bw_run_{}({});\n", R.Name, fmt::join(RunNames, ", "));
}

TorchOp KernelEmitter::torchOp(const Runnable &R, const std::string &Module) {
  TorchOpBuild B(R, Module);
  if (!B.collectArgs())
    return B.Op;
  B.collectSizes();
  if (!solveSizes(B))
    return B.Op;
  B.emitRunFunction();
  collectSchemas(B);
  emitFunctionalOrInPlace(B);
  emitOutForm(B);
  return B.Op;
}

TorchExtension torchExtension(const CodegenOptions &Opts, const std::string &Ns,
                              const std::vector<Runnable> &Runnables) {
  TorchExtension X;
  const std::string Module = cppIdentifier(Opts.TorchModule);
  std::string Code, Defs, Impls, Usage;
  for (const Runnable &R : Runnables) {
    TorchOp Op = KernelEmitter::torchOp(R, Ns);
    if (Op.Skipped) {
      X.Skipped.push_back({Severity::Note, SourceLoc{Opts.SourceName, 0, 0}, "--torch: " + *Op.Skipped, {}});
      continue;
    }
    X.Ops.push_back(R.Name);
    Code += Op.Code;
    for (const std::string &S : Op.Schemas)
      Defs += fmt::format("  m.def({});\n", cString(S));
    for (const std::string &I : Op.Impls)
      Impls += "  " + I + "\n";
    Usage += "    " + Op.Usage + "\n";
  }
  const std::string Banner = fmt::format("// Generated by bankwise {} from {} for {}. Do not edit: rerun `bankwise compile --torch`.\n",
                                         "0.1.0", Opts.SourceName, Opts.Arch);
  std::string &B = X.Bindings;
  B = Banner;
  B += fmt::format("// PyTorch ops of module '{}': torch.ops.{}.NAME, each checking its tensors and calling\n"
                   "// the launch function of {}.h on the current CUDA stream (docs/torch.md).\n",
                   Ns, Module, Module);
  B += fmt::format("#include \"{}.h\"\n\n", Module);
  B += "#include <ATen/ATen.h>\n#include <c10/cuda/CUDAGuard.h>\n#include <c10/cuda/CUDAStream.h>\n"
       "#include <torch/library.h>\n\n#include <cstddef>\n#include <cstdint>\n#include <string>\n#include <tuple>\n\n";
  B += embedTemplate("bankwise/torch_checks.cuh") + "\n";
  B += "namespace {\n\n" + Code + "} // namespace\n\n";
  B += fmt::format("TORCH_LIBRARY({}, m) {{\n{}}}\n\n", Module, Defs);
  B += fmt::format("TORCH_LIBRARY_IMPL({}, CUDA, m) {{\n{}}}\n\n", Module, Impls);
  // CPU tensors reach the same functions, whose first check refuses them by
  // name ("'x' must be a CUDA tensor"), not the dispatcher's "Could not run
  // ... with arguments from the 'CPU' backend".
  B += fmt::format("TORCH_LIBRARY_IMPL({}, CPU, m) {{\n{}}}\n", Module, Impls);

  std::vector<std::string> OpNames, Sources;
  for (const std::string &O : X.Ops)
    OpNames.push_back(fmt::format("\"{}\"", O));
  for (const std::string &S : {Module + ".cu", Module + "_torch.cu"})
    Sources.push_back(fmt::format("\"{}\"", S));
  const std::string Flags = "\"-O3\"";
  const std::map<std::string, std::string> Holes = {{"MODULE", Module},
                                                    {"SOURCE", Opts.SourceName},
                                                    {"SOURCES", fmt::format("{}", fmt::join(Sources, ", "))},
                                                    {"NVCC_FLAGS", Flags}};
  X.SetupPy = fillHoles("bankwise/torch_setup.py.in", Holes);
  std::map<std::string, std::string> LoaderHoles = Holes;
  LoaderHoles["OPS"] = fmt::format("{}", fmt::join(OpNames, ", "));
  LoaderHoles["USAGE"] = Usage;
  X.LoaderPy = fillHoles("bankwise/torch_loader.py.in", LoaderHoles);
  return X;
}

} // namespace bankwise::codegen::detail

namespace bankwise::codegen {
std::vector<std::string> torchFileNames(const std::string &Module) {
  return {Module + ".cu", Module + ".h", Module + "_torch.cu", "setup.py", Module + ".py"};
}
} // namespace bankwise::codegen
