// Pairs the model's per-site predictions (`bankwise compile --report`) with
// Nsight Compute's per-CUDA-line counters (NcuSource.h) through the site
// markers codegen writes into the .cu:
//
//     // 14:5 write of 'tile' [pad(1)] (shared): sm_90 wavefronts 1; DMM congestion 1
//     // 14:28 read of 'in' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
//     tile[tile_layout.offset(ty + 8 * k, tx)] = in[...];
//
//     // Staging (added by codegen): 'a' is a shared parameter ...; the block copies it in ...
//     for (Index bw_i = bw_t; bw_i < 16; bw_i += 16)
//       a[bw_i] = a_global[bw_i];
//
// A block of comment lines with at least one marker names the sites of the
// statement that follows it (loop headers skipped; the statement runs to
// the first line that ends with ';'). Inside one statement, the sites of one
// (device space, load/store) share the SASS instructions ncu attributes to
// the statement's lines: a single site is compared by itself, several as a
// group (the sum of their predictions, weighted by warp executions).
#pragma once

#include "NcuSource.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise::verify {

struct Marker {
  enum class Kind { Site, StagingIn, StagingOut };
  Kind K = Kind::Site;
  int CuLine = 0;          ///< the comment's line in the .cu
  int BwLine = 0, BwCol = 0; ///< Site: the .bw location
  std::string Array, Access, Space; ///< Access "read"/"write"/"atomic"; Space as written (Site only)
};

struct Statement {
  std::string Kernel;
  int FirstLine = 0, LastLine = 0; ///< the statement's .cu lines (inclusive)
  std::vector<Marker> Markers;
};

struct CuMarkers {
  std::vector<Statement> Statements;
  std::vector<std::string> Kernels; ///< __global__ functions, in order
  std::vector<std::string> Warnings; ///< marker-like comments that could not be read
};

/// Reads the site markers of a generated .cu.
CuMarkers parseCuMarkers(std::string_view CuText);

/// The .cu with every line outside the __global__ functions blanked (line
/// numbers kept): what parseCuMarkers reads, for test fixtures.
std::string trimCu(std::string_view CuText);

struct PredictedSite {
  std::string Location; ///< "samples/x.bw:14:5", or "staging-in" / "staging-out"
  std::string Key;      ///< "14:5", or "staging-in" / "staging-out"
  std::string Array, Access, Space; ///< Space: where the accesses go (device_space when set)
  std::string Layout;
  bool AddedByCodegen = false, DataDependent = false, HasPrediction = false;
  double Min = 0, Max = 0, Mean = 0, WarpExecutions = 0;
  /// Exact: not data-dependent and predicted (docs/analysis.md: every other figure is exact; the
  /// mean over warp executions is then exact even where min != max).
  bool exact() const { return HasPrediction && !DataDependent; }
  bool uniform() const { return HasPrediction && Min == Max; }
  std::string label() const; ///< "14:5 read of 'in'" / "staging-in write of 'a'"
};

struct KernelPrediction {
  std::string Name;
  std::string ProgramKernel; ///< the .bw kernel it implements ("program_kernel": a pass of a schedule), else Name
  int ModelWarp = 32; ///< lanes per warp of the kernel's machine (dmm(w: 4) -> 4)
  std::vector<PredictedSite> Sites;
};

/// The kernels of a report JSON (bankwise compile --report). Throws
/// std::runtime_error when the JSON lacks what is needed.
std::vector<KernelPrediction> readReport(const nlohmann::json &Report);

enum class Verdict {
  Match,         ///< exact, measured == predicted
  Mismatch,      ///< exact, measured != predicted
  NotExact,      ///< data-dependent or without prediction: shown, not judged
  RemovedByNvcc, ///< loads with no instruction left (value unused)
  NotMeasured,   ///< no source counters for the kernel
  NotFound,      ///< a report site without a marker in the .cu (or the reverse)
  Unpredicted,   ///< measured memory instructions that no site predicts
};
const char *verdictName(Verdict V);

struct GroupResult {
  std::string Kernel;
  int FirstLine = 0, LastLine = 0; ///< .cu lines of the statement (0: none)
  Space AddressSpace = Space::Other;
  Op Operation = Op::Other;
  std::vector<PredictedSite> Sites;
  bool Exact = false, Uniform = false;
  double PredictedTotal = 0, PredictedExecutions = 0;
  bool Measured = false;
  double MeasuredTotal = 0, MeasuredExecutions = 0, MeasuredTagRequests = 0;
  int MeasuredInstructions = 0;
  std::vector<std::string> Sass;
  Verdict V = Verdict::NotExact;
  std::string Note;
  bool isGroup() const { return Sites.size() > 1; }
  double predictedPerRequest() const;
  double measuredPerRequest() const;
  const char *unit() const { return AddressSpace == Space::Shared ? "wavefronts" : "sectors"; }
};

struct KernelResult {
  std::string Name, ProgramKernel;
  bool Profiled = false;
  std::vector<GroupResult> Groups;
  std::vector<std::string> Notes;
  int exactSites() const;
  int exactSitesMatched() const;
  int exactSitesFailed() const; ///< mismatched, not found or not measured
  int removedSites() const;
};

/// Compares one kernel's predictions with its measured counters (\p Measured
/// null when ncu did not profile it).
KernelResult matchKernel(const KernelPrediction &K, const CuMarkers &Cu, const FunctionSource *Measured);

} // namespace bankwise::verify
