// Cost of one conflict-free block schedule (detail/BlockSchedule.h) of a
// random permutation of a 32768-word row block and a 16384-word strip block,
// the two block sizes of the n = 2^26 HMM schedule. Prints the best of
// several repetitions (the VM is shared) and checks every warp of the last
// schedule: distinct source banks, lane l writing bank l, D = Q o S.
//
//   bench_block [reps]

#include "analysis/schedule/detail/BlockSchedule.h"
#include "support/Random.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>

using namespace bankwise;
using namespace bankwise::schedule_detail;

int main(int Argc, char **Argv) {
  const int Reps = Argc > 1 ? std::atoi(Argv[1]) : 200;
  const std::uint32_t W = 32;
  std::printf("| block words | us per block (best of %d) | ns per word | "
              "check |\n|---:|---:|---:|---|\n",
              Reps);
  for (std::uint32_t N : {32768u, 16384u}) {
    Rng R(N);
    std::vector<std::uint32_t> Q(N);
    std::iota(Q.begin(), Q.end(), 0u);
    for (std::uint32_t I = N; I > 1; --I)
      std::swap(Q[I - 1], Q[R.below(I)]);
    std::vector<std::uint16_t> S(N), D(N);
    BlockScratch B;
    double Best = 1e30;
    for (int I = 0; I < Reps; ++I) {
      const auto T0 = std::chrono::steady_clock::now();
      conflictFreeBlock<std::uint16_t>(Q, W, S, D, B);
      Best = std::min(Best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - T0)
                                .count());
    }
    bool Ok = true;
    for (std::uint32_t Warp = 0; Warp < N / W && Ok; ++Warp) {
      std::uint64_t Banks = 0;
      for (std::uint32_t L = 0; L < W; ++L) {
        const std::uint32_t K = Warp * W + L;
        Banks |= std::uint64_t(1) << (S[K] % W);
        Ok &= D[K] % W == L && D[K] == Q[S[K]];
      }
      Ok &= Banks == (std::uint64_t(1) << W) - 1;
    }
    std::printf("| %u | %.1f | %.2f | %s |\n", N, 1e6 * Best, 1e9 * Best / N,
                Ok ? "ok" : "FAILED");
    if (!Ok)
      return 1;
  }
  return 0;
}
