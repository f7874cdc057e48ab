// Figures over every runtime size: ANALYSIS.md's worked examples, the
// residue conditions, and random sizes evaluated warp by warp against the
// all-sizes ranges.

#include "analysis/passes/AllSizes.h"
#include "dsl/Parser.h"
#include "ir/Bind.h"
#include "support/Random.h"
#include "tests/support/ProgramFixtures.h"
#include "tests/support/RandomKernels.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

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
  // Multiples of 4 (a float4 cast's alignment): the residues no size has
  // are in neither list, whatever the set holds there.
  std::vector<bool> Four = Set(32, {4, 12, 20, 28});
  CHECK(residueCondition("K", Four, false, 4) == "K % 8 == 4");
  CHECK(residueCondition("K", Four) == "K % 8 == 4");
  for (std::size_t R = 0; R < 32; ++R)
    if (R % 4 != 0)
      Four[R] = true; // residues without a size, taken as reaching it
  CHECK(residueCondition("K", Four, false, 4) == "K % 8 == 4");
  CHECK(residueCondition("K", Four) == "K % 8 != 0"); // every size: the misaligned ones too
  CHECK(residueCondition("K", Four, true, 4) == "K % 32 in {4, 12, 20, 28}");
  CHECK(residueCondition("K", Set(32, {0, 4, 8, 12, 16, 20, 24, 28}), false, 4).empty());
  CHECK(residueCondition("K", Set(32, {4}), false, 4) == "K % 32 == 4");
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
    // Budgets that take every small combination of both sizes, so both
    // are proven and their claims comparable.
    AllSizesOptions O = fewThreads();
    O.MaxSmallCombinations = 8192;
    const AllSizesReport Fast = analyzeAllSizes(P, P.Kernels[0], O);
    O.JointOverAll = true;
    const AllSizesReport Full = analyzeAllSizes(P, P.Kernels[0], O);
    REQUIRE(Full.AllSmall);
    REQUIRE(Fast.AllSmall);
    REQUIRE(Full.AllClasses);
    REQUIRE(Fast.AllClasses);
    // (Not fewer sizes in all: the small combinations are per set of sizes.)
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

// ---------------------------------------------------------------------------
// Claims: every condition printed with an all-sizes figure ("5 only when
// C % 8 != 0") must hold at every size it names: every size when the figure
// is proven, the sizes tried when it is sampled. These compare the printed
// claims with the fixed-size analysis.

namespace {

/// Whether the printed condition Cond ("C % 8 != 0 and R is odd", "N % 32
/// in {1..8, 11}", "" for none) holds at sizes At.
bool conditionHolds(const std::string &Cond, const ir::Bindings &At) {
  if (Cond.empty())
    return true;
  std::size_t Pos = 0;
  while (Pos < Cond.size()) {
    std::size_t End = Cond.find(" and ", Pos);
    if (End == std::string::npos)
      End = Cond.size();
    const std::string Part = Cond.substr(Pos, End - Pos);
    Pos = End == Cond.size() ? End : End + 5;
    const std::string Name = Part.substr(0, Part.find(' '));
    REQUIRE_MESSAGE(At.count(Name), "no size " << Name << " in '" << Cond << "'");
    const std::int64_t V = At.at(Name);
    std::string Rest = Part.substr(Name.size() + 1);
    if (Rest == "is even" || Rest == "is odd") {
      if ((V % 2 == 0) != (Rest == "is even"))
        return false;
      continue;
    }
    REQUIRE_MESSAGE(Rest.rfind("% ", 0) == 0, "unreadable condition '" << Cond << "'");
    std::size_t Used = 0;
    const std::int64_t M = std::stoll(Rest.substr(2), &Used);
    const std::int64_t Res = ((V % M) + M) % M;
    Rest = Rest.substr(2 + Used + 1);
    auto Number = [](const std::string &X) { return std::stoll(X); };
    if (Rest.rfind("== ", 0) == 0) {
      if (Res != Number(Rest.substr(3)))
        return false;
    } else if (Rest.rfind("!= ", 0) == 0) {
      if (Res == Number(Rest.substr(3)))
        return false;
    } else {
      const bool Not = Rest.rfind("not in {", 0) == 0;
      REQUIRE_MESSAGE((Not || Rest.rfind("in {", 0) == 0), "unreadable condition '" << Cond << "'");
      std::string Items = Rest.substr(Rest.find('{') + 1);
      Items = Items.substr(0, Items.find('}'));
      bool In = false;
      std::size_t P = 0;
      while (P < Items.size()) {
        std::size_t Q = Items.find(", ", P);
        if (Q == std::string::npos)
          Q = Items.size();
        const std::string Item = Items.substr(P, Q - P);
        P = Q == Items.size() ? Q : Q + 2;
        const std::size_t Dots = Item.find("..");
        const std::int64_t Lo = Number(Item.substr(0, Dots));
        const std::int64_t Hi = Dots == std::string::npos ? Lo : Number(Item.substr(Dots + 2));
        In = In || (Res >= Lo && Res <= Hi);
      }
      if (In == Not)
        return false;
    }
  }
  return true;
}

/// The claims of All that are false at sizes At, by the fixed-size analysis
/// of P there, in words; a sampled figure claims only the sizes tried, and
/// is checked only when At is one of them. Counts the claims checked.
std::vector<std::string> falseClaims(const ir::Program &P, const AllSizesReport &All, const ir::Bindings &At,
                                     int *Checked = nullptr) {
  ir::Program Bound;
  try {
    Bound = ir::bindParams(P, At);
  } catch (const UserError &) {
    return {}; // no such size (a constraint, an empty grid)
  }
  const ir::Kernel *K = Bound.findKernel(All.Kernel);
  REQUIRE(K);
  KernelReport Fixed;
  try {
    Fixed = analyzeKernel(Bound, *K);
  } catch (const UserError &E) {
    return {fmt::format("the kernel fails at these sizes: {}", E.what())};
  }
  const bool Tried = std::find(All.Tried.begin(), All.Tried.end(), At) != All.Tried.end();
  std::vector<std::string> Out;
  REQUIRE(Fixed.Sites.size() == All.Sites.size());
  for (std::size_t I = 0; I < Fixed.Sites.size(); ++I) {
    const AccessSiteReport &S = Fixed.Sites[I];
    const AllSizesSite &A = All.Sites[I];
    if (A.DataDependent || S.DataDependent || (A.Sampled && !Tried))
      continue;
    const std::pair<const char *, std::pair<const SizeRange *, const CostStats *>> Models[] = {
        {"congestion", {&A.Congestion, &S.Congestion}}, {"groups", {&A.Groups, &S.Groups}},
        {"wavefronts", {&A.Wavefronts, &S.Wavefronts}}, {"sectors", {&A.Sectors, &S.Sectors}},
        {"lines", {&A.Lines, &S.Lines}}};
    for (const auto &[Model, Pair] : Models) {
      const auto [Range, Stats] = Pair;
      if (Stats->Count == 0)
        continue;
      if (Checked)
        ++*Checked;
      const std::string What = fmt::format("{} of '{}' at line {}: {} {}", Model, A.Array, A.Loc.Line,
                                           Range->str(), A.Sampled ? "(tried here)" : "");
      if (!Range->Any || Stats->Min < Range->Min || Stats->Max > Range->Max)
        Out.push_back(fmt::format("{}, but {}..{} at these sizes", What, Stats->Min, Stats->Max));
      if (Range->Any && Stats->Max == Range->Max && !conditionHolds(Range->MaxWhen, At))
        Out.push_back(fmt::format("{}, but {} is reached here", What, Range->Max));
      if (Range->Any && Stats->Min == Range->Min && !conditionHolds(Range->MinWhen, At))
        Out.push_back(fmt::format("{}, but {} is reached here", What, Range->Min));
    }
  }
  return Out;
}

std::string sizesText(const ir::Bindings &At) {
  std::vector<std::string> S;
  for (const auto &[N, V] : At)
    S.push_back(fmt::format("{} = {}", N, V));
  return fmt::format("{}", fmt::join(S, ", "));
}

// The issue's three kernels, whose reports stated conditions false at small
// sizes tried one at a time.
const char *const TiledSgemm = R"(target sm_90
param M
param N
param K
kernel sgemm(a: global f32[M][K], b: global f32[K][N], c: global f32[M][N])
    grid ((N + 15) / 16, (M + 15) / 16) block (16, 16) {
  shared as: f32[16][16]
  shared bs: f32[16][16]
  let row = by * 16 + ty
  let col = bx * 16 + tx
  for t in 0..(K + 15) / 16 {
    if row < M && t * 16 + tx < K { as[ty][tx] = a[row][t * 16 + tx] } else { as[ty][tx] = 0 }
    if t * 16 + ty < K && col < N { bs[ty][tx] = b[t * 16 + ty][col] } else { bs[ty][tx] = 0 }
    sync
  }
  if row < M && col < N { c[row][col] = as[ty][0] + bs[0][tx] }
}
)";

const char *const Permute3 = R"(target sm_90
param X
param Y
param Z
kernel permute_zyx(in: global f32[X][Y][Z], out: global f32[Z][Y][X])
    grid ((Z + 31) / 32, Y, X) block (32) {
  let z = bx * 32 + tx
  if z < Z { out[z][by][bz] = in[bz][by][z] }
}
)";

const char *const GemvT = R"(target sm_90
param M
param N
param LDA
kernel gemv_t(a: global f32[N * LDA + M], x: global f32[M], y: global f32[N])
    grid ((N + 31) / 32) block (32) {
  let n = bx * 32 + tx
  if n < N { y[n] = a[n * LDA + M - 1] * x[M - 1] }
}
)";

} // namespace

TEST_CASE("printed conditions read back as the residue sets they were made from") {
  Rng G(12);
  for (int Trial = 0; Trial < 300; ++Trial) {
    const int L = std::array{2, 8, 32, 64}[G.below(4)];
    std::vector<bool> Set(static_cast<std::size_t>(L));
    const int Density = 1 + static_cast<int>(G.below(4));
    for (std::size_t R = 0; R < Set.size(); ++R)
      Set[R] = static_cast<int>(G.below(5)) < Density;
    Set[G.below(Set.size())] = true; // an extreme is reached at some residue
    const std::string Cond = residueCondition("C", Set);
    CAPTURE(Cond);
    for (std::int64_t V = 0; V < 3 * L; ++V)
      CHECK(conditionHolds(Cond, {{"C", V}}) == Set[static_cast<std::size_t>(V % L)]);
  }
}

TEST_CASE("the issue's kernels: each claim holds at the small sizes that disproved it") {
  struct Case {
    const char *Text;
    ir::Bindings At;
  };
  const Case Cases[] = {
      {TiledSgemm, {{"M", 1024}, {"N", 16}, {"K", 1024}}}, // N = 16, K even: 1 line
      {TiledSgemm, {{"M", 1024}, {"N", 2}, {"K", 2}}},
      {Permute3, {{"X", 1024}, {"Y", 1}, {"Z", 4}}}, // 1 sector with X % 8 == 0
      {GemvT, {{"M", 1}, {"N", 2}, {"LDA", 1}}},     // 1 sector with N % 32 == 2
  };
  for (const Case &C : Cases) {
    const ir::Program P = parseOrFail(C.Text);
    const AllSizesReport All = analyzeAllSizes(P, P.Kernels[0], fewThreads());
    CAPTURE(sizesText(C.At));
    CAPTURE(All.Method);
    // These sizes are among the combinations tried, and no claim is false there.
    CHECK(std::find(All.Tried.begin(), All.Tried.end(), C.At) != All.Tried.end());
    for (const std::string &F : falseClaims(P, All, C.At))
      FAIL_CHECK(F);
    // Three sizes jointly are more combinations than the budget: the figures
    // say they are sampled, and the method names the sizes tried.
    CHECK_FALSE(All.Proven);
    CHECK(All.Method.find("sampled") != std::string::npos);
    for (const AllSizesSite &S : All.Sites)
      if (S.Sampled)
        CHECK(S.Sectors.str().find("for every size") == std::string::npos);
  }
  // The report's own text no longer states the false conditions.
  const ir::Program G = parseOrFail(GemvT);
  const AllSizesReport R = analyzeAllSizes(G, G.Kernels[0], fewThreads());
  CHECK(siteOf(R, "a", false).Sectors.MinWhen != "N % 32 == 1");
  const ir::Program Q = parseOrFail(Permute3);
  const AllSizesReport S = analyzeAllSizes(Q, Q.Kernels[0], fewThreads());
  CHECK(siteOf(S, "out", true).Sectors.MinWhen != "Z % 32 == 1");
}

TEST_CASE("two sizes within the budget: every small combination is evaluated and the figures are proven") {
  // Warps of 4 rows of 8: both the pitch C and the row guard r < R reach
  // the write through their values.
  const ir::Program P = parseOrFail("target sm_90\nparam R\nparam C\n"
                                    "kernel k(g: global f32[R][C]) grid ((C + 7) / 8, (R + 3) / 4) block (8, 4) {\n"
                                    "  let r = by * 4 + ty\n  let c = bx * 8 + tx\n"
                                    "  if r < R && c < C { g[r][c] = 1 }\n}\n");
  AllSizesOptions O = fewThreads();
  O.MaxSmallCombinations = 8192;
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], O);
  CHECK(R.AllSmall);
  CHECK(R.Proven);
  CHECK(R.Method.find("every combination of R = 1..64, C = 1..64 with each other and the classes (8192)") !=
        std::string::npos);
  CHECK(R.Method.find("every figure holds for every size") != std::string::npos);
  const AllSizesSite &G = siteOf(R, "g", true);
  CHECK_FALSE(G.Sampled);
  CHECK(G.Sectors.str().find("for every size") != std::string::npos);
  // Every pair of small values was tried, and each with every class.
  for (std::int64_t Rv = 1; Rv <= 64; ++Rv)
    for (std::int64_t Cv = 1; Cv <= 64; ++Cv)
      REQUIRE(std::find(R.Tried.begin(), R.Tried.end(), ir::Bindings{{"R", Rv}, {"C", Cv}}) != R.Tried.end());
  for (std::int64_t Rv = 1; Rv <= 64; ++Rv)
    for (std::int64_t Cv = 1024; Cv < 1056; ++Cv)
      REQUIRE(std::find(R.Tried.begin(), R.Tried.end(), ir::Bindings{{"R", Rv}, {"C", Cv}}) != R.Tried.end());
  // Beyond the budget the same kernel's figures are sampled, and say so.
  const AllSizesReport S = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CHECK_FALSE(S.AllSmall);
  CHECK_FALSE(S.Proven);
  CHECK(siteOf(S, "g", true).Sampled);
  CHECK(siteOf(S, "g", true).Sectors.str().find("at the sizes tried, sampled") != std::string::npos);
  CHECK(S.Method.find("1024 of the 8192 combinations of R = 1..64, C = 1..64") != std::string::npos);
}

TEST_CASE("property: all-sizes claims hold at random sizes, small and ragged, on random kernels") {
  // Random kernels of both generators: the class-counting oracle's guarded
  // kernels with runtime guard limits RL and CL, and kernels whose runtime
  // sizes are pitches and grid extents. A budget that covers two f32 sizes
  // jointly, so most figures are proven and checked at every size drawn;
  // sampled ones are checked at sizes tried.
  Rng G(20261127);
  int Proven = 0, Checked = 0, Kernels = 0;
  for (int Trial = 0; Trial < 24; ++Trial) {
    const bool Guarded = Trial % 2 == 0;
    const std::string Text = Guarded ? bankwise::testing::randomGuardedKernel(G, true) : randomSizedKernel(G);
    CAPTURE(Text);
    const ir::Program P = parseOrFail(Text);
    AllSizesOptions O = fewThreads();
    O.MaxSmallCombinations = 8192;
    AllSizesReport All;
    try {
      All = analyzeAllSizes(P, P.Kernels[0], O);
    } catch (const UserError &) {
      continue; // fails at some size: no claims
    }
    ++Kernels;
    for (const AllSizesSite &S : All.Sites)
      Proven += !S.Sampled;
    const std::vector<std::string> Names = All.Params;
    for (int Draw = 0; Draw < 40; ++Draw) {
      ir::Bindings At;
      if (Draw % 4 == 3 && !All.Tried.empty()) {
        At = All.Tried[G.below(All.Tried.size())];
      } else {
        for (const std::string &N : Names) {
          switch (G.below(4)) {
          case 0: At[N] = 1 + static_cast<std::int64_t>(G.below(8)); break;
          case 1: At[N] = 1 + static_cast<std::int64_t>(G.below(70)); break;
          case 2: At[N] = 70 + static_cast<std::int64_t>(G.below(400)); break;
          default: At[N] = 1000 + static_cast<std::int64_t>(G.below(3000)); break;
          }
        }
      }
      CAPTURE(sizesText(At));
      for (const std::string &F : falseClaims(P, All, At, &Checked))
        FAIL_CHECK(F);
    }
  }
  MESSAGE(Kernels, " kernels, ", Proven, " sites proven, ", Checked, " claims checked");
  CHECK(Kernels >= 18);
  CHECK(Proven >= 20);
  CHECK(Checked >= 1000);
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
  // min(c + bx, C - 1) % C, a remainder of a per-lane choice, has no class
  // argument (since issue [12], (c + bx) % C alone has one): every size
  // goes warp by warp. The
  // largest size, evaluated first and alone, needs more than its share of
  // 2^26 steps over the 1344 joint classes of R and C: the refusal comes
  // then, before any other size (it used to come after 2^26 steps of them,
  // 12 s, as "fails at C = 1024, R = 1024: ...").
  const ir::Program P = parseOrFail("target sm_90\nparam R\nparam C\n"
                                    "kernel tr(a: global f32[R][C], out: global f32[C][R])\n"
                                    "    grid ((C + 31) / 32, (R + 31) / 32) block (32, 8) {\n"
                                    "  for k in 0..4 {\n    let r = by * 32 + ty + 8 * k\n    let c = bx * 32 + tx\n"
                                    "    if r < R && c < C { out[c][r] = a[r][min(c + bx, C - 1) % C] }\n  }\n}\n");
  auto Refusal = [](const ir::Program &Q, const AllSizesOptions &O) {
    try {
      (void)analyzeAllSizes(Q, Q.Kernels[0], O);
    } catch (const UserError &E) {
      return E.diagnostic().Message;
    }
    return std::string("no refusal");
  };
  const std::string M = Refusal(P, fewThreads());
  CHECK(M == "kernel 'tr' needs more than 59493 evaluation steps at C = 1024, R = 1024, its share of the analysis "
             "limit of 67108864 over 1128 sizes (it is evaluated warp by warp: an operation on a per-lane choice "
             "(min, max, a wrapping % or /, a '?:' per lane) that leaves the affine domain); give its sizes with -D");
  // A tighter limit refuses at the largest size, before the others; within
  // the limit every size is evaluated.
  const ir::Program Q = parseOrFail("target sm_90\nparam N\n"
                                    "kernel g(a: global f32[N], o: global f32[N]) grid ((N + 31) / 32) block (32) {\n"
                                    "  let i = bx * bdx + tx\n  if i < N { o[i] = a[min(i + bx, N - 1) % 7] }\n}\n");
  AllSizesOptions O = fewThreads();
  O.Analysis.WorkLimit = 8000;
  CHECK(Refusal(Q, O) == "kernel 'g' needs more than 84 evaluation steps at N = 1311, its share of the analysis "
                         "limit of 8000 over 95 sizes (it is evaluated warp by warp: an operation on a per-lane choice "
                         "(min, max, a wrapping % or /, a '?:' per lane) that leaves the affine domain); give its "
                         "sizes with -D");
  O.Analysis.WorkLimit = 20000;
  CHECK(analyzeAllSizes(Q, Q.Kernels[0], O).FallbackReason.find("an operation on a per-lane choice") == 0);
}

TEST_CASE("eight sizes that reach one site: the small combinations are sampled, not all enumerated") {
  // 64 small values and 32 classes of each of eight sizes: 96^8 (about
  // 7e15) combinations. Counted with products clipped at 2^40, both counts
  // clipped, their difference was 0 and every combination was enumerated
  // (a CUDA kernel with eight int parameters ran out of memory).
  const ir::Program P = parseOrFail("target sm_90\nparam A\nparam B\nparam C\nparam D\nparam E\nparam F\n"
                                    "param G\nparam H\n"
                                    "kernel k(a: global f32[1099511627776]) grid (1) block (32) {\n"
                                    "  a[A + B + C + D + E + F + G + H + tx] = 1\n}\n");
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CAPTURE(R.Method);
  CHECK(R.Method.find("of the 7212796278210560 combinations of A = 1..64") != std::string::npos);
  CHECK(R.Method.find(", sampled (") != std::string::npos);
  CHECK(R.Bindings < 10000);
  CHECK(siteOf(R, "a", true).Sectors.str().find("4..5 at the sizes tried, sampled") == 0);
}

TEST_CASE("twenty sizes that reach one site: not even one small value and two classes each are taken jointly") {
  // 3^20 (about 3.5e9) combinations of the first small value and two
  // classes of each size: the joint corner was enumerated whatever its
  // count (a file's every kernel parameter ran out of memory).
  std::string Src = "target sm_90\n", Sum;
  for (int I = 0; I < 20; ++I) {
    Src += fmt::format("param S{}\n", I);
    Sum += fmt::format("S{} + ", I);
  }
  Src += "kernel k(a: global f32[1099511627776]) grid (1) block (32) {\n  a[" + Sum + "tx] = 1\n}\n";
  const ir::Program P = parseOrFail(Src);
  const AllSizesReport R = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  CAPTURE(R.Method);
  CHECK(R.Method.find("not S0, S1,") != std::string::npos);
  CHECK(R.Method.find("jointly (3.49e+09 combinations)") != std::string::npos);
  CHECK(R.Bindings < 10000);
  CHECK(siteOf(R, "a", true).Sectors.str().find("at the sizes tried, sampled") != std::string::npos);
}

TEST_CASE("a budget of operations: a sample of the sizes, said so, the same whatever the threads") {
  // Three sizes reach the store through its index, but only W moves its
  // alignment (H and F add whole 128-byte lines). Under a budget the runs
  // are a sample; the worst case's condition must still name W alone: a
  // residue of H or F is never called "not worst" because it came only
  // with an aligned W.
  const ir::Program P = parseOrFail("target sm_90\nparam W\nparam H\nparam F\n"
                                    "kernel k(a: global f32[1099511627776]) grid (4) block (32) {\n"
                                    "  a[bx * W + tx + 32 * H + 32 * F] = 1\n}\n");
  AllSizesOptions Full = fewThreads();
  const AllSizesReport R0 = analyzeAllSizes(P, P.Kernels[0], Full);
  AllSizesOptions Cut = Full;
  Cut.MaxOperations = 20000;
  Cut.MinRuns = 8;
  const AllSizesReport R1 = analyzeAllSizes(P, P.Kernels[0], Cut);
  CAPTURE(R0.Method);
  CAPTURE(R1.Method);
  const SizeRange &S0 = siteOf(R0, "a", true).Sectors, &S1 = siteOf(R1, "a", true).Sectors;
  CAPTURE(S0.str());
  CAPTURE(S1.str());
  CHECK(R1.Bindings < R0.Bindings);
  CHECK(R1.Method.find(fmt::format("{} of the {} sizes planned", R1.Bindings, R0.Bindings)) != std::string::npos);
  CHECK(S1.Sampled);
  CHECK(!R1.Proven);
  CHECK(S1.Max == S0.Max);
  CHECK(S1.MaxWhen.find('H') == std::string::npos);
  CHECK(S1.MaxWhen.find('F') == std::string::npos);
  CHECK(S0.MaxWhen.find('H') == std::string::npos);
  // Every residue the sample names is one the full plan names.
  CHECK(!S1.MaxWhen.empty());
  for (std::int64_t V = 1024; V < 1024 + 32; ++V)
    if (conditionHolds(S1.MaxWhen, {{"W", V}, {"H", 1024}, {"F", 1024}}))
      CHECK(conditionHolds(S0.MaxWhen, {{"W", V}, {"H", 1024}, {"F", 1024}}));
  // Runs handed out in the budget's order: the same runs kept whatever the threads.
  AllSizesOptions One = Cut, Four = Cut;
  One.Threads = 1;
  Four.Threads = 4;
  const AllSizesReport A = analyzeAllSizes(P, P.Kernels[0], One), B = analyzeAllSizes(P, P.Kernels[0], Four);
  CHECK(A.Method == B.Method);
  CHECK(A.Tried == B.Tried);
  CHECK(siteOf(A, "a", true).Sectors.str() == siteOf(B, "a", true).Sectors.str());
  // A budget the plan fits in changes nothing.
  AllSizesOptions Roomy = Full;
  Roomy.MaxOperations = std::int64_t(1) << 40;
  const AllSizesReport R2 = analyzeAllSizes(P, P.Kernels[0], Roomy);
  CHECK(R2.Method == R0.Method);
  CHECK(R2.Tried == R0.Tried);
  CHECK(siteOf(R2, "a", true).Sectors.str() == S0.str());
}

TEST_CASE("a budget's condition lists only residues a size tried reached the worst with") {
  // The stride is 9 words when W % 32 is 28..31, else 1: 4 of W's 32
  // classes are worst. A cut leaves some classes untried; listing them as
  // possibly worst (a necessary condition) printed oddEvenMergeSort.cu's
  // 8 sectors "when stride % 32 in {1..8, 10, 12, ...}", false at 8.
  const ir::Program P = parseOrFail("target sm_90\nparam W\nparam H\n"
                                    "kernel k(a: global f32[1099511627776]) grid (4) block (32) {\n"
                                    "  a[tx * 8 * ((W % 32) / 28) + tx + 32 * H] = 1\n}\n");
  const AllSizesReport R0 = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  const SizeRange &S0 = siteOf(R0, "a", true).Sectors;
  CAPTURE(R0.Method);
  CAPTURE(S0.str());
  for (std::int64_t V = 1024; V < 1024 + 32; ++V)
    CHECK(conditionHolds(S0.MaxWhen, {{"W", V}, {"H", 1024}}) == (V % 32 >= 28));
  int Named = 0;
  for (const std::int64_t Budget : {2000, 4000, 8000, 16000, 32000}) {
    AllSizesOptions Cut = fewThreads();
    Cut.MaxOperations = Budget;
    Cut.MinRuns = 4;
    const AllSizesReport R1 = analyzeAllSizes(P, P.Kernels[0], Cut);
    const SizeRange &S1 = siteOf(R1, "a", true).Sectors;
    CAPTURE(Budget);
    CAPTURE(R1.Method);
    CAPTURE(S1.str());
    if (R1.Bindings == R0.Bindings)
      continue;
    CHECK(S1.Sampled);
    CHECK(S1.MaxWhen.find('H') == std::string::npos);
    if (S1.MaxWhen.empty() || S1.Max != S0.Max)
      continue;
    ++Named;
    for (std::int64_t V = 1024; V < 1024 + 32; ++V)
      if (conditionHolds(S1.MaxWhen, {{"W", V}, {"H", 1024}}))
        CHECK(V % 32 >= 28);
  }
  CHECK(Named > 0);
}

TEST_CASE("a budget keeps a run of every site: one no size reaches keeps its figures") {
  // b's index reads no size: the plan has one run for it, which a budget
  // that kept only the first runs of its order dropped (SGEMM_CUDA's
  // size-free shared stores lost their 2-way conflicts).
  const ir::Program P = parseOrFail("target sm_90\nparam W\nparam H\n"
                                    "kernel k(a: global f32[1099511627776], b: global f32[1099511627776]) "
                                    "grid (4) block (32) {\n"
                                    "  a[bx * W + tx + 32 * H] = 1\n  b[2 * tx] = 1\n}\n");
  AllSizesOptions Tiny = fewThreads();
  Tiny.MaxOperations = 1;
  Tiny.MinRuns = 1;
  const AllSizesReport Full = analyzeAllSizes(P, P.Kernels[0], fewThreads());
  const AllSizesReport Cut = analyzeAllSizes(P, P.Kernels[0], Tiny);
  CAPTURE(Cut.Method);
  CHECK(Cut.Bindings < Full.Bindings);
  CHECK(siteOf(Cut, "b", true).Sectors.Any);
  CHECK(siteOf(Cut, "b", true).Sectors.Max == siteOf(Full, "b", true).Sectors.Max);
  CHECK(siteOf(Cut, "a", true).Sectors.Any);
}
