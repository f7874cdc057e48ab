#include "analysis/checks/UncoalescedCheck.h"

#include <fmt/format.h>

namespace bankwise {

std::vector<LintFinding> checkUncoalesced(const std::vector<LintSite> &Sites) {
  std::vector<LintFinding> Out;
  for (const LintSite &S : Sites) {
    if (S.Space != ir::MemSpace::Global || S.DataDependent || !S.Sectors.Any)
      continue;
    // A full warp's bytes in 32-byte sectors, and one more for a warp that
    // is contiguous but not aligned to them.
    const std::int64_t Ideal = std::max<std::int64_t>(1, S.ElemBytes);
    if (S.Sectors.Max <= Ideal + 1)
      continue;
    LintFinding F;
    F.Check = "bankwise-uncoalesced";
    F.Sev = S.UncertainMask ? Severity::Note : Severity::Warning;
    F.Loc = S.Loc;
    std::string Stride;
    if (S.LaneStrideWords)
      Stride = fmt::format("; lanes stride {:g} words", *S.LaneStrideWords);
    F.Message = fmt::format("{}uncoalesced global {} '{}': {} sectors per request, {} at best ({} 128-byte "
                            "lines{}){}",
                            S.UncertainMask ? "possibly " : "", accessPhrase(S), S.Source, S.Sectors.Max, Ideal,
                            S.Lines.Max, Stride, sizeCondition(S, S.Sectors));
    if (!S.Sectors.MaxWhen.empty())
      F.Notes.push_back({S.Loc, fmt::format("over every size of {}: {} sectors per request", S.Domain,
                                            S.Sectors.str())});
    F.Notes.push_back({S.Loc, "make consecutive lanes access consecutive elements, staging through shared "
                              "memory where the pattern needs it (a tiled transpose)"});
    Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace bankwise
