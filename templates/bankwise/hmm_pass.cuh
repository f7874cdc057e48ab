// bankwise/hmm_pass.cuh: the address arithmetic of seed 001's scheduled
// offline permutation of global memory (analysis/schedule/HmmSchedule.h),
// shared by the pass kernels codegen emits for `schedule colored` on a
// global copy and by the generic pass of scheduled_permutation.cuh.
//
// a and b are Rows x Cols row-major (n = Rows * Cols). A row pass moves row
// Blk (word j at Blk * Cols + j); the strip pass moves strip Blk of
// StripCols whole columns (word j at row j / StripCols, column
// Blk * StripCols + j % StripCols). Every decision (Cols, StripCols, the
// pass kind) is a template or function argument that codegen supplies.
//
// Holes: IsStrip, StripCols.
#pragma once

namespace bankwise {

/// Global word address of word J of block Blk of a pass.
template <bool IsStrip, int StripCols>
__device__ __forceinline__ unsigned long long hmmAddress(unsigned Blk, unsigned J,
                                                         unsigned long long Cols) {
  if constexpr (IsStrip)
    return (J / StripCols) * Cols + static_cast<unsigned long long>(Blk) * StripCols +
           J % StripCols;
  else
    return static_cast<unsigned long long>(Blk) * Cols + J;
}

} // namespace bankwise
