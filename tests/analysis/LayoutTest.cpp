// Layouts are bijections onto their address range, and RAP makes every
// contiguous and every stride access conflict-free (seed 002 Sec. IV).

#include "analysis/models/Layout.h"
#include "analysis/models/MemoryModel.h"
#include "analysis/passes/ArrayLayout.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <tuple>
#include <doctest/doctest.h>
#include <vector>

using namespace bankwise;

namespace {

/// Every index of Shape, in row-major order.
std::vector<std::vector<std::int64_t>> allIndices(const std::vector<std::int64_t> &Shape) {
  std::vector<std::vector<std::int64_t>> Out;
  std::vector<std::int64_t> I(Shape.size(), 0);
  while (true) {
    Out.push_back(I);
    std::size_t D = Shape.size();
    while (D > 0) {
      --D;
      if (++I[D] < Shape[D])
        break;
      I[D] = 0;
      if (D == 0)
        return Out;
    }
  }
}

} // namespace

TEST_CASE("every layout is a bijection into its footprint") {
  const std::vector<std::vector<std::int64_t>> Shapes = {
      {32, 32}, {4, 4}, {7, 8}, {3, 5, 16}, {64}, {33, 32}};
  for (const auto &Shape : Shapes)
    for (LayoutKind K : {LayoutKind::Raw, LayoutKind::Pad, LayoutKind::Xor,
                         LayoutKind::Diagonal, LayoutKind::Ras, LayoutKind::Rap}) {
      if (K == LayoutKind::Xor && (Shape.back() & (Shape.back() - 1)) != 0)
        continue;
      const LayoutFn L = makeLayout(K, Shape, 1, 42);
      CAPTURE(L.str());
      std::vector<char> Seen(static_cast<std::size_t>(L.footprint()), 0);
      for (const auto &I : allIndices(Shape)) {
        const std::int64_t A = L.map(I);
        REQUIRE(A >= 0);
        REQUIRE(A < L.footprint());
        REQUIRE_FALSE(Seen[static_cast<std::size_t>(A)]);
        Seen[static_cast<std::size_t>(A)] = 1;
      }
    }
  for (LayoutKind K : {LayoutKind::Rap1P, LayoutKind::RapR1P, LayoutKind::Rap3P,
                       LayoutKind::RapW2P, LayoutKind::Rap1PW2R}) {
    const LayoutFn L = makeLayout(K, {8, 8, 8, 8}, 0, 3);
    CAPTURE(L.str());
    std::vector<char> Seen(static_cast<std::size_t>(L.footprint()), 0);
    for (const auto &I : allIndices(L.Shape)) {
      const std::int64_t A = L.map(I);
      REQUIRE_FALSE(Seen[static_cast<std::size_t>(A)]);
      Seen[static_cast<std::size_t>(A)] = 1;
    }
  }
}

TEST_CASE("RAP: seed 002 Fig. 6 worked example, w = 4, r = (2, 0, 3, 1)") {
  LayoutFn L = makeLayout(LayoutKind::Rap, {4, 4}, 0, 0);
  L.Table = {2, 0, 3, 1};
  const std::int64_t A22[] = {2, 2};
  CHECK(L.map(A22) == 9);
  // The figure's rows: row 0 holds 0..3 shifted by 2 -> 2 3 0 1 in banks 0..3.
  std::vector<std::int64_t> Row0(4);
  for (std::int64_t J = 0; J < 4; ++J) {
    const std::int64_t I[] = {0, J};
    Row0[static_cast<std::size_t>(L.map(I) % 4)] = J;
  }
  CHECK(Row0 == std::vector<std::int64_t>{2, 3, 0, 1});
}

TEST_CASE("RAP gives congestion 1 for every contiguous and every stride access") {
  for (std::int64_t W : {4, 16, 32, 64})
    for (std::uint64_t Seed = 0; Seed < 20; ++Seed) {
      const LayoutFn L = makeLayout(LayoutKind::Rap, {W, W}, 0, Seed);
      for (std::int64_t Fixed = 0; Fixed < W; ++Fixed) {
        std::vector<Address> Row, Col;
        for (std::int64_t T = 0; T < W; ++T) {
          const std::int64_t RowIdx[] = {Fixed, T}, ColIdx[] = {T, Fixed};
          Row.push_back(L.map(RowIdx));
          Col.push_back(L.map(ColIdx));
        }
        REQUIRE(dmmCongestion(Row, W) == 1);
        REQUIRE(dmmCongestion(Col, W) == 1);
      }
    }
}

TEST_CASE("layouts that do not fit the shape are user errors") {
  CHECK_THROWS_AS(makeLayout(LayoutKind::Xor, {4, 6}), UserError);
  CHECK_THROWS_AS(makeLayout(LayoutKind::Rap3P, {4, 4}), UserError);
  CHECK_THROWS_AS(makeLayout(LayoutKind::Pad, {4, 4}, -1), UserError);
  CHECK_THROWS_AS(makeLayout(LayoutKind::Raw, {4, 0}), UserError);
  CHECK(makeLayout(LayoutKind::Rap, {8, 8}, 0, 5) == makeLayout(LayoutKind::Rap, {8, 8}, 0, 5));
  CHECK(makeLayout(LayoutKind::Pad, {4, 4}, 1).footprint() == 20);
  CHECK(makeLayout(LayoutKind::Rap, {32, 32}, 0, 7).str() == "rap(seed: 7) of [32][32]");
}

TEST_CASE("CuTe swizzles: bijections, and xor is Swizzle<log2 C, 0, log2 C>") {
  for (auto [B, M, S] : {std::tuple(3, 0, 3), std::tuple(5, 0, 5), std::tuple(2, 2, 3),
                         std::tuple(3, 2, 3), std::tuple(1, 0, 4)}) {
    const LayoutFn L = makeSwizzle({64, 32}, {B, M, S});
    CAPTURE(L.str());
    std::vector<char> Seen(static_cast<std::size_t>(L.footprint()), 0);
    for (const auto &I : allIndices(L.Shape)) {
      const std::int64_t A = L.map(I);
      REQUIRE(A >= 0);
      REQUIRE(A < L.footprint());
      REQUIRE_FALSE(Seen[static_cast<std::size_t>(A)]);
      Seen[static_cast<std::size_t>(A)] = 1;
    }
  }
  const LayoutFn X = makeLayout(LayoutKind::Xor, {32, 32});
  const LayoutFn S = makeSwizzle({32, 32}, {5, 0, 5});
  for (const auto &I : allIndices({32, 32}))
    REQUIRE(X.map(I) == S.map(I));
  // Swizzle<3, 2, 3> keeps 16-byte vectors of f32 together: a column of
  // float4 in a [8][32] f32 tile lands in 8 distinct 4-bank groups.
  const LayoutFn V = makeSwizzle({8, 32}, {3, 2, 3});
  std::vector<Address> Col;
  for (std::int64_t R = 0; R < 8; ++R) {
    const std::int64_t I[] = {R, 0};
    Col.push_back(V.map(I) * 4);
  }
  CHECK(sm90Shared(Col, 4, SharedOp::Load).MaxWordsPerBank == 1);
  CHECK_THROWS_AS(makeSwizzle({32, 32}, {4, 0, 2}), UserError);
  CHECK_THROWS_AS(makeSwizzle({3, 5}, {2, 0, 2}), UserError);
}

// The IR's layout value and its one address function (analysis and codegen
// both call arrayLayout).
TEST_CASE("ir::Layout spells its value, arrayLayout maps it, located on error") {
  ir::Layout L;
  CHECK(L.str() == "raw");
  L.Kind = ir::LayoutKind::Pad;
  L.ArgValue = 1;
  CHECK(L.str() == "pad(1)");
  L.Kind = ir::LayoutKind::Rap;
  L.ArgValue = 7;
  CHECK(L.str() == "rap(seed: 7)");
  L.Kind = ir::LayoutKind::Xor;
  CHECK(L.str() == "xor");

  ir::Array A;
  A.Name = "tile";
  A.Shape = {32, 32};
  A.Loc = ir::NodeLoc(SourceLoc{"k.bw", 3, 10});
  A.Lay.Kind = ir::LayoutKind::Pad;
  A.Lay.ArgValue = 1;
  CHECK(arrayLayout(A).map(std::vector<std::int64_t>{2, 5}) == 2 * 33 + 5);
  A.Lay.Kind = ir::LayoutKind::Auto; // unresolved: raw
  CHECK(arrayLayout(A).map(std::vector<std::int64_t>{2, 5}) == 2 * 32 + 5);
  A.Shape = {3, 3};
  A.Lay.Kind = ir::LayoutKind::Xor;
  try {
    arrayLayout(A);
    FAIL("xor of a 3-element row must be refused");
  } catch (const UserError &E) {
    CHECK(E.diagnostic().Loc.Line == 3);
    CHECK(E.diagnostic().Message.find("array 'tile'") != std::string::npos);
  }
}
