// Offline cost of seed 001's scheduled permutation on the sm_90 shape: wall
// time, CPU time and peak memory of scheduleHmmPermutation for a random
// permutation of n elements, and a verification of the result.
//
//   bench_schedule --one LOG2N [--threads T] [--hash]
//                                              one size, one line of Markdown
//                                              (--hash: also an FNV-1a hash
//                                              of the schedule's bytes)
//   bench_schedule [--max LOG2N]               every even log2 n from 16,
//                                              each in a fresh process
//
// Verification: for n <= 2^22 the CPU executor runs all three passes and
// b[P(i)] = a[i] is compared for every i. Above, the cheaper full check: the
// destinations are traced through the three passes' s and d arrays without
// moving data (one n-entry array), and every block's s and d are checked to be
// conflict-free (distinct banks per warp).

#include "analysis/schedule/HmmSchedule.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <numeric>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

using namespace bankwise;

namespace {

long peakRssKiB() {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss; // KiB on Linux
}

/// User + system CPU seconds of this process so far (all threads).
double cpuSeconds() {
  struct rusage U;
  getrusage(RUSAGE_SELF, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         1e-6 * double(U.ru_utime.tv_usec + U.ru_stime.tv_usec);
}

/// Traces where every element ends up, pass by pass, using only s and d, and
/// checks every warp's s and d hit distinct banks. True when b[P(i)] = a[i].
bool traceCheck(const HmmSchedule &S, const Permutation &P) {
  const std::uint64_t N = S.size();
  const std::uint32_t W = S.shape().Banks;
  // Where[x] = current global position of element x.
  std::vector<std::uint32_t> At(N); // At[pos] = element now at pos
  std::iota(At.begin(), At.end(), 0u);
  std::vector<std::uint32_t> Next(N);
  std::uint64_t Banks = 0; // source banks seen by the current warp (W <= 64)
  for (int Pass = 0; Pass < 3; ++Pass) {
    const std::uint32_t BW = S.blockWords(Pass);
    for (std::uint32_t B = 0; B < S.numBlocks(Pass); ++B) {
      const std::uint64_t Base = std::uint64_t(B) * BW;
      for (std::uint32_t K = 0; K < BW; ++K) {
        if (K % W == 0)
          Banks = 0;
        const std::uint32_t Sk = S.s(Pass)[Base + K], Dk = S.d(Pass)[Base + K];
        if (Banks >> (Sk % W) & 1)
          return false; // two lanes of one warp read one bank
        Banks |= std::uint64_t(1) << (Sk % W);
        Next[S.address(Pass, B, Dk)] = At[S.address(Pass, B, Sk)];
      }
      // Writes: lane l of a canonical warp writes bank l.
      for (std::uint32_t K = 0; K < BW; ++K)
        if (S.d(Pass)[Base + K] % W != K % W)
          return false;
    }
    At.swap(Next);
  }
  for (std::uint64_t Pos = 0; Pos < N; ++Pos)
    if (P(At[Pos]) != Pos)
      return false;
  return true;
}

/// FNV-1a over the six planes (64-bit words): compares schedules built by
/// different binaries or thread counts byte for byte.
std::uint64_t scheduleHash(const HmmSchedule &S) {
  std::uint64_t H = 1469598103934665603ull;
  for (int K = 0; K < 6; ++K) {
    const std::span<const std::uint16_t> Pl = S.plane(K);
    for (std::size_t I = 0; I + 4 <= Pl.size(); I += 4) {
      std::uint64_t X;
      std::memcpy(&X, Pl.data() + I, 8);
      H = (H ^ X) * 1099511628211ull;
    }
  }
  return H;
}

int runOne(unsigned Log2N, unsigned Threads, bool Hash) {
  const std::uint64_t N = std::uint64_t(1) << Log2N;
  const Permutation P = randomPermutation(N, 2026);
  const HmmShape Sh = chooseSm90Shape(N);
  const long RssBefore = peakRssKiB();
  const double Cpu0 = cpuSeconds();
  const auto T0 = std::chrono::steady_clock::now();
  const HmmSchedule S = scheduleHmmPermutation(P, Sh, Threads);
  const double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  const double CpuSecs = cpuSeconds() - Cpu0;
  const long Rss = peakRssKiB();
  bool Ok;
  std::string How;
  if (Log2N <= 22) {
    std::vector<std::uint32_t> A(N);
    std::iota(A.begin(), A.end(), 0u);
    const std::vector<std::uint32_t> B = applyHmmSchedule(S, A, Threads);
    Ok = true;
    for (std::uint64_t I = 0; I < N; ++I)
      Ok = Ok && B[P(I)] == A[I];
    const std::vector<HmmPassCost> Costs = hmmPassCosts(S);
    for (const HmmPassCost &C : Costs)
      Ok = Ok && C.MaxSharedCongestion == 1 && C.MaxSectorsPerRequest == 4;
    How = "apply + compare, model costs";
  } else {
    Ok = traceCheck(S, P);
    How = "trace + bank check";
  }
  std::printf("| 2^%u | %u x %u | %.3f | %.3f | %.1f | %.1f | %s: %s |\n",
              Log2N, Sh.Rows, Sh.Cols, Secs, CpuSecs, Rss / 1024.0,
              RssBefore / 1024.0, How.c_str(), Ok ? "ok" : "FAILED");
  if (Hash)
    std::printf("schedule hash %016llx\n",
                static_cast<unsigned long long>(scheduleHash(S)));
  return Ok ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  unsigned Threads = 0, Max = 26;
  int One = -1;
  bool Hash = false;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--one") && I + 1 < Argc)
      One = std::atoi(Argv[++I]);
    else if (!std::strcmp(Argv[I], "--threads") && I + 1 < Argc)
      Threads = static_cast<unsigned>(std::atoi(Argv[++I]));
    else if (!std::strcmp(Argv[I], "--max") && I + 1 < Argc)
      Max = static_cast<unsigned>(std::atoi(Argv[++I]));
    else if (!std::strcmp(Argv[I], "--hash"))
      Hash = true;
  }
  if (One >= 0)
    return runOne(static_cast<unsigned>(One), Threads, Hash);
  std::printf("| n | R x C | schedule s | schedule CPU s | peak RSS MiB | "
              "RSS before MiB | verification |\n"
              "|---|---|---:|---:|---:|---:|---|\n");
  std::fflush(stdout);
  int Rc = 0;
  for (unsigned L = 16; L <= Max; L += 2) {
    // A fresh process per size keeps each peak RSS honest.
    const std::string Cmd =
        fmt::format("'{}' --one {} --threads {}", Argv[0], L, Threads);
    Rc |= std::system(Cmd.c_str());
  }
  return Rc ? 1 : 0;
}
