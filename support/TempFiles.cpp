#include "support/TempFiles.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace bankwise {

namespace {

// Fixed slots, so the handler touches no allocator: only atomic loads and
// unlink(2), both async-signal-safe. More files at once than slots are
// written without the guard (none of bankwise's commands comes close).
constexpr int Slots = 64;
std::atomic<char *> Paths[Slots];

void onSignal(int Sig) {
  for (std::atomic<char *> &P : Paths)
    if (char *Path = P.load())
      ::unlink(Path);
  std::signal(Sig, SIG_DFL);
  std::raise(Sig);
}

} // namespace

TempFileGuard::TempFileGuard(const std::string &Path) {
  char *Copy = ::strdup(Path.c_str());
  if (!Copy)
    return;
  for (int I = 0; I < Slots; ++I) {
    char *Expected = nullptr;
    if (Paths[I].compare_exchange_strong(Expected, Copy)) {
      Slot = I;
      return;
    }
  }
  std::free(Copy);
}

TempFileGuard::~TempFileGuard() {
  if (Slot >= 0)
    std::free(Paths[Slot].exchange(nullptr));
}

void installTempFileCleanup() {
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    std::signal(Sig, onSignal);
}

} // namespace bankwise
