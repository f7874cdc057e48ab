// bankwise/shared_permutation.cuh: the conflict-free offline permutation of
// seed 003 Sec. IV on shared memory: with the schedule S, D of
// analysis/schedule/ConflictFree.h, thread k performs b[D(k)] <- a[S(k)], so
// every warp reads w distinct banks of a and writes w distinct banks of b,
// and b[P(x)] = a[x] for every x. The block's threads stride over the N
// entries.
//
// Holes: T (element), Idx (the index width codegen chose for S and D).
#pragma once

namespace bankwise {

template <class T, class Idx>
__device__ __forceinline__ void conflictFreePermute(T *B, const T *A, const Idx *S,
                                                    const Idx *D, int N) {
  for (int K = static_cast<int>(threadIdx.x); K < N; K += static_cast<int>(blockDim.x))
    B[D[K]] = A[S[K]];
}

} // namespace bankwise
