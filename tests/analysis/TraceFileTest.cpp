// The plain-text trace format of `bankwise model --trace`.

#include "analysis/models/TraceFile.h"
#include "support/Diagnostic.h"

#include <doctest/doctest.h>

using namespace bankwise;

namespace {
Diagnostic diagOf(std::string_view Text, std::int64_t W) {
  try {
    parseTrace(Text, "t.trace", W);
  } catch (const UserError &E) {
    return E.diagnostic();
  }
  return {};
}
} // namespace

TEST_CASE("traces parse rounds, warps, inactive lanes and spaces") {
  const Trace T = parseTrace("# seed 001 Fig. 3\n"
                             "round\n"
                             "7 5 15 0\n"
                             "10, 11, 12, 9   # W(1)\n"
                             "\n"
                             "round global\n"
                             "1 - 3\n",
                             "t.trace", 4);
  REQUIRE(T.Threads == 8);
  REQUIRE(T.Rounds.size() == 2);
  CHECK(T.Rounds[0].Where == Space::Shared);
  CHECK(T.Rounds[0].Addr == std::vector<Address>{7, 5, 15, 0, 10, 11, 12, 9});
  CHECK(T.Rounds[1].Where == Space::Global);
  CHECK(T.Rounds[1].Addr ==
        std::vector<Address>{1, NoAccess, 3, NoAccess, NoAccess, NoAccess,
                             NoAccess, NoAccess});
  CHECK(simulate(Dmm{4, 5}, Trace{T.Threads, {T.Rounds[0]}}).Time == 7);
}

TEST_CASE("trace errors carry line and column") {
  Diagnostic D = diagOf("round\n1 2 x3\n", 4);
  CHECK(D.Loc.Line == 2);
  CHECK(D.Loc.Col == 5);
  CHECK(D.Message == "expected an address or '-', got 'x3'");
  D = diagOf("1 2 3 4 5\n", 4);
  CHECK(D.Loc.Line == 1);
  CHECK(D.Loc.Col == 9);
  D = diagOf("round local\n", 4);
  CHECK(D.Message.find("unknown space 'local'") == 0);
  D = diagOf("1 -5\n", 4);
  CHECK(D.Message == "address -5 is negative");
  CHECK(D.Loc.Col == 3);
  D = diagOf("99999999999999999999999\n", 4);
  CHECK(D.Message.find("does not fit in 64 bits") != std::string::npos);
  D = diagOf("# nothing\n\n", 4);
  CHECK(D.Message == "trace has no warp accesses");
  D = diagOf("round\nround\n", 4);
  CHECK(D.Message == "trace has no warp accesses");
}
