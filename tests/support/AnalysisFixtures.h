// Analysis helpers shared by the analysis test suites.
#pragma once

#include "analysis/passes/KernelAnalysis.h"

#include <utility>

namespace bankwise::testing {

/// Kernel K of P analyzed twice: as analyze does (the fast path where it
/// applies) and warp by warp (the oracle), for tests that compare them.
inline std::pair<KernelReport, KernelReport> fastAndExhaustive(const ir::Program &P, const ir::Kernel &K) {
  AnalysisOptions O;
  O.Exhaustive = true;
  return {analyzeKernel(P, K), analyzeKernel(P, K, O)};
}

} // namespace bankwise::testing
