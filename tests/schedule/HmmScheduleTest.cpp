// Seed 001 Secs. V-VII: the scheduled offline permutation on the HMM. For
// every shape and permutation: the CPU executor gives b[P(i)] = a[i], every
// shared access of every pass is conflict-free (congestion 1), every global
// access of every pass moves whole sectors, and the schedule does not depend
// on the number of threads.

#include "analysis/schedule/HmmSchedule.h"
#include "support/Diagnostic.h"

#include <doctest/doctest.h>
#include <set>
#include <numeric>
#include <string>

using namespace bankwise;

namespace {

void checkHmm(const Permutation &P, const HmmShape &Shape) {
  INFO("R = " << Shape.Rows << ", C = " << Shape.Cols << ", strip = "
              << Shape.StripCols << ", w = " << Shape.Banks);
  const HmmSchedule S = scheduleHmmPermutation(P, Shape, 2);
  std::vector<std::uint32_t> A(P.size());
  std::iota(A.begin(), A.end(), 1u);
  const std::vector<std::uint32_t> B = applyHmmSchedule(S, A, 2);
  std::uint64_t Wrong = 0;
  for (std::uint64_t I = 0; I < P.size(); ++I)
    Wrong += B[P(I)] != A[I];
  CHECK(Wrong == 0);
  const std::vector<HmmPassCost> Costs = hmmPassCosts(S);
  REQUIRE(Costs.size() == 3);
  if (Shape.HalfWarpLanes) // each half-warp reads and writes 16 classes mod 16
    for (int Pass = 0; Pass < 3; ++Pass)
      for (const std::span<const std::uint16_t> Plane : {S.s(Pass), S.d(Pass)}) {
        std::uint64_t Repeats = 0;
        for (std::uint64_t H = 0; H < P.size(); H += 16) {
          std::uint32_t Mask = 0;
          for (std::uint64_t L = H; L < H + 16; ++L)
            Mask |= 1u << (Plane[L] % 16);
          Repeats += Mask != 0xFFFF;
        }
        CHECK(Repeats == 0);
      }
  const std::int64_t WordsPerSectorTimesW = Shape.Banks * 4;
  for (const HmmPassCost &C : Costs) {
    CHECK(C.MaxSharedCongestion == 1);
    CHECK(C.GlobalRequests == 2 * P.size() / Shape.Banks);
    if (Shape.Banks == 32 && Shape.StripCols % 8 == 0) {
      // Whole sectors: 128 bytes per request in 4 sectors.
      CHECK(C.MaxSectorsPerRequest == WordsPerSectorTimesW / 32);
      CHECK(C.Sectors == C.GlobalRequests * 4);
    }
    if (C.Kind == HmmPassKind::Row)
      CHECK(C.MaxUmmGroups == 1);
    else
      CHECK(C.MaxUmmGroups ==
            std::max<std::int64_t>(1, Shape.Banks / Shape.StripCols));
  }
}

std::string errorOf(const HmmShape &S, std::uint64_t N) {
  try {
    validateHmmShape(S, N);
  } catch (const UserError &E) {
    return E.diagnostic().Message;
  }
  return "";
}

} // namespace

TEST_CASE("sm_90 shapes") {
  CHECK(chooseSm90Shape(std::uint64_t(1) << 26) == HmmShape{2048, 32768, 8, 32});
  CHECK(chooseSm90Shape(std::uint64_t(1) << 16) == HmmShape{64, 1024, 8, 32});
  CHECK(chooseSm90Shape(std::uint64_t(1) << 27) == HmmShape{4096, 32768, 8, 32});
  const HmmShape Odd = chooseSm90Shape(3 * 5 * 4096); // not a power of two
  CHECK(std::uint64_t(Odd.Rows) * Odd.Cols == 3 * 5 * 4096);
  CHECK_THROWS_AS(chooseSm90Shape(64), UserError);
  CHECK_THROWS_AS(chooseSm90Shape(std::uint64_t(1) << 28), UserError);
  for (std::uint64_t N : {std::uint64_t(1) << 16, std::uint64_t(1) << 26,
                          std::uint64_t(3 * 5 * 4096)}) {
    const HmmShape S = chooseSm90Shape(N);
    CHECK(S.Cols * 4 <= Sm90SharedBytesPerBlock);
    CHECK(S.Rows * S.StripCols * 4 <= Sm90SharedBytesPerBlock);
  }
}

TEST_CASE("sm_90 shapes for 8-byte elements: strips of 4 columns, half the words a block") {
  // A strip row of 4 f64 is one 32-byte sector; a row and a strip each
  // within 227 KB (29,056 f64).
  CHECK(chooseSm90Shape(std::uint64_t(1) << 26, 8) == HmmShape{4096, 16384, 4, 32, true});
  CHECK(chooseSm90Shape(std::uint64_t(1) << 20, 8) == HmmShape{512, 2048, 4, 32, true});
  CHECK(chooseSm90Shape(std::uint64_t(1) << 16, 8) == HmmShape{128, 512, 4, 32, true});
  // 2^27 f64 would need a row or a strip of 2^15 f64 (256 KB).
  CHECK_THROWS_AS(chooseSm90Shape(std::uint64_t(1) << 27, 8), UserError);
  CHECK_THROWS_AS(chooseSm90Shape(std::uint64_t(1) << 20, 2), UserError);
  CHECK_THROWS_AS(chooseSm90Shape(std::uint64_t(1) << 20, 16), UserError);
  for (std::uint64_t N : {std::uint64_t(1) << 16, std::uint64_t(1) << 26,
                          std::uint64_t(3 * 5 * 4096), std::uint64_t(3) << 20}) {
    const HmmShape S = chooseSm90Shape(N, 8);
    CHECK(std::uint64_t(S.Rows) * S.Cols == N);
    CHECK(S.StripCols == 4);
    CHECK(S.Cols * 8 <= Sm90SharedBytesPerBlock);
    CHECK(S.Rows * S.StripCols * 8 <= Sm90SharedBytesPerBlock);
    CHECK(S.Rows % 8 == 0); // w divides R * StripCols
    CHECK(S.HalfWarpLanes);
  }
  CHECK_FALSE(chooseSm90Shape(std::uint64_t(1) << 20, 4).HalfWarpLanes);
}

TEST_CASE("half-warp lane order: the same moves, each half-warp reading and writing 16 classes mod 16") {
  for (HmmShape Sh : {HmmShape{16, 64, 8, 32, true}, HmmShape{32, 128, 4, 32, true}, HmmShape{24, 160, 8, 32, true}}) {
    const std::uint64_t N = std::uint64_t(Sh.Rows) * Sh.Cols;
    checkHmm(randomPermutation(N, 11), Sh);
    if ((N & (N - 1)) == 0)
      checkHmm(bitReversalPermutation(N), Sh);
    // The same pairs as without the ordering, warp by warp.
    HmmShape Plain = Sh;
    Plain.HalfWarpLanes = false;
    const Permutation P = randomPermutation(N, 11);
    const HmmSchedule A = scheduleHmmPermutation(P, Sh, 1), B = scheduleHmmPermutation(P, Plain, 1);
    for (int Pass = 0; Pass < 3; ++Pass)
      for (std::uint64_t W0 = 0; W0 < N; W0 += Sh.Banks) {
        std::set<std::pair<int, int>> PA, PB;
        for (std::uint64_t L = W0; L < W0 + Sh.Banks; ++L) {
          PA.insert({A.s(Pass)[L], A.d(Pass)[L]});
          PB.insert({B.s(Pass)[L], B.d(Pass)[L]});
        }
        REQUIRE(PA == PB);
      }
  }
}

TEST_CASE("shape requirements are user errors that name the requirement") {
  CHECK(errorOf({16, 64, 8, 32}, 1024).empty());
  CHECK(errorOf({16, 16, 4, 4, true}, 256).find("half-warp lane order needs w = 32") != std::string::npos);
  CHECK(errorOf({16, 64, 8, 32}, 1000).find("R * C") != std::string::npos);
  CHECK(errorOf({16, 48, 8, 32}, 768).find("w must divide C") !=
        std::string::npos);
  CHECK(errorOf({16, 96, 64, 32}, 1536).find("strip width must divide C") !=
        std::string::npos);
  CHECK(errorOf({3, 64, 8, 32}, 192).find("R * strip width") !=
        std::string::npos);
  CHECK(errorOf({4, 131072, 8, 32}, 524288).find("65536") != std::string::npos);
  CHECK_THROWS_AS(scheduleHmmPermutation(identityPermutation(512),
                                         HmmShape{16, 64, 8, 32}),
                  UserError);
}

TEST_CASE("named permutations, square and rectangular power-of-two shapes") {
  for (HmmShape Sh : {HmmShape{32, 32, 8, 32}, HmmShape{16, 64, 8, 32},
                      HmmShape{64, 128, 8, 32}, HmmShape{128, 64, 16, 32},
                      HmmShape{16, 16, 4, 4}}) {
    const std::uint64_t N = std::uint64_t(Sh.Rows) * Sh.Cols;
    checkHmm(identityPermutation(N), Sh);
    checkHmm(shufflePermutation(N), Sh);
    checkHmm(bitReversalPermutation(N), Sh);
    checkHmm(transposePermutation(Sh.Rows, Sh.Cols), Sh);
    checkHmm(transposePermutation(Sh.Cols, Sh.Rows), Sh);
    checkHmm(stridePermutation(N, 32), Sh);
    checkHmm(inverse(bitReversalPermutation(N)), Sh);
  }
}

TEST_CASE("random permutations, shapes that are not powers of two") {
  // K = C / strip = 12, 20, 3, 5 factors exercise Alon's matching.
  for (HmmShape Sh : {HmmShape{12, 96, 8, 32}, HmmShape{24, 160, 8, 32},
                      HmmShape{20, 96, 32, 32}, HmmShape{6, 12, 2, 4},
                      HmmShape{9, 15, 3, 3}, HmmShape{4, 160, 32, 32},
                      HmmShape{1, 64, 32, 32}}) {
    const std::uint64_t N = std::uint64_t(Sh.Rows) * Sh.Cols;
    for (std::uint64_t Seed : {1u, 2u, 3u})
      checkHmm(randomPermutation(N, Seed), Sh);
    checkHmm(identityPermutation(N), Sh);
    checkHmm(transposePermutation(Sh.Rows, Sh.Cols), Sh);
  }
}

TEST_CASE("sm_90 shapes end to end") {
  for (std::uint64_t N : {std::uint64_t(1) << 16, std::uint64_t(1) << 18,
                          std::uint64_t(3 * 5 * 4096)}) {
    for (int Bytes : {4, 8}) {
      const HmmShape Sh = chooseSm90Shape(N, Bytes);
      checkHmm(randomPermutation(N, N), Sh);
      if ((N & (N - 1)) == 0)
        checkHmm(bitReversalPermutation(N), Sh);
    }
  }
}

TEST_CASE("the schedule is identical for 1 and 2 threads at n = 2^22") {
  // 512 x 8192: 1024 factors of the row graph (bit-matrix, list and edge
  // form splits, subtrees finished in parallel) and 1536 blocks.
  const Permutation P = randomPermutation(std::uint64_t(1) << 22, 2026);
  const HmmShape Sh = chooseSm90Shape(P.size());
  const HmmSchedule One = scheduleHmmPermutation(P, Sh, 1);
  const HmmSchedule Two = scheduleHmmPermutation(P, Sh, 2);
  CHECK(One == Two);
  CHECK(scheduleHmmPermutation(P, Sh, 2) == Two);
}

TEST_CASE("row graphs above 2^20 edges: splits in the planes, then depth first") {
  // Above 2^20 edges the first splits run breadth first in planes 0 and 1
  // (the first one as two greedy row ranges and one repair). 2048 x 768:
  // K = 96, one such split, then 48 = 16 * 3 factors depth first, the last
  // odd count through Alon's matching. 1028 x 1024: an even R that is not a
  // power of two, two row ranges of 514.
  for (HmmShape Sh : {HmmShape{2048, 768, 8, 32}, HmmShape{1028, 1024, 8, 32}}) {
    const Permutation P =
        randomPermutation(std::uint64_t(Sh.Rows) * Sh.Cols, Sh.Rows);
    checkHmm(P, Sh);
    const HmmSchedule One = scheduleHmmPermutation(P, Sh, 1);
    CHECK(scheduleHmmPermutation(P, Sh, 2) == One);
    CHECK(scheduleHmmPermutation(P, Sh, 3) == One);
  }
}

TEST_CASE("the schedule does not depend on thread count or timing") {
  const Permutation P = randomPermutation(std::uint64_t(1) << 18, 42);
  const HmmShape Sh = chooseSm90Shape(P.size());
  const HmmSchedule One = scheduleHmmPermutation(P, Sh, 1);
  for (unsigned T : {2u, 2u, 3u, 4u})
    CHECK(scheduleHmmPermutation(P, Sh, T) == One);
}

TEST_CASE("a corrupted schedule is caught by the executor and the costs") {
  const Permutation P = randomPermutation(1024, 9);
  const HmmShape Sh{16, 64, 8, 32};
  HmmSchedule S = scheduleHmmPermutation(P, Sh, 1);
  std::vector<std::uint32_t> A(1024);
  std::iota(A.begin(), A.end(), 0u);
  // Swap the sources of lanes 0 and 32 of block 0 in the strip pass: the
  // data still arrive somewhere, but not where P sends them, and the two
  // warps may now read one bank twice.
  std::span<std::uint16_t> S1 = S.plane(2);
  std::swap(S1[0], S1[33]);
  const std::vector<std::uint32_t> B = applyHmmSchedule(S, A, 1);
  std::uint64_t Wrong = 0;
  for (std::uint64_t I = 0; I < 1024; ++I)
    Wrong += B[P(I)] != A[I];
  CHECK(Wrong == 2);
}
