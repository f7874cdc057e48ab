// `layout auto`: per shared array, the layout with the lowest model cost over
// all its access sites, each weighted by how often it executes (issue [3]).
//
// Candidates: raw, pad(1), pad(2), xor, diagonal, rap(seed: s) (one-
// dimensional arrays: raw only). The cost of a candidate is the sum over the
// array's sites of (per-warp cost x warp executions): sm_90 wavefronts on a
// GPU target, DMM congestion on a memory machine. A data-dependent site
// counts at its worst case (every active lane in one bank) under the fixed
// layouts, and at the expected congestion of random indices under RAP, whose
// bound holds for any access pattern (seed 002 Thm. 2). Ties go to the
// cheapest address arithmetic (raw, pad, xor, diagonal, rap), then to the
// smallest footprint; candidates that overflow the target's shared memory
// are skipped.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "ir/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

struct LayoutCandidate {
  ir::Layout Layout;
  std::string Name;   ///< "pad(1)", "rap(seed: 1)"
  double Cost = 0;    ///< summed over the array's sites
  bool Fits = true;   ///< within the target's shared memory
};

struct LayoutDecision {
  std::string Array;
  std::vector<std::string> Kernels; ///< kernels whose sites were counted
  SourceLoc Loc;
  std::string Metric;               ///< "sm_90 wavefronts" or "DMM congestion"
  std::int64_t Executions = 0;      ///< warp executions of its sites
  std::vector<LayoutCandidate> Candidates;
  std::size_t Chosen = 0;           ///< index into Candidates
  std::uint64_t Seed = 0;           ///< RAP's seed
};

struct LayoutChoiceOptions {
  std::uint64_t Seed = 1;  ///< seed of a chosen RAP, recorded in its layout
  AnalysisOptions Analysis;
};

/// What the pass made: the program with every `layout auto` shared array
/// given its chosen layout, and why.
struct LayoutChoice {
  ir::Program Program;
  std::vector<LayoutDecision> Decisions;
};

/// Chooses the layout of every `layout auto` shared array of Prog by model
/// cost. Prog itself is unchanged: the candidates are measured on the pass's
/// own copy, which it returns. Deterministic for a given Options.Seed.
LayoutChoice chooseLayouts(const ir::Program &Prog, const LayoutChoiceOptions &Options = {});

} // namespace bankwise
