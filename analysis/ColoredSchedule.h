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
#pragma once

#include "ir/Program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bankwise {

struct ColoredScheduleReport {
  std::string Kernel;
  SourceLoc Loc;
  std::string Src, Dst; ///< the arrays copied
  std::int64_t N = 0;   ///< elements and threads
  std::int64_t W = 0;   ///< banks
  std::string PermName, SrcName, DstName; ///< the permutations added
};

/// Rewrites every `schedule colored` kernel of Prog in place, adding the
/// permutations P, S and D it uses. Throws UserError, located, when a body
/// is not one shared-to-shared copy, the arrays are not one-dimensional with
/// n elements, or the map is not one-to-one (naming two threads).
std::vector<ColoredScheduleReport> applyColoredSchedules(ir::Program &Prog);

} // namespace bankwise
