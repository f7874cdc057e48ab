#include "report/SiteJson.h"

#include "ir/Program.h"

#include <fmt/format.h>

namespace bankwise::report {

nlohmann::json statsJson(const CostStats &S) {
  if (S.Count == 0)
    return nullptr;
  return {{"min", S.Min}, {"mean", S.mean()}, {"max", S.Max}};
}

nlohmann::json siteJson(const AccessSiteReport &S, const std::string &Location) {
  nlohmann::json J = {{"location", Location},
                      {"array", S.Array},
                      {"space", std::string(ir::spelling(S.Space))},
                      {"access", S.IsAtomic ? "atomic" : S.IsWrite ? "write" : "read"},
                      {"layout", S.Layout},
                      {"elem_bytes", S.ElemBytes},
                      {"warp_executions", S.WarpExecutions},
                      {"thread_accesses", S.ThreadAccesses},
                      {"data_dependent", S.DataDependent}};
  if (S.IsAtomic)
    J["atomic"] = std::string(ir::spelling(S.Op));
  if (S.IsAtomic && S.Issue != AtomicIssue::PerLane)
    J["nvcc_issue"] = std::string(spelling(S.Issue));
  if (S.DataGuarded) {
    J["data_guard"] = {{"source", S.GuardSource},
                       {"kind", S.GuardIsLoop ? "loop bounds" : "condition"},
                       {"location", fmt::format("{}:{}", S.GuardLoc.Line, S.GuardLoc.Col)},
                       {"costs", "worst case: every lane that reaches the access makes it"}};
    if (!S.DataDependent)
      J["data_guard"]["expected_congestion_half"] = S.ExpectedGuardCongestion;
  }
  if (S.DataDependent) {
    J["data_source"] = S.DataSource;
    J["worst_congestion"] = S.WorstCongestion;
    J["expected_congestion_random"] = S.ExpectedRapCongestion;
    return J;
  }
  J["congestion"] = statsJson(S.Congestion);
  J["groups"] = statsJson(S.Groups);
  if (S.Space == ir::MemSpace::Shared) {
    J["sm90_wavefronts"] = statsJson(S.Wavefronts);
  } else {
    J["sm90_sectors"] = statsJson(S.Sectors);
    J["sm90_lines"] = statsJson(S.Lines);
  }
  if (S.IsAtomic)
    J["same_address_serialization"] = statsJson(S.Serialization);
  return J;
}

} // namespace bankwise::report
