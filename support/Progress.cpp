#include "support/Progress.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace bankwise {

namespace {

struct Settings {
  std::mutex M; // one line at a time on the stream
  int Enabled = -1; // -1: decide from the terminal
  std::ostream *Stream = nullptr;
  std::chrono::milliseconds Delay{500};
};

Settings &settings() {
  static Settings S;
  return S;
}

} // namespace

bool Progress::enabled() {
  Settings &S = settings();
  if (S.Enabled < 0) {
    const char *Term = std::getenv("TERM");
    S.Enabled = ::isatty(STDERR_FILENO) && !(Term && std::strcmp(Term, "dumb") == 0);
  }
  return S.Enabled == 1;
}

void Progress::setEnabled(bool On) { settings().Enabled = On ? 1 : 0; }
void Progress::setStream(std::ostream *S) { settings().Stream = S; }
void Progress::setDelay(std::chrono::milliseconds D) { settings().Delay = D; }

std::string Progress::line(const std::string &What, std::uint64_t Done, std::uint64_t Total, double Seconds) {
  char Buf[96];
  if (Total)
    std::snprintf(Buf, sizeof Buf, ": %llu/%llu (%.0f%%), %.1f s", static_cast<unsigned long long>(Done),
                  static_cast<unsigned long long>(Total), 100.0 * static_cast<double>(Done) / static_cast<double>(Total),
                  Seconds);
  else
    std::snprintf(Buf, sizeof Buf, ": %.1f s", Seconds);
  return What + Buf;
}

Progress::Progress(std::string What, std::uint64_t Total)
    : What(std::move(What)), Total(Total), Start(std::chrono::steady_clock::now()) {
  if (enabled())
    Ticker = std::thread([this] { run(); });
}

void Progress::run() {
  Settings &S = settings();
  std::unique_lock<std::mutex> Lock(M);
  if (Stop.wait_for(Lock, S.Delay, [this] { return Stopping; }))
    return;
  do {
    const double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    const std::string L = line(What, Done.load(std::memory_order_relaxed), Total, Seconds);
    std::lock_guard<std::mutex> Out(S.M);
    std::ostream &OS = S.Stream ? *S.Stream : std::cerr;
    OS << '\r' << L << "\x1b[K" << std::flush;
    Printed = true;
  } while (!Stop.wait_for(Lock, std::chrono::milliseconds(200), [this] { return Stopping; }));
}

Progress::~Progress() {
  if (!Ticker.joinable())
    return;
  {
    std::lock_guard<std::mutex> Lock(M);
    Stopping = true;
  }
  Stop.notify_all();
  Ticker.join();
  if (Printed) {
    Settings &S = settings();
    std::lock_guard<std::mutex> Out(S.M);
    (S.Stream ? *S.Stream : std::cerr) << "\r\x1b[K" << std::flush;
  }
}

} // namespace bankwise
