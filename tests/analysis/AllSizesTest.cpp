// Figures over every runtime size: ANALYSIS.md's worked examples, the
// residue conditions, and random sizes evaluated warp by warp against the
// all-sizes ranges.

#include "analysis/passes/AllSizes.h"
#include "dsl/Parser.h"
#include "ir/Bind.h"
#include "support/Random.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

const AllSizesSite &siteOf(const AllSizesReport &R, const std::string &Array, bool IsWrite) {
  for (const AllSizesSite &S : R.Sites)
    if (S.Array == Array && S.IsWrite == IsWrite)
      return S;
  FAIL("no site for " << Array);
  return R.Sites.front();
}

/// The any-shape transpose of samples/transpose_any_shape.bw with runtime R
/// and C (CONSTRAINT appended to C's declaration), its tile padded.
std::string anyShape(const std::string &Constraint, bool Guard = true) {
  return "target sm_90\nparam R" + std::string(Guard ? "" : " where R % 32 == 0") +
         "\nparam C" + Constraint +
         "\nkernel t(in: global f32[R][C], out: global f32[C][R])\n"
         "    grid ((C + 31) / 32, (R + 31) / 32) block (32, 8) {\n"
         "  shared tile: f32[32][32] layout pad(1)\n"
         "  for k in 0..4 {\n"
         "    let r = by * 32 + ty + 8 * k\n"
         "    let c = bx * 32 + tx\n" +
         std::string(Guard ? "    if r < R && c < C { tile[ty + 8 * k][tx] = in[r][c] }\n"
                           : "    tile[ty + 8 * k][tx] = in[r][c]\n") +
         "  }\n  sync\n"
         "  for k in 0..4 {\n"
         "    let r = bx * 32 + ty + 8 * k\n"
         "    let c = by * 32 + tx\n" +
         std::string(Guard ? "    if r < C && c < R { out[r][c] = tile[tx][ty + 8 * k] }\n"
                           : "    out[r][c] = tile[tx][ty + 8 * k]\n") +
         "  }\n}\n";
}

AllSizesOptions fewThreads() {
  AllSizesOptions O;
  O.Threads = 2;
  return O;
}

} // namespace

TEST_CASE("residue conditions name the smallest modulus that describes a set") {
  auto Set = [](int L, std::initializer_list<int> In) {
    std::vector<bool> S(static_cast<std::size_t>(L), false);
    for (int R : In)
      S[static_cast<std::size_t>(R)] = true;
    return S;
  };
  CHECK(residueCondition("C", Set(32, {0})) == "C % 32 == 0");
  CHECK(residueCondition("C", Set(32, {0, 8, 16, 24})) == "C % 8 == 0");
  std::vector<bool> NotEight(32, true);
  for (int R = 0; R < 32; R += 8)
    NotEight[static_cast<std::size_t>(R)] = false;
  CHECK(residueCondition("C", NotEight) == "C % 8 != 0");
  CHECK(residueCondition("C", Set(32, {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31})) == "C is odd");
  CHECK(residueCondition("R", Set(32, {1, 2, 3, 4, 5, 6, 7, 8})) == "R % 32 in {1..8}");
  CHECK(residueCondition("R", std::vector<bool>(32, true)).empty());
}

TEST_CASE("ANALYSIS.md example 1: the padded tile's column read is 1 wavefront for every size") {
  const ir::Program P = parseOrFail(anyShape(""));
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CHECK(R.AllClasses);
  CHECK(R.Periodic);
  CHECK(R.Period == 32);
  const AllSizesSite &Read = siteOf(R, "tile", false);
  CHECK(Read.Wavefronts.Any);
  CHECK(Read.Wavefronts.Min == 1);
  CHECK(Read.Wavefronts.Max == 1);
  CHECK(Read.Wavefronts.str() == "1 for every size");
  CHECK(Read.Congestion.Max == 1);
}

TEST_CASE("ANALYSIS.md example 2: the row read costs 4..5 sectors, 5 unless C is a multiple of 8") {
  // Whole tiles only (R and C multiples of 32, no guard): every warp is
  // interior, so the figure is the interior one of the example.
  {
    const ir::Program P = parseOrFail(anyShape(" where C % 32 == 0", false));
    const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
    const AllSizesSite &In = siteOf(R, "in", false);
    CHECK(In.Sectors.Min == 4);
    CHECK(In.Sectors.Max == 4);
    CHECK(In.Lines.Max == 1);
  }
  const ir::Program P = parseOrFail(anyShape(""));
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  const AllSizesSite &In = siteOf(R, "in", false);
  CHECK(In.Sectors.Max == 5);
  CHECK(In.Sectors.MaxWhen == "C % 8 != 0");
  // Example 3: the boundary warps of the last block column have C % 32
  // lanes on; one lane reads one sector.
  CHECK(In.Sectors.Min == 1);
  const AllSizesSite &Out = siteOf(R, "out", true);
  CHECK(Out.Sectors.Max == 5);
  CHECK(Out.Sectors.MaxWhen == "R % 8 != 0");
  // The cost over sizes: the worst warp reads 5 sectors at the 28 classes
  // of C mod 32 that are not multiples of 8, and 4 at the other 4.
  using Bars = std::vector<std::pair<std::int64_t, std::int64_t>>;
  CHECK(In.WorstBySize.Bars == Bars{{4, 4}, {5, 28}});
  CHECK(In.BySizeOf == "32 size classes: C mod 32, each class at one representative size");
  CHECK(Out.WorstBySize.Bars == Bars{{4, 4}, {5, 28}});
  CHECK(Out.BySizeOf == "32 size classes: R mod 32, each class at one representative size");
  // The padded tile costs 1 wavefront at every class of both sizes.
  const AllSizesSite &Tile = siteOf(R, "tile", false);
  REQUIRE(Tile.WorstBySize.Bars.size() == 1);
  CHECK(Tile.WorstBySize.Bars[0].first == 1);
  CHECK(Tile.WorstBySize.total() >= 32);
}

TEST_CASE("ANALYSIS.md example 4: the bit reversal writes 4 sectors per request at every size") {
  const ir::Program P = parseOrFail(
      "target sm_90\n"
      "param M where M >= 10 && M <= 22\n"
      "param Mid = M - 10\n"
      "kernel bitrev_tiled(a: global f32[32][1 << Mid][32], b: global f32[32][1 << Mid][32])\n"
      "    grid (1 << Mid) block (32, 8) {\n"
      "  shared tile: f32[32][32] layout pad(1)\n"
      "  for k in 0..4 { tile[ty + 8 * k][tx] = a[ty + 8 * k][bx][tx] }\n"
      "  sync\n"
      "  for k in 0..4 {\n"
      "    b[ty + 8 * k][bitrev(bx, Mid)][tx] = tile[bitrev(tx, 5)][bitrev(ty + 8 * k, 5)]\n"
      "  }\n"
      "}\n");
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CHECK(R.Bindings == 13); // M = 10..22, every value
  const AllSizesSite &B = siteOf(R, "b", true);
  CHECK(B.WorstBySize.Bars == std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 13}});
  CHECK(B.BySizeOf == "13 sizes: every value of M");
  CHECK(B.Sectors.str() == "4 for every size");
  CHECK(B.Lines.str() == "1 for every size");
  CHECK(siteOf(R, "tile", false).Wavefronts.str() == "1 for every size");
}

TEST_CASE("an index that leaves its array at some size is reported with that size") {
  const ir::Program P = parseOrFail("target sm_90\nparam N\n"
                                    "kernel k(a: global f32[N]) grid ((N + 31) / 32) block (32) {\n"
                                    "  a[tid] = 1\n}\n");
  CHECK_THROWS_WITH_AS(analyzeAllSizes(P, P.Kernels[0], fewThreads()),
                       doctest::Contains("kernel 'k' fails at N = "), UserError);
}

TEST_CASE("fixed extents: a size that only bounds is run once, at its largest class, and still finds the overflow") {
  // N only bounds the loop; the array's extent is fixed (as a CUDA pointer
  // parameter's is): executions only grow with N, so the largest class
  // value (1055) has those of every other, and there the index reaches 1055.
  auto Kernel = [](int Extent) {
    return parseOrFail(fmt::format("target sm_90\nparam N\n"
                                   "kernel k(a: global f32[{}]) grid (1) block (32) {{\n"
                                   "  for i in 0..N step 32 {{ a[i + tx] = 1 }}\n}}\n",
                                   Extent));
  };
  const ir::Program Short = Kernel(1040);
  CHECK_THROWS_WITH_AS(analyzeAllSizes(Short, Short.Kernels[0], fewThreads()),
                       doctest::Contains("kernel 'k' fails at N = 1055"), UserError);
  const ir::Program Long = Kernel(4096);
  const AllSizesReport R = analyzeAllSizes(Long, Long.Kernels[0], fewThreads());
  CHECK(R.Bindings <= 6); // not one run per residue class
  CHECK(siteOf(R, "a", true).Sectors.str() == "4 for every size");
}

TEST_CASE("random sizes evaluated warp by warp stay inside the all-sizes ranges") {
  const ir::Program P = parseOrFail(anyShape(""));
  const AllSizesReport All = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  Rng Gen(7);
  for (int Trial = 0; Trial < 24; ++Trial) {
    const std::int64_t Rv = 1 + static_cast<std::int64_t>(Gen.below(200));
    const std::int64_t Cv = 1 + static_cast<std::int64_t>(Gen.below(200));
    CAPTURE(Rv);
    CAPTURE(Cv);
    const ir::Program B = ir::bindParams(P, {{"R", Rv}, {"C", Cv}});
    AnalysisOptions O;
    O.Exhaustive = true;
    const KernelReport K = analyzeKernel(B, B.Kernels[0], O);
    REQUIRE(K.Sites.size() == All.Sites.size());
    for (std::size_t I = 0; I < K.Sites.size(); ++I) {
      const AccessSiteReport &S = K.Sites[I];
      const AllSizesSite &A = All.Sites[I];
      auto Inside = [](const CostStats &C, const SizeRange &Rg) {
        return C.Count == 0 || (Rg.Any && C.Min >= Rg.Min && C.Max <= Rg.Max);
      };
      CHECK(Inside(S.Congestion, A.Congestion));
      CHECK(Inside(S.Groups, A.Groups));
      CHECK(Inside(S.Wavefronts, A.Wavefronts));
      CHECK(Inside(S.Sectors, A.Sectors));
      CHECK(Inside(S.Lines, A.Lines));
    }
  }
}

namespace {

/// A random kernel over runtime R x C arrays: guarded transposing copies,
/// shared tiles, guards that bound (uniform `e < R`), guards that select
/// lanes (`c < C`), else branches, guards on whole tiles and indices that
/// carry a size, so sizes reach sites both through values and as bounds.
std::string randomSizedKernel(Rng &G) {
  auto Pick = [&](std::initializer_list<std::int64_t> V) { return *(V.begin() + G.below(V.size())); };
  const std::int64_t BX = Pick({16, 32, 32, 64}), BY = Pick({1, 2, 4, 8}), K = Pick({1, 2, 4});
  const std::int64_t RB = BY * K;
  std::string Body;
  const int Stmts = 1 + static_cast<int>(G.below(3));
  for (int S = 0; S < Stmts; ++S) {
    switch (G.below(8)) {
    case 0: Body += "    if r < R && c < C { out[c][r] = in[r][c] }\n"; break;
    case 1: Body += "    if c < C && r < R { g[r][c] = in[r][c] }\n"; break;
    case 2: Body += "    if r < R { if c < C { t[ty][tx] = in[r][c] } }\n"; break;
    case 3: Body += "    if r < R && c < C { g[r][c] = 1 } else { t[ty][tx] = 2 }\n"; break;
    case 4: Body += "    for j in 0..2 { if r + j < R && c < C { g[r + j][c] = in[r][c] } }\n"; break;
    case 5: Body += "    if r * 2 < R && c < C { out[c][r * 2] = 3 }\n"; break;
    case 6: Body += fmt::format("    if bx * {} + {} <= C && r < R {{ t[ty][tx] = 4 }}\n", BX, BX); break;
    default: Body += fmt::format("    if r < R {{ t[ty][(tx + C) % {}] = 5 }}\n", BX); break;
    }
  }
  return fmt::format("target sm_90\nparam R\nparam C\n"
                     "kernel rk(in: global f32[R][C], out: global f32[C][R], g: global f32[R][C])\n"
                     "    grid ((C + {}) / {}, (R + {}) / {}) block ({}, {}) {{\n"
                     "  shared t: f32[{}][{}]{}\n"
                     "  for k in 0..{} {{\n"
                     "    let r = by * {} + ty + {} * k\n"
                     "    let c = bx * {} + tx\n{}  }}\n}}\n",
                     BX - 1, BX, RB - 1, RB, BX, BY, BY, BX, G.below(2) ? " layout pad(1)" : "", K,
                     RB, BY, BX, Body);
}

} // namespace

TEST_CASE("sizes that only bound a site: enumerating each site's value sizes gives the full joint figures") {
  // The reference enumerates every joint residue class of R and C for
  // every site; the default only those of the sizes reaching a site
  // through their values. Every figure and condition must agree.
  Rng G(5);
  int WithBounds = 0, Fewer = 0;
  for (int Trial = 0; Trial < 12; ++Trial) {
    const std::string Text = randomSizedKernel(G);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    const AllSizesReport Fast = analyzeAllSizes(P, P.Kernels[0], fewThreads());
    AllSizesOptions O = fewThreads();
    O.JointOverAll = true;
    const AllSizesReport Full = analyzeAllSizes(P, P.Kernels[0], O);
    REQUIRE(Full.AllClasses);
    REQUIRE(Fast.AllClasses);
    CHECK(Fast.Bindings <= Full.Bindings);
    Fewer += Fast.Bindings < Full.Bindings;
    REQUIRE(Fast.Sites.size() == Full.Sites.size());
    bool Bounds = false;
    for (std::size_t I = 0; I < Fast.Sites.size(); ++I) {
      const AllSizesSite &A = Fast.Sites[I], &B = Full.Sites[I];
      CAPTURE(A.Array);
      CAPTURE(A.Loc.Line);
      CHECK(B.BoundOnly.empty());
      Bounds = Bounds || !A.BoundOnly.empty();
      for (auto [X, Y] : {std::pair{&A.Congestion, &B.Congestion}, {&A.Groups, &B.Groups},
                          {&A.Wavefronts, &B.Wavefronts}, {&A.Sectors, &B.Sectors}, {&A.Lines, &B.Lines}})
        CHECK(X->str() == Y->str());
    }
    WithBounds += Bounds;
  }
  // Most kernels must have a size that only bounds some site, and many
  // must need fewer sizes for the comparison to mean something.
  CHECK(WithBounds >= 9);
  CHECK(Fewer >= 4);
}

TEST_CASE("size dependence: the any-shape transpose's pitch and lane guards reach sites, row guards bound them") {
  const ir::Program P = parseOrFail(anyShape(""));
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  using V = std::vector<std::string>;
  CHECK(siteOf(R, "in", false).BoundOnly == V{"R"});
  CHECK(siteOf(R, "out", true).BoundOnly == V{"C"});
  CHECK(siteOf(R, "tile", true).BoundOnly == V{"R"});
  CHECK(siteOf(R, "tile", false).BoundOnly == V{"C"});
  // A guard on whole tiles (uniform) only bounds; an index that carries C
  // and an else branch do not.
  const ir::Program Q = parseOrFail(
      "target sm_90\nparam R\nparam C\n"
      "kernel k(g: global f32[R][C]) grid ((C + 31) / 32, R) block (32) {\n"
      "  shared t: f32[32]\n  shared u: f32[32]\n  shared v: f32[32]\n"
      "  if bx * 32 + 32 <= C && by < R { t[tx] = 1 }\n"
      "  if by < R { u[(tx + C) % 32] = 2 }\n"
      "  if by < R { g[by][bx] = 1 } else { v[tx] = 3 }\n"
      "}\n");
  const AllSizesReport S = analyzeAllSizes(Q, Q.Kernels[0], fewThreads());
  CHECK(siteOf(S, "t", true).BoundOnly == V{"R", "C"});
  CHECK(siteOf(S, "u", true).BoundOnly == V{"R"});
  CHECK(siteOf(S, "v", true).BoundOnly == V{"C"});
  CHECK(siteOf(S, "g", true).BoundOnly == V{"R"});
  // The end of a uniform loop bounds; a derived size is a value of the
  // size it is computed from; a local set under a guard carries it.
  const ir::Program L = parseOrFail(
      "target sm_90\nparam R\nparam H = R / 2\n"
      "kernel k(g: global f32[R][32]) grid (1) block (32) {\n"
      "  shared t: f32[32]\n  shared u: f32[32]\n  shared v: f32[64]\n"
      "  for j in 0..R { t[tx] = g[j][tx] }\n"
      "  if bx < H { u[tx] = 1 }\n"
      "  let x = 0\n  if bx < R { x = 32 }\n  v[tx + x] = 2\n"
      "}\n");
  const AllSizesReport M = analyzeAllSizes(L, L.Kernels[0], fewThreads());
  CHECK(siteOf(M, "t", true).BoundOnly == V{"R"});
  CHECK(siteOf(M, "g", false).BoundOnly == V{"R"});
  CHECK(siteOf(M, "u", true).BoundOnly.empty());
  CHECK(siteOf(M, "v", true).BoundOnly.empty());
  // A constraint tying the sizes together: every size reaches every site.
  const ir::Program T = parseOrFail(anyShape(" where C % R == 0"));
  const AllSizesReport U = analyzeAllSizes(T, T.Kernels[0], fewThreads());
  for (const AllSizesSite &Site : U.Sites)
    CHECK(Site.BoundOnly.empty());
}

TEST_CASE("a figure that changes between the small sizes and the classes fails the periodicity check") {
  // The site runs only for 80 < N < 90: past the 64 small values, below the
  // classes at 1024. The check just past the small sizes must see it.
  const ir::Program P = parseOrFail("target sm_90\nparam N\n"
                                    "kernel k(a: global f32[N], b: global f32[N]) grid ((N + 255) / 256) block (256) {\n"
                                    "  if tid < N && N > 80 && N < 90 { b[tid] = a[tid] }\n}\n");
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CHECK_FALSE(R.Periodic);
  CHECK(R.Method.find("DISAGREED") != std::string::npos);
  CHECK(siteOf(R, "b", true).Sectors.Any);
  // Without the window the figures are periodic.
  const ir::Program Q = parseOrFail("target sm_90\nparam N\n"
                                    "kernel k(a: global f32[N], b: global f32[N]) grid ((N + 255) / 256) block (256) {\n"
                                    "  if tid < N { b[tid] = a[tid] }\n}\n");
  CHECK(analyzeAllSizes(Q, Q.Kernels[0], fewThreads()).Periodic);
}

namespace {

/// Every model's range of a site, in words, for comparing two programs.
std::string figures(const AllSizesSite &S) {
  return fmt::format("{} {} {} {} {} | {}", S.Congestion.str(), S.Groups.str(), S.Wavefronts.str(), S.Sectors.str(),
                     S.Lines.str(), fmt::join(S.BoundOnly, ","));
}

/// Kernels written with `while` and block-dependent `?:`, each beside the
/// same kernel with `for` and `if` (issue [12] item 4).
struct Pair {
  const char *What, *With, *Without;
};
const Pair WhilePairs[] = {
    {"a grid-stride while",
     "target sm_90\nparam N\n"
     "kernel k(x: global f32[N], out: global f32[N]) grid ((N + 511) / 512) block (128) {\n"
     "  let i = bx * bdx + tx\n"
     "  while i < N {\n    out[i] = x[i]\n    i += bdx * gdx\n  }\n}\n",
     "target sm_90\nparam N\n"
     "kernel k(x: global f32[N], out: global f32[N]) grid ((N + 511) / 512) block (128) {\n"
     "  for t in 0..4 {\n    let i = bx * bdx + tx + t * bdx * gdx\n    if i < N { out[i] = x[i] }\n  }\n}\n"},
    {"a while over rows, R and C both reaching its sites (refused after 74 s before: \"fails at C = 1024, "
     "R = 1024: ... needs more than 49932 evaluation steps\")",
     "target sm_90\nparam R\nparam C\n"
     "kernel t(a: global f32[R][C], o: global f32[C][R]) grid ((C + 31) / 32, 8) block (32, 8) {\n"
     "  let c = bx * 32 + tx\n  let r = by * 8 + ty\n"
     "  while r < R {\n    if c < C { o[c][r] = a[r][c] }\n    r += 64\n  }\n}\n",
     "target sm_90\nparam R\nparam C\n"
     "kernel t(a: global f32[R][C], o: global f32[C][R]) grid ((C + 31) / 32, 8) block (32, 8) {\n"
     "  let c = bx * 32 + tx\n  let r = by * 8 + ty\n"
     "  for s in 0..(R + 63) / 64 {\n    let q = r + 64 * s\n    if c < C && q < R { o[c][q] = a[q][c] }\n  }\n}\n"},
    {"a halving while",
     "target sm_90\nparam N\n"
     "kernel k(a: global i32[N][256], sums: global i32[N]) grid (N) block (256) {\n"
     "  shared part: i32[256] layout raw\n  part[tx] = a[bx][tx]\n  sync\n  let h = bdx / 2\n"
     "  while h > 0 {\n    if tx < h { part[tx] += part[tx + h] }\n    sync\n    h >>= 1\n  }\n"
     "  if tx == 0 { sums[bx] = part[0] }\n}\n",
     "target sm_90\nparam N\n"
     "kernel k(a: global i32[N][256], sums: global i32[N]) grid (N) block (256) {\n"
     "  shared part: i32[256] layout raw\n  part[tx] = a[bx][tx]\n  sync\n"
     "  for s in 0..8 {\n    let h = 128 >> s\n    if tx < h { part[tx] += part[tx + h] }\n    sync\n  }\n"
     "  if tx == 0 { sums[bx] = part[0] }\n}\n"},
    {"'?:' choosing a read by the block",
     "target sm_90\nparam R\nparam C\n"
     "kernel k(a: global f32[R][C], b: global f32[R][C], out: global f32[R][C])\n"
     "    grid ((C + 31) / 32, (R + 7) / 8) block (32, 8) {\n"
     "  let r = by * 8 + ty\n  let c = bx * 32 + tx\n"
     "  if r < R && c < C { out[r][c] = bx == gdx - 1 ? a[r][c] : b[r][c] }\n}\n",
     "target sm_90\nparam R\nparam C\n"
     "kernel k(a: global f32[R][C], b: global f32[R][C], out: global f32[R][C])\n"
     "    grid ((C + 31) / 32, (R + 7) / 8) block (32, 8) {\n"
     "  let r = by * 8 + ty\n  let c = bx * 32 + tx\n"
     "  if r < R && c < C {\n    let v: f32 = 0\n    if bx == gdx - 1 { v = a[r][c] } else { v = b[r][c] }\n"
     "    out[r][c] = v\n  }\n}\n"},
    {"'?:' giving the boundary tile's width",
     "target sm_90\nparam R\nparam C\n"
     "kernel k(a: global f32[R][C], out: global f32[R][C]) grid ((C + 31) / 32, (R + 7) / 8) block (32, 8) {\n"
     "  let r = by * 8 + ty\n  let w = bx == gdx - 1 ? C - bx * 32 : 32\n"
     "  if r < R && tx < w { out[r][bx * 32 + tx] = a[r][bx * 32 + tx] }\n}\n",
     "target sm_90\nparam R\nparam C\n"
     "kernel k(a: global f32[R][C], out: global f32[R][C]) grid ((C + 31) / 32, (R + 7) / 8) block (32, 8) {\n"
     "  let r = by * 8 + ty\n"
     "  if r < R && tx < C - bx * 32 { out[r][bx * 32 + tx] = a[r][bx * 32 + tx] }\n}\n"},
};

} // namespace

TEST_CASE("while loops and '?:' on block indices are counted by class over every size, as their for and if forms") {
  for (const Pair &X : WhilePairs) {
    CAPTURE(X.What);
    const ir::Program P = parseOrFail(X.With), Q = parseOrFail(X.Without);
    const AllSizesReport A = analyzeAllSizes(P, P.Kernels[0], fewThreads());
    const AllSizesReport B = analyzeAllSizes(Q, Q.Kernels[0], fewThreads());
    CHECK(A.FallbackReason == "");
    CHECK(B.FallbackReason == "");
    CHECK(A.Periodic == B.Periodic);
    CHECK(A.Bindings == B.Bindings);
    // The same sites (in source order, which can differ), the same figures.
    auto Figures = [](const AllSizesReport &R) {
      std::vector<std::string> Out;
      for (const AllSizesSite &S : R.Sites)
        Out.push_back(fmt::format("{} {}: {}", S.IsWrite ? "write" : "read", S.Array, figures(S)));
      std::sort(Out.begin(), Out.end());
      return Out;
    };
    CHECK(Figures(A) == Figures(B));
  }
}

TEST_CASE("a kernel evaluated warp by warp at every size is refused before that work when it passes the limit") {
  // (c + bx) % C has no class argument: every size goes warp by warp. The
  // largest size, evaluated first and alone, needs more than its share of
  // 2^26 steps over the 1344 joint classes of R and C: the refusal comes
  // then, before any other size (it used to come after 2^26 steps of them,
  // 12 s, as "fails at C = 1024, R = 1024: ...").
  const ir::Program P = parseOrFail("target sm_90\nparam R\nparam C\n"
                                    "kernel tr(a: global f32[R][C], out: global f32[C][R])\n"
                                    "    grid ((C + 31) / 32, (R + 31) / 32) block (32, 8) {\n"
                                    "  for k in 0..4 {\n    let r = by * 32 + ty + 8 * k\n    let c = bx * 32 + tx\n"
                                    "    if r < R && c < C { out[c][r] = a[r][(c + bx) % C] }\n  }\n}\n");
  auto Refusal = [](const ir::Program &Q, const AllSizesOptions &O) {
    try {
      (void)analyzeAllSizes(Q, Q.Kernels[0], O);
    } catch (const UserError &E) {
      return E.diagnostic().Message;
    }
    return std::string("no refusal");
  };
  const std::string M = Refusal(P, fewThreads());
  CHECK(M == "kernel 'tr' needs more than 49932 evaluation steps at C = 1024, R = 1024, its share of the analysis "
             "limit of 67108864 over 1344 sizes (it is evaluated warp by warp: division by 1024 of a value whose "
             "block or loop coefficient 33 it does not divide); give its sizes with -D");
  // A tighter limit refuses at the largest size, before the others; within
  // the limit every size is evaluated.
  const ir::Program Q = parseOrFail("target sm_90\nparam N\n"
                                    "kernel g(a: global f32[N], o: global f32[N]) grid ((N + 31) / 32) block (32) {\n"
                                    "  let i = bx * bdx + tx\n  if i < N { o[i] = a[(i + bx) % 7] }\n}\n");
  AllSizesOptions O = fewThreads();
  O.Analysis.WorkLimit = 8000;
  CHECK(Refusal(Q, O) == "kernel 'g' needs more than 50 evaluation steps at N = 1311, its share of the analysis "
                         "limit of 8000 over 159 sizes (it is evaluated warp by warp: division by 7 of a value whose "
                         "block or loop coefficient 33 it does not divide); give its sizes with -D");
  O.Analysis.WorkLimit = 20000;
  CHECK(analyzeAllSizes(Q, Q.Kernels[0], O).FallbackReason.find("division by 7") == 0);
}
