// `schedule colored` (issue [3], seed 003 Sec. IV applied to any kernel): a
// kernel whose body is one copy between shared arrays, dst[f(t)] = src[g(t)],
// with f and g one-to-one over the n threads, is rewritten so thread k
// copies the pair of König color k / w, lane k mod w:
//
//   dst[D(tid)] = src[S(tid)]     S = schedule_src(P), D = schedule_dst(P),
//                                 P(g(t)) = f(t)
//
// Every warp then reads w distinct banks of src and writes w distinct banks
// of dst, whatever f and g are.
//
// The same construct on a copy between global arrays (seed 001 Secs. V-VII)
// becomes the scheduled offline permutation of global memory: P(g(t)) =
// f(t), the sm_90 shape chooseSm90Shape(n) and scheduleHmmPermutation(P,
// shape), whose three passes (row, strip, row; each coalesced and
// conflict-free) replace the kernel as three ordinary kernels K_pass0..2
// reading the schedule's planes (hmm_src / hmm_dst tables), run in order by
// `launch K = K_pass0, K_pass1, K_pass2`.
//
// `schedule bits` on a global copy whose map is a bit permutation (BPC;
// asBitPermutation) replaces the kernel, under its name, by one tiled pass
// (bitPermutationKernel, detail/ScheduleKernels.h): no schedule, no tables.
//
// `schedule auto` on a global copy weighs scatter (dst[P(tid)] =
// src[tid]), gather (dst[tid] = src[inverse(P)(tid)]), bits and colored by
// the calibrated model of analysis/models/StrategyModel.h, computed on P,
// and lowers the kernel as the fastest.
#pragma once

#include "analysis/models/Permutation.h"
#include "analysis/models/StrategyModel.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/schedule/HmmSchedule.h"
#include "ir/Program.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bankwise {

/// The lowering of a global `schedule colored` copy to seed 001's three
/// passes: the schedule, and the kernels the program now runs instead.
struct HmmLowering {
  HmmShape Shape;
  std::int64_t ElemBytes = 4;
  std::shared_ptr<const HmmSchedule> Schedule;
  /// The pass kernels, in order; the launch that runs them has the
  /// kernel's name.
  std::vector<std::string> PassKernels;
  /// The offline schedule's wall time on this machine's CPU (once per P;
  /// the passes then run any number of times).
  double ScheduleSeconds = 0;
};

/// The one-pass lowering of a global `schedule bits` copy whose map is a
/// BPC permutation: the kernel is replaced, under its name, by one tiled
/// kernel (32 x 32 shared tile, blocks of 32 x 8 threads, n / 1024 blocks)
/// whose every warp reads and writes 32 consecutive elements.
struct BitLowering {
  BitPermutation Bpc;
};

struct ColoredScheduleReport {
  std::string Kernel;
  SourceLoc Loc;
  std::string Src, Dst; ///< the arrays copied
  std::int64_t N = 0;   ///< elements and threads
  std::int64_t W = 0;   ///< banks
  std::string PermName, SrcName, DstName; ///< the permutations added (shared copies)
  /// Set for a global copy: the kernel was replaced by these passes.
  std::shared_ptr<const HmmLowering> Hmm;
  /// Set for a global `schedule bits` copy: the kernel is now one tiled pass.
  std::shared_ptr<const BitLowering> Bits;
  /// Set for a `schedule auto` copy: every strategy's estimate and the
  /// choice (Hmm or Bits is also set when it chose colored or bits; a
  /// scatter or gather is the kernel rewritten in place).
  std::shared_ptr<const StrategyChoice> Auto;
};

/// What the pass made: the program with every `schedule colored` kernel
/// rewritten, and what it did to each.
struct ColoredScheduling {
  ir::Program Program;
  std::vector<ColoredScheduleReport> Reports;
};

/// Prog with every `schedule colored` kernel that copies between shared
/// arrays rewritten, adding the permutations P, S and D it uses; a copy
/// between global arrays replaced by seed 001's three pass kernels and a
/// launch of them (Hmm set); a `schedule bits` copy replaced by its one
/// tiled pass (Bits set). Prog itself is unchanged.
/// Throws UserError, located, when a body is not one copy, the arrays are
/// not one-dimensional with n elements, the map is not one-to-one (naming
/// two threads), a global copy's element is not 4 bytes or no sm_90 shape
/// fits n. Seed 001's schedules go to Plan (the pipeline's, which later
/// stages read); without one, to a plan of the pass's own, which the
/// reports' HmmLowering::Schedule keep alive.
ColoredScheduling applyColoredSchedules(const ir::Program &Prog, SchedulePlan *Plan = nullptr);

/// For a `schedule auto` copy (R.Auto set): "schedule auto of 'K':
/// b[P(i)] = a[i] for n = N by <describe(choice)>".
std::string autoScheduleNote(const ColoredScheduleReport &R);

/// For a global colored copy (R.Hmm set): "the offline schedule of 'K'
/// took 1.42 s of wall time (once per P)", and under `schedule auto` the
/// runs after which it is repaid against the fastest one-pass strategy.
/// A wall time: the drivers print it on stderr, never in their outputs.
std::string scheduleCostNote(const ColoredScheduleReport &R);

} // namespace bankwise
