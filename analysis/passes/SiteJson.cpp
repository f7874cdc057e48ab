#include "analysis/passes/SiteJson.h"

#include "ir/Program.h"

namespace bankwise {

nlohmann::json statsJson(const CostStats &S) {
  if (S.Count == 0)
    return nullptr;
  return {{"min", S.Min}, {"mean", S.mean()}, {"max", S.Max}};
}

nlohmann::json siteJson(const AccessSiteReport &S, const std::string &Location) {
  nlohmann::json J = {{"location", Location},
                      {"array", S.Array},
                      {"space", std::string(ir::spelling(S.Space))},
                      {"access", S.IsWrite ? "write" : "read"},
                      {"layout", S.Layout},
                      {"elem_bytes", S.ElemBytes},
                      {"warp_executions", S.WarpExecutions},
                      {"thread_accesses", S.ThreadAccesses},
                      {"data_dependent", S.DataDependent}};
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
  return J;
}

} // namespace bankwise
