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
// keeps the kernel as written and plans the scheduled offline permutation of
// global memory instead: P(g(t)) = f(t), the sm_90 shape chooseSm90Shape(n)
// and scheduleHmmPermutation(P, shape), whose three passes (row, strip, row;
// each coalesced and conflict-free) codegen emits in place of the kernel.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/schedule/HmmSchedule.h"
#include "ir/Program.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bankwise {

/// The access sites of one generated pass kernel, in the order of its code:
/// (1) load of the row (strip) and its store into the shared buffer; (2)-(3)
/// the load of s[j] and the gather buf[s[j]]; the load of d[j] and the
/// scatter buf[d[j]]; (4) the read of buf[j] and the store of the row.
enum HmmSiteIndex : int {
  HmmInRead, HmmBufWrite, HmmSRead, HmmBufGather, HmmDRead, HmmBufScatter, HmmBufRead, HmmOutWrite,
  HmmNumSites
};

/// One pass of a planned seed 001 permutation: its hmmPassCosts line and the
/// access sites of the kernel codegen emits for it (HmmSiteIndex order).
struct HmmPassPlan {
  HmmPassCost Cost;
  std::uint32_t Threads = 0;   ///< CUDA threads per block: min(1024, words)
  std::uint32_t PerThread = 0; ///< words per thread: ceil(words / Threads)
  std::vector<AccessSiteReport> Sites;
};

/// The lowering of a global `schedule colored` copy to seed 001's three passes.
struct HmmLowering {
  HmmShape Shape;
  std::int64_t ElemBytes = 4;
  std::shared_ptr<const HmmSchedule> Schedule;
  std::vector<HmmPassPlan> Passes; ///< three
  /// Names of the index planes in sites and tables: colored_K_s0 ... d2.
  std::string planeName(int Pass, bool D) const { return PlanePrefix + (D ? "_d" : "_s") + std::to_string(Pass); }
  std::string PlanePrefix;
  std::string BufferName = "bw_buf"; ///< the block's shared buffer
};

struct ColoredScheduleReport {
  std::string Kernel;
  SourceLoc Loc;
  std::string Src, Dst; ///< the arrays copied
  std::int64_t N = 0;   ///< elements and threads
  std::int64_t W = 0;   ///< banks
  std::string PermName, SrcName, DstName; ///< the permutations added (shared copies)
  /// Set for a global copy: the kernel stays as written (Schedule still
  /// Colored) and codegen emits these three passes instead.
  std::shared_ptr<const HmmLowering> Hmm;
};

/// What the pass made: the program with every `schedule colored` kernel
/// rewritten, and what it did to each.
struct ColoredScheduling {
  ir::Program Program;
  std::vector<ColoredScheduleReport> Reports;
};

/// Prog with every `schedule colored` kernel that copies between shared
/// arrays rewritten, adding the permutations P, S and D it uses; a copy
/// between global arrays planned as seed 001's three passes (Hmm set; the
/// kernel is left as written, Schedule Colored). Prog itself is unchanged.
/// Throws UserError, located, when a body is not one copy, the arrays are
/// not one-dimensional with n elements, the map is not one-to-one (naming
/// two threads), a global copy's element is not 4 bytes or no sm_90 shape
/// fits n.
ColoredScheduling applyColoredSchedules(const ir::Program &Prog);

/// True for a kernel applyColoredSchedules planned as seed 001's passes.
inline bool isHmmScheduled(const ir::Kernel &K) {
  return K.Schedule == ir::KernelSchedule::Colored;
}

} // namespace bankwise
