// Nsight Compute's source page, CUDA lines with their SASS
// (`ncu --import R.ncu-rep --csv --page source --print-source cuda,sass`),
// read into per-kernel, per-CUDA-line sums of the memory instructions'
// counters. gpu-verify compares those sums with the model's per-site
// predictions (SiteMatch.h).
//
// The export has one section per kernel function:
//
//   "File Path","/path/x.cu"
//   "Function Name","ns::kernel(const float *, float *)"
//   "Line No","Source","Address","Source",...,"Instructions Executed",...
//   "427","tile[...] = in[...];","-","-",...          <- a CUDA line
//   "","","0x7ff8b97a00b0","      LDG.E R0, ...",...   <- one of its SASS instructions
//
// Column sets can differ between sections, so every section is read
// through its own header. Two quirks of ncu 2025.3 are handled here: in
// files with several kernels, each SASS instruction is listed twice under
// the same CUDA line (blocks separated by "..." rows are repeated), and an
// instruction that nvcc inlined from a helper can be listed under the
// helper's line and again under the caller's. An instruction is counted
// once per address; the CUDA lines it was listed under are all kept, so the
// matcher can choose the line that carries site markers.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankwise::verify {

/// A malformed export: the message names the CSV line.
class NcuSourceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Space { Shared, Global, Local, Other };
enum class Op { Load, Store, Atomic, Other };

const char *spaceName(Space S);
const char *opName(Op O);

/// One SASS memory instruction (Address Space not "-").
struct MemoryInstruction {
  std::string Address;
  std::string Sass;            ///< the instruction text, trimmed
  std::vector<int> Lines;      ///< the CUDA lines it is listed under, first first
  Space AddressSpace = Space::Other;
  Op Operation = Op::Other;
  std::string SpaceText, OpText; ///< as ncu wrote them
  double Executed = 0;           ///< "Instructions Executed" (warp level)
  double SharedWavefronts = 0;   ///< "L1 Wavefronts Shared"
  double GlobalSectors = 0;      ///< "L2 Theoretical Sectors Global"
  double TagRequests = 0;        ///< "L1 Tag Requests Global" (informational)
  /// For an instruction of a header section merged into the kernel's own
  /// (an atomicAdd's ATOMS, listed under sm_20_atomic_functions.hpp:112):
  /// "file:line" where ncu listed it; Lines then holds the kernel line
  /// whose instructions precede it by address.
  std::string InlinedFrom;
};

/// One kernel function's section.
struct FunctionSource {
  std::string FilePath;
  std::string Signature; ///< "ns::kernel(const float *, float *)"
  std::string Name;      ///< "kernel"
  std::map<int, std::string> LineText;
  std::vector<MemoryInstruction> Memory; ///< in order of first listing
  std::size_t SassRows = 0, DuplicateRows = 0;
  /// Every SASS row's address and the CUDA line it is first listed under,
  /// sorted by address: where an inlined header's instructions sit.
  std::vector<std::pair<std::uint64_t, int>> RowLines;
  /// Header sections merged into this one (mergeInlinedSections), as
  /// "sm_20_atomic_functions.hpp"; their instructions carry InlinedFrom.
  std::vector<std::string> MergedFiles;
};

struct NcuSource {
  std::vector<FunctionSource> Functions;
  /// The first function whose short name is \p Name, or nullptr.
  const FunctionSource *find(std::string_view Name) const;
};

/// Sums over the memory instructions of one (CUDA line, space, operation).
struct LineGroup {
  int Line = 0;
  Space AddressSpace = Space::Other;
  Op Operation = Op::Other;
  int Instructions = 0; ///< distinct SASS instructions
  int WidestBits = 0;   ///< the widest access of its instructions (accessBits)
  double Executed = 0, SharedWavefronts = 0, GlobalSectors = 0, TagRequests = 0;
  std::vector<std::string> Sass;
};

/// The function's memory instructions summed per (line, space, op); each
/// instruction is counted on its first listed line.
std::vector<LineGroup> groupByLine(const FunctionSource &F);

/// Parses the cuda,sass (or sass-only) CSV export. Throws NcuSourceError.
/// A kernel whose code nvcc inlined from a header (CUDA's atomics are
/// functions in sm_20_atomic_functions.hpp) has a section per file; those
/// are merged into the section of the kernel's own .cu file (see
/// mergeInlinedSections). Sections of one function and one file stay apart
/// (a kernel profiled twice).
NcuSource parseNcuSource(std::string_view Text);

/// Merges each function's sections from other files into its section from
/// a ".cu" file: a merged memory instruction is attributed to the CUDA
/// line of the nearest SASS row before it by address (after it, when none
/// is before), which is the call's line: nvcc emits a call's argument
/// arithmetic, then the inlined body. Done by parseNcuSource.
void mergeInlinedSections(NcuSource &Source);

/// The export cut down to what parseNcuSource reads (for test fixtures): the
/// section rows, the header and CUDA line rows restricted to the columns
/// used, and only the memory instructions' SASS rows (duplicates kept).
std::string trimNcuSource(std::string_view Text);

/// The mnemonic of a SASS instruction, after an optional "@P0" / "@!P0"
/// guard: "@!P1  LDS.64 R12, [R5]" -> "LDS.64"; empty for none.
std::string_view sassMnemonic(std::string_view Sass);

/// Whether a SASS instruction carries a guard predicate ("@P0 STS ...").
bool sassPredicated(std::string_view Sass);

/// Bits one lane moves in a SASS memory instruction, from its mnemonic:
/// "LDS.64" 64, "@!P0 STG.E.128" 128, "LDG.E.U8" 8, ".S16"/".U16" 16, else 32.
int accessBits(std::string_view Sass);

/// S without leading and trailing spaces, tabs and carriage returns.
std::string trimSpaces(std::string_view S);

/// "ns::kernel(const float *, float *)" -> "kernel"; "void ns::k<int>(int)" -> "k".
std::string shortFunctionName(std::string_view Signature);

/// Splits one CSV record (RFC 4180 quoting, "" inside quotes). Throws
/// NcuSourceError on an unterminated quote.
std::vector<std::string> splitCsvRecord(std::string_view Line, std::size_t LineNo = 0);

} // namespace bankwise::verify
