// layout auto: the cheapest layout by model cost, ties to the cheapest
// arithmetic, RAP for data-dependent sites, and every sample conflict-free
// where a layout can make it so.

#include "analysis/passes/LayoutChoice.h"
#include "dsl/Parser.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <functional>
#include <sstream>

using namespace bankwise;
using bankwise::testing::parseOrFail;
using bankwise::testing::sampleOrFail;

namespace {

const LayoutDecision &decision(const std::vector<LayoutDecision> &Ds, const std::string &A) {
  for (const LayoutDecision &D : Ds)
    if (D.Array == A)
      return D;
  FAIL("no decision for " << A);
  return Ds.front();
}

/// Sets every shared array of rank >= 2 back to `layout auto`.
void makeAuto(ir::Program &P) {
  auto Fix = [](ir::Array &A) {
    if (A.Space == ir::MemSpace::Shared && A.Shape.size() >= 2)
      A.Lay = ir::Layout{ir::LayoutKind::Auto, std::nullopt, 0};
  };
  for (ir::Array &A : P.Arrays)
    Fix(A);
  for (ir::Kernel &K : P.Kernels) {
    for (ir::Array &A : K.Params)
      Fix(A);
    std::function<void(ir::Block &)> Walk = [&](ir::Block &B) {
      for (ir::Stmt &S : B) {
        if (auto *D = S.as<ir::ArrayDecl>())
          Fix(D->Decl);
        else if (auto *F = S.as<ir::For>())
          Walk(F->Body);
        else if (auto *I = S.as<ir::If>()) {
          Walk(I->Then);
          Walk(I->Else);
        }
      }
    };
    Walk(K.Body);
  }
}

} // namespace

TEST_CASE("auto pads the tiled transpose's tile: 32 wavefronts become 1") {
  ir::Program P = sampleOrFail("transpose_tiled.bw");
  auto [Chosen, Ds] = chooseLayouts(P);
  P = std::move(Chosen);
  const LayoutDecision &D = decision(Ds, "tile");
  CHECK(D.Candidates[D.Chosen].Name == "pad(1)");
  CHECK(D.Candidates[0].Name == "raw");
  // raw: the row write costs 1, the column read 32: (1 + 32) / 2 per access.
  CHECK(D.Candidates[0].Cost / static_cast<double>(D.Executions) == doctest::Approx(16.5));
  CHECK(D.Candidates[D.Chosen].Cost / static_cast<double>(D.Executions) == doctest::Approx(1.0));
  // The program now carries the choice.
  const ir::Array *Tile = nullptr;
  for (const ir::Stmt &S : P.Kernels[0].Body)
    if (const auto *A = S.as<ir::ArrayDecl>())
      Tile = &A->Decl;
  REQUIRE(Tile);
  CHECK(Tile->Lay.Kind == ir::LayoutKind::Pad);
  CHECK(Tile->Lay.ArgValue == 1);
}

TEST_CASE("ties go to raw, then to the cheapest arithmetic") {
  ir::Program P = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel rows(a: shared f32[32][32]) threads 1024 {
  let x = a[tid / 32][tid % 32]
}
)");
  auto [Chosen, Ds] = chooseLayouts(P);
  P = std::move(Chosen);
  CHECK(Ds.at(0).Candidates[Ds.at(0).Chosen].Name == "raw");
}

TEST_CASE("data-dependent sites pick RAP, whose expectation holds for any pattern") {
  ir::Program P = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel gather(a: shared f32[32][32], p: shared i32[1024]) threads 1024 {
  let x = a[p[tid] / 32][p[tid] % 32]
}
)");
  LayoutChoiceOptions O;
  O.Seed = 77;
  auto [Chosen, Ds] = chooseLayouts(P, O);
  P = std::move(Chosen);
  const LayoutDecision &D = decision(Ds, "a");
  CHECK(D.Candidates[D.Chosen].Name == "rap(seed: 77)");
  CHECK(D.Seed == 77);
  CHECK(D.Candidates[D.Chosen].Cost / static_cast<double>(D.Executions) ==
        doctest::Approx(expectedMaxLoad(32, 32)));
}

TEST_CASE("a data-dependent column in a row every lane indexes: raw, since no layout spreads one row") {
  // A per-warp histogram: warp w's lanes all index row w, each at its own
  // key. A row of 32 words has one word per bank under every layout, so
  // raw's worst case equals RAP's expectation (1) and the tie goes to raw.
  ir::Program P = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel hist(keys: shared i32[1024], h: shared i32[32][32]) threads 1024 {
  h[warp][keys[tid] % 32] = 1
}
)");
  auto [Chosen, Ds] = chooseLayouts(P, {});
  const LayoutDecision &D = decision(Ds, "h");
  CHECK(D.Candidates[D.Chosen].Name == "raw");
  for (const LayoutCandidate &C : D.Candidates)
    CHECK(C.Cost == doctest::Approx(D.Candidates[0].Cost)); // 1 per warp execution, every layout
  // A row of 64 words: two per bank under every layout; still a tie.
  ir::Program Q = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel hist(keys: shared i32[1024], h: shared i32[32][64]) threads 1024 {
  h[warp][keys[tid] % 64] = 1
}
)");
  auto [Chosen2, Ds2] = chooseLayouts(Q, {});
  const LayoutDecision &D2 = decision(Ds2, "h");
  CHECK(D2.Candidates[D2.Chosen].Name == "raw");
  CHECK(D2.Candidates[0].Cost == doctest::Approx(2.0 * 32));
}

TEST_CASE("a candidate that overflows shared memory is skipped") {
  // 227 rows of 256 f32 are 232,448 bytes, sm_90's limit: any padding
  // overflows it.
  ir::Program P = parseOrFail(R"(target sm_90
kernel big(a: global f32[1]) grid (1) block (256) {
  shared t: f32[227][256]
  for k in 0..227 { t[k][tx] = 1 }
  for k in 0..227 { t[tx % 227][k] = 2 }
}
)");
  auto [Chosen, Ds] = chooseLayouts(P);
  P = std::move(Chosen);
  const LayoutDecision &D = decision(Ds, "t");
  for (const LayoutCandidate &C : D.Candidates)
    if (C.Name == "pad(1)" || C.Name == "pad(2)")
      CHECK_FALSE(C.Fits);
  CHECK(D.Candidates[D.Chosen].Fits);
  CHECK(D.Candidates[D.Chosen].Name != "raw");
}

TEST_CASE("every 2-D shared array of the samples becomes conflict-free under auto") {
  for (const char *Name : {"transpose_crsw.bw", "transpose_srcw.bw", "transpose_drdw.bw",
                           "transpose_tiled.bw", "transpose_diagonal_tile.bw"}) {
    CAPTURE(Name);
    ir::Program P = sampleOrFail(Name);
    makeAuto(P);
    P = chooseLayouts(P).Program;
    for (const ir::Kernel &K : P.Kernels) {
      const KernelReport R = analyzeKernel(P, K);
      for (const AccessSiteReport &S : R.Sites)
        if (S.Space == ir::MemSpace::Shared) {
          CAPTURE(S.Array);
          CHECK(S.Congestion.Max == 1);
        }
    }
  }
}

TEST_CASE("the choice is deterministic") {
  ir::Program A = sampleOrFail("transpose_tiled.bw"), B = A;
  A = chooseLayouts(A).Program;
  B = chooseLayouts(B).Program;
  CHECK(A == B);
}

// A tile skewed by (c * R + r0) mod 8, as a transpose with sector-aligned
// writes stores it: pad(1) is conflict-free at the representative R = 64
// and 8-way wherever R % 8 == 7, pad(2) is 1- and 2-way at every size. With
// runtime sizes, layout auto weighs size samples and takes the best worst
// case; at the bound sizes alone it would take pad(1).
const char *const SkewedTile = R"(target sm_90
param R
param C
kernel t(in: global f32[R][C], out: global f32[C][R]) grid ((R + 7 + 63) / 64, (C + 63) / 64) block (32, 16) {
  shared tile: f32[64][64]
  for k in 0..5 {
    for j in 0..2 {
      let r = bx * 64 - 7 + ty + 16 * k
      let c = by * 64 + tx + 32 * j
      let row = r - bx * 64 + (c * R + bx * 64) % 8
      if row >= 0 && row < 64 && r >= 0 && r < R && c < C { tile[row][tx + 32 * j] = in[r][c] }
    }
  }
  sync
  for k in 0..4 {
    for j in 0..2 {
      let c = by * 64 + ty + 16 * k
      let r = bx * 64 - (c * R + bx * 64) % 8 + tx + 32 * j
      if c < C && r >= 0 && r < R { out[c][r] = tile[tx + 32 * j][ty + 16 * k] }
    }
  }
}
)";

TEST_CASE("layout auto with runtime sizes: the best worst case over size samples, not the representative size") {
  const ir::Program Unbound = parseOrFail(SkewedTile);
  const ir::Bindings Rep = ir::representativeSizes(Unbound, {});
  CHECK(Rep.at("R") == 64);
  const ir::Program Bound = ir::bindParams(Unbound, Rep);

  const LayoutChoice AtOne = chooseLayouts(Bound);
  CHECK(decision(AtOne.Decisions, "tile").Candidates[decision(AtOne.Decisions, "tile").Chosen].Name == "pad(1)");

  LayoutChoiceOptions O;
  O.Unbound = &Unbound;
  O.SizeSamples = layoutSizeSamples(Unbound, Rep, &O.SamplesText);
  CHECK(O.SizeSamples.size() == 63); // the representative sizes, and R, C each at 31 more
  CHECK(O.SamplesText.find("every residue mod 32") != std::string::npos);
  const LayoutChoice Over = chooseLayouts(Bound, O);
  const LayoutDecision &D = decision(Over.Decisions, "tile");
  CHECK(D.Samples == 63);
  const LayoutCandidate &Chosen = D.Candidates[D.Chosen];
  CHECK(Chosen.Name == "pad(2)");
  // Per warp access at the worst sample (the mean of the two sites, weighted
  // by their warp executions, which edge tiles make unequal): pad(2) stores
  // in 1 wavefront and reads in 2; pad(1) stores in 8 at R % 8 == 7.
  CHECK(Chosen.Worst > 1.4);
  CHECK(Chosen.Worst < 1.6);
  for (const LayoutCandidate &C : D.Candidates)
    if (C.Name == "pad(1)") {
      CHECK(C.Worst > 4.0);
      CHECK(C.Worst < 4.6);
    }
}

// The size samples are measured in parallel (LayoutChoiceOptions::Threads):
// the costs, the choice and, where an analysis fails, the error are those of
// one thread.
TEST_CASE("layout auto over size samples: the same decisions and the same first error with 1 and 8 threads") {
  const ir::Program Unbound = parseOrFail(SkewedTile);
  const ir::Bindings Rep = ir::representativeSizes(Unbound, {});
  const ir::Program Bound = ir::bindParams(Unbound, Rep);
  LayoutChoiceOptions O;
  O.Unbound = &Unbound;
  O.SizeSamples = layoutSizeSamples(Unbound, Rep, &O.SamplesText);
  O.Threads = 1;
  const LayoutChoice One = chooseLayouts(Bound, O);
  O.Threads = 8;
  const LayoutChoice Eight = chooseLayouts(Bound, O);
  REQUIRE(One.Decisions.size() == 1);
  REQUIRE(Eight.Decisions.size() == One.Decisions.size());
  for (std::size_t I = 0; I < One.Decisions.size(); ++I) {
    const LayoutDecision &A = One.Decisions[I], &B = Eight.Decisions[I];
    CHECK(A.Samples == 63);
    CHECK(A.Chosen == B.Chosen);
    CHECK(A.Executions == B.Executions);
    REQUIRE(A.Candidates.size() == B.Candidates.size());
    for (std::size_t C = 0; C < A.Candidates.size(); ++C) {
      CHECK(A.Candidates[C].Cost == B.Candidates[C].Cost); // summed in one order: exactly equal
      CHECK(A.Candidates[C].Worst == B.Candidates[C].Worst);
    }
  }
  CHECK(One.Program == Eight.Program);

  // Out of bounds wherever R % 8 > 4, with a message that names the first
  // lane out (tid 27 at R = 69, 26 at R = 70, 25 at R = 71): the samples
  // fail differently, and the first (R = 69) is reported.
  const ir::Program Bad = parseOrFail(R"(target sm_90
param R
kernel k(out: global f32[R]) grid (1) block (32, 2) {
  shared tile: f32[2][32]
  tile[ty][tx] = 0
  sync
  if tx < 28 { out[0] = tile[ty][tx + R % 8] }
}
)");
  const ir::Bindings BadRep = ir::representativeSizes(Bad, {});
  REQUIRE(BadRep.at("R") % 8 == 0);
  LayoutChoiceOptions P;
  P.Unbound = &Bad;
  P.SizeSamples = layoutSizeSamples(Bad, BadRep, &P.SamplesText);
  auto ErrorWith = [&](unsigned Threads) {
    P.Threads = Threads;
    try {
      chooseLayouts(ir::bindParams(Bad, BadRep), P);
    } catch (const UserError &E) {
      return std::string(E.what());
    }
    return std::string("no error");
  };
  const std::string First = ErrorWith(1);
  CHECK(First.find("is 32, outside 0..31 (thread tid = 27") != std::string::npos);
  for (int Repeat = 0; Repeat < 4; ++Repeat)
    CHECK(ErrorWith(8) == First);
}
