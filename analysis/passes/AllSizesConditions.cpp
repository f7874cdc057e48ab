// How the all-sizes figures read: a range's text ("1..5 for every size
// (5 only when C % 8 != 0)") and a residue set's condition.
#include "analysis/passes/AllSizes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace bankwise {

std::string SizeRange::str() const {
  if (!Any)
    return "-";
  if (Min == Max)
    return fmt::format("{} {}", Min, Sampled ? "at every size tried, sampled" : "for every size");
  std::vector<std::string> When;
  if (!MaxWhen.empty())
    When.push_back(fmt::format("{} only when {}", Max, MaxWhen));
  if (!MinWhen.empty())
    When.push_back(fmt::format("{} only when {}", Min, MinWhen));
  const std::string Over = Sampled ? "at the sizes tried, sampled" : "for every size";
  if (When.empty())
    return fmt::format("{}..{} {}", Min, Max, Over);
  return fmt::format("{}..{} {} ({})", Min, Max, Over, fmt::join(When, "; "));
}

namespace {

/// "1, 2, 3, 5" -> "1..3, 5".
std::string rangesText(const std::vector<std::int64_t> &V) {
  std::vector<std::string> Parts;
  for (std::size_t I = 0; I < V.size();) {
    std::size_t J = I;
    while (J + 1 < V.size() && V[J + 1] == V[J] + 1)
      ++J;
    Parts.push_back(J >= I + 2 ? fmt::format("{}..{}", V[I], V[J])
                               : (J == I ? fmt::format("{}", V[I]) : fmt::format("{}, {}", V[I], V[J])));
    I = J + 1;
  }
  return fmt::format("{}", fmt::join(Parts, ", "));
}

} // namespace

std::string residueCondition(const std::string &Name, const std::vector<bool> &Set, bool Listed, std::int64_t Step) {
  const std::int64_t L = static_cast<std::int64_t>(Set.size());
  // Only the residues a size of the domain has (multiples of gcd(Step, L),
  // the domain's values being multiples of Step) are described; the others
  // are no size at all.
  const std::int64_t G = std::gcd(std::max<std::int64_t>(Step, 1), std::max<std::int64_t>(L, 1));
  auto Exists = [&](std::int64_t R) { return R % G == 0; };
  std::int64_t Count = 0, Existing = 0;
  for (std::int64_t R = 0; R < L; ++R)
    if (Exists(R)) {
      ++Existing;
      Count += Set[static_cast<std::size_t>(R)] ? 1 : 0;
    }
  if (Count == 0 || Count == Existing)
    return "";
  if (Listed) {
    std::vector<std::int64_t> In;
    for (std::int64_t R = 0; R < L; ++R)
      if (Exists(R) && Set[static_cast<std::size_t>(R)])
        In.push_back(R);
    return In.size() == 1 ? fmt::format("{} % {} == {}", Name, L, In[0])
                          : fmt::format("{} % {} in {{{}}}", Name, L, rangesText(In));
  }
  // The smallest modulus M dividing L with Set, on the residues that
  // exist, a union of classes mod M; a class no size has is named in
  // neither list.
  for (std::int64_t M = 2; M <= L; ++M) {
    if (L % M != 0)
      continue;
    std::vector<int> Class(static_cast<std::size_t>(M), -1); // -1 none, 0 out, 1 in
    bool Union = true;
    for (std::int64_t R = 0; R < L && Union; ++R) {
      if (!Exists(R))
        continue;
      int &C = Class[static_cast<std::size_t>(R % M)];
      const int V = Set[static_cast<std::size_t>(R)] ? 1 : 0;
      Union = C < 0 || C == V;
      C = V;
    }
    if (!Union)
      continue;
    std::vector<std::int64_t> In, Out;
    for (std::int64_t R = 0; R < M; ++R)
      if (Class[static_cast<std::size_t>(R)] >= 0)
        (Class[static_cast<std::size_t>(R)] ? In : Out).push_back(R);
    if (M == 2)
      return fmt::format("{} is {}", Name, In[0] == 0 ? "even" : "odd");
    if (In.size() == 1)
      return fmt::format("{} % {} == {}", Name, M, In[0]);
    if (Out.size() == 1)
      return fmt::format("{} % {} != {}", Name, M, Out[0]);
    if (In.size() <= Out.size())
      return fmt::format("{} % {} in {{{}}}", Name, M, rangesText(In));
    return fmt::format("{} % {} not in {{{}}}", Name, M, rangesText(Out));
  }
  return "";
}

} // namespace bankwise
