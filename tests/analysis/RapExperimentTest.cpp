// seed 002's simulated congestion tables, reproduced by Monte Carlo.

#include "analysis/models/RapExperiment.h"

#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <array>
#include <map>
#include <tuple>

using namespace bankwise;

namespace {

std::map<std::tuple<std::int64_t, std::string, std::string>, RapTableCell>
table(const RapTableOptions &O) {
  std::map<std::tuple<std::int64_t, std::string, std::string>, RapTableCell> M;
  for (const RapTableCell &C : runRapTable(O))
    M[{C.W, C.Layout, C.Pattern}] = C;
  return M;
}

} // namespace

TEST_CASE("Table II of seed 002: RAW, RAS and RAP on a w x w matrix") {
  RapTableOptions O;
  O.Widths = {16, 32, 64};
  O.Trials = 1500;
  auto T = table(O);
  // Paper values: {layout, pattern} -> {w=16, w=32, w=64}.
  const std::map<std::pair<std::string, std::string>, std::array<double, 3>> Paper = {
      {{"raw", "contiguous"}, {1, 1, 1}},       {{"raw", "stride"}, {16, 32, 64}},
      {{"raw", "diagonal"}, {1, 1, 1}},         {{"raw", "random"}, {2.92, 3.44, 3.90}},
      {{"ras", "contiguous"}, {1, 1, 1}},       {{"ras", "stride"}, {3.08, 3.53, 3.96}},
      {{"ras", "diagonal"}, {3.08, 3.53, 3.96}}, {{"ras", "random"}, {2.92, 3.44, 3.90}},
      {{"rap", "contiguous"}, {1, 1, 1}},       {{"rap", "stride"}, {1, 1, 1}},
      {{"rap", "diagonal"}, {3.20, 3.61, 4.00}}, {{"rap", "random"}, {2.92, 3.44, 3.90}},
  };
  for (const auto &[Key, Values] : Paper)
    for (std::size_t I = 0; I < 3; ++I) {
      const RapTableCell &C = T.at({O.Widths[I], Key.first, Key.second});
      CAPTURE(C.W);
      CAPTURE(C.Layout);
      CAPTURE(C.Pattern);
      CAPTURE(C.Mean);
      // The paper prints two decimals of its own simulation: allow its
      // rounding plus four of our standard errors.
      CHECK(std::abs(C.Mean - Values[I]) <= 0.03 + 4 * C.StdErr);
    }
}

TEST_CASE("Table IV of seed 002: the RAPs of a w^4 array") {
  RapTableOptions O;
  O.Widths = {16};
  O.Trials = 150;
  O.Dims = 4;
  auto T = table(O);
  const std::int64_t W = 16;
  auto At = [&](const char *L, const char *P) { return T.at({W, L, P}).Mean; };
  for (const char *L : {"raw", "ras", "rap1p", "rapr1p", "rap3p", "rapw2p", "rap1pw2r"})
    CHECK(At(L, "contiguous") == 1.0);
  for (const char *P : {"stride1", "stride2", "stride3", "malicious"})
    CHECK(At("raw", P) == W);
  CHECK(At("rap1p", "stride1") == 1.0);
  CHECK(At("rap1p", "stride2") == W);
  CHECK(At("rap1p", "stride3") == W);
  for (const char *L : {"rapr1p", "rap3p"})
    for (const char *P : {"stride1", "stride2", "stride3"})
      CHECK(At(L, P) == 1.0);
  for (const char *L : {"rapw2p", "rap1pw2r"}) {
    CHECK(At(L, "stride1") == 1.0);
    CHECK(At(L, "stride2") > 2.5); // O~(log w / log log w), like random
    CHECK(At(L, "stride2") < 4.0);
  }
  // R1P's six orders of an index triple share a bank: congestion about 6
  // times a small factor; 3P has no such weakness.
  CHECK(At("rapr1p", "malicious") > 6.0);
  CHECK(At("rap3p", "malicious") < 4.5);
}

TEST_CASE("the experiment is deterministic per seed") {
  RapTableOptions O;
  O.Widths = {8};
  O.Trials = 50;
  const auto A = runRapTable(O), B = runRapTable(O);
  REQUIRE(A.size() == B.size());
  for (std::size_t I = 0; I < A.size(); ++I)
    CHECK(A[I].Mean == B[I].Mean);
}
