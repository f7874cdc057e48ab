// Seed 003 Sec. IV on top of the block schedule.

#include "analysis/schedule/ConflictFree.h"

#include "analysis/models/MemoryModel.h"
#include "analysis/schedule/EdgeColoring.h"
#include "analysis/schedule/detail/BlockSchedule.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>

namespace bankwise {

DmmSchedule scheduleConflictFree(const Permutation &P, std::uint32_t W) {
  const std::uint64_t N = P.size();
  if (W == 0)
    throw UserError("conflict-free permutation: the DMM needs at least 1 bank");
  if (N == 0 || N % W != 0)
    throw UserError(fmt::format(
        "conflict-free permutation: n = {} is not a positive multiple of the "
        "{} banks, so the bank graph is not regular",
        N, W));
  DmmSchedule Sched;
  Sched.W = W;
  Sched.S.resize(N);
  Sched.D.resize(N);
  schedule_detail::BlockScratch B;
  schedule_detail::conflictFreeBlock<std::uint32_t>(P.map(), W, Sched.S,
                                                    Sched.D, B);
  return Sched;
}

DmmSchedule conflictFreeFromColoring(const Permutation &P, std::uint32_t W,
                                     std::span<const std::uint32_t> Colors) {
  const std::uint64_t N = P.size();
  if (W == 0 || N == 0 || N % W != 0)
    throw UserError(fmt::format(
        "conflict-free permutation: n = {} is not a positive multiple of the "
        "{} banks",
        N, W));
  std::vector<BipartiteEdge> Edges(N);
  for (std::uint64_t X = 0; X < N; ++X)
    Edges[X] = {static_cast<std::uint32_t>(X % W),
                static_cast<std::uint32_t>(P(X) % W)};
  const ColoringCheck Check =
      checkEdgeColoring(W, Edges, Colors, static_cast<std::uint32_t>(N / W));
  if (!Check.Ok)
    throw UserError(fmt::format("conflict-free permutation: not a König "
                                "colouring of the bank graph: {}",
                                Check.Problem));
  DmmSchedule Sched;
  Sched.W = W;
  Sched.S.resize(N);
  Sched.D.resize(N);
  schedule_detail::BlockScratch B;
  schedule_detail::conflictFreeFromColors<std::uint32_t>(P.map(), W, Colors,
                                                         Sched.S, Sched.D, B);
  return Sched;
}

std::vector<std::uint32_t> applyDmmSchedule(const DmmSchedule &Sched,
                                            std::span<const std::uint32_t> A) {
  if (A.size() != Sched.S.size())
    throw UserError(fmt::format("DMM schedule for {} words applied to {}",
                                Sched.S.size(), A.size()));
  std::vector<std::uint32_t> B(A.size());
  for (std::size_t K = 0; K < A.size(); ++K)
    B[Sched.D[K]] = A[Sched.S[K]];
  return B;
}

DmmScheduleCost dmmScheduleCost(const DmmSchedule &Sched) {
  DmmScheduleCost Cost;
  const std::size_t W = Sched.W;
  std::vector<Address> Lanes(W);
  for (std::size_t Base = 0; Base + W <= Sched.S.size(); Base += W) {
    ++Cost.Warps;
    for (std::size_t L = 0; L < W; ++L)
      Lanes[L] = Sched.S[Base + L];
    Cost.MaxReadCongestion = std::max(
        Cost.MaxReadCongestion, dmmCongestion(Lanes, static_cast<std::int64_t>(W)));
    for (std::size_t L = 0; L < W; ++L)
      Lanes[L] = Sched.D[Base + L];
    Cost.MaxWriteCongestion = std::max(
        Cost.MaxWriteCongestion, dmmCongestion(Lanes, static_cast<std::int64_t>(W)));
  }
  return Cost;
}

} // namespace bankwise
