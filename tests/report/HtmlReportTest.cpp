// The HTML report (report/): the warps walked lane by lane agree with the
// analysis, the bank map draws each lane in its bank with its turn, the
// page is well formed and escapes what it quotes.

#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/WarpLanes.h"
#include "report/AnalysisPages.h"
#include "report/HtmlReport.h"
#include "report/SiteFigures.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <regex>
#include <set>
#include <vector>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

/// Occurrences of Needle in Text.
std::size_t count(const std::string &Text, const std::string &Needle) {
  std::size_t N = 0;
  for (std::size_t At = Text.find(Needle); At != std::string::npos; At = Text.find(Needle, At + 1))
    ++N;
  return N;
}

/// The access rects of a bank map: (lane, bank, turn).
std::vector<std::array<int, 3>> accesses(const std::string &Svg) {
  std::vector<std::array<int, 3>> Out;
  const std::regex R("data-lane=\"(\\d+)\" data-(?:bank|sector)=\"(\\d+)\" data-turn=\"(\\d+)\"");
  for (auto It = std::sregex_iterator(Svg.begin(), Svg.end(), R); It != std::sregex_iterator(); ++It)
    Out.push_back({std::stoi((*It)[1]), std::stoi((*It)[2]), std::stoi((*It)[3])});
  return Out;
}

/// Every <tag ...> opened in Html is closed, in order (void elements and
/// self-closing tags aside): a cheap check that the page is well formed.
void checkBalanced(const std::string &Html) {
  const std::set<std::string> Void = {"meta", "br", "!DOCTYPE"};
  std::vector<std::string> Open;
  const std::regex Tag("<(/?)([!A-Za-z][A-Za-z0-9]*)[^>]*?(/?)>");
  for (auto It = std::sregex_iterator(Html.begin(), Html.end(), Tag); It != std::sregex_iterator(); ++It) {
    const std::string Name = (*It)[2];
    if (Void.count(Name) || (*It)[3] == "/")
      continue;
    if ((*It)[1] == "/") {
      REQUIRE_FALSE(Open.empty());
      CHECK(Open.back() == Name);
      Open.pop_back();
    } else {
      Open.push_back(Name);
    }
  }
  CHECK(Open.empty());
}

const char *StrideTwo = "target sm_90\n"
                        "kernel k(out: global f32[64]) grid (1) block (32) {\n"
                        "  shared s: f32[64] layout raw\n"
                        "  s[2 * tx] = 1.0\n"
                        "  sync\n"
                        "  out[tx] = s[2 * tx]\n"
                        "}\n";

} // namespace

TEST_CASE("escapeHtml escapes markup and quotes") {
  CHECK(report::escapeHtml("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(report::escapeHtml("plain") == "plain");
}

TEST_CASE("a stride-2 warp puts lanes 0 and 16 in bank 0, turns 1 and 2") {
  report::BankMap M;
  M.CostName = "wavefronts";
  for (int L = 0; L < 32; ++L)
    M.ByteAddrs[static_cast<std::size_t>(L)] = 8 * L; // word 2l
  M.Cost = 2;
  const std::string Svg = report::bankMapSvg(M);
  const auto A = accesses(Svg);
  CHECK(A.size() == 32);
  std::vector<std::array<int, 3>> Bank0;
  for (const auto &X : A)
    if (X[1] == 0)
      Bank0.push_back(X);
  REQUIRE(Bank0.size() == 2);
  CHECK(Bank0[0] == std::array<int, 3>{0, 0, 1});
  CHECK(Bank0[1] == std::array<int, 3>{16, 0, 2});
  for (const auto &X : A)
    CHECK(X[1] % 2 == 0); // odd banks idle
  CHECK(count(Svg, "class=\"load worst\"") == 16); // the 16 even banks hold 2 words each
  CHECK(count(Svg, "<svg ") == 1);
}

TEST_CASE("an 8-byte warp is drawn per half warp, each lane in two banks") {
  report::BankMap M;
  M.ElemBytes = 8;
  for (int L = 0; L < 32; ++L)
    M.ByteAddrs[static_cast<std::size_t>(L)] = 8 * L;
  const auto A = accesses(report::bankMapSvg(M));
  CHECK(A.size() == 64);
  for (const auto &X : A)
    CHECK(X[2] == 1); // each half's 16 lanes fill the 32 banks once
}

TEST_CASE("idle lanes draw nothing, a global warp is drawn against sectors") {
  report::BankMap M;
  M.Shared = false;
  M.ByteAddrs.fill(-1);
  M.ByteAddrs[0] = 256;
  M.ByteAddrs[1] = 256 + 128; // the next line
  const auto A = accesses(report::bankMapSvg(M));
  REQUIRE(A.size() == 2);
  CHECK(A[0] == std::array<int, 3>{0, 0, 1});
  CHECK(A[1] == std::array<int, 3>{1, 4, 2});
}

TEST_CASE("the histogram has one bar per cost") {
  report::Histogram H;
  H.Bars = {{1, 30}, {2, 2}, {32, 1}};
  const std::string Svg = report::histogramSvg(H);
  CHECK(count(Svg, "class=\"bar\"") == 3);
  CHECK(Svg.find("data-cost=\"32\" data-count=\"1\"") != std::string::npos);
}

TEST_CASE("the walked lanes of a stride-2 site cost what the analysis says") {
  const ir::Program P = parseOrFail(StrideTwo);
  const ir::Kernel &K = P.Kernels[0];
  const KernelReport R = analyzeKernel(P, K);
  std::size_t Shared = 0;
  for (const AccessSiteReport &S : R.Sites) {
    REQUIRE(S.Node.Read);
    const SiteLanes L = sampleSiteLanes(P, K, S.Node.Read, {});
    REQUIRE(L.Executions.size() == 1);
    const WarpLanes &W = L.Executions[0];
    if (S.Space == ir::MemSpace::Shared) {
      ++Shared;
      for (std::size_t Lane = 0; Lane < 32; ++Lane)
        CHECK(W.Elems[Lane] == 2 * static_cast<std::int64_t>(Lane));
      CHECK(warpCost(L, W, L.Layout) == S.Wavefronts.Max);
      CHECK(S.Wavefronts.Max == 2);
      const LaneDrawing D = drawLanes(L, L.Layout);
      CHECK(D.Worst == std::optional<std::size_t>(0));
      const report::BankMap M = report::bankMap(L, D, "worst");
      CHECK(M.Cost == 2);
      CHECK(M.ByteAddrs[16] == 128);
    } else {
      CHECK(warpCost(L, W, L.Layout) == S.Sectors.Max);
    }
  }
  CHECK(Shared == 2);
}

TEST_CASE("a pad(1) layout takes a column walk's 32 lanes to 32 banks") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(out: global f32[1024]) grid (1) block (32, 32) {\n"
                                    "  shared t: f32[32][32] layout raw\n"
                                    "  t[tx][ty] = 1.0\n"
                                    "  sync\n"
                                    "  out[ty * 32 + tx] = t[ty][tx]\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  const KernelReport R = analyzeKernel(P, K);
  const AccessSiteReport &W = R.Sites[0];
  REQUIRE(W.Array == "t");
  const SiteLanes L = sampleSiteLanes(P, K, W.Node.Read, {});
  CHECK(L.Executions.size() == 8); // the first 8 warps of the only block
  const std::optional<std::size_t> Worst = worstExecution(L, L.Layout);
  REQUIRE(Worst);
  CHECK(warpCost(L, L.Executions[*Worst], L.Layout) == 32);
  CHECK(W.Wavefronts.Max == 32);
  const LayoutFn Pad = makeLayout(LayoutKind::Pad, {32, 32}, 1);
  CHECK(warpCost(L, L.Executions[*Worst], Pad) == 1);
  const LaneDrawing Padded = drawLanes(L, Pad);
  CHECK(Padded.Worst == Worst);
  CHECK(Padded.Cost == 1);
  const report::ElementGrid G = report::elementGrid(Padded, "pad");
  CHECK(G.Cols == 32);
  REQUIRE(G.Banks.size() == 8 * 32);
  CHECK(G.Banks[32] == 1); // t[1][0] at word 33
  const LaneDrawing Raw = drawLanes(L, L.Layout);
  CHECK(Raw.Worst == Worst);
  CHECK(Raw.Cost == 32);
  CHECK(Raw.GridBanks[32] == 0); // t[1][0] at word 32
  const std::optional<report::Histogram> H = report::costHistogram(L, Raw);
  REQUIRE(H);
  REQUIRE(H->Bars.size() == 1);
  CHECK(H->Bars[0] == std::pair<std::int64_t, std::int64_t>{32, 8});
}

TEST_CASE("the page is well formed, has a figure per site and escapes source text") {
  const ir::Program P = parseOrFail(StrideTwo);
  const ir::Kernel &K = P.Kernels[0];
  const KernelReport R = analyzeKernel(P, K);
  report::Document D;
  D.Title = "bankwise analyze <k.bw>";
  report::Section S;
  S.Heading = "kernel 'k'";
  for (std::size_t I = 0; I < R.Sites.size(); ++I) {
    const SiteLanes Lanes = sampleSiteLanes(P, K, R.Sites[I].Node.Read, {});
    const SiteDrawings Drawn{Lanes, drawLanes(Lanes, Lanes.Layout), std::nullopt};
    S.Sites.push_back(report::analyzedSite(R.Sites[I], &P, &K, nullptr, &Drawn, fmt::format("s{}", I)));
  }
  S.Sites[0].Source.Lines = {"let x = a[i] < b && c > \"d\""};
  S.Sites[0].Source.FirstLine = S.Sites[0].Source.Line;
  D.Sections.push_back(S);
  const std::string Html = report::renderHtml(D);
  checkBalanced(Html);
  CHECK(Html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(Html, "class=\"bank-map\"") == 2 * R.Sites.size()); // the worst warp, and the layout's panel
  CHECK(count(Html, "class=\"histogram\"") == R.Sites.size());
  CHECK(count(Html, "class=\"element-grid\"") == 2); // shared sites only
  CHECK(Html.find("a[i] &lt; b &amp;&amp; c &gt; &quot;d&quot;") != std::string::npos);
  CHECK(Html.find("&lt;k.bw&gt;") != std::string::npos);
  CHECK(Html.find("<script") == std::string::npos);
  CHECK(count(Html, "http") == count(Html, "http://www.w3.org/2000/svg")); // only the SVG namespace
}

TEST_CASE("the histogram is the analysis's, over every warp execution of the launch, not the sample's") {
  // 64 blocks of 8 warps: the walk samples block 0 and the last, the
  // histogram counts all 512 warp executions.
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(out: global f32[16384]) grid (64) block (32, 8) {\n"
                                    "  shared t: f32[32][32] layout raw\n"
                                    "  t[tx][ty] = 1.0\n"
                                    "  sync\n"
                                    "  out[bx * 256 + ty * 32 + tx] = t[ty][tx]\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  const KernelReport R = analyzeKernel(P, K);
  const AccessSiteReport &W = R.Sites[0];
  REQUIRE(W.Array == "t");
  const SiteLanes Lanes = sampleSiteLanes(P, K, W.Node.Read, {});
  const SiteDrawings Drawn{Lanes, drawLanes(Lanes, Lanes.Layout), std::nullopt};
  const report::Site X = report::analyzedSite(W, &P, &K, nullptr, &Drawn, "s0");
  REQUIRE(X.Costs);
  CHECK(X.Costs->Bars == std::vector<std::pair<std::int64_t, std::int64_t>>{{32, 512}});
  CHECK(X.Costs->Caption == "wavefronts over all 512 warp executions of the launch");
  CHECK(X.Costs->YLabel == "warp executions");
  // Over all sizes: the worst warp at each size class, counted by classes.
  CostCounts Classes;
  Classes.add(5, 28);
  Classes.add(4, 4);
  const std::optional<report::Histogram> H =
      report::countsHistogram(Classes, false, true, "32 size classes: C mod 32, each class at one representative size");
  REQUIRE(H);
  CHECK(H->Bars == std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {5, 28}});
  CHECK(H->YLabel == "size classes");
  CHECK(H->Caption.find("the worst warp's sectors at each size: 32 size classes") == 0);
  const std::string Svg = report::histogramSvg(*H);
  CHECK(Svg.find("data-cost=\"5\" data-count=\"28\"") != std::string::npos);
  CHECK_FALSE(report::countsHistogram(CostCounts{}, true, false, ""));
}

TEST_CASE("a site in a while loop is walked trip by trip, its worst warp the analysis's") {
  const ir::Program P = parseOrFail("target sm_90\n"
                                    "kernel k(a: global i32[256], s: global i32[1]) grid (1) block (256) {\n"
                                    "  shared part: i32[256] layout raw\n"
                                    "  part[tx] = a[tx]\n"
                                    "  sync\n"
                                    "  let h = 128\n"
                                    "  while h > 0 {\n"
                                    "    if tx < h { part[tx * 2 % 256] += part[tx * 2 % 256 + h % 2] }\n"
                                    "    sync\n"
                                    "    h >>= 1\n"
                                    "  }\n"
                                    "  if tx == 0 { s[0] = part[0] }\n"
                                    "}\n");
  const ir::Kernel &K = P.Kernels[0];
  const KernelReport R = analyzeKernel(P, K);
  bool Found = false;
  for (const AccessSiteReport &S : R.Sites) {
    if (S.Array != "part" || S.Loc.Line != 8 || S.DataDependent)
      continue;
    const SiteLanes L = sampleSiteLanes(P, K, S.Node.Read, {});
    REQUIRE_FALSE(L.Executions.empty());
    const std::optional<std::size_t> Worst = worstExecution(L, L.Layout);
    REQUIRE(Worst);
    CHECK(warpCost(L, L.Executions[*Worst], L.Layout) == S.Wavefronts.Max); // 2: lanes 0 and 16 share a bank
    Found = true;
  }
  CHECK(Found);
}
