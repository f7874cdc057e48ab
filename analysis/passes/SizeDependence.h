// How each access site depends on each runtime size (issue [5]).
//
// A runtime size p reaches a site either through its value (an index, a
// pitch, a layout argument, a lane-dependent guard, the start or step of a
// loop, a local or a stored value computed from p, ...) or only as a bound:
// a warp-uniform guard `e < p` around the site (e free of p), the end of a
// warp-uniform loop around it, or a grid dimension that grows with p. A
// size that only bounds a site can only add warp executions as it grows,
// each with the (residue, mask) class it has at every larger size too, so
// the site's figures over all sizes are its figures at a large value, the
// same for every residue of p. analyzeAllSizes enumerates joint residue
// classes only of the sizes that reach a site through their values, e.g.
// for the any-shape transpose `in[r][c]` under `r < R && c < C`: C through
// its value (the pitch; a lane-dependent guard), R only as a bound.
#pragma once

#include "ir/Program.h"

#include <string>
#include <vector>

namespace bankwise {

struct SiteSizeDependence {
  SourceLoc Loc;
  std::string Array;
  bool IsWrite = false;
  /// The access in the Prog given to siteSizeDependence.
  const ir::ArrayRead *Node = nullptr;
  /// Base runtime params (no `= expr`), in declaration order.
  std::vector<std::string> ThroughValue, BoundOnly;
};

/// Per access site of K (shared and global arrays, in the order and with the
/// locations of analyzeKernel's reports: sorted by line and column, reads of
/// an index before the access they index), which of Prog's base runtime
/// params reach it through their value and which only bound it. Derived
/// params (`param Mid = M - 10`) count as values of the params they use.
std::vector<SiteSizeDependence> siteSizeDependence(const ir::Program &Prog,
                                                   const ir::Kernel &K);

} // namespace bankwise
