// Analysis helpers shared by the analysis test suites.
#pragma once

#include "analysis/passes/KernelAnalysis.h"

#include <doctest/doctest.h>
#include <utility>

namespace bankwise::testing {

/// Kernel K of P analyzed twice: as analyze does (the fast path where it
/// applies) and warp by warp (the oracle), for tests that compare them.
inline std::pair<KernelReport, KernelReport> fastAndExhaustive(const ir::Program &P, const ir::Kernel &K) {
  AnalysisOptions O;
  O.Exhaustive = true;
  return {analyzeKernel(P, K), analyzeKernel(P, K, O)};
}

/// The two reports of fastAndExhaustive agree site by site and in time.
inline void checkSameReports(const KernelReport &Fast, const KernelReport &Slow) {
  REQUIRE(Fast.Sites.size() == Slow.Sites.size());
  for (std::size_t I = 0; I < Fast.Sites.size(); ++I)
    CHECK(Fast.Sites[I] == Slow.Sites[I]);
  CHECK(Fast.Time == Slow.Time);
}

/// Kernel K of P analyzed on the counting path (which it must stay on),
/// with the figures, time and requests of the warp-by-warp evaluation.
inline void checkCountedAsWarpByWarp(const ir::Program &P, const ir::Kernel &K) {
  const auto [Fast, Slow] = fastAndExhaustive(P, K);
  CAPTURE(Fast.FallbackReason);
  CHECK(Fast.FastPath);
  checkSameReports(Fast, Slow);
  CHECK(Fast.Requests == Slow.Requests);
}

} // namespace bankwise::testing
