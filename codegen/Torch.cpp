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

TorchOp KernelEmitter::torchOp(const Runnable &R, const std::string &Module) {
  TorchOp Op;
  const KernelEmitter &First = *R.Stages.front();
  const ir::Program &Prog = First.F.Prog;
  const ModuleState &Mod = First.Mod;
  const std::string What = R.Stages.size() == 1 ? fmt::format("kernel '{}'", R.Name) : fmt::format("launch '{}'", R.Name);
  // The arrays, as launchSequence orders them: every stage's, each once.
  std::vector<TorchArg> Args;
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
        return Op;
      }
      if (A.Decl->Space != ir::MemSpace::Global || A.Lay.Kind != LayoutKind::Raw ||
          A.footprint() != A.Decl->numElements()) {
        Op.Skipped = fmt::format("{} has no op: array '{}' is {} {} with layout {}; a tensor holds a raw global "
                                 "array only",
                                 What, A.Decl->Name, ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl),
                                 A.LayoutName);
        return Op;
      }
      Args.push_back({&A, &E->F, A.Read, A.Written, *D, A.Name, schemaName(A.Decl->Name),
                      fmt::format("{} {}", ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl))});
    }
  if (Args.empty()) {
    Op.Skipped = fmt::format("{} has no op: it takes no arrays", What);
    return Op;
  }
  // An array neither read nor written is an input.
  for (TorchArg &T : Args)
    T.Read = T.Read || !T.Written;
  const std::vector<const ir::Param *> Sizes = sizeArgsOf(R.Stages);
  // The computed params the dims use, in declaration order.
  std::vector<const ir::Param *> Derived;
  for (const ir::Param &P : Prog.Params)
    if (P.Init && Mod.Runtime.count(P.Name))
      for (const KernelEmitter *E : R.Stages)
        if (std::find(E->F.RuntimeUsed.begin(), E->F.RuntimeUsed.end(), &P) != E->F.RuntimeUsed.end()) {
          Derived.push_back(&P);
          break;
        }

  // Statements that take each size from the first dimension of Tensors
  // that determines it: a dim that is the size itself, or one the inverse
  // of `1 << e`, `e + c`, `e - c` or `c * e` leads to it through the
  // params the size computes. Solved: the sizes so found.
  auto derive = [&](const std::vector<const TorchArg *> &Tensors, std::set<std::string> &Solved) {
    std::string S;
    std::function<bool(const Expr &, const std::string &, const std::string &)> Solve =
        [&](const Expr &E, const std::string &Value, const std::string &From) -> bool {
      if (const auto *V = E.as<ir::VarRef>()) {
        const ir::Param *P = Prog.findParam(V->Name);
        if (!P || !Mod.Runtime.count(P->Name))
          return false;
        if (P->Init)
          return Solve(*P->Init, Value, From);
        if (Solved.count(P->Name))
          return false;
        Solved.insert(P->Name);
        S += fmt::format("  const std::int64_t {} = {}; // from {}\n", cName(P->Name), Value, From);
        return true;
      }
      const auto *B = E.as<ir::Binary>();
      if (!B)
        return false;
      const auto *L = B->Lhs->as<ir::IntLit>(), *Rt = B->Rhs->as<ir::IntLit>();
      // Only a dim that leads to a size not yet found is solved.
      std::set<std::string, std::less<>> Names;
      std::function<void(const Expr &)> Collect = [&](const Expr &X) {
        std::set<std::string, std::less<>> Here;
        paramNames(X, Here);
        for (const std::string &N : Here)
          if (const ir::Param *P = Prog.findParam(N); P && Mod.Runtime.count(N) && !Names.count(N)) {
            Names.insert(N);
            if (P->Init)
              Collect(*P->Init);
          }
      };
      Collect(E);
      const bool Open = std::any_of(Names.begin(), Names.end(), [&](const std::string &N) {
        return !Prog.findParam(N)->Init && !Solved.count(N);
      });
      if (!Open)
        return false;
      if (B->Op == BinaryOp::Shl && L && L->Value == 1)
        return Solve(*B->Rhs, fmt::format("bankwise::torch_checks::log2OfDim(\"{}\", \"{}\", {})", R.Name, From, Value),
                     "log2(" + From + ")");
      if (B->Op == BinaryOp::Add && (L || Rt))
        return Solve(L ? *B->Rhs : *B->Lhs, fmt::format("{} - {}", Value, L ? L->Value : Rt->Value),
                     fmt::format("{} - {}", From, L ? L->Value : Rt->Value));
      if (B->Op == BinaryOp::Sub && Rt)
        return Solve(*B->Lhs, fmt::format("{} + {}", Value, Rt->Value), fmt::format("{} + {}", From, Rt->Value));
      if (B->Op == BinaryOp::Mul && ((L && L->Value > 0) || (Rt && Rt->Value > 0))) {
        const std::int64_t C = L ? L->Value : Rt->Value;
        return Solve(L ? *B->Rhs : *B->Lhs,
                     fmt::format("bankwise::torch_checks::divideDim(\"{}\", \"{}\", {}, {})", R.Name, From, Value, C),
                     fmt::format("{} / {}", From, C));
      }
      return false;
    };
    for (const TorchArg *T : Tensors)
      for (std::size_t D = 0; D < T->A->Decl->Dims.size(); ++D)
        if (Mod.runtime(T->A->Decl->Dims[D]))
          Solve(T->A->Decl->Dims[D], fmt::format("{}.size({})", T->Name, D), fmt::format("{}.size({})", T->Schema, D));
    return S;
  };
  auto allSolved = [&](const std::set<std::string> &Solved) {
    return std::all_of(Sizes.begin(), Sizes.end(), [&](const ir::Param *P) { return Solved.count(P->Name) > 0; });
  };
  std::vector<const TorchArg *> Inputs, All;
  for (const TorchArg &T : Args) {
    All.push_back(&T);
    if (!T.output())
      Inputs.push_back(&T);
  }
  std::set<std::string> FromAll, FromInputs;
  const std::string DeriveAll = derive(All, FromAll);
  const std::string DeriveInputs = derive(Inputs, FromInputs);
  if (!allSolved(FromAll)) {
    std::vector<std::string> Missing;
    for (const ir::Param *P : Sizes)
      if (!FromAll.count(P->Name))
        Missing.push_back(P->Name);
    Op.Skipped = fmt::format("{} has no op: no tensor dimension determines {} (a dimension must be the size, or "
                             "1 << it, it + c, it - c or c * it)",
                             What, fmt::join(Missing, ", "));
    return Op;
  }
  // A functional form needs the outputs' shapes from the inputs alone.
  const bool HasOutputs = Inputs.size() < Args.size();
  const bool Functional = allSolved(FromInputs);

  // The checks after the sizes: `where`s, the computed params, shapes.
  // A param's expressions print with the emitter of a stage that uses it.
  auto hostOf = [&](const ir::Param *P) -> const ExprEmitter & {
    for (const KernelEmitter *E : R.Stages)
      if (std::find(E->F.RuntimeUsed.begin(), E->F.RuntimeUsed.end(), P) != E->F.RuntimeUsed.end())
        return E->Host;
    return First.Host;
  };
  auto sizeList = [&](bool Quoted) {
    std::vector<std::string> Out;
    std::vector<const ir::Param *> Both = Sizes;
    Both.insert(Both.end(), Derived.begin(), Derived.end());
    for (const ir::Param *P : Both)
      Out.push_back(Quoted ? cString(P->Name) : cName(P->Name));
    return fmt::format("{}", fmt::join(Out, ", "));
  };
  auto afterSizes = [&](const std::vector<const TorchArg *> &Shaped) {
    std::string S;
    auto Where = [&](const ir::Param *P) {
      if (P->Where)
        S += fmt::format("  TORCH_CHECK({}, \"{}: {} = \", std::to_string({}), \" breaks `where {}`\");\n",
                         hostOf(P).index(*P->Where), R.Name, P->Name, cName(P->Name), ir::print(*P->Where));
    };
    for (const ir::Param *P : Sizes)
      Where(P);
    for (const ir::Param *P : Derived) {
      S += fmt::format("  const std::int64_t {} = {}; // param (runtime)\n", cName(P->Name), hostOf(P).index(*P->Init));
      Where(P);
    }
    for (const TorchArg *T : Shaped)
      S += fmt::format("  bankwise::torch_checks::checkShape(\"{}\", \"{}\", \"{}\", {}, {{{}}}, {{{}}}, {{{}}});\n",
                       R.Name, T->Schema, T->Decl, T->Name, fmt::join(T->F->dimTexts(*T->A->Decl, Mode::Host), ", "),
                       sizeList(true), sizeList(false));
    return S;
  };
  auto tensorChecks = [&](const std::vector<const TorchArg *> &Tensors) {
    std::string S;
    for (const TorchArg *T : Tensors)
      S += fmt::format("  bankwise::torch_checks::checkTensor(\"{}\", \"{}\", \"{}\", {}, {}, {}, \"{}\", {});\n",
                       R.Name, T->Schema, T->Decl, T->Name, Tensors.front()->Name, T->Dtype.Aten, T->Dtype.Python,
                       T->A->Decl->Dims.size());
    return S;
  };
  auto param = [](const TorchArg &T, bool Mutable) {
    return fmt::format("{}at::Tensor &{}", Mutable ? "" : "const ", T.Name);
  };

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
    RunParams.push_back(param(T, false));
    RunNames.push_back(T.Name);
  }
  C += fmt::format("void bw_run_{}({}) {{\n", R.Name, fmt::join(RunParams, ", "));
  C += tensorChecks(All) + DeriveAll + afterSizes(All);
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
  const std::string RunCall = fmt::format("  bw_run_{}({});\n", R.Name, fmt::join(RunNames, ", "));

  // The schemas: the inputs (mutable when written in place), then the
  // outputs; C++ parameters in the same order.
  std::vector<std::string> InSchema, OutSchema, OutReturns, InParams, OutParams, Outs, OutSchemaNames, Usage;
  std::size_t Alias = 0;
  for (const TorchArg &T : Args)
    if (!T.output()) {
      InSchema.push_back(T.Written ? fmt::format("Tensor({}!) {}", aliasSet(Alias++), T.Schema) : "Tensor " + T.Schema);
      InParams.push_back(param(T, T.Written));
      Usage.push_back(T.Schema);
    }
  for (const TorchArg &T : Args)
    if (T.output()) {
      const std::string Set = aliasSet(Alias++);
      OutSchema.push_back(fmt::format("Tensor({}!) {}", Set, T.Schema));
      OutReturns.push_back(fmt::format("Tensor({}!)", Set));
      OutParams.push_back(param(T, true));
      Outs.push_back(T.Name);
      OutSchemaNames.push_back(T.Schema);
    }
  auto returns = [&](const std::string &Type, const std::vector<std::string> &Schema) {
    return Schema.size() == 1 ? std::pair(Type, Schema.front())
                              : std::pair(fmt::format("std::tuple<{}>", fmt::join(std::vector<std::string>(Schema.size(), Type), ", ")),
                                          fmt::format("({})", fmt::join(Schema, ", ")));
  };
  const std::string Return = Outs.size() == 1 ? fmt::format("  return {};\n", Outs.front())
                                              : fmt::format("  return {{{}}};\n", fmt::join(Outs, ", "));

  // The functional form: the outputs allocated (uninitialized) and returned.
  if (Functional && HasOutputs) {
    const auto [Cxx, Schema] = returns("at::Tensor", std::vector<std::string>(Outs.size(), "Tensor"));
    Op.Schemas.push_back(fmt::format("{}({}) -> {}", R.Name, fmt::join(InSchema, ", "), Schema));
    C += fmt::format("{} bw_op_{}({}) {{\n", Cxx, R.Name, fmt::join(InParams, ", "));
    C += tensorChecks(Inputs) + DeriveInputs + afterSizes({});
    for (const TorchArg &T : Args)
      if (T.output())
        C += fmt::format("  at::Tensor {} = at::empty({{{}}}, {}.options().dtype({}));\n", T.Name,
                         fmt::join(T.F->dimTexts(*T.A->Decl, Mode::Host), ", "), Inputs.front()->Name, T.Dtype.Aten);
    C += RunCall + Return + "}\n\n";
    Op.Impls.push_back(fmt::format("m.impl(\"{}\", &bw_op_{});", R.Name, R.Name));
    Op.Usage = fmt::format("{} = ops.{}({})", fmt::join(OutSchemaNames, ", "), R.Name, fmt::join(Usage, ", "));
  } else if (!HasOutputs) { // every written array is read: in place
    Op.Schemas.push_back(fmt::format("{}({}) -> ()", R.Name, fmt::join(InSchema, ", ")));
    C += fmt::format("void bw_op_{}({}) {{\n{}}}\n\n", R.Name, fmt::join(InParams, ", "), RunCall);
    Op.Impls.push_back(fmt::format("m.impl(\"{}\", &bw_op_{});", R.Name, R.Name));
    Op.Usage = fmt::format("ops.{}({})  # in place", R.Name, fmt::join(Usage, ", "));
  }
  // The out= form: the outputs given, checked like the inputs.
  if (HasOutputs) {
    std::vector<std::string> Schema = InSchema, Params = InParams;
    Schema.push_back("*");
    Schema.insert(Schema.end(), OutSchema.begin(), OutSchema.end());
    Params.insert(Params.end(), OutParams.begin(), OutParams.end());
    const auto [Cxx, Returns] = returns("at::Tensor &", OutReturns);
    Op.Schemas.push_back(fmt::format("{}.out({}) -> {}", R.Name, fmt::join(Schema, ", "), Returns));
    C += fmt::format("{}{}bw_op_{}_out({}) {{\n{}{}}}\n\n", Cxx, Outs.size() == 1 ? "" : " ", R.Name,
                     fmt::join(Params, ", "), RunCall, Return);
    Op.Impls.push_back(fmt::format("m.impl(\"{}.out\", &bw_op_{}_out);", R.Name, R.Name));
    if (!Functional) {
      for (const std::string &N : OutSchemaNames)
        Usage.push_back(N + "=" + N);
      Op.Usage = fmt::format("ops.{}.out({})", R.Name, fmt::join(Usage, ", "));
    }
  }
  return Op;
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
