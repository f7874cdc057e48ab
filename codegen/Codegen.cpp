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
#include <nlohmann/json.hpp>
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

namespace {
/// The tables of Mod that go to the side file, in order.
SideFile sideFileOf(const ModuleState &Mod) {
  SideFile S;
  for (const TablePlan &T : Mod.Tables)
    if (!T.InSource && T.stored())
      S.Tables.push_back(T);
  return S;
}
} // namespace

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
  for (const ir::Kernel &K : Prog.Kernels)
    if (K.Schedule != ir::KernelSchedule::None)
      throw UserError(K.Loc, fmt::format("kernel '{}' is still `schedule {}`: run the schedule-colored pass "
                                         "(runPipeline) before codegen",
                                         K.Name, ir::spelling(K.Schedule)));
  // Every kernel's facts and tables first, then the analyses (the long
  // part at n = 2^26), so that a side file can be written while they run.
  for (const ir::Kernel &K : Prog.Kernels) {
    Facts.push_back(std::make_unique<KernelFacts>(Prog, K, Mod));
    planShared(*Facts.back(), *Target, Mod.Warnings);
    Facts.back()->InLaunch = Prog.launchOf(K.Name);
  }
  const SideFile Side = sideFileOf(Mod);
  if (!Side.empty() && Opts.SideFilePlanned)
    Opts.SideFilePlanned(Side);
  for (const ir::Kernel &K : Prog.Kernels)
    Reports.push_back(analyzeKernel(Prog, K, Opts.Analysis));
  std::vector<KernelEmitter> Emitters;
  for (std::size_t I = 0; I < Facts.size(); ++I)
    Emitters.emplace_back(*Facts[I], Reports[I], Opts, Mod);
  // The emitters of a launch's kernels, in its order.
  auto stagesOf = [&](const ir::Launch &L) {
    std::vector<const KernelEmitter *> Stages;
    for (const std::string &Name : L.Kernels)
      for (std::size_t I = 0; I < Prog.Kernels.size(); ++I)
        if (Prog.Kernels[I].Name == Name)
          Stages.push_back(&Emitters[I]);
    return Stages;
  };

  bool NeedLayout = false, ApiNeedsTypes = false;
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
  for (const ir::Launch &L : Prog.Launches)
    Api += KernelEmitter::launchSequence(L, stagesOf(L), true) + "\n";
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
  if (Opts.Harness)
    Src += embedTemplate("bankwise/harness.cuh");
  Src += "\n";
  if (Opts.HeaderInclude.empty())
    Src += Api + "\n";
  Src += fmt::format("namespace {} {{\n\n", Ns);
  if (HasTables)
    Src += tableSection(Mod, Opts) + "\n";
  for (std::size_t I = 0; I < Emitters.size(); ++I)
    Src += Emitters[I].device() + "\n";
  for (std::size_t I = 0; I < Emitters.size(); ++I)
    Src += Emitters[I].launch() + "\n";
  for (const ir::Launch &L : Prog.Launches)
    Src += KernelEmitter::launchSequence(L, stagesOf(L), false) + "\n";
  // What the harness runs, in program order: each kernel launched alone,
  // and each launch where its first kernel is.
  std::vector<Runnable> Runnables;
  for (std::size_t I = 0; I < Prog.Kernels.size(); ++I) {
    const ir::Launch *L = Facts[I]->InLaunch;
    if (!L)
      Runnables.push_back({Prog.Kernels[I].Name, Emitters[I].launchName(), {&Emitters[I]}, I});
    else if (L->Kernels.front() == Prog.Kernels[I].Name)
      Runnables.push_back({L->Name, "launch_" + L->Name, stagesOf(*L), I});
  }
  std::optional<TorchExtension> Torch;
  if (!Opts.TorchModule.empty())
    Torch = torchExtension(Opts, Ns, Runnables);
  if (Opts.Harness) {
    Src += HarnessMarker;
    for (KernelEmitter &E : Emitters)
      Src += E.reference() + "\n";
    for (const Runnable &R : Runnables)
      Src += KernelEmitter::harnessRunOf(R.Name, R.LaunchFn, R.Stages, R.SeedIndex) + "\n";
  }
  Src += fmt::format("}} // namespace {}\n", Ns);
  if (Opts.Harness) {
    // main: templates/bankwise/harness_main.cu.in with its holes filled.
    const HarnessSizes Sizes = harnessSizes(Prog, Opts, Mod, *Facts.front());
    std::string Runs;
    for (std::size_t I = 0; I < Runnables.size(); ++I) {
      if (I > 0)
        Runs += "  Json += \",\";\n";
      std::vector<std::string> Args;
      for (const ir::Param *P : KernelEmitter::sizeArgsOf(Runnables[I].Stages))
        Args.push_back(cName(P->Name));
      Runs += fmt::format("  Ok = {}::run_{}(Seed, Runs, Time, Json{}) && Ok;\n", Ns, Runnables[I].Name,
                          Args.empty() ? "" : fmt::format(", {}", fmt::join(Args, ", ")));
    }
    std::string Escaped;
    for (char C : cString(Opts.SourceName))
      Escaped += (C == '"' || C == '\\') ? std::string("\\") + C : std::string(1, C);
    Src += fillHoles("bankwise/harness_main.cu.in",
                     {{"SIZE_HELPER", Sizes.Helper},
                      {"USAGE", Sizes.Usage},
                      {"SEED", std::to_string(Opts.Seed)},
                      {"SIZE_DECLS", Sizes.Decls},
                      {"SIZE_PARSE", Sizes.Parse},
                      {"SIZE_CHECKS", Sizes.Checks},
                      {"RUN_KERNELS", Runs},
                      {"FREE_TABLES", HasTables ? fmt::format("  BANKWISE_CHECK({}::free_tables());\n", Ns) : ""},
                      {"SIZES_JSON", Sizes.JsonFormat},
                      {"SIZES_ARGS", Sizes.JsonArgs.empty() ? "" : Sizes.JsonArgs + ", "},
                      {"PROGRAM", Escaped}});
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
    if (F.InLaunch) // a stage: gpu-verify groups it under its launch
      JK["program_kernel"] = F.InLaunch->Name;
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
  R.SideFile = sideFileOf(Mod); // as planned above, unless a table came later
  R.ReportJson = J.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; // paths may not be UTF-8
  R.Warnings = Mod.Warnings;
  R.Torch = std::move(Torch);
  return R;
}

} // namespace bankwise::codegen
