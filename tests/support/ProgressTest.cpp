// support/Progress.h: the line it draws, and that it draws nothing unless
// enabled (stderr not a terminal: pipes, files, CI).
#include "support/Progress.h"

#include <doctest/doctest.h>

#include <sstream>
#include <thread>

using namespace bankwise;

TEST_CASE("the progress line: items and percent, or the time alone") {
  CHECK(Progress::line("lint", 12, 40, 3.14) == "lint: 12/40 (30%), 3.1 s");
  CHECK(Progress::line("scheduling", 0, 0, 12.0) == "scheduling: 12.0 s");
}

TEST_CASE("enabled, a progress line is drawn in place and cleared at the end") {
  std::ostringstream Out;
  Progress::setStream(&Out);
  Progress::setDelay(std::chrono::milliseconds(0));
  Progress::setEnabled(true);
  {
    Progress P("work", 10);
    P.advance(3);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  const std::string S = Out.str();
  CHECK(S.rfind("\rwork: ", 0) == 0);
  CHECK(S.find("/10 (") != std::string::npos);
  CHECK(S.size() >= 4);
  CHECK(S.substr(S.size() - 4) == "\r\x1b[K");
  // Disabled (as when stderr is not a terminal): nothing at all.
  Out.str("");
  Progress::setEnabled(false);
  {
    Progress P("work", 10);
    P.advance(10);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  CHECK(Out.str().empty());
  // Work quicker than the delay prints nothing either.
  Progress::setEnabled(true);
  Progress::setDelay(std::chrono::milliseconds(10000));
  { Progress P("quick", 1); }
  CHECK(Out.str().empty());
  Progress::setStream(nullptr);
}
