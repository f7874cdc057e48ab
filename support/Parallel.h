// Work spread over the machine's cores: parallelFor runs independent tasks on
// a few threads and rethrows the first exception. The schedules and the
// analysis' per-warp walks use it; a caller that needs identical results for
// any thread count gives each task its own output and merges them in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bankwise {

/// The most threads a run may be given (--threads, BANKWISE_THREADS).
inline constexpr unsigned MaxThreads = 1024;

/// The thread count of the whole run, for callers that pass 0: set once by
/// the driver from --threads or BANKWISE_THREADS; 0 means every hardware
/// thread of the machine.
inline std::atomic<unsigned> &runThreads() {
  static std::atomic<unsigned> N{0};
  return N;
}

/// Threads; when Threads is 0, the run's setting (runThreads()), else the
/// machine's hardware threads (at least 1).
inline unsigned threadCount(unsigned Threads = 0) {
  if (Threads)
    return Threads;
  if (const unsigned N = runThreads().load())
    return N;
  const unsigned H = std::thread::hardware_concurrency();
  return H ? H : 1;
}

/// Runs Fn(Task, Worker) for Task in [0, NumTasks) on Threads workers; tasks
/// are taken in order from a shared counter. Rethrows the first exception.
template <class F>
void parallelFor(std::size_t NumTasks, unsigned Threads, F &&Fn) {
  Threads = static_cast<unsigned>(
      std::min<std::size_t>(Threads, std::max<std::size_t>(NumTasks, 1)));
  std::atomic<std::size_t> Next{0};
  std::exception_ptr Error;
  std::mutex ErrorMutex;
  auto Work = [&](unsigned Worker) {
    try {
      for (std::size_t T; (T = Next.fetch_add(1)) < NumTasks;)
        Fn(T, Worker);
    } catch (...) {
      std::lock_guard<std::mutex> Lock(ErrorMutex);
      if (!Error)
        Error = std::current_exception();
      Next.store(NumTasks);
    }
  };
  if (Threads <= 1) {
    Work(0);
  } else {
    std::vector<std::jthread> Pool;
    for (unsigned T = 1; T < Threads; ++T)
      Pool.emplace_back(Work, T);
    Work(0);
  }
  if (Error)
    std::rethrow_exception(Error);
}

} // namespace bankwise
