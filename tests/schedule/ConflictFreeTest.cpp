// Seed 003 Sec. IV: conflict-free offline permutation on the DMM. The
// paper's worked example is reproduced exactly; for every named and random
// permutation, b[P(i)] = a[i] and every warp reads and writes w distinct
// banks (dmmCongestion == 1).

#include "analysis/models/MemoryModel.h"
#include "analysis/schedule/ConflictFree.h"
#include "support/Diagnostic.h"

#include <doctest/doctest.h>
#include <numeric>

using namespace bankwise;

namespace {

void checkSchedule(const Permutation &P, std::uint32_t W) {
  const DmmSchedule S = scheduleConflictFree(P, W);
  std::vector<std::uint32_t> A(P.size());
  std::iota(A.begin(), A.end(), 7u);
  const std::vector<std::uint32_t> B = applyDmmSchedule(S, A);
  bool Moved = true;
  for (std::uint64_t I = 0; I < P.size(); ++I)
    Moved = Moved && B[P(I)] == A[I];
  CHECK(Moved);
  const DmmScheduleCost C = dmmScheduleCost(S);
  CHECK(C.Warps == P.size() / W);
  CHECK(C.MaxReadCongestion == 1);
  CHECK(C.MaxWriteCongestion == 1);
}

} // namespace

TEST_CASE("seed 003 worked example: S and D exactly as printed") {
  const Permutation P(std::vector<std::uint32_t>{0, 4, 8, 12, 1, 5, 9, 13, 2,
                                                 6, 10, 14, 3, 7, 11, 15});
  // The paper's colouring of K_{4,4}: edge x gets (x - P(x)) mod 4.
  std::vector<std::uint32_t> Paper(16);
  for (std::uint32_t X = 0; X < 16; ++X)
    Paper[X] = (X % 4 + 4 - P(X) % 4) % 4;
  const DmmSchedule S = conflictFreeFromColoring(P, 4, Paper);
  CHECK(S.S == std::vector<std::uint32_t>{0, 5, 10, 15, 1, 6, 11, 12, 2, 7, 8,
                                          13, 3, 4, 9, 14});
  CHECK(S.D == std::vector<std::uint32_t>{0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2,
                                          7, 12, 1, 6, 11});
  // S^{-1} = (0,4,8,12,13,1,5,9,10,14,2,6,7,11,15,3) and S^{-1} . D = P.
  const Permutation SInv = inverse(Permutation(S.S));
  CHECK(SInv.map() == std::vector<std::uint32_t>{0, 4, 8, 12, 13, 1, 5, 9, 10,
                                                 14, 2, 6, 7, 11, 15, 3});
  for (std::uint32_t I = 0; I < 16; ++I)
    CHECK(S.D[SInv(I)] == P(I)); // D o S^{-1} = P, i.e. D = P o S
  // W(1) reads a[1], a[6], a[11], a[12] in banks 1, 2, 3, 0 and writes
  // b[4], b[9], b[14], b[3] in banks 0, 1, 2, 3.
  for (std::uint32_t L = 0; L < 4; ++L) {
    CHECK(S.S[4 + L] % 4 == (L + 1) % 4);
    CHECK(S.D[4 + L] % 4 == L);
  }
  // The D-designated algorithm (S = identity, D = P) conflicts 4-way on
  // writes: the cost function can fail.
  DmmSchedule Naive{4, {}, P.map()};
  Naive.S.resize(16);
  std::iota(Naive.S.begin(), Naive.S.end(), 0u);
  CHECK(dmmScheduleCost(Naive).MaxWriteCongestion == 4);
  checkSchedule(P, 4);
  // Our own colouring takes the cyclic shifts of the bank matrix first; the
  // example's matrix is all ones, so it is the paper's colouring, and the
  // schedule is the one printed.
  const DmmSchedule Ours = scheduleConflictFree(P, 4);
  CHECK(Ours.S == S.S);
  CHECK(Ours.D == S.D);
  // A colouring that is not proper is refused.
  std::vector<std::uint32_t> Broken = Paper;
  std::swap(Broken[0], Broken[1]);
  Broken[1] = Broken[0];
  CHECK_THROWS_AS(conflictFreeFromColoring(P, 4, Broken), UserError);
}

TEST_CASE("named permutations on a 32-bank DMM") {
  for (std::uint64_t N : {32u, 1024u, 4096u}) {
    checkSchedule(identityPermutation(N), 32);
    checkSchedule(shufflePermutation(N), 32);
    checkSchedule(bitReversalPermutation(N), 32);
    checkSchedule(stridePermutation(N, 32), 32);
  }
  checkSchedule(transposePermutation(32, 32), 32);
  checkSchedule(transposePermutation(32, 96), 32);
  checkSchedule(transposePermutation(1024 / 32, 32), 32); // seed 003 Fig. 6
}

TEST_CASE("random permutations, several w including non-powers of two") {
  for (std::uint64_t Seed : {1u, 2u, 3u}) {
    checkSchedule(randomPermutation(1024, Seed), 32);
    checkSchedule(randomPermutation(96, Seed), 32);   // Delta = 3
    checkSchedule(randomPermutation(160, Seed), 32);  // Delta = 5
    checkSchedule(randomPermutation(600, Seed), 6);   // Delta = 100
    checkSchedule(randomPermutation(35, Seed), 7);    // Delta = 5, w = 7
    checkSchedule(randomPermutation(5, Seed), 5);     // one warp
    checkSchedule(randomPermutation(12, Seed), 1);    // one bank
  }
}

TEST_CASE("n not a multiple of w is a user error") {
  CHECK_THROWS_AS(scheduleConflictFree(identityPermutation(40), 32), UserError);
  CHECK_THROWS_AS(scheduleConflictFree(identityPermutation(32), 0), UserError);
}
