// The harness's run of one kernel: random inputs, the launch checked
// against the CPU reference, and timing.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

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


} // namespace bankwise::codegen::detail
