// Vector views (docs/language.md, "Vector views"): a view's accesses are
// accesses of its element size at its array's bytes. Sectors and
// wavefronts against a count made here from the lanes' byte addresses.

#include "analysis/passes/KernelAnalysis.h"
#include "tests/support/AnalysisFixtures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

/// Distinct 32-byte sectors of a warp whose lane l accesses Bytes bytes at
/// byte Start(l).
std::int64_t sectors(std::int64_t Bytes, const std::function<std::int64_t(std::int64_t)> &Start) {
  std::set<std::int64_t> S;
  for (std::int64_t L = 0; L < 32; ++L)
    for (std::int64_t B = Start(L); B < Start(L) + Bytes; B += 4)
      S.insert(B / 32);
  return static_cast<std::int64_t>(S.size());
}

/// sm_90 shared wavefronts of such a warp (16-byte accesses: the whole-warp
/// rule): the most distinct 4-byte words in one of 32 banks, at least
/// bytes / 128.
std::int64_t wavefronts(std::int64_t Bytes, const std::function<std::int64_t(std::int64_t)> &Start) {
  std::map<std::int64_t, std::set<std::int64_t>> Banks;
  for (std::int64_t L = 0; L < 32; ++L)
    for (std::int64_t B = Start(L); B < Start(L) + Bytes; B += 4)
      Banks[(B / 4) % 32].insert(B / 4);
  std::int64_t Most = 0;
  for (const auto &[Bank, Words] : Banks)
    Most = std::max<std::int64_t>(Most, static_cast<std::int64_t>(Words.size()));
  return std::max<std::int64_t>(Most, (32 * Bytes + 127) / 128);
}

const AccessSiteReport &siteOf(const KernelReport &R, const std::string &Array, bool IsWrite) {
  for (const AccessSiteReport &S : R.Sites)
    if (S.Array == Array && S.IsWrite == IsWrite)
      return S;
  FAIL("no site of " << Array);
  return R.Sites.front();
}

} // namespace

TEST_CASE("a view's accesses are 16-byte accesses at its array's bytes") {
  for (const std::int64_t Stride : {1, 2, 3, 5}) {
    const std::string Text = fmt::format("target sm_90\n"
                                         "kernel k(a: global f32[8192], b: global f32[1024]) grid (2) block (128) {{\n"
                                         "  shared s: f32[1024] layout raw\n"
                                         "  view a4 = a as f32x4\n"
                                         "  view b4 = b as f32x4\n"
                                         "  view s4 = s as f32x4\n"
                                         "  s4[tx * {} % 256] = a4[tid * {}]\n"
                                         "  sync\n"
                                         "  b4[tid] = s4[tx]\n"
                                         "}}\n",
                                         Stride, Stride);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const auto [Fast, Slow] = testing::fastAndExhaustive(P, P.Kernels[0]);
    testing::checkSameReports(Fast, Slow);
    const AccessSiteReport &Read = siteOf(Fast, "a4", false);
    CHECK(Read.ElemBytes == 16);
    CHECK(Read.Space == ir::MemSpace::Global);
    const std::int64_t Want = sectors(16, [&](std::int64_t L) { return 16 * L * Stride; });
    CHECK(Read.Sectors.Min == Want);
    CHECK(Read.Sectors.Max == Want);
    const AccessSiteReport &Write = siteOf(Fast, "s4", true);
    CHECK(Write.Space == ir::MemSpace::Shared);
    const std::int64_t Waves = wavefronts(16, [&](std::int64_t L) { return 16 * (L * Stride % 256); });
    CHECK(Write.Wavefronts.Min == Waves);
    CHECK(Write.Wavefronts.Max == Waves);
    CHECK(siteOf(Fast, "b4", true).Sectors.Max == 16); // 512 contiguous bytes
    CHECK(siteOf(Fast, "s4", false).Wavefronts.Max == 4);
  }
}
