#include "analysis/checks/BankConflictCheck.h"

#include <fmt/format.h>

#include <algorithm>

namespace bankwise {

namespace {

constexpr const char *Name = "bankwise-bank-conflict";

/// "32 words", "0.5 words".
std::string strideText(double W) {
  if (W == static_cast<double>(static_cast<std::int64_t>(W)))
    return fmt::format("{} word{}", static_cast<std::int64_t>(W), W == 1 || W == -1 ? "" : "s");
  return fmt::format("{:g} words", W);
}

std::string wavefrontsText(std::int64_t W) { return fmt::format("{} wavefront{}", W, W == 1 ? "" : "s"); }

} // namespace

std::vector<LintFinding> checkBankConflicts(const std::vector<LintSite> &Sites) {
  std::vector<LintFinding> Out;
  for (const LintSite &S : Sites) {
    if (S.Space != ir::MemSpace::Shared)
      continue;
    const std::int64_t Ideal = std::max<std::int64_t>(1, S.ElemBytes / 4);
    if (S.DataDependent) {
      LintFinding F{Name, Severity::Note, S.Loc,
                    fmt::format("shared {} '{}' at an index that depends on data{}: its bank conflicts "
                                "cannot be known statically (from none to 32-way)",
                                accessPhrase(S), S.Source,
                                S.DataSource.empty() ? "" : fmt::format(" ('{}')", S.DataSource)),
                    {}};
      Out.push_back(std::move(F));
      continue;
    }
    if (!S.Wavefronts.Any || S.Wavefronts.Max <= Ideal)
      continue;
    const std::int64_t Degree = (S.Wavefronts.Max + Ideal - 1) / Ideal;
    std::string Detail;
    if (Ideal > 1)
      Detail = fmt::format("{} per request, {} at best for {}-byte elements", wavefrontsText(S.Wavefronts.Max),
                           Ideal, S.ElemBytes);
    if (S.LaneStrideWords)
      Detail += fmt::format("{}lanes stride {}", Detail.empty() ? "" : "; ", strideText(*S.LaneStrideWords));
    LintFinding F;
    F.Check = Name;
    F.Sev = S.UncertainMask ? Severity::Note : Severity::Warning;
    F.Loc = S.Loc;
    F.Message = fmt::format("{}{}-way bank conflict on shared {} '{}'{}{}", S.UncertainMask ? "up to " : "", Degree,
                            accessPhrase(S), S.Source, Detail.empty() ? "" : " (" + Detail + ")",
                            sizeCondition(S, S.Wavefronts));
    if (S.UncertainMask)
      F.Message += " if every lane takes it (the lanes that do depend on a condition the lint cannot evaluate)";
    if (!S.Wavefronts.MaxWhen.empty())
      F.Notes.push_back({S.Loc, fmt::format("over every size of {}: {} wavefronts per request", S.Domain,
                                            S.Wavefronts.str())});
    for (const FixFigure &X : S.Fixes)
      F.Notes.push_back({S.Loc, fmt::format("{}: {} per request{}", X.Fix, wavefrontsText(X.Wavefronts.Max),
                                            X.Wavefronts.Max <= Ideal ? " (conflict-free)" : "")});
    if (S.IsAtomic && S.LaneStrideWords && *S.LaneStrideWords == 0)
      F.Notes.push_back({S.Loc, "every lane updates one address, and a shared atomic takes a wavefront per lane "
                                "on a bank: combine the warp's values first (__reduce_add_sync or shuffles) and "
                                "let one lane do the atomic (nvcc does so itself for a 32-bit integer add, min, "
                                "max, and, or or xor when the address does not depend on the thread, and for "
                                "an add of 1 whose old value is unused)"});
    else if (S.Dims < 2 && S.LaneStrideWords)
      F.Notes.push_back({S.Loc, "a one-dimensional array has no inner dimension to pad: index it so that "
                                "consecutive lanes touch consecutive words (e.g. sequential addressing)"});
    Out.push_back(std::move(F));
  }
  return Out;
}

} // namespace bankwise
