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
//
// A program with runtime sizes is bound at representative sizes before this
// pass, and a layout good at those can be poor at others (a skewed tile's
// conflicts follow R mod 8). Given the unbound program and size samples, a
// candidate's cost is pooled over the samples: its wavefronts (congestion)
// and warp executions at each sample, summed. The samples layoutSizeSamples
// makes: the representative sizes, and each runtime param in turn at the 31
// values above its representative one (every residue mod 32, where its
// `where` allows), the others representative. The choice is then the
// candidate whose worst sample (cost per warp access) is lowest, and among
// equals the lowest pooled cost.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "ir/Bind.h"
#include "ir/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

struct LayoutCandidate {
  ir::Layout Layout;
  std::string Name;   ///< "pad(1)", "rap(seed: 1)"
  double Cost = 0;    ///< summed over the array's sites (and the size samples)
  double Worst = 0;   ///< over size samples: the highest cost per warp access at one sample
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
  /// Where the costs were measured: "C = 64, R = 64", or the samples
  /// ("C = 64, R = 64, and each of C, R at 31 more values (every residue mod 32)").
  std::string MeasuredAt;
  std::size_t Samples = 0; ///< size samples measured (0: the bound sizes alone)
};

struct LayoutChoiceOptions {
  std::uint64_t Seed = 1;  ///< seed of a chosen RAP, recorded in its layout
  AnalysisOptions Analysis;
  /// With runtime sizes: the program before binding, and the sizes to
  /// measure each candidate at (pooled). Empty: the bound program alone.
  const ir::Program *Unbound = nullptr;
  std::vector<ir::Bindings> SizeSamples;
  std::string SamplesText; ///< LayoutDecision::MeasuredAt for the samples
  /// Threads measuring the size samples (0: the run's setting); the choice
  /// does not depend on it.
  unsigned Threads = 0;
};

/// The size samples of layout auto for Unbound's runtime params around
/// Representative (see above), and their description. Samples that break a
/// `where`, or whose arrays hold over 4 times the elements they hold at the
/// representative sizes, are left out.
std::vector<ir::Bindings> layoutSizeSamples(const ir::Program &Unbound, const ir::Bindings &Representative,
                                            std::string *Text);

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
