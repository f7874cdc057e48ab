// The resource estimate (issue [10] item 3): what a program's declared sizes
// will cost, counted before the work, and the errors past the limits.
#include "analysis/passes/ResourceEstimate.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>

#include <string>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

std::string program(const std::string &Body, const std::string &Extra = "") {
  return "target sm_90\nparam N = 1 << 20\npermutation P = random(N, seed: 1)\npermutation Q = bitreverse(N)\n" +
         Extra + "kernel k(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) " + Body + "\n";
}

std::string thrown(const ResourceEstimate &E, const ResourceLimits &L) {
  try {
    checkResourceLimits(E, L);
  } catch (const UserError &U) {
    return U.what();
  }
  return "";
}

} // namespace

TEST_CASE("a gather through a random table: its table, drawn, and a walk of every thread") {
  const ResourceRates R;
  const ResourceEstimate E = estimateResources(parseOrFail(program("{ b[P(tid)] = a[tid] }")), R);
  const double N = 1 << 20;
  CHECK(E.Bytes == N * R.TableBytesPerEntry);
  CHECK(E.Seconds == doctest::Approx(N * R.TableSecondsPerEntry + N * R.WalkSecondsPerLane));
  REQUIRE(E.Items.size() == 2);
  CHECK(E.Items[0].WarpSteps == N / 32);
  CHECK(E.Items[0].What == "kernel 'k': a site whose index reads data, walked warp by warp (2^20 thread trips)");
  CHECK(E.Items[1].What == "the table of permutation 'P' (2^20 entries)");
}

TEST_CASE("a closed form is counted by class: a table when used, no walk, no drawing") {
  const ResourceEstimate E = estimateResources(parseOrFail(program("{ b[Q(tid)] = a[tid] }")));
  CHECK(E.Bytes == (1 << 20) * 4.0);
  CHECK(E.Seconds == 0);
  // An unused permutation costs nothing.
  const ResourceEstimate None = estimateResources(parseOrFail(program("{ b[tid] = a[tid] }")));
  CHECK(None.Bytes == 0);
  CHECK(None.Items.empty());
}

TEST_CASE("loops multiply a walked site, inverses and schedules add their own") {
  const ResourceRates R;
  const double N = 1 << 20;
  const ResourceEstimate Loop =
      estimateResources(parseOrFail(program("{ for i in 0..4 { b[P((tid + i) % N)] = a[tid] } }")), R);
  CHECK(Loop.Items[0].WarpSteps == 4 * N / 32);
  const ResourceEstimate Both =
      estimateResources(parseOrFail(program("{ b[P(tid)] = a[inverse(P)(tid)] }")), R);
  CHECK(Both.Bytes == 2 * N * R.TableBytesPerEntry);
  const ResourceEstimate Sched =
      estimateResources(parseOrFail(program("schedule colored { b[P(tid)] = a[tid] }")), R);
  CHECK(Sched.Bytes == doctest::Approx(N * R.ScheduleBytesPerElement + N * R.TableBytesPerEntry));
  CHECK(Sched.Items[0].What == "the schedule of kernel 'k' (2^20 elements)");
}

TEST_CASE("past a limit: an error at what costs most, with the flag that raises it") {
  const ResourceEstimate E = estimateResources(parseOrFail(program("{ b[P(tid)] = a[tid] }")));
  CHECK(thrown(E, {}) == "");
  CHECK(thrown(E, {1e9, 1e9, 1e9}) == "");
  const std::string Mem = thrown(E, {1024, 0, 0});
  CHECK(Mem.find("these sizes need about 4.0 MiB of memory (4.0 MiB of it for the table of permutation 'P' "
                 "(2^20 entries)), more than the limit of 1 KiB") != std::string::npos);
  CHECK(Mem.find("--memory-limit GB") != std::string::npos);
  const std::string Time = thrown(E, {0, 0.01, 0});
  CHECK(Time.find("of work") != std::string::npos);
  CHECK(Time.find("--time-limit SECONDS") != std::string::npos);
  const std::string Steps = thrown(E, {0, 0, 1024});
  CHECK(Steps.find("kernel 'k' needs about 2^15 warp evaluations to analyze") != std::string::npos);
}

TEST_CASE("2^32 threads through a random table are refused before any work") {
  const ir::Program P = parseOrFail("target sm_90\nparam N = 1 << 32\npermutation P = random(N, seed: 1)\n"
                                    "kernel k(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) "
                                    "{ b[P(tid)] = a[tid] }\n");
  const std::string Msg = thrown(estimateResources(P), defaultResourceLimits());
  CHECK(Msg.find("kernel 'k' needs about 2^27 warp evaluations to analyze") != std::string::npos);
}
