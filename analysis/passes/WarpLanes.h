// The lanes of an access site's warp executions, thread by thread: which
// element each lane of a warp names there, for a sample of warps, so that a
// report can draw a warp (lanes against banks) and count its cost under any
// layout of the array. The per-site figures of KernelAnalysis.h count warps
// by class without visiting them; this walk visits a few, concretely.
//
//   shared t: f32[32][32] layout raw
//   t[tx][2 * ty] = ...        // threads (tx, 0): elements tx*32 + 0
//
// A thread runs the kernel's statements with concrete values (`for` and
// `while` loops at most 64 trips; an `if`, a loop bound or a `while`
// condition it cannot evaluate ends the walk of its block, and the
// enclosing block goes on); its k-th arrival at the site is its lane's part
// of the warp's k-th execution.
#pragma once

#include "analysis/passes/AtomicIssue.h"
#include "analysis/models/Layout.h"
#include "analysis/models/MemoryModel.h"
#include "ir/Bind.h"
#include "ir/Program.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bankwise {

/// A lane's element: its row-major logical index, NoAccess when the lane
/// does not reach this execution, UnknownElement when its index reads data.
inline constexpr std::int64_t UnknownElement = -2;

/// One warp execution of a site: the element of each of its 32 lanes.
struct WarpLanes {
  std::array<std::int64_t, 3> Block{0, 0, 0};
  std::int64_t Warp = 0; ///< in its block
  std::int64_t Trip = 0; ///< the lanes' Trip-th arrival at the site
  std::array<std::int64_t, 32> Elems{};
  bool operator==(const WarpLanes &) const = default;
};

/// A sample of a site's warp executions with what is needed to cost them.
struct SiteLanes {
  std::vector<std::int64_t> Shape; ///< the array's
  std::int64_t ElemBytes = 4;
  bool Shared = false;
  bool Atomic = false;
  AtomicIssue Issue = AtomicIssue::PerLane; ///< how nvcc issues the atomic
  bool Store = false; ///< the site is an assignment's target
  LayoutFn Layout; ///< the array's, as the program declares it
  std::vector<WarpLanes> Executions;
  /// Which warps were walked, in words: "every warp of block (0, 0, 0)
  /// and of block (7, 0, 0), the first 32 executions of each".
  std::string Sample;
  bool Unknown = false; ///< some lane's index could not be evaluated
  bool operator==(const SiteLanes &) const = default;
};

struct LaneSampleOptions {
  std::int64_t MaxWarpsPerBlock = 8;
  std::int64_t MaxTrips = 32;
  /// Walk the last block of the grid too (block indices matter in guards
  /// and global addresses).
  bool LastBlock = true;
};

/// The row-major elements that thread Thread (flat in its block) of block
/// Block of K reaches at Node, in order, at most MaxHits; UnknownElement
/// for an index the walk cannot evaluate. Sizes gives Prog's runtime params
/// (the extents stay Prog's: bind them for elements of a multi-dimensional
/// array of runtime extents). Bounds are not checked.
std::vector<std::int64_t> threadSiteElements(const ir::Program &Prog, const ir::Kernel &K, const ir::ArrayRead *Node,
                                             const std::array<std::int64_t, 3> &Block, std::int64_t Thread,
                                             const ir::Bindings &Sizes, std::size_t MaxHits);

/// Samples Node's warp executions in K of Prog (runtime params at Sizes):
/// every warp (up to Opts.MaxWarpsPerBlock) of block 0 and of the grid's
/// last block, each lane's first Opts.MaxTrips arrivals. Never throws for a
/// program's own errors: what the walk cannot evaluate is left out.
SiteLanes sampleSiteLanes(const ir::Program &Prog, const ir::Kernel &K, const ir::ArrayRead *Node,
                          const ir::Bindings &Sizes, const LaneSampleOptions &Opts = {});

/// Element addresses of W's lanes under Layout: Layout.map of each lane's
/// index (NoAccess for idle lanes, for unknown elements and for elements
/// outside S.Shape).
std::vector<Address> laneAddresses(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout);

/// The sm_90 cost of W under Layout as the analysis counts it: wavefronts
/// on shared memory (an atomic's lanes counted per bank with repeats),
/// sectors on global memory.
std::int64_t warpCost(const SiteLanes &S, const WarpLanes &W, const LayoutFn &Layout);

/// The execution of S with the largest warpCost under Layout (the first of
/// equals); nullopt when S has none.
std::optional<std::size_t> worstExecution(const SiteLanes &S, const LayoutFn &Layout);

/// A site's sampled warps under one layout of its array: every figure the
/// HTML report (report/SiteFigures.h) draws of it, computed here so that
/// the report only lays them out.
struct LaneDrawing {
  /// The execution with the largest warpCost (worstExecution); nullopt when
  /// the sample has none, and then the fields below but the grid are empty.
  std::optional<std::size_t> Worst;
  /// The worst execution's lanes' byte addresses: -1 for a lane that does
  /// not access, -2 for one whose element is not known.
  std::array<std::int64_t, 32> ByteAddrs{};
  std::int64_t Cost = 0; ///< the worst execution's warpCost
  /// How many executions of the sample have each warpCost, cost ascending.
  std::vector<std::pair<std::int64_t, std::int64_t>> Costs;
  /// The bank (4-byte word mod 32) of each element of the array's first
  /// rows, row-major, GridCols a row: up to 8 rows of up to 32 columns (a
  /// one-dimensional array in rows of 32, -1 past its end); empty for an
  /// array without a shape.
  std::int64_t GridCols = 0;
  std::vector<std::int64_t> GridBanks;
  bool operator==(const LaneDrawing &) const = default;
};

/// S's sample drawn under Layout.
LaneDrawing drawLanes(const SiteLanes &S, const LayoutFn &Layout);

} // namespace bankwise
