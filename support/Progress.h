// Progress of long work on stderr (issue [11] item 4): a line that counts
// items done, or the seconds spent, rewritten in place a few times a second
// while stderr is a terminal; nothing at all otherwise (pipes, files, CI),
// so outputs and logs stay byte for byte what they were.
//
//   Progress P("lint", Files.size());   // "lint: 12/40 (30%), 3.1 s"
//   ... P.advance(); ...                // from any thread
//   Progress S("scheduling 'P' (2^26 elements)");   // "...: 4.0 s" while it runs
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace bankwise {

class Progress {
public:
  /// Starts reporting What (Total items, 0 for work that only shows its
  /// time) when progress is enabled; the line appears after a short delay,
  /// so quick work prints nothing.
  explicit Progress(std::string What, std::uint64_t Total = 0);
  /// Clears the line.
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// One more item done (thread-safe).
  void advance(std::uint64_t N = 1) { Done.fetch_add(N, std::memory_order_relaxed); }

  /// Whether progress is shown: stderr is a terminal and TERM is not
  /// "dumb", unless set. setStream directs it elsewhere (tests).
  static bool enabled();
  static void setEnabled(bool On);
  static void setStream(std::ostream *S);
  /// The delay before the first line (default 0.5 s).
  static void setDelay(std::chrono::milliseconds D);

  /// The line for Done of Total after Seconds: "lint: 12/40 (30%), 3.1 s".
  static std::string line(const std::string &What, std::uint64_t Done, std::uint64_t Total, double Seconds);

private:
  void run();
  std::string What;
  std::uint64_t Total;
  std::atomic<std::uint64_t> Done{0};
  std::chrono::steady_clock::time_point Start;
  std::mutex M;
  std::condition_variable Stop;
  bool Stopping = false;
  bool Printed = false;
  std::thread Ticker;
};

} // namespace bankwise
