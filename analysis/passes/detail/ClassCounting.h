// The parts of the class-counting run (Analyzer::ClassCountingRun, the fast
// path: counting warps by class) that its two source files share: the
// symbolic runs' output (made in ClassCounting.cpp), a class's costs and the
// time walk (ClassCosts.cpp), which the run and its counting in
// ClassCounting.cpp use. Internal: nothing
// outside analysis/ includes it.
#pragma once

#include "analysis/passes/detail/Analyzer.h"

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bankwise::kernel_analysis {

/// What the fast path's symbolic runs leave (ClassCountingRun::runWarps):
/// per run (a warp position, or the one run of a warp family) its tree of
/// accesses, loops and barriers and its variables' domains.
struct Analyzer::SymbolicRuns {
  std::optional<WarpFamily> Family; ///< the family they ran as; nullopt: one run per warp position
  std::vector<std::vector<TraceNode>> Trees;
  std::vector<std::vector<VarDomain>> DomainsOf;
};

/// The distances of a per-lane choice's arms (Template::Sel) at which the
/// two groups of its lanes lie near each other, NearLo..NearHi, and the
/// representative far distance FarBase (ClassCosts::selKeyAt).
struct SelWindow {
  std::int64_t NearLo = 0, NearHi = 0, FarBase = 0;
};

/// Every model's cost of a template's warp execution by class: the residue
/// of its base address modulo Period and its active lanes (and, for a
/// per-lane choice, which arm each lane takes and how far apart the arms
/// are). Cached within the analysis, and across the analyses of a thread.
class Analyzer::ClassCosts {
public:
  // Costs of one template at one residue of its base address and one mask:
  // every model's cost is invariant under shifts by whole periods.
  struct CacheEntry {
    AccessCosts Costs;
    std::int64_t TimeK = 0;
    double ExpectedHalf = 0; ///< guarded templates: expectedHalfLaneCongestion
    /// Costs are the class's; false when data decides them (an unknown
    /// address, or a uniform-data one whose costs depend on its shift:
    /// Costs then hold each model's worst).
    bool Exact = true;
  };

  /// Throws NotAffine when a per-lane choice's lanes spread too far.
  ClassCosts(const Analyzer &Owner, std::int64_t CostPeriod);
  /// The costs of template TId (no per-lane choice) at a residue and mask.
  CacheEntry costsFor(int TId, std::int64_t Residue, Mask Active);
  /// The class key's last slot for template TId's per-lane choice, where
  /// the lanes of Chosen take its first arm and the variables are At.
  std::int64_t selKeyAt(std::size_t TId, Mask Chosen, const std::vector<std::int64_t> &At) const;
  /// The costs of template TId with a per-lane choice at a residue, mask,
  /// lanes on the first arm (Chosen) and choice key (selKeyAt).
  CacheEntry selCostsFor(std::size_t TId, std::int64_t Residue, Mask Active, Mask Chosen, std::int64_t Key);

  /// The shift, in elements, under which every site's warp costs repeat.
  const std::int64_t Period;

private:
  // Warp costs depend only on the lanes' addresses (the template's lane
  // offsets plus the residue), the element size and the memory. Templates
  // with equal offsets share one group of entries (by residue, then mask);
  // the entries are also kept across analyses on this thread, since the
  // all-sizes analysis runs the same templates at hundreds of sizes.
  struct LaneHash {
    std::size_t operator()(const LaneArr &V) const {
      std::uint64_t H = 0xCBF29CE484222325ULL;
      for (std::int64_t X : V)
        H = (H ^ static_cast<std::uint64_t>(X)) * 0x100000001B3ULL;
      return static_cast<std::size_t>(H);
    }
  };
  struct PairHash {
    std::size_t operator()(const std::pair<std::int64_t, std::int64_t> &P) const {
      return static_cast<std::size_t>(static_cast<std::uint64_t>(P.first) * 0x9E3779B97F4A7C15ULL ^
                                      static_cast<std::uint64_t>(P.second));
    }
  };
  /// Per residue: (mask, costs) entries, searched linearly (few masks);
  /// Half is the expected congestion with each lane on at 1/2 (guarded
  /// templates; < 0 until one asks: a bitonic network's swaps are
  /// hundreds of guarded templates, at hundreds of sizes).
  struct Costed {
    Mask M = 0;
    AccessCosts C;
    double Half = -1;
  };
  using Group = std::vector<std::vector<Costed>>;
  /// The groups kept across analyses on this thread: the lane offsets'
  /// ids, the groups by (lane id, shape), and how many entries they hold.
  struct Kept {
    std::unordered_map<LaneArr, std::int64_t, LaneHash> LaneIds;
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, Group, PairHash> Groups;
    std::size_t Entries = 0;
  };
  static Kept &kept();

  /// costsFor of a uniform-data template (Val::DataUniform), by mask: its
  /// costs do not depend on the class's residue.
  CacheEntry uniformDataEntry(int TId, Mask Active);
  /// Finds template TId's group, its lane offsets and their shift.
  void joinGroup(int TId);
  /// Addrs: the lanes' addresses of a class.
  void fillAddrs(const LaneArr &Lanes0, std::int64_t Residue, Mask Active);

  const Analyzer &An;
  // Uniform-data templates (Val::DataUniform) by (template, mask): their
  // costs do not depend on the class's residue.
  std::unordered_map<std::pair<std::int64_t, std::int64_t>, CacheEntry, PairHash> UniformDataEntries;
  std::vector<Group *> GroupOfTemplate;
  // A template's lane offsets less lane 0's, the cache's key, and that
  // shift (mod Period), added to the residue: a lane part such as
  // ty * pitch + tx (ty uniform in the warp) is then one key at every size.
  std::vector<const LaneArr *> LanesOfTemplate;
  std::vector<std::int64_t> ShiftOfTemplate;
  std::vector<Address> Addrs;
  /// Per template with a per-lane choice: its window of near distances.
  std::vector<SelWindow> SelNear;
  std::map<std::tuple<std::size_t, std::int64_t, Mask, Mask, std::int64_t>, CacheEntry> SelEntries;
};

/// The fast path's time walk (step 3 of ClassCountingRun::run): the simulator needs every
/// warp's access in order, round by round, phase by phase (a barrier ends
/// one); each access is priced by its class.
class Analyzer::TimeWalk {
public:
  /// AtomsOf: per template, the guard atoms its guard reads.
  TimeWalk(const Analyzer &Owner, ClassCosts &Costs, const std::vector<std::vector<int>> &AtomsOf);
  /// Each warp position's accesses by phase, from the runs' trees.
  void flattenPhases(const SymbolicRuns &Runs);
  /// The simulator's figures over every warp of the grid.
  SimResult simulate();

private:
  struct Flat {
    int Template;
    std::vector<std::int64_t> VarVals; // by var id (block vars left 0)
  };
  struct Next {
    std::int32_t Cursor = 0; ///< next flat entry to look at
    bool Has = false;
    bool Shared = false;
    std::int64_t K = 0;
    int Requests = 0;
  };
  /// Moves warp Wp's cursor to its next access in phase Ph with an active
  /// lane, and prices it (Has: there is one).
  void advance(std::int64_t Wp, std::size_t Ph);
  /// The time cost of flat access F of template T (Vals at its variables)
  /// on the lanes of Active.
  std::int64_t timeCostOf(const Flat &F, const Template &T, Mask Active);
  /// Phase Ph's rounds on the simulator, each warp's accesses in order.
  void simulatePhase(Simulator &Sim, std::size_t Ph);

  const Analyzer &An;
  ClassCosts &Costs;
  const std::vector<std::vector<int>> &AtomsOf;
  std::vector<Mask> AtomMasks;
  std::vector<std::int64_t> Vals;
  /// By warp position, by phase: its accesses in order.
  std::vector<std::vector<std::vector<Flat>>> Phases;
  const std::int64_t NumWarps;
  std::vector<Next> Warps;
};

} // namespace bankwise::kernel_analysis
