// Seed 001's scheduled permutation, built in six phases that reuse the
// schedule's own planes as working memory (n = R * C, K = C / StripCols):
//
//   A  the row graph in unit form in plane 0 (row u: the destination rows
//      of its elements);
//   B  factorization of the row graph into K StripCols-regular factors
//      (Euler splits by greedy orientation and exact repair,
//      detail/BalancedSplit.h): the large splits breadth first in planes 0
//      and 1, then each subgraph depth first; factor f fills the slot
//      table in plane 4: row u, slots f*StripCols.. hold the destination
//      rows of the elements pass 0 puts into strip f;
//   C  pass 0 per row: the elements bound for row v take v's slots in column
//      order, Q0(c) = slot; s0/d0 -> planes 0/1; the destination column of
//      what now sits in each slot -> plane 5;
//   D  pass 1 per strip: Q1 sends (u, s) to (v, next free slot of v); s1/d1
//      -> planes 2/3; final columns rewritten in place in plane 5;
//   E  pass 2 per row: Q2 = final columns (plane 5); s2/d2 -> planes 4/5.
//   F  each warp's 32 (s, d) pairs ordered so that its half-warps read and
//      write conflict-free (orderHalfWarpLanes).
//
// Every block's s and d come from a Birkhoff decomposition of its 32 x 32
// bank matrix (detail/BlockSchedule.h). Memory: P plus 12 bytes per element,
// plus a few MiB per thread (the depth-first splits of subgraphs of at most
// 2^20 edges, a stage of 32 factors, one block's buffers). Every fresh page
// costs a fault (1.5 to 18 us each on the benchmark's VM), so nothing else
// is allocated per element.

#include "analysis/schedule/HmmSchedule.h"

#include "analysis/models/MemoryModel.h"
#include "analysis/schedule/detail/BalancedSplit.h"
#include "analysis/schedule/detail/BlockSchedule.h"
#include "support/Diagnostic.h"
#include "support/Parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <sys/resource.h>
#include <time.h>
#include <type_traits>
#include <utility>

namespace bankwise {

using schedule_detail::BlockScratch;

namespace {

/// X / D, by a shift when D is a power of two.
struct Divider {
  std::uint32_t D = 1, Shift = 0;
  bool Pow2 = true;
  explicit Divider(std::uint32_t Den)
      : D(Den), Shift(static_cast<std::uint32_t>(__builtin_ctz(Den))),
        Pow2((Den & (Den - 1)) == 0) {}
  std::uint32_t quot(std::uint32_t X) const {
    return Pow2 ? X >> Shift : X / D;
  }
};

[[noreturn]] void internalError(const std::string &What) {
  throw std::logic_error("bankwise internal error: " + What);
}

} // namespace

void validateHmmShape(const HmmShape &S, std::uint64_t N) {
  auto Fail = [&](const std::string &Why) {
    throw UserError(fmt::format(
        "HMM schedule: shape R = {}, C = {}, strip = {} columns, w = {} for "
        "n = {}: {}",
        S.Rows, S.Cols, S.StripCols, S.Banks, N, Why));
  };
  if (!S.Rows || !S.Cols || !S.StripCols || !S.Banks)
    Fail("every parameter must be positive");
  if (std::uint64_t(S.Rows) * S.Cols != N)
    Fail("R * C must equal n");
  if (N >= (std::uint64_t(1) << 32))
    Fail("n must be below 2^32");
  if (S.Cols % S.Banks)
    Fail("w must divide C (a row is whole warps and its bank graph regular)");
  if (S.Cols % S.StripCols)
    Fail("the strip width must divide C");
  if ((std::uint64_t(S.Rows) * S.StripCols) % S.Banks)
    Fail("w must divide R * strip width (a strip is whole warps)");
  if (S.Cols > 65536)
    Fail("C must be at most 65536 (16-bit indices in a row)");
  if (S.HalfWarpLanes && S.Banks != 32)
    Fail("half-warp lane order needs w = 32");
  if (std::uint64_t(S.Rows) * S.StripCols > 65536)
    Fail("R * strip width must be at most 65536 (16-bit indices in a strip)");
}

HmmShape chooseSm90Shape(std::uint64_t N, int ElemBytes) {
  if (ElemBytes != 4 && ElemBytes != 8)
    throw UserError(fmt::format("HMM schedule: elements of {} bytes have no sm_90 shape (4 or 8 bytes: "
                                "the schedule keeps a warp's 32 indices in 32 banks)",
                                ElemBytes));
  const std::uint64_t Bytes = static_cast<std::uint64_t>(ElemBytes);
  const std::uint64_t MaxWords = Sm90SharedBytesPerBlock / Bytes; // 58112 or 29056
  const std::uint64_t Strip = 32 / Bytes, RStep = 32 / Strip;
  HmmShape Best;
  std::uint64_t BestBlock = ~std::uint64_t(0);
  for (std::uint64_t R = RStep; R * Strip <= MaxWords && R <= N; R += RStep) {
    if (N % R)
      continue;
    const std::uint64_t C = N / R;
    if (C % 32 || C > MaxWords)
      continue;
    const std::uint64_t Block = std::max(C, Strip * R);
    if (Block < BestBlock) {
      BestBlock = Block;
      Best = HmmShape{static_cast<std::uint32_t>(R), static_cast<std::uint32_t>(C),
                      static_cast<std::uint32_t>(Strip), 32, Bytes == 8};
    }
  }
  if (!Best.Rows)
    throw UserError(fmt::format(
        "HMM schedule: n = {} has no sm_90 shape for {}-byte elements: need n = R * C with R a "
        "multiple of {}, C a multiple of 32, and a row ({}C bytes) and a {}-column strip (32R "
        "bytes) each within 227 KB of shared memory",
        N, Bytes, RStep, Bytes, Strip));
  validateHmmShape(Best, N);
  return Best;
}

HmmSchedule::HmmSchedule(const HmmShape &S)
    : Shape(S), Data(new std::uint16_t[6 * std::uint64_t(S.Rows) * S.Cols]) {}

std::uint32_t HmmSchedule::blockWords(int Pass) const {
  return kind(Pass) == HmmPassKind::Row ? Shape.Cols
                                        : Shape.Rows * Shape.StripCols;
}

std::uint32_t HmmSchedule::numBlocks(int Pass) const {
  return kind(Pass) == HmmPassKind::Row ? Shape.Rows
                                        : Shape.Cols / Shape.StripCols;
}

std::uint64_t HmmSchedule::address(int Pass, std::uint32_t Blk,
                                   std::uint32_t J) const {
  if (kind(Pass) == HmmPassKind::Row)
    return std::uint64_t(Blk) * Shape.Cols + J;
  return std::uint64_t(J / Shape.StripCols) * Shape.Cols +
         std::uint64_t(Blk) * Shape.StripCols + J % Shape.StripCols;
}

std::uint64_t HmmSchedule::blockStride(int Pass) const {
  return kind(Pass) == HmmPassKind::Row ? Shape.Cols : Shape.StripCols;
}

std::span<const std::uint16_t> HmmSchedule::plane(int K) const {
  return {Data.get() + std::uint64_t(K) * size(), size()};
}
std::span<std::uint16_t> HmmSchedule::plane(int K) {
  return {Data.get() + std::uint64_t(K) * size(), size()};
}

bool HmmSchedule::operator==(const HmmSchedule &O) const {
  if (!(Shape == O.Shape))
    return false;
  if (!size())
    return true;
  return std::memcmp(Data.get(), O.Data.get(), 6 * size() * 2) == 0;
}

namespace {

/// Process CPU time so far, in seconds.
double cpuNow() {
  timespec Ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &Ts);
  return double(Ts.tv_sec) + 1e-9 * double(Ts.tv_nsec);
}

/// System time and page faults so far (first touches of fresh pages).
std::pair<double, long> sysNow() {
  rusage Ru;
  getrusage(RUSAGE_SELF, &Ru);
  return std::pair<double, long>(
      double(Ru.ru_stime.tv_sec) + 1e-6 * double(Ru.ru_stime.tv_usec),
      Ru.ru_minflt);
}

/// Wall and process CPU time per phase (the CPU time is the honest figure
/// on a shared machine), printed to stderr when BANKWISE_SCHEDULE_TIMING is
/// set.
class PhaseTimer {
public:
  explicit PhaseTimer(bool Enabled)
      : Timing(Enabled), Clock0(std::chrono::steady_clock::now()),
        Cpu0(Enabled ? cpuNow() : 0),
        Sys0(Enabled ? sysNow() : std::pair<double, long>{}) {}

  bool enabled() const { return Timing; }

  /// Prints the time since the previous phase ended as phase Name's.
  void phase(const char *Name) {
    if (!Timing)
      return;
    const auto Now = std::chrono::steady_clock::now();
    const double Cpu = cpuNow();
    const std::pair<double, long> Sys = sysNow();
    std::fprintf(stderr,
                 "  phase %s: %.3f s wall, %.3f s CPU (%.3f s system, %ld "
                 "page faults)\n",
                 Name, std::chrono::duration<double>(Now - Clock0).count(),
                 Cpu - Cpu0, Sys.first - Sys0.first, Sys.second - Sys0.second);
    Clock0 = Now;
    Cpu0 = Cpu;
    Sys0 = Sys;
  }

private:
  bool Timing;
  std::chrono::steady_clock::time_point Clock0;
  double Cpu0;
  std::pair<double, long> Sys0;
};

/// What the phases share: the shape (n = R * C, K = C / StripCols), P's
/// map, the schedule's six planes (also their working memory), the threads.
struct HmmBuild {
  std::uint32_t R, C, SC, W, K;
  unsigned Threads;
  const std::vector<std::uint32_t> &Map;
  std::span<std::uint16_t> Plane[6];
  Divider ByC;
};

/// Per-thread scratch of the three passes (phases C to E).
struct PassScratch {
  std::vector<BlockScratch> Blocks;
  std::vector<std::vector<std::uint32_t>> Counts, Local, Local2, Ends;
  explicit PassScratch(unsigned Threads)
      : Blocks(Threads), Counts(Threads), Local(Threads), Local2(Threads),
        Ends(Threads) {}
};

/// Phase A: the row graph in unit form, in plane 0: row u's units are the
/// destination rows of its C elements, in column order.
void buildRowGraphUnits(HmmBuild &B) {
  parallelFor(B.R, B.Threads, [&](std::size_t U, unsigned) {
    const std::uint32_t Cols = B.C;
    std::uint16_t *Units = B.Plane[0].data() + U * Cols;
    const std::uint32_t *Row = B.Map.data() + U * Cols;
    if (B.ByC.Pow2) { // a shift: the loop vectorizes
      const std::uint32_t Shift = B.ByC.Shift;
      for (std::uint32_t I = 0; I < Cols; ++I)
        Units[I] = static_cast<std::uint16_t>(Row[I] >> Shift);
    } else {
      for (std::uint32_t I = 0; I < Cols; ++I)
        Units[I] = static_cast<std::uint16_t>(Row[I] / Cols);
    }
  });
}

/// Writes the factors of phase B into the slot table (plane 4) through
/// per-thread stages.
///
/// A factor is R rows of SC entries, and row u of factor f belongs at
/// u * C + f * SC: written one factor at a time, that is 16 bytes per
/// row 64 KiB apart (a TLB miss per row per factor). Factors arrive in
/// increasing order within a subtree, so they are staged in groups of
/// StageFactors (contiguous per factor) and a full group is written
/// back row by row, StageFactors * SC entries contiguous per row.
class FactorStager {
public:
  static constexpr std::uint32_t StageFactors = 32;
  struct Stage {
    std::vector<std::uint16_t> Buf;
    std::uint32_t First = 0, Count = 0; ///< factors First.. staged
  };

  explicit FactorStager(const HmmBuild &B)
      : Slots(B.Plane[4]), R(B.R), C(B.C), SC(B.SC), Stages(B.Threads) {}

  Stage &stage(unsigned T) { return Stages[T]; }

  /// Writes St's staged factors into the slot table and empties St.
  void flush(Stage &St) {
    const std::size_t FactorWords = std::size_t(R) * SC;
    // Fixed: the width as a compile-time constant (8: one 16-byte move per
    // row and factor), or 0 for any other width.
    auto Copy = [&](auto Fixed) {
      const std::uint32_t Wd = Fixed() ? Fixed() : SC;
      for (std::uint32_t U = 0; U < R; ++U) {
        std::uint16_t *To = Slots.data() + std::uint64_t(U) * C +
                            std::uint64_t(St.First) * SC;
        const std::uint16_t *From = St.Buf.data() + std::size_t(U) * Wd;
        for (std::uint32_t I = 0; I < St.Count; ++I)
          std::memcpy(To + std::size_t(I) * Wd,
                      From + std::size_t(I) * FactorWords, Wd * 2);
      }
    };
    if (SC == 8)
      Copy(std::integral_constant<std::uint32_t, 8>());
    else
      Copy(std::integral_constant<std::uint32_t, 0>());
    St.Count = 0;
  }

  /// The sink that stages each factor it receives in St.
  schedule_detail::UnitFactorSink sinkFor(Stage &St) {
    return [this, &St](const std::uint16_t *Rows, std::uint32_t Degree,
                       std::uint32_t Factor) {
      if (Degree != SC)
        internalError("a factor of the row graph is not regular");
      if (St.Count &&
          (Factor != St.First + St.Count || St.Count == StageFactors))
        flush(St);
      if (!St.Count)
        St.First = Factor;
      if (St.Buf.empty())
        St.Buf.resize(std::size_t(StageFactors) * R * SC);
      std::memcpy(St.Buf.data() + std::size_t(St.Count) * R * SC, Rows,
                  std::size_t(R) * SC * 2);
      ++St.Count;
    };
  }

private:
  std::span<std::uint16_t> Slots;
  std::uint32_t R, C, SC;
  std::vector<Stage> Stages;
};

/// The subgraphs left by the breadth-first splits: Graphs of them, one
/// after the other at Src, each Dl-regular and to be split into Kl factors.
struct SplitLevel {
  std::uint16_t *Src;
  std::uint32_t Kl, Dl;
  std::uint64_t Graphs;
};

/// Phase B, breadth first: halves the row graph level after level in
/// planes 0 and 1 until its subgraphs have at most DepthFirstEdges edges.
SplitLevel splitRowGraphBreadthFirst(
    HmmBuild &B, std::uint64_t DepthFirstEdges,
    std::vector<schedule_detail::BalancedScratch> &Scratch) {
  const std::uint32_t R = B.R;
  std::uint16_t *Src = B.Plane[0].data(), *Dst = B.Plane[1].data();
  std::uint32_t Kl = B.K, Dl = B.C;
  std::uint64_t Graphs = 1;
  while (Kl % 2 == 0 && std::uint64_t(R) * Dl > DepthFirstEdges) {
    const std::uint64_t E = std::uint64_t(R) * Dl;
    if (Graphs == 1) {
      schedule_detail::BalanceScratch &S0 = Scratch[0].Split;
      S0.Excess.assign(R, 0);
      std::vector<std::int32_t> Ex1(R, 0);
      const std::uint32_t Mid = R / 2;
      parallelFor(2, B.Threads, [&](std::size_t I, unsigned) {
        schedule_detail::greedySplitUnits(
            Src, I ? Mid : 0, I ? R : Mid, Dl, Dst, Dst + E / 2,
            I ? Ex1.data() : S0.Excess.data());
      });
      for (std::uint32_t V = 0; V < R; ++V)
        S0.Excess[V] += Ex1[V];
      schedule_detail::repairSplitUnits(Dst, Dst + E / 2, R, Dl / 2, S0);
    } else {
      parallelFor(Graphs, B.Threads, [&](std::size_t I, unsigned T) {
        schedule_detail::balancedSplitUnits(Src + I * E, R, Dl,
                                            Dst + I * E,
                                            Dst + I * E + E / 2,
                                            Scratch[T].Split);
      });
    }
    std::swap(Src, Dst);
    Graphs *= 2;
    Kl /= 2;
    Dl /= 2;
  }
  return SplitLevel{Src, Kl, Dl, Graphs};
}

/// Prints the counters of all the balanced splits to stderr.
void printBalanceStats(
    const std::vector<schedule_detail::BalancedScratch> &Scratch) {
  schedule_detail::BalanceStats St;
  for (const auto &Sc : Scratch)
    St.add(Sc.Split.Stats);
  std::fprintf(stderr,
               "  balanced splits %llu, pairs %llu, greedy excess %llu, "
               "direct flips %llu, path flips %llu, searches %llu, "
               "index builds %llu, whole-graph repairs %llu\n",
               (unsigned long long)St.Splits, (unsigned long long)St.Pairs,
               (unsigned long long)St.GreedyExcess,
               (unsigned long long)St.DirectFlips,
               (unsigned long long)St.PathFlips,
               (unsigned long long)St.Searches,
               (unsigned long long)St.Rebuilds,
               (unsigned long long)St.FullRepairs);
}

/// Phase B: K factors of the row graph. Factor f's rows fill the slot
/// table in plane 4: row u, slots f*StripCols .. (f+1)*StripCols - 1 hold
/// the destination rows of the elements that pass 0 puts into strip f (in
/// the factor's order; phase C matches elements to slots by row).
///
/// The large splits go breadth first in planes 0 and 1 (free until phase
/// C), level after level: the 2^l subgraphs of level l lie one after the
/// other, subgraph i's halves at 2i and 2i + 1 of the next level, so no
/// other memory is touched (every fresh page costs a fault). The first
/// split runs its greedy pass as two row ranges with their own counts
/// (in parallel when there are threads for it) and one repair. Subgraphs
/// of at most DepthFirstEdges edges are then factored depth first, one
/// per task, in per-thread buffers that stay in cache. Which splits are
/// made depends only on the shape, so the result does not depend on the
/// thread count or timing.
void factorRowGraph(HmmBuild &B, PhaseTimer &Timer) {
  FactorStager Stager(B);
  constexpr std::uint64_t DepthFirstEdges = std::uint64_t(1) << 20;
  std::vector<schedule_detail::BalancedScratch> Scratch(B.Threads);
  const SplitLevel Level =
      splitRowGraphBreadthFirst(B, DepthFirstEdges, Scratch);
  Timer.phase("B breadth-first splits");
  const std::uint64_t E = std::uint64_t(B.R) * Level.Dl;
  parallelFor(Level.Graphs, B.Threads, [&](std::size_t I, unsigned T) {
    FactorStager::Stage &St = Stager.stage(T);
    schedule_detail::factorBalancedUnits(
        Level.Src + I * E, B.R, Level.Dl, Level.Kl,
        static_cast<std::uint32_t>(I * Level.Kl), Stager.sinkFor(St),
        Scratch[T]);
    if (St.Count)
      Stager.flush(St);
  });
  if (Timer.enabled())
    printBalanceStats(Scratch);
}

/// Phase C: pass 0 per row. The elements of row u bound for row v take the
/// slots of v in the slot table in column order: Q0(c) = that slot; the
/// destination column of what lands there -> plane 5; s0/d0 -> planes 0/1.
void scheduleFirstRowPass(HmmBuild &B, PassScratch &Sc) {
  parallelFor(B.R, B.Threads, [&](std::size_t U, unsigned T) {
    // Locals, not the captured references: the stores below are to uint32
    // arrays and would otherwise make the compiler reload every bound.
    const std::uint32_t Cols = B.C, NumRows = B.R;
    const Divider By = B.ByC;
    Sc.Counts[T].resize(std::size_t(NumRows) + 1);
    Sc.Local[T].resize(Cols);
    Sc.Local2[T].resize(Cols);
    Sc.Ends[T].resize(std::size_t(NumRows) + 1);
    std::uint32_t *Start = Sc.Counts[T].data(), *Q = Sc.Local[T].data(),
                  *ByV = Sc.Local2[T].data(), *End = Sc.Ends[T].data();
    const std::uint64_t Row = U * Cols;
    const std::uint16_t *Dest = B.Plane[4].data() + Row;
    const std::uint32_t *To = B.Map.data() + Row;
    std::uint16_t *Final = B.Plane[5].data() + Row;
    std::fill_n(Start, NumRows + 1, 0u);
    for (std::uint32_t Slot = 0; Slot < Cols; ++Slot)
      ++Start[Dest[Slot] + 1];
    for (std::uint32_t V = 0; V < NumRows; ++V)
      Start[V + 1] += Start[V];
    for (std::uint32_t Slot = 0; Slot < Cols; ++Slot)
      ByV[Start[Dest[Slot]]++] = Slot;
    // Start[v] is now the end of v's slots; keep the ends, step back to
    // the beginnings.
    std::copy_n(Start, NumRows + 1, End);
    for (std::uint32_t V = NumRows; V > 0; --V)
      Start[V] = Start[V - 1];
    Start[0] = 0;
    for (std::uint32_t Col = 0; Col < Cols; ++Col) {
      const std::uint32_t V = By.quot(To[Col]);
      const std::uint32_t At = Start[V]++;
      if (At >= Cols) [[unlikely]]
        internalError("the slot table does not match the row graph");
      const std::uint32_t Slot = ByV[At];
      Q[Col] = Slot;
      Final[Slot] = static_cast<std::uint16_t>(To[Col] - V * Cols);
    }
    // Every row v took exactly its slots (else some took another's).
    if (!std::equal(End, End + NumRows, Start))
      internalError("the slot table does not match the row graph");
    schedule_detail::conflictFreeBlock<std::uint16_t>(
        std::span<const std::uint32_t>(Q, Cols), B.W,
        B.Plane[0].subspan(Row, Cols), B.Plane[1].subspan(Row, Cols),
        Sc.Blocks[T]);
  });
}

/// Phase D: pass 1 per strip (the column-wise pass). Q1 sends (u, s) to
/// (v, next free slot of v); s1/d1 -> planes 2/3; the final columns are
/// moved in plane 5 to the slots their elements now occupy.
///
/// A task takes a group of strips (about 64 columns) and first copies their
/// part of planes 4 and 5 into a contiguous buffer (R rows of 128 bytes per
/// plane instead of 2048 reads with a 64 KiB stride per strip: one TLB miss
/// per row per group, not per strip); the strips are then scheduled from
/// the buffer, the final columns moved to their new slots in a third buffer
/// and copied back. (64 columns: the three buffers, 3 * 256 KiB at R = 2048,
/// stay in L2 beside a block's scratch; 128 columns measured 0.07-0.09 s CPU
/// slower at 2^26, 32 columns about as much slower in the copies.)
void scheduleColumnPass(HmmBuild &B, PassScratch &Sc) {
  const std::uint32_t StripWords = B.R * B.SC;
  const std::uint32_t Group = std::max<std::uint32_t>(1, 64 / B.SC);
  const std::uint32_t GroupCols = Group * B.SC;
  std::vector<std::vector<std::uint16_t>> DestBuf(B.Threads),
      FinBuf(B.Threads), MovedBuf(B.Threads);
  parallelFor(
      (B.K + Group - 1) / Group, B.Threads, [&](std::size_t G0, unsigned T) {
        // Locals, not the captured references (see phase C).
        const std::uint32_t NumRows = B.R, Strip = B.SC, Words = StripWords,
                            GCols = GroupCols;
        const std::uint64_t Cols0 = B.C;
        Sc.Counts[T].resize(NumRows);
        Sc.Local[T].resize(Words);
        DestBuf[T].resize(std::size_t(NumRows) * GCols);
        FinBuf[T].resize(std::size_t(NumRows) * GCols);
        MovedBuf[T].resize(std::size_t(NumRows) * GCols);
        std::uint32_t *Cnt = Sc.Counts[T].data(), *Q = Sc.Local[T].data();
        std::uint16_t *Dst = DestBuf[T].data(), *Fb = FinBuf[T].data(),
                      *Moved = MovedBuf[T].data();
        const std::uint64_t F0 = G0 * Group,
                            F1 = std::min<std::uint64_t>(F0 + Group, B.K);
        const std::uint32_t Cols = static_cast<std::uint32_t>(F1 - F0) * Strip;
        for (std::uint32_t U = 0; U < NumRows; ++U) {
          const std::uint64_t Row = std::uint64_t(U) * Cols0 + F0 * Strip;
          std::memcpy(Dst + std::size_t(U) * GCols, B.Plane[4].data() + Row,
                      Cols * 2);
          std::memcpy(Fb + std::size_t(U) * GCols, B.Plane[5].data() + Row,
                      Cols * 2);
        }
        for (std::uint64_t F = F0; F < F1; ++F) {
          const std::size_t Off = (F - F0) * Strip;
          std::fill_n(Cnt, NumRows, 0u);
          // The final column of what lands at (v, slot) goes to Moved, in
          // the group buffer's layout.
          for (std::uint32_t U = 0, J = 0; U < NumRows; ++U) {
            const std::size_t Row = std::size_t(U) * GCols + Off;
            for (std::uint32_t X = 0; X < Strip; ++X, ++J) {
              const std::uint32_t V = Dst[Row + X];
              const std::uint32_t Slot = Cnt[V]++;
              if (Slot >= Strip) [[unlikely]]
                internalError("a strip holds too many elements for one row");
              Q[J] = V * Strip + Slot;
              Moved[std::size_t(V) * GCols + Off + Slot] = Fb[Row + X];
            }
          }
          const std::uint64_t Base = F * Words;
          schedule_detail::conflictFreeBlock<std::uint16_t>(
              std::span<const std::uint32_t>(Q, Words), B.W,
              B.Plane[2].subspan(Base, Words), B.Plane[3].subspan(Base, Words),
              Sc.Blocks[T]);
        }
        for (std::uint32_t U = 0; U < NumRows; ++U)
          std::memcpy(B.Plane[5].data() + std::uint64_t(U) * Cols0 +
                          F0 * Strip,
                      Moved + std::size_t(U) * GCols, Cols * 2);
      });
}

/// Phase E: pass 2 per row. Q2 = the final columns (plane 5); s2/d2 ->
/// planes 4/5.
void scheduleFinalRowPass(HmmBuild &B, PassScratch &Sc) {
  parallelFor(B.R, B.Threads, [&](std::size_t V, unsigned T) {
    std::vector<std::uint32_t> &Q = Sc.Local[T];
    const std::uint64_t Row = V * B.C;
    Q.assign(B.Plane[5].begin() + Row, B.Plane[5].begin() + Row + B.C);
    schedule_detail::conflictFreeBlock<std::uint16_t>(
        Q, B.W, B.Plane[4].subspan(Row, B.C), B.Plane[5].subspan(Row, B.C),
        Sc.Blocks[T]);
  });
}

/// Reorders one warp's 32 (s, d) pairs so that each half-warp's sources and
/// destinations are distinct mod 16 (see orderHalfWarpLanes).
void orderWarpHalves(std::uint16_t *S, std::uint16_t *D) {
  std::uint8_t BySrc[32], ByDst[32], Colour[32];
  std::uint32_t SeenS = 0, SeenD = 0;
  for (std::uint8_t L = 0; L < 32; ++L) {
    BySrc[S[L] % 32] = L;
    ByDst[D[L] % 32] = L;
    SeenS |= std::uint32_t(1) << (S[L] % 32);
    SeenD |= std::uint32_t(1) << (D[L] % 32);
    Colour[L] = 2;
  }
  if (SeenS != ~std::uint32_t(0) || SeenD != ~std::uint32_t(0)) [[unlikely]]
    internalError("a warp of the schedule touches one bank twice");
  for (std::uint8_t Start = 0; Start < 32; ++Start) {
    if (Colour[Start] != 2)
      continue;
    std::uint8_t Cur = Start, C = 0;
    for (bool BySource = true;; BySource = !BySource, C ^= 1) {
      Colour[Cur] = C;
      const std::uint8_t Next = BySource ? BySrc[(S[Cur] % 32) ^ 16] : ByDst[(D[Cur] % 32) ^ 16];
      if (Colour[Next] != 2) {
        if (Colour[Next] == C) [[unlikely]]
          internalError("an odd cycle in a warp's half-warp order");
        break;
      }
      Cur = Next;
    }
  }
  std::uint16_t Sv[32], Dv[32];
  for (std::uint8_t L = 0; L < 32; ++L) {
    const unsigned Lane = 16u * Colour[L] + S[L] % 16;
    Sv[Lane] = S[L];
    Dv[Lane] = D[L];
  }
  std::copy(Sv, Sv + 32, S);
  std::copy(Dv, Dv + 32, D);
}

/// Phase F: each warp's 32 (s, d) pairs in an order whose halves both read
/// and write 16 indices distinct mod 16 (HmmShape::HalfWarpLanes). A warp's
/// sources are distinct mod 32 and so are its destinations, so each class
/// mod 16 holds two pairs on either side; the pairs linked by their
/// source class and by their destination class form even cycles, which
/// the walk colours alternately: colour 0 goes to lanes 0-15,
/// colour 1 to lanes 16-31, each at its source's class.
void orderHalfWarpLanes(HmmBuild &B, std::uint64_t N) {
  const std::uint64_t Warps = N / 32, PerTask = 4096, Tasks = (Warps + PerTask - 1) / PerTask;
  parallelFor(3 * Tasks, B.Threads, [&](std::size_t I, unsigned) {
    const int Pass = static_cast<int>(I / Tasks);
    const std::uint64_t First = (I % Tasks) * PerTask, Last = std::min(Warps, First + PerTask);
    for (std::uint64_t Warp = First; Warp < Last; ++Warp)
      orderWarpHalves(B.Plane[2 * Pass].data() + Warp * 32, B.Plane[2 * Pass + 1].data() + Warp * 32);
  });
}

} // namespace

HmmSchedule scheduleHmmPermutation(const Permutation &P, const HmmShape &Shape,
                                   unsigned Threads) {
  const std::uint64_t N = P.size();
  validateHmmShape(Shape, N);
  Threads = threadCount(Threads);
  PhaseTimer Timer(std::getenv("BANKWISE_SCHEDULE_TIMING") != nullptr);
  HmmSchedule Sched(Shape);
  HmmBuild B{Shape.Rows, Shape.Cols, Shape.StripCols, Shape.Banks,
             Shape.Cols / Shape.StripCols, Threads, P.map(), {}, Divider(Shape.Cols)};
  for (int I = 0; I < 6; ++I)
    B.Plane[I] = Sched.plane(I);

  buildRowGraphUnits(B);
  Timer.phase("A units");
  factorRowGraph(B, Timer);
  Timer.phase("B factorize");
  PassScratch Scratch(Threads);
  scheduleFirstRowPass(B, Scratch);
  Timer.phase("C pass 0");
  scheduleColumnPass(B, Scratch);
  Timer.phase("D pass 1");
  scheduleFinalRowPass(B, Scratch);
  Timer.phase("E pass 2");
  if (Shape.HalfWarpLanes) {
    orderHalfWarpLanes(B, N);
    Timer.phase("F half-warp lane order");
  }
  return Sched;
}

std::vector<std::uint32_t> applyHmmSchedule(const HmmSchedule &Sched,
                                            std::span<const std::uint32_t> A,
                                            unsigned Threads) {
  const std::uint64_t N = Sched.size();
  if (A.size() != N)
    throw UserError(
        fmt::format("HMM schedule for {} words applied to {}", N, A.size()));
  Threads = threadCount(Threads);
  std::vector<std::uint32_t> In(A.begin(), A.end()), Out(N);
  std::vector<std::vector<std::uint32_t>> Alpha(Threads), Beta(Threads);
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    const std::uint32_t BW = Sched.blockWords(Pass);
    const std::span<const std::uint16_t> S = Sched.s(Pass), D = Sched.d(Pass);
    parallelFor(
        Sched.numBlocks(Pass), Threads, [&](std::size_t Blk, unsigned T) {
          std::vector<std::uint32_t> &Al = Alpha[T], &Be = Beta[T];
          Al.resize(BW);
          Be.resize(BW);
          const auto B = static_cast<std::uint32_t>(Blk);
          const std::uint64_t Base = std::uint64_t(B) * BW;
          for (std::uint32_t J = 0; J < BW; ++J) // (1) coalesced load
            Al[J] = In[Sched.address(Pass, B, J)];
          for (std::uint32_t J = 0; J < BW; ++J) // (2)+(3) conflict-free move
            Be[D[Base + J]] = Al[S[Base + J]];
          for (std::uint32_t J = 0; J < BW; ++J) // (4) coalesced store
            Out[Sched.address(Pass, B, J)] = Be[J];
        });
    In.swap(Out);
  }
  return In;
}

std::vector<HmmPassCost> hmmPassCosts(const HmmSchedule &Sched, int ElemBytes) {
  const HmmShape &Sh = Sched.shape();
  const std::uint32_t W = Sh.Banks;
  std::vector<HmmPassCost> Costs;
  std::vector<Address> Words(W), Bytes(W), Idx(W);
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    HmmPassCost C;
    C.Kind = HmmSchedule::kind(Pass);
    C.Blocks = Sched.numBlocks(Pass);
    C.BlockWords = Sched.blockWords(Pass);
    const std::span<const std::uint16_t> S = Sched.s(Pass), D = Sched.d(Pass);
    auto Global = [&](std::span<const Address> Ws) {
      for (std::uint32_t L = 0; L < W; ++L)
        Bytes[L] = Ws[L] * ElemBytes;
      const Sm90GlobalCost G = sm90Global(Bytes, ElemBytes);
      ++C.GlobalRequests;
      C.Sectors += static_cast<std::uint64_t>(G.Sectors);
      C.MaxSectorsPerRequest = std::max(C.MaxSectorsPerRequest, G.Sectors);
      C.MaxLinesPerRequest = std::max(C.MaxLinesPerRequest, G.Lines);
      C.MaxUmmGroups = std::max(C.MaxUmmGroups, ummGroups(Ws, W));
    };
    auto Shared = [&](std::span<const Address> Ws) {
      C.MaxSharedCongestion =
          std::max(C.MaxSharedCongestion, dmmCongestion(Ws, W));
    };
    for (std::uint32_t B = 0; B < C.Blocks; ++B) {
      const std::uint64_t Base = std::uint64_t(B) * C.BlockWords;
      for (std::uint32_t K0 = 0; K0 < C.BlockWords; K0 += W) {
        // (1) and (4): global in/out at addr(j), shared alpha/beta at j.
        for (std::uint32_t L = 0; L < W; ++L) {
          Words[L] = static_cast<Address>(Sched.address(Pass, B, K0 + L));
          Idx[L] = K0 + L;
        }
        Global(Words); // load of in
        Global(Words); // store to out
        Shared(Idx);   // alpha store, beta load
        // (2): s and d, 2-byte entries, plane offsets.
        for (std::uint32_t L = 0; L < W; ++L)
          Bytes[L] = static_cast<Address>((Base + K0 + L) * 2);
        C.IndexSectors +=
            2 * static_cast<std::uint64_t>(sm90Global(Bytes, 2).Sectors);
        // (3): alpha[s], beta[d].
        for (std::uint32_t L = 0; L < W; ++L)
          Idx[L] = S[Base + K0 + L];
        Shared(Idx);
        for (std::uint32_t L = 0; L < W; ++L)
          Idx[L] = D[Base + K0 + L];
        Shared(Idx);
      }
    }
    Costs.push_back(C);
  }
  return Costs;
}

} // namespace bankwise
