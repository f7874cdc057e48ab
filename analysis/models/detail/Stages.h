// Internal: which pipeline stage each lane of a warp access enters. Shared by
// the cost functions and the timing simulator.
#pragma once

#include "analysis/models/MemoryModel.h"

#include <cstdint>
#include <span>
#include <vector>

namespace bankwise::detail {

enum class StageRule {
  Bank,  ///< DMM: the j-th smallest distinct address of a bank enters stage j
  Group, ///< UMM: the j-th smallest distinct address group enters stage j
};

struct LaneKey {
  std::int64_t Major;
  Address Addr;
  std::int32_t Lane;
};

/// Fills Stage[lane] for active lanes (if Stage is non-empty) and returns the
/// number of stages the warp access occupies (0 when no lane is active).
std::int64_t assignStages(std::span<const Address> Lanes, std::int64_t W,
                          StageRule Rule, std::span<std::int32_t> Stage,
                          std::vector<LaneKey> &Scratch);

} // namespace bankwise::detail
