// Lowering CUDA kernels into bankwise's IR (issue [7]), so `bankwise lint`,
// `analyze` and `compile` share one analysis. In: a .cu file; out: an
// ir::Program with one kernel per __global__ function (per instantiation of
// a template), and, beside it, what the IR cannot say: source names, the
// launch configuration's origin, and a located note for everything the
// lowering did not understand (such accesses are left out of the IR, never
// guessed).
//
// What is understood: static and `extern` shared arrays, global pointer
// parameters, element types of 1..16 bytes (float2/float4/int4/double2 and
// reinterpret_cast to them), threadIdx/blockIdx/blockDim/gridDim, constants
// (macros, constexpr, template arguments: Clang evaluates them), integer
// kernel parameters (runtime params of the IR, or bound by -D), integer
// locals, pointer locals into known arrays, for loops with an affine
// induction variable (others with constant bounds are unrolled), if/else,
// early `return`, __syncthreads(), atomics (as writes) and __device__
// functions (inlined at their calls).
#pragma once

#include "frontend/CudaFrontend.h"
#include "ir/Program.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bankwise::frontend {

using Dim3 = std::array<std::int64_t, 3>;

struct LowerOptions {
  CudaOptions Cuda;
  /// --block / --grid: every kernel's launch, over what the file says.
  std::optional<Dim3> Block, Grid;
  /// -D NAME=VALUE: values of integer kernel parameters (else runtime).
  std::map<std::string, std::int64_t> Defines;
  /// -p: a directory with compile_commands.json; its -I, -D, -U, -isystem,
  /// -include and -std= arguments for the file are added to Cuda's.
  std::string BuildDir;
  /// --as-written: every access as the source writes it, without nvcc
  /// -O3's merge of an unrolled loop's consecutive shared accesses into
  /// vector ones (what `nvcc -Xcicc -O1 -Xptxas -O0` keeps).
  bool AsWritten = false;
};

/// Where a kernel's block shape came from.
enum class LaunchSource { CommandLine, LaunchSite, LaunchBounds, Implied };

/// The memory an access the lint could not analyze goes to, as far as the
/// source shows it (issue [13] item 6 counts coverage by space): a
/// `__shared__` array, a `__global__` kernel's pointer parameter or a
/// `__device__` variable, other memory (`__constant__`, a local variable
/// or array), or a pointer whose origin the lint did not follow.
enum class AccessSpace { Shared, Global, Other, Unknown };

/// Where an AccessSpace is kept: the unanalyzed note's location and text.
std::string accessNoteKey(const SourceLoc &L, const std::string &Message);

/// A static shared array as the source declares it, for `--fix`.
struct SharedArraySource {
  std::string IrName;
  std::string SourceName;
  /// Every access to the array was lowered into the IR, none through a
  /// pointer, a cast or an unknown index: padding it is provably safe.
  bool AllUnderstood = true;
  /// The innermost dimension's size expression: where and how long (bytes).
  SourceLoc InnerDimLoc;
  unsigned InnerDimOffset = 0, InnerDimLength = 0;
  std::int64_t InnerDim = 0;
  /// The size involves a template parameter (one text, several values).
  bool InnerDimDependent = false;
};

struct LoweredKernel {
  std::string Name;    ///< in the IR (unique in the program)
  std::string Display; ///< as the source spells it: "reduce<256>"
  SourceLoc Loc;
  LaunchSource Launch = LaunchSource::Implied;
  /// How the launch was found, for diagnostics: "block (32, 8, 1) from the
  /// launch at t.cu:40:3", "assumed block (256, 1, 1): no launch found".
  std::string LaunchNote;
  /// The grid was assumed (no launch gives one the lint can read): with an
  /// assumed block (Launch == Implied) the launch's totals are not known.
  bool GridAssumed = false;
  /// What was not understood, located (accesses left out of the IR, loops
  /// analyzed for one iteration, ...).
  std::vector<Diagnostic> Notes;
  /// What nvcc -O3 is modelled to do to the source's accesses (an unrolled
  /// loop's consecutive shared loads merged into 16-byte ones), at each
  /// access whose figures it changes (the lint's bankwise-vector-merge).
  std::vector<Diagnostic> CompilerNotes;
  /// The space of each access-not-analyzed note, by accessNoteKey (keys of
  /// notes a trial lowering took back may remain; look up, do not iterate).
  std::map<std::string, AccessSpace> AccessNoteSpaces;
  /// IR array name -> the name the source gives it.
  std::map<std::string, std::string> SourceNames;
  std::vector<SharedArraySource> Shared;
  /// Sites lowered under a condition the lint could not evaluate: their
  /// figures assume every lane active, so they are worst cases.
  std::vector<SourceLoc> UncertainMask;
  /// IR arrays a `memcpy_async` copies into: written, where is not known.
  std::set<std::string> AsyncCopied;
  /// Locations inside system headers the kernel's IR holds, each with the
  /// kernel's statement that reached it (the first): diagnostics go there.
  std::vector<std::pair<SourceLoc, SourceLoc>> FromHeader;
  /// False when the kernel could not be lowered at all (Notes say why); it
  /// then has no IR kernel.
  bool Lowered = true;
};

struct LoweredFile {
  /// One IR kernel per LoweredKernel with Lowered set, in order.
  ir::Program Program;
  std::vector<LoweredKernel> Kernels;
  /// Clang's errors and warnings (host code may have errors; device code
  /// is still lowered).
  std::vector<Diagnostic> ClangDiags;
  /// False when Clang could not read the file at all (ClangDiags says why).
  bool Readable = true;
  /// Wall seconds in Clang (parsing, Sema) and in lowering its AST to the IR
  /// (bankwise lint --timing).
  double ClangSeconds = 0, LowerSeconds = 0;
};

/// Parses Path as CUDA for sm_90 and lowers every __global__ function of the
/// main file (and every instantiation of a __global__ template) into the
/// IR. Never throws for bad CUDA: problems become diagnostics.
LoweredFile lowerCudaFile(const std::string &Path, const LowerOptions &Opts = {});

/// The elements of a global pointer parameter's IR array: pointers have no
/// size, so they are modelled as this long (2^40 elements).
inline constexpr std::int64_t PointerExtent = std::int64_t(1) << 40;

} // namespace bankwise::frontend
