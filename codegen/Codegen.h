// CUDA emission: a checked .bw program (ir/) -> readable, self-contained CUDA
// C++. One __global__ function per kernel with its layouts applied, a typed
// host API (a launch function per kernel), comments naming each array's
// layout, each table's schedule and each access site's predicted cost, the
// offline tables in the source or a side file, and optionally a harness main
// that checks every output against a CPU reference and times the kernel.
// Output depends only on the program and the options: same input, same bytes.
#pragma once

#include "codegen/Tables.h"
#include "ir/Program.h"
#include "pipeline/Pipeline.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <string>
#include <optional>
#include <vector>

namespace bankwise::codegen {

struct CodegenOptions {
  /// The program's file as comments name it ("samples/transpose_tiled.bw").
  std::string SourceName;
  /// C++ namespace of the module (an identifier; codegen sanitizes it).
  std::string Namespace = "bankwise_module";
  /// When set, the .cu includes this header and the API is declared there;
  /// otherwise the .cu declares it itself.
  std::string HeaderInclude;
  /// The side file the host API reads at run time when tables go there.
  std::string SideFileName = "bankwise.tables.bin";
  /// CUDA architecture: its shared memory per block bounds the kernels.
  std::string Arch = "sm_90";
  /// Emit a main that checks and times every kernel.
  bool Harness = false;
  /// Seed of the harness's random inputs.
  std::uint64_t Seed = 1;
  /// A table of at most this many stored bytes goes in the source; a larger
  /// one goes in the side file.
  std::uint64_t InlineTableLimit = 64 * 1024;
  /// When set, also build a PyTorch extension (`compile --torch`): an op per
  /// kernel launched alone and per `launch`, registered as
  /// torch.ops.TorchModule.NAME, calling this module's launch functions. The
  /// module must then be compiled with HeaderInclude = TorchModule + ".h"
  /// and no harness (the files the extension builds from).
  std::string TorchModule;
};

/// The line the .cu of a compile with a harness starts its harness part with
/// (CPU references, checked runs, main): everything above it is the module a
/// user links, everything from it on is the harness.
inline constexpr const char *HarnessMarker =
    "// ---- harness: CPU references, checked runs and main (--harness) ----\n\n";

/// The files of a PyTorch extension besides the module's .cu and .h
/// (CodegenOptions::TorchModule; docs/torch.md).
struct TorchExtension {
  std::string Bindings;              ///< MODULE_torch.cu: the ops, their checks and registration
  std::string SetupPy;               ///< setup.py: a CUDAExtension of the module and the bindings
  std::string LoaderPy;              ///< MODULE.py: load() registers the ops, building them if needed
  std::vector<std::string> Ops;      ///< the ops' names (an `.out` overload each, where it has outputs)
  std::vector<Diagnostic> Skipped;   ///< a note per kernel or launch with no op, saying why
};

/// The files of a PyTorch extension of module M: M.cu, M.h, M_torch.cu,
/// setup.py, M.py.
std::vector<std::string> torchFileNames(const std::string &Module);

/// What codegen decided for one kernel it emitted, which compile's --report
/// (report/CompileReport.h) gives beside the pipeline's analysis of it.
struct EmittedKernel {
  std::string Name;
  std::string InLaunch; ///< the launch it is a stage of; empty when launched alone
  std::int64_t ThreadsPerBlock = 0; ///< CUDA threads of a block (at most 1,024)
  std::int64_t Blocks = 0;
  std::string IndexType; ///< "int" or "long long"
  std::int64_t SharedBytes = 0;
  bool DynamicShared = false;
  /// A shared array codegen copies in from global memory (and back when
  /// the kernel writes it), in the order the kernel declares them; the cost
  /// is the place-shared pass's.
  struct Staging {
    std::string Array, Layout;
    std::int64_t ElemBytes = 4;
    bool Written = false;
    StagingCost Copy;
  };
  std::vector<Staging> Staged;
  /// Shared arrays the kernel keeps in global memory (place-shared).
  std::vector<std::string> Demoted;
};

struct CompileResult {
  std::string Source;                  ///< the .cu
  std::string Header;                  ///< the API header (always built)
  codegen::SideFile SideFile; ///< empty when every table is in the source
  std::string Namespace;               ///< the module's C++ namespace
  std::vector<EmittedKernel> Kernels;  ///< in the program's order
  std::vector<Diagnostic> Warnings;    ///< e.g. a shared array kept in global memory
  std::optional<TorchExtension> Torch; ///< set when CodegenOptions::TorchModule is
};

/// Emits CUDA for every kernel and every launch of P.Program (a program the
/// pipeline ran on, the analyze pass included): a launch function per
/// kernel, and launch_NAME per `launch NAME = ...` that runs its kernels in
/// order. Codegen reads P and never analyzes: the comments and the report
/// quote P's analyses, layout decisions and schedules. P's runtime params
/// (`param R` and the params computed from one) stay runtime in the emitted
/// code: P.Program has them bound to P.RepresentativeSizes, which every
/// decision (index ranges aside), prediction and comment uses; the kernels
/// take them as arguments and the launch functions as parameters, computing
/// grids and checking `where` constraints and counts at launch. Tables
/// (permutations, seed 001's 16-bit planes) go in the source or the side
/// file, by size. Throws UserError, located, for what CUDA cannot express
/// (vector arithmetic, a block of more than 1,024 threads, shared arrays
/// beyond the architecture), and std::logic_error when a kernel of
/// P.Program has no analysis.
CompileResult compileToCuda(const PipelineResult &P, const CodegenOptions &Opts);

/// The side file compileToCuda(P, Opts) will plan, from P.Program alone
/// (no analysis needed): a caller may write it while the pipeline's analyze
/// pass runs (PipelineOptions::BeforeAnalyze, with the program every
/// earlier pass made), and compare it with CompileResult::SideFile at the
/// end (a table planned later makes them differ). Throws what compileToCuda
/// throws before it emits (an unknown architecture, shared arrays beyond
/// it, a kernel still `schedule`d).
SideFile planSideFile(const PipelineResult &P, const CodegenOptions &Opts);

/// A C++ identifier from S: "transpose-tiled.cu" -> "transpose_tiled_cu";
/// keywords and names starting with a digit get a suffix or prefix.
std::string cppIdentifier(const std::string &S);

} // namespace bankwise::codegen
