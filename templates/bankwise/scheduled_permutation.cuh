// bankwise/scheduled_permutation.cuh: one pass of seed 001's scheduled
// offline permutation of global memory (analysis/schedule/HmmSchedule.h).
// a and b are Rows x Cols row-major; pass 0 and 2 permute rows, pass 1
// permutes strips of StripCols whole columns. One block per row (strip)
// runs seed 001's row-wise permutation:
//   (1) alpha[j] <- in[addr(j)]         coalesced
//   (2) s[j], d[j]                      coalesced 16-bit loads
//   (3) beta[d[j]] <- alpha[s[j]]       conflict-free (seed 003 schedule)
//   (4) out[addr(j)] <- beta[j]         coalesced
// with addr(j) = Blk*Cols + j for a row and
// (j / StripCols)*Cols + Blk*StripCols + j % StripCols for a strip.
// s and d are the pass's planes of HmmSchedule (block Blk at
// Blk*BlockWords), BlockWords <= 65536. Dynamic shared memory holds alpha
// and beta: 2*BlockWords elements.
//
// In and Out may be the same array (passes 1 and 2 of the permutation run
// in place: every block reads its whole row or strip before it writes the
// same addresses back), so they are not __restrict__.
//
// Codegen does not instantiate this kernel: for `schedule colored` on a
// global copy it emits the three passes as its own __global__ functions
// (one buffer, step 3 through registers, a cost comment above every
// access), with hmmAddress of hmm_pass.cuh. This generic pass is the
// readable reference of the same four steps.
//
// Holes: T (element), IsStrip, StripCols.
#pragma once

#include "bankwise/hmm_pass.cuh"

#include <cstdint>

namespace bankwise {

template <class T, bool IsStrip, int StripCols>
__global__ void hmmPermutationPass(const T *In, T *Out,
                                   const std::uint16_t *__restrict__ S,
                                   const std::uint16_t *__restrict__ D,
                                   unsigned long long Cols, unsigned BlockWords) {
  extern __shared__ unsigned char HmmSmem[];
  T *Alpha = reinterpret_cast<T *>(HmmSmem);
  T *Beta = Alpha + BlockWords;
  const unsigned Blk = blockIdx.x;
  const std::uint16_t *BlockS = S + static_cast<unsigned long long>(Blk) * BlockWords;
  const std::uint16_t *BlockD = D + static_cast<unsigned long long>(Blk) * BlockWords;
  for (unsigned J = threadIdx.x; J < BlockWords; J += blockDim.x)
    Alpha[J] = In[hmmAddress<IsStrip, StripCols>(Blk, J, Cols)];
  __syncthreads();
  for (unsigned J = threadIdx.x; J < BlockWords; J += blockDim.x)
    Beta[BlockD[J]] = Alpha[BlockS[J]];
  __syncthreads();
  for (unsigned J = threadIdx.x; J < BlockWords; J += blockDim.x)
    Out[hmmAddress<IsStrip, StripCols>(Blk, J, Cols)] = Beta[J];
}

} // namespace bankwise
