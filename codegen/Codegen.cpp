// CUDA emission. compileToCuda runs, per kernel, a short script:
//   1. scan: arrays (role, space, layout), locals, loops, tables used;
//   2. facts: value classes of locals (index, exact copy, arithmetic), value
//      ranges (the index type: int when every index value fits), uniformity
//      (for the CPU reference's lockstep form);
//   3. emit: the __global__ function, its launch function, the CPU reference
//      and the harness, each a fmt skeleton filled from the facts.
// Every decision is made here; templates/ supplies only formulas and helpers.

#include "codegen/Codegen.h"

#include "codegen/detail/Emit.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace bankwise::codegen {

std::string_view templateText(std::string_view Path) {
  for (std::size_t I = 0; I < NumEmbeddedTemplates; ++I)
    if (Path == EmbeddedTemplates[I].Path)
      return EmbeddedTemplates[I].Text;
  return {};
}

namespace detail {

//===-- The module ----------------------------------------------------------------===//

/// Places F's shared arrays as the pipeline's place-shared pass decided
/// (PipelineResult::Placements): demoted arrays to global memory, dynamic
/// shared memory and its offsets; its warnings go to Warnings, and what
/// CUDA cannot compile is thrown. std::logic_error when the pass did not
/// run or placed other arrays than codegen declares.
void applyPlacement(KernelFacts &F, const PipelineResult &P, std::vector<Diagnostic> &Warnings) {
  const SharedPlacement *S = P.placementOf(F.K.Name);
  if (!S)
    throw std::logic_error(fmt::format("compileToCuda: kernel '{}' has no shared placement (run the pipeline's "
                                       "place-shared pass)",
                                       F.K.Name));
  F.Placement = S;
  Warnings.insert(Warnings.end(), S->Warnings.begin(), S->Warnings.end());
  if (S->Error)
    throw *S->Error;
  std::size_t Placed = 0;
  for (ArrayPlan &A : F.Arrays) {
    if (!A.InShared)
      continue;
    const SharedArrayPlacement *X = S->find(A.Decl->Name);
    if (!X || X->Staged != A.Staged)
      throw std::logic_error(fmt::format("compileToCuda: shared array '{}' of kernel '{}' was placed otherwise",
                                         A.Decl->Name, F.K.Name));
    ++Placed;
    A.SmemOffset = X->Offset;
    if (X->Demoted) {
      A.InShared = false;
      A.Staged = false;
      A.Demoted = true;
    }
  }
  if (Placed != S->Arrays.size())
    throw std::logic_error(fmt::format("compileToCuda: kernel '{}' has {} shared arrays, its placement {}",
                                       F.K.Name, Placed, S->Arrays.size()));
  F.UseDynamic = S->Dynamic;
  if (F.UseDynamic)
    F.DynamicSmem = S->DynamicBytes;
  F.StaticSmem = S->StaticBytes;
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

/// Template Path with every @NAME@ hole replaced by its text. Every hole of
/// the template must be given and every given hole must occur (a
/// misspelling is a bug, not an empty string).
std::string fillHoles(const std::string &Path, const std::map<std::string, std::string> &Holes) {
  const std::string_view Text = templateText(Path);
  assert(!Text.empty() && "unknown template");
  std::string Out;
  std::set<std::string> Used;
  for (std::size_t I = 0; I < Text.size();) {
    const std::size_t At = Text.find('@', I);
    if (At == std::string_view::npos) {
      Out += Text.substr(I);
      break;
    }
    const std::size_t End = Text.find('@', At + 1);
    const std::string Name(Text.substr(At + 1, End == std::string_view::npos ? 0 : End - At - 1));
    const auto It = Holes.find(Name);
    if (End == std::string_view::npos || It == Holes.end())
      throw std::logic_error(fmt::format("templates/{}: no text for hole '@{}@'", Path, Name));
    Out += Text.substr(I, At - I);
    Out += It->second;
    Used.insert(Name);
    I = End + 1;
  }
  for (const auto &[Name, Value] : Holes)
    if (!Used.count(Name))
      throw std::logic_error(fmt::format("templates/{} has no hole '@{}@'", Path, Name));
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

} // namespace detail

using namespace detail;

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

HarnessSizes harnessSizes(const ir::Program &Prog, const ModuleState &Mod,
                          const KernelFacts &Any) {
  HarnessSizes H;
  if (Mod.Runtime.empty())
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

namespace {
/// The tables of Mod that go to the side file, in order.
SideFile sideFileOf(const ModuleState &Mod) {
  SideFile S;
  for (const TablePlan &T : Mod.Tables)
    if (!T.InSource && T.stored())
      S.Tables.push_back(T);
  return S;
}

/// What the steps of compileToCuda share: the program and its options, the
/// module's facts, and each kernel's facts, report and emitter (in the order
/// of Prog.Kernels). Built in place, never copied: the emitters refer to it.
struct ModuleBuild {
  ModuleBuild(const PipelineResult &Pipe, const CodegenOptions &Opts)
      : Pipe(Pipe), Prog(Pipe.Program), Opts(Opts), Ns(cppIdentifier(Opts.Namespace)), Mod(Pipe, Opts) {}
  ModuleBuild(const ModuleBuild &) = delete;
  ModuleBuild &operator=(const ModuleBuild &) = delete;

  const PipelineResult &Pipe;
  const ir::Program &Prog;
  const CodegenOptions &Opts;
  const std::string Ns;
  ModuleState Mod;
  std::vector<std::unique_ptr<KernelFacts>> Facts;
  /// Each kernel's analysis, the pipeline's.
  std::vector<const KernelReport *> Reports;
  std::vector<KernelEmitter> Emitters;
  /// What the harness runs and --torch makes ops of (runnablesOf).
  std::vector<Runnable> Runnables;
  bool HasTables = false;

  /// The emitters of a launch's kernels, in its order.
  std::vector<const KernelEmitter *> stagesOf(const ir::Launch &L) const {
    std::vector<const KernelEmitter *> Stages;
    for (const std::string &Name : L.Kernels)
      for (std::size_t I = 0; I < Prog.Kernels.size(); ++I)
        if (Prog.Kernels[I].Name == Name)
          Stages.push_back(&Emitters[I]);
    return Stages;
  }
};

/// Throws the UserError of what codegen cannot compile: a runtime param named
/// like a local of the generated host code, a kernel still `schedule`d.
void rejectUncompilable(const PipelineResult &P) {
  const ir::Program &Prog = P.Program;
  for (const std::string &Name : P.RuntimeParams)
    if (hostLocalNames().count(Name))
      throw UserError(Prog.findParam(Name) ? static_cast<SourceLoc>(Prog.findParam(Name)->Loc) : SourceLoc{},
                      fmt::format("codegen: runtime param '{}' would clash with a local of the generated host "
                                  "code; rename it (reserved: {})",
                                  Name, fmt::join(hostLocalNames(), ", ")));
  for (const ir::Kernel &K : Prog.Kernels)
    if (K.Schedule != ir::KernelSchedule::None)
      throw UserError(K.Loc, fmt::format("kernel '{}' is still `schedule {}`: run the schedule-colored pass "
                                         "(runPipeline) before codegen",
                                         K.Name, ir::spelling(K.Schedule)));
}

/// The architecture Opts names; throws UserError for an unknown one.
ir::TargetInfo targetOf(const CodegenOptions &Opts) {
  const std::optional<ir::TargetInfo> Target = ir::targetInfo(Opts.Arch);
  if (!Target)
    throw UserError(fmt::format("unknown architecture '{}' (known: {})", Opts.Arch,
                                fmt::join(ir::knownTargets(), ", ")));
  return *Target;
}

/// Fills B's facts: each kernel's scan and dataflow facts, its shared
/// memory placed, and the module's tables.
void planFacts(ModuleBuild &B) {
  for (const ir::Kernel &K : B.Prog.Kernels) {
    B.Facts.push_back(std::make_unique<KernelFacts>(B.Prog, K, B.Mod));
    applyPlacement(*B.Facts.back(), B.Pipe, B.Mod.Warnings);
    B.Facts.back()->InLaunch = B.Prog.launchOf(K.Name);
  }
}

/// Fills B's facts, reports (the pipeline's analyses) and emitters.
void planKernels(ModuleBuild &B) {
  planFacts(B);
  for (const ir::Kernel &K : B.Prog.Kernels) {
    const KernelReport *R = B.Pipe.analysisOf(K.Name);
    if (!R)
      throw std::logic_error(fmt::format("compileToCuda: kernel '{}' has no analysis (run the pipeline's analyze "
                                         "pass on every kernel)",
                                         K.Name));
    B.Reports.push_back(R);
  }
  for (std::size_t I = 0; I < B.Facts.size(); ++I)
    B.Emitters.emplace_back(*B.Facts[I], *B.Reports[I], B.Opts, B.Mod);
  B.HasTables = !B.Mod.Tables.empty();
}

/// The host API, in namespace Ns: the params, each kernel's and each launch's
/// launch function, and the table functions.
std::string moduleApi(const ModuleBuild &B) {
  std::string Api;
  Api += fmt::format("namespace {} {{\n\n", B.Ns);
  for (const ir::Param &P : B.Prog.Params) {
    if (B.Mod.Runtime.count(P.Name)) {
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
  if (!B.Prog.Params.empty())
    Api += "\n";
  for (const KernelEmitter &E : B.Emitters)
    Api += E.declaration() + "\n";
  for (const ir::Launch &L : B.Prog.Launches)
    Api += KernelEmitter::launchSequence(L, B.stagesOf(L), true) + "\n";
  if (B.HasTables)
    Api += "/// Reads the module's offline tables (permutations, schedules) and uploads them once; every\n"
           "/// launch function calls it. cudaErrorFileNotFound when the side file is missing or corrupt.\n"
           "cudaError_t load_tables();\n/// Frees the uploaded tables.\ncudaError_t free_tables();\n"
           "/// Where the side file is (default: its name when it was generated, relative to the working directory).\n"
           "void set_table_file(const char *path);\n\n";
  Api += fmt::format("}} // namespace {}\n", B.Ns);
  return Api;
}

/// The API header: Banner, the includes, the element types when the API
/// uses vectors or halves, then Api.
std::string headerText(const ModuleBuild &B, const std::string &Banner, const std::string &Api) {
  bool ApiNeedsTypes = false;
  for (const auto &F : B.Facts)
    for (const ArrayPlan &A : F->Arrays)
      if (A.isApiParam() && (A.Decl->Elem.Lanes > 1 || isHalfLike(A.Decl->Elem)))
        ApiNeedsTypes = true;
  std::string Header = Banner + fmt::format("// Host API of module '{}'.\n#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\n"
                                            "#include <cuda_runtime_api.h>\n\n",
                                            B.Ns);
  if (ApiNeedsTypes)
    Header += embedTemplate("bankwise/arith.cuh") + embedTemplate("bankwise/types.cuh") + "\n";
  Header += Api;
  return Header;
}

/// The source up to the module's namespace opened: Banner, the includes, the
/// templates the module uses and, without a header to include, Api.
std::string sourcePreamble(const ModuleBuild &B, const std::string &Banner, const std::string &Api) {
  const CodegenOptions &Opts = B.Opts;
  bool NeedLayout = false;
  for (const auto &F : B.Facts)
    for (const ArrayPlan &A : F->Arrays)
      NeedLayout = NeedLayout || (A.usesLayoutObject() && !A.Local);
  std::string Src = Banner;
  Src += fmt::format("// Module '{}': {} kernel{}", B.Ns, B.Prog.Kernels.size(), B.Prog.Kernels.size() == 1 ? "" : "s");
  Src += Opts.Harness ? ", with a harness (main) that checks them against a CPU reference and times them.\n" : ".\n";
  if (!Opts.HeaderInclude.empty())
    Src += fmt::format("#include {}\n\n", cString(Opts.HeaderInclude));
  Src += "#include <algorithm>\n#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n"
         "#include <string>\n#include <vector>\n\n#include <cuda_runtime.h>\n\n";
  Src += embedTemplate("bankwise/arith.cuh") + embedTemplate("bankwise/types.cuh");
  if (NeedLayout)
    Src += embedTemplate("bankwise/layout.cuh");
  if (B.HasTables)
    Src += embedTemplate("bankwise/tables.cuh");
  if (Opts.Harness)
    Src += embedTemplate("bankwise/harness.cuh");
  Src += "\n";
  if (Opts.HeaderInclude.empty())
    Src += Api + "\n";
  Src += fmt::format("namespace {} {{\n\n", B.Ns);
  return Src;
}

/// The module's code: the tables, each kernel's __global__ function and
/// launch function, then each launch's launch function.
std::string moduleCode(ModuleBuild &B) {
  std::string Src;
  if (B.HasTables)
    Src += tableSection(B.Mod, B.Opts) + "\n";
  for (std::size_t I = 0; I < B.Emitters.size(); ++I)
    Src += B.Emitters[I].device() + "\n";
  for (std::size_t I = 0; I < B.Emitters.size(); ++I)
    Src += B.Emitters[I].launch() + "\n";
  for (const ir::Launch &L : B.Prog.Launches)
    Src += KernelEmitter::launchSequence(L, B.stagesOf(L), false) + "\n";
  return Src;
}

/// What the harness runs, in program order: each kernel launched alone,
/// and each launch where its first kernel is.
std::vector<Runnable> runnablesOf(const ModuleBuild &B) {
  std::vector<Runnable> Runnables;
  for (std::size_t I = 0; I < B.Prog.Kernels.size(); ++I) {
    const ir::Launch *L = B.Facts[I]->InLaunch;
    if (!L)
      Runnables.push_back({B.Prog.Kernels[I].Name, B.Emitters[I].launchName(), {&B.Emitters[I]}, I});
    else if (L->Kernels.front() == B.Prog.Kernels[I].Name)
      Runnables.push_back({L->Name, "launch_" + L->Name, B.stagesOf(*L), I});
  }
  return Runnables;
}

/// The harness's part of the module's namespace: the marker, each kernel's
/// CPU reference, and the checked run of each of B's runnables.
std::string harnessRuns(ModuleBuild &B) {
  std::string Src = HarnessMarker;
  for (KernelEmitter &E : B.Emitters)
    Src += E.reference() + "\n";
  for (const Runnable &R : B.Runnables)
    Src += KernelEmitter::harnessRunOf(R.Name, R.LaunchFn, R.Stages, R.SeedIndex) + "\n";
  return Src;
}

/// The harness's main: templates/bankwise/harness_main.cu.in with its holes
/// filled (the runtime sizes, a call of each runnable's run).
std::string harnessMain(const ModuleBuild &B) {
  const CodegenOptions &Opts = B.Opts;
  const HarnessSizes Sizes = harnessSizes(B.Prog, B.Mod, *B.Facts.front());
  std::string Runs;
  for (std::size_t I = 0; I < B.Runnables.size(); ++I) {
    if (I > 0)
      Runs += "  Json += \",\";\n";
    std::vector<std::string> Args;
    for (const ir::Param *P : KernelEmitter::sizeArgsOf(B.Runnables[I].Stages))
      Args.push_back(cName(P->Name));
    Runs += fmt::format("  Ok = {}::run_{}(Seed, Runs, Time, Json{}) && Ok;\n", B.Ns, B.Runnables[I].Name,
                        Args.empty() ? "" : fmt::format(", {}", fmt::join(Args, ", ")));
  }
  std::string Escaped;
  for (char C : cString(Opts.SourceName))
    Escaped += (C == '"' || C == '\\') ? std::string("\\") + C : std::string(1, C);
  return fillHoles("bankwise/harness_main.cu.in",
                   {{"SIZE_HELPER", Sizes.Helper},
                    {"USAGE", Sizes.Usage},
                    {"SEED", std::to_string(Opts.Seed)},
                    {"SIZE_DECLS", Sizes.Decls},
                    {"SIZE_PARSE", Sizes.Parse},
                    {"SIZE_CHECKS", Sizes.Checks},
                    {"RUN_KERNELS", Runs},
                    {"FREE_TABLES", B.HasTables ? fmt::format("  BANKWISE_CHECK({}::free_tables());\n", B.Ns) : ""},
                    {"SIZES_JSON", Sizes.JsonFormat},
                    {"SIZES_ARGS", Sizes.JsonArgs.empty() ? "" : Sizes.JsonArgs + ", "},
                    {"PROGRAM", Escaped}});
}

/// What codegen decided for kernel I, for the report.
EmittedKernel emittedKernel(const ModuleBuild &B, std::size_t I) {
  const KernelFacts &F = *B.Facts[I];
  EmittedKernel E;
  E.Name = F.K.Name;
  if (F.InLaunch) // a stage: gpu-verify groups it under its launch
    E.InLaunch = F.InLaunch->Name;
  E.ThreadsPerBlock = F.CudaThreads;
  E.Blocks = F.Blocks;
  E.IndexType = F.indexType();
  E.SharedBytes = F.StaticSmem;
  E.DynamicShared = F.UseDynamic;
  for (const ArrayPlan &A : F.Arrays) {
    if (A.Demoted)
      E.Demoted.push_back(A.Decl->Name);
    if (A.Staged)
      E.Staged.push_back({A.Decl->Name, A.LayoutName, ir::byteSize(A.Decl->Elem), A.Written, F.placed(A).Copy});
  }
  return E;
}
} // namespace

SideFile planSideFile(const PipelineResult &P, const CodegenOptions &Opts) {
  (void)targetOf(Opts); // an unknown architecture is an error
  rejectUncompilable(P);
  ModuleBuild B(P, Opts);
  planFacts(B);
  return sideFileOf(B.Mod);
}

CompileResult compileToCuda(const PipelineResult &P, const CodegenOptions &Opts) {
  (void)targetOf(Opts); // an unknown architecture is an error
  rejectUncompilable(P);
  ModuleBuild B(P, Opts);
  planKernels(B);

  // The header: parameters and the launch API.
  const std::string Banner = fmt::format("// Generated by bankwise {} from {} for {}. Do not edit: rerun `bankwise compile`.\n",
                                         "0.1.0", Opts.SourceName, Opts.Arch);
  const std::string Api = moduleApi(B);
  std::string Header = headerText(B, Banner, Api);

  // The source.
  std::string Src = sourcePreamble(B, Banner, Api);
  Src += moduleCode(B);
  B.Runnables = runnablesOf(B);
  std::optional<TorchExtension> Torch;
  if (!Opts.TorchModule.empty())
    Torch = torchExtension(Opts, B.Ns, B.Runnables);
  if (Opts.Harness)
    Src += harnessRuns(B);
  Src += fmt::format("}} // namespace {}\n", B.Ns);
  if (Opts.Harness)
    Src += harnessMain(B);

  CompileResult R;
  R.Source = std::move(Src);
  R.Header = std::move(Header);
  R.SideFile = sideFileOf(B.Mod); // planSideFile's, unless a table came later
  R.Namespace = B.Ns;
  for (std::size_t I = 0; I < B.Facts.size(); ++I)
    R.Kernels.push_back(emittedKernel(B, I));
  R.Warnings = B.Mod.Warnings;
  R.Torch = std::move(Torch);
  return R;
}

} // namespace bankwise::codegen
