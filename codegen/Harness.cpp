// The harness's run of one kernel or one launch of several: random inputs,
// the launch checked against the CPU references, and timing.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

//===-- The harness -------------------------------------------------------------===//

std::string KernelEmitter::harnessRun() const {
  return harnessRunOf(F.K.Name, launchName(), {this},
                      static_cast<std::size_t>(&F.K - &F.Prog.Kernels.front()));
}

std::vector<const ir::Param *> KernelEmitter::sizeArgsOf(const std::vector<const KernelEmitter *> &Stages) {
  std::vector<const ir::Param *> Out;
  for (const ir::Param &P : Stages.front()->F.Prog.Params)
    for (const KernelEmitter *E : Stages) {
      const std::vector<const ir::Param *> Mine = E->sizeArgs();
      if (std::find(Mine.begin(), Mine.end(), &P) != Mine.end()) {
        Out.push_back(&P);
        break;
      }
    }
  return Out;
}

/// What the steps of KernelEmitter::harnessRunOf share: the run's name, its
/// launch function and stages, the arrays they use, the launch's arguments,
/// and the text written so far. A friend of KernelEmitter: the steps read
/// the stages' facts.
struct HarnessRun {
  /// An array of the stages, with the stage that declares it first; what
  /// any stage reads is filled, what the first stage to touch it reads and
  /// what any stage writes is counted in Bytes.
  struct Use {
    const KernelEmitter *E;
    const ArrayPlan *A;
    bool Read = false, Written = false, ReadFirst = false;
  };

  HarnessRun(const std::string &Name, const std::string &LaunchFn, const std::vector<const KernelEmitter *> &Stages)
      : Name(Name), LaunchFn(LaunchFn), Stages(Stages), Mod(Stages.front()->Mod) {}

  const std::string &Name;
  const std::string &LaunchFn;
  const std::vector<const KernelEmitter *> &Stages;
  const ModuleState &Mod;
  std::string S;
  /// The stages' runtime sizes, comma-separated (Runtime: there are some).
  std::string SizeList;
  bool Runtime = false;
  /// The tolerance of the comparison: 0 unless a stage computes.
  double Tol = 0;
  /// The arrays of the stages, each once (by name).
  std::vector<Use> Uses;
  std::vector<std::string> LaunchArgs;

  void line(int Indent, const std::string &T) {
    S.append(static_cast<std::size_t>(Indent) * 2, ' ');
    S += T;
    S += '\n';
  }
  /// The comment and the signature of run_NAME, the derived sizes, the
  /// random generator (seeded with SeedIndex) and the counters.
  void open(std::size_t SeedIndex);
  /// Fills Uses: each array of the stages once, its reads and writes joined.
  void collectArrays();
  /// Each array's device image (random, or poisoned when only written), its
  /// host copy for the references, its device copy and its bytes; each table
  /// read from the module.
  void uploadArrays();
  /// The tables of the stages' permutations, each read once for the references.
  void readPermTables();
  /// The launch, then each stage's CPU reference in order.
  void launchAndReference();
  /// Each written array copied back and compared with its reference.
  void compareOutputs();
};

namespace {
/// The timed runs (after three warm-up launches), the arrays freed, and the
/// run's JSON line; run_NAME closed.
void timeAndReport(HarnessRun &H) {
  const std::string &Name = H.Name;
  const std::string &LaunchFn = H.LaunchFn;
  const std::vector<std::string> &LaunchArgs = H.LaunchArgs;
  H.line(1, "std::vector<double> Ms;");
  H.line(1, "if (Time) {");
  H.line(2, "cudaEvent_t Start, Stop;");
  H.line(2, "BANKWISE_CHECK(cudaEventCreate(&Start));");
  H.line(2, "BANKWISE_CHECK(cudaEventCreate(&Stop));");
  H.line(2, "for (int W = 0; W < 3; ++W) // warm-up");
  H.line(3, fmt::format("BANKWISE_CHECK({}({}));", LaunchFn, fmt::join(LaunchArgs, ", ")));
  H.line(2, H.Runtime ? "for (int bw_run = 0; bw_run < Runs; ++bw_run) {" : "for (int R = 0; R < Runs; ++R) {");
  H.line(3, "BANKWISE_CHECK(cudaEventRecord(Start, 0));");
  H.line(3, fmt::format("BANKWISE_CHECK({}({}));", LaunchFn, fmt::join(LaunchArgs, ", ")));
  H.line(3, "BANKWISE_CHECK(cudaEventRecord(Stop, 0));");
  H.line(3, "BANKWISE_CHECK(cudaEventSynchronize(Stop));");
  H.line(3, "float Elapsed = 0;");
  H.line(3, "BANKWISE_CHECK(cudaEventElapsedTime(&Elapsed, Start, Stop));");
  H.line(3, "Ms.push_back(Elapsed);");
  H.line(2, "}");
  H.line(2, "BANKWISE_CHECK(cudaEventDestroy(Start));");
  H.line(2, "BANKWISE_CHECK(cudaEventDestroy(Stop));");
  H.line(1, "}");
  for (const HarnessRun::Use &U : H.Uses)
    if (U.A->isApiParam())
      H.line(1, fmt::format("BANKWISE_CHECK(cudaFree({}));", U.A->Name));
  H.line(1, "const double Median = Ms.empty() ? 0 : bankwise::median(Ms);");
  H.line(1, "const double Min = Ms.empty() ? 0 : *std::min_element(Ms.begin(), Ms.end());");
  H.line(1, "char Buf[512];");
  H.line(1, fmt::format("std::snprintf(Buf, sizeof Buf, \"{{\\\"kernel\\\":\\\"{}\\\",\\\"correct\\\":%s,\\\"checked\\\":%zu,"
                        "\\\"mismatches\\\":%zu,\\\"runs\\\":%zu,\\\"warmup\\\":%d,\\\"median_ms\\\":%.6f,\\\"min_ms\\\":%.6f,"
                        "\\\"bytes\\\":%.0f,\\\"gbps\\\":%.3f}}\",",
                        Name));
  H.line(2, "Mismatches == 0 ? \"true\" : \"false\", Checked, Mismatches, Ms.size(), Time ? 3 : 0, Median, Min, Bytes,");
  H.line(2, "Median > 0 ? Bytes / (Median * 1e6) : 0.0);");
  H.line(1, "Json += Buf;");
  H.line(1, "return Mismatches == 0;");
  H.line(0, "}");
}
} // namespace

void HarnessRun::open(std::size_t SeedIndex) {
  const bool Alone = Stages.size() == 1;
  if (Alone) {
    line(0, fmt::format("// Runs '{}' on fresh random inputs (outputs poisoned with 0xFF bytes first), checks", Name));
    line(0, "// every element it writes against reference_" + Name + ", and times it with CUDA events.");
  } else {
    std::vector<std::string> Names;
    for (const KernelEmitter *E : Stages)
      Names.push_back(E->F.K.Name);
    line(0, fmt::format("// Runs launch '{}' ({}) on fresh random inputs (outputs poisoned with 0xFF bytes", Name,
                        fmt::join(Names, ", ")));
    line(0, "// first), checks every element it writes against the stages' CPU references run in order, and");
    line(0, "// times the whole launch with CUDA events.");
  }
  std::vector<std::string> Sizes;
  for (const ir::Param *P : KernelEmitter::sizeArgsOf(Stages))
    Sizes.push_back(cName(P->Name));
  Runtime = !Sizes.empty();
  SizeList = fmt::format("{}", fmt::join(Sizes, ", "));
  std::vector<std::string> SizeDecls;
  for (const std::string &N : Sizes)
    SizeDecls.push_back("long long " + N);
  line(0, fmt::format("static bool run_{}(unsigned long long Seed, int Runs, bool Time, std::string &Json{}) {{", Name,
                      Runtime ? fmt::format(", {}", fmt::join(SizeDecls, ", ")) : ""));
  {
    std::vector<std::string> Derived;
    for (const KernelEmitter *E : Stages)
      for (const std::string &D : E->derivedSizes(E->Host, "long long"))
        if (std::find(Derived.begin(), Derived.end(), D) == Derived.end())
          Derived.push_back(D);
    for (const std::string &D : Derived)
      line(1, D);
  }
  line(1, fmt::format("bankwise::HarnessRng Rng{{Seed + {}ULL}};", SeedIndex));
  line(1, "std::size_t Checked = 0, Mismatches = 0;");
  line(1, "double Bytes = 0;");
  bool HasCompute = false;
  for (const KernelEmitter *E : Stages)
    HasCompute = HasCompute || E->F.HasCompute;
  Tol = !HasCompute ? 0.0 : 1e-5;
}

void HarnessRun::collectArrays() {
  for (const KernelEmitter *E : Stages)
    for (const ArrayPlan &A : E->F.Arrays) {
      if (!A.isDeviceParam())
        continue;
      auto It = std::find_if(Uses.begin(), Uses.end(), [&](const Use &U) { return U.A->Name == A.Name; });
      if (It == Uses.end()) {
        Uses.push_back({E, &A, A.Read, A.Written, A.Read});
        continue;
      }
      // Sema checks a launch's kernels agree; a program built by a pass is checked here.
      if (It->A->Table != A.Table || It->A->Decl->Elem != A.Decl->Elem || It->A->Decl->Shape != A.Decl->Shape)
        throw UserError(A.Decl->Loc, fmt::format("launch '{}': kernels '{}' and '{}' both have an array '{}', of "
                                                 "different types, shapes or tables; rename one",
                                                 Name, It->E->F.K.Name, E->F.K.Name, A.Decl->Name));
      It->Read = It->Read || A.Read;
      It->Written = It->Written || A.Written;
    }
}

void HarnessRun::uploadArrays() {
  for (const Use &U : Uses) {
    const ArrayPlan &A = *U.A;
    const KernelFacts &F = U.E->F;
    const std::string T = devType(A.Decl->Elem), H = hostType(A.Decl->Elem);
    const std::int64_t C = A.Decl->Shape.back();
    const bool RuntimeShape = F.runtimeShape(*A.Decl); // raw, so the footprint is the count
    const std::string N = F.countText(*A.Decl, Mode::Host);
    const std::string Foot = RuntimeShape ? N : fmt::format("{}", A.footprint());
    if (A.Table >= 0) {
      line(1, fmt::format("// '{}' holds {}: the module's table {}.", A.Decl->Name,
                          Mod.Tables[static_cast<std::size_t>(A.Table)].Describe, A.Table));
      line(1, fmt::format("std::vector<{}> {}_ref;", T, A.Name));
      line(1, fmt::format("if (!bw_read_table_{}({}_ref)) {{", A.Table, A.Name));
      line(2, fmt::format("std::fprintf(stderr, \"harness: cannot read table {} (side file '%s')\\n\", bw_table_file);", A.Table));
      line(2, "return false;");
      line(1, "}");
      continue;
    }
    const bool Input = U.Read;
    const char *Role = U.Read && U.Written ? "read and written: random" : U.Written ? "written only: poisoned" : "read: random";
    line(1, fmt::format("// '{}': {} {}, {}.", A.Decl->Name, ir::spelling(A.Decl->Space), ir::printArrayType(*A.Decl), Role));
    if (RuntimeShape) {
      line(1, fmt::format("if ({} < 1) {{", N));
      line(2, fmt::format("std::fprintf(stderr, \"harness: these sizes give '{}' %lld elements\\n\", static_cast<long long>({}));",
                          A.Decl->Name, N));
      line(2, "return false;");
      line(1, "}");
    }
    line(1, fmt::format("std::vector<{}> {}_img({}); // the device bytes", T, A.Name, Foot));
    line(1, fmt::format("std::memset(static_cast<void *>({}_img.data()), 0xFF, {}_img.size() * sizeof({}));", A.Name, A.Name, T));
    std::string Phys = "I";
    if (A.Lay.Kind != LayoutKind::Raw) {
      line(1, U.E->layoutObject(A));
      Phys = fmt::format("{}_layout.offset(I / {}, I % {})", A.Name, C, C);
    }
    if (Input) {
      line(1, fmt::format("for (long long I = 0; I < {}; ++I)", N));
      if (A.BoundsLoop && A.Decl->Elem.Lanes == 1 && !isFloat(A.Decl->Elem.Scalar))
        line(2, fmt::format("{}_img[{}] = bankwise::randomBelow<{}>(Rng, {}); // bounds a loop", A.Name, Phys, T,
                            HarnessLoopBound + 1));
      else
        line(2, fmt::format("{}_img[{}] = bankwise::randomElement<{}>(Rng);", A.Name, Phys, T));
    }
    line(1, fmt::format("std::vector<{}> {}_ref({});", H, A.Name, N));
    line(1, fmt::format("for (long long I = 0; I < {}; ++I)", N));
    line(2, fmt::format("{}_ref[I] = bankwise::toHost({}_img[{}]);", A.Name, A.Name, Phys));
    line(1, fmt::format("{} *{} = nullptr;", T, A.Name));
    line(1, fmt::format("BANKWISE_CHECK(cudaMalloc(&{}, {}_img.size() * sizeof({})));", A.Name, A.Name, T));
    line(1, fmt::format("BANKWISE_CHECK(cudaMemcpy({}, {}_img.data(), {}_img.size() * sizeof({}), cudaMemcpyHostToDevice));",
                        A.Name, A.Name, A.Name, T));
    if (RuntimeShape)
      line(1, fmt::format("Bytes += {}.0 * static_cast<double>({}) * sizeof({});", (U.ReadFirst ? 1 : 0) + (U.Written ? 1 : 0), N, T));
    else
      line(1, fmt::format("Bytes += {}.0 * sizeof({});", (U.ReadFirst ? A.Decl->numElements() : 0) + (U.Written ? A.Decl->numElements() : 0), T));
    LaunchArgs.push_back(fmt::format("{}, {}", A.Name, RuntimeShape ? A.Name + "_img.size()" : Foot));
  }
}

void HarnessRun::readPermTables() {
  std::vector<std::string> PermTables;
  for (const KernelEmitter *E : Stages)
    for (const PermUse &U : E->F.PermUses) {
      if (std::find(PermTables.begin(), PermTables.end(), U.CName) != PermTables.end())
        continue;
      PermTables.push_back(U.CName);
      const TablePlan &T = Mod.Tables[static_cast<std::size_t>(U.Table)];
      line(1, fmt::format("std::vector<{}> {};", T.DeviceType, U.CName));
      line(1, fmt::format("if (!bw_read_table_{}({}))", U.Table, U.CName));
      line(2, "return false;");
    }
}

void HarnessRun::launchAndReference() {
  if (Runtime)
    LaunchArgs.push_back(SizeList);
  LaunchArgs.push_back("0");
  line(1, fmt::format("BANKWISE_CHECK({}({}));", LaunchFn, fmt::join(LaunchArgs, ", ")));
  line(1, "BANKWISE_CHECK(cudaDeviceSynchronize());");
  for (const KernelEmitter *E : Stages) {
    std::vector<std::string> RefArgs;
    for (const ArrayPlan &A : E->F.Arrays)
      if (A.isDeviceParam())
        RefArgs.push_back(A.Name + "_ref");
    for (const PermUse &U : E->F.PermUses)
      RefArgs.push_back(U.CName);
    if (!E->F.RuntimeUsed.empty())
      RefArgs.push_back(E->sizeNames());
    line(1, fmt::format("reference_{}({});", E->F.K.Name, fmt::join(RefArgs, ", ")));
  }
}

void HarnessRun::compareOutputs() {
  for (const Use &U : Uses) {
    const ArrayPlan &A = *U.A;
    const KernelFacts &F = U.E->F;
    if (!A.isApiParam() || !U.Written)
      continue;
    const std::string T = devType(A.Decl->Elem);
    const std::string N = F.countText(*A.Decl, Mode::Host);
    const std::int64_t C = A.Decl->Shape.back();
    const std::string Phys = A.Lay.Kind == LayoutKind::Raw ? "I" : fmt::format("{}_layout.offset(I / {}, I % {})", A.Name, C, C);
    line(1, fmt::format("BANKWISE_CHECK(cudaMemcpy({}_img.data(), {}, {}_img.size() * sizeof({}), cudaMemcpyDeviceToHost));",
                        A.Name, A.Name, A.Name, T));
    line(1, fmt::format("for (long long I = 0; I < {}; ++I) {{", N));
    line(2, fmt::format("const auto Got = bankwise::toHost({}_img[{}]);", A.Name, Phys));
    line(2, "++Checked;");
    line(2, fmt::format("if (!bankwise::sameValue(Got, {}_ref[I], {})) {{", A.Name, Tol));
    line(3, "if (Mismatches < 5)");
    line(4, fmt::format("std::fprintf(stderr, \"{}: {}[%lld] is %s, the reference says %s\\n\", I, "
                        "bankwise::showValue(Got).c_str(), bankwise::showValue({}_ref[I]).c_str());",
                        Name, A.Decl->Name, A.Name));
    line(3, "++Mismatches;");
    line(2, "}");
    line(1, "}");
  }
}

std::string KernelEmitter::harnessRunOf(const std::string &Name, const std::string &LaunchFn,
                                        const std::vector<const KernelEmitter *> &Stages, std::size_t SeedIndex) {
  HarnessRun H(Name, LaunchFn, Stages);
  H.open(SeedIndex);
  H.collectArrays();
  H.uploadArrays();
  H.readPermTables();
  H.launchAndReference();
  H.compareOutputs();
  timeAndReport(H);
  return H.S;
}

} // namespace bankwise::codegen::detail
