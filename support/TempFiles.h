// Temporary files a run is writing (an output before it is renamed into
// place): removed when the run is interrupted by SIGINT, SIGTERM or SIGHUP,
// so an interrupted run leaves neither a partial output (outputs appear only
// by rename) nor its temporary file. SIGKILL cannot be caught: it may leave
// the temporary, never a partial output.
#pragma once

#include <string>

namespace bankwise {

/// Registers Path for removal on interruption while this object lives (it
/// does not remove the file itself: the writer renames or removes it).
class TempFileGuard {
public:
  explicit TempFileGuard(const std::string &Path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard &) = delete;
  TempFileGuard &operator=(const TempFileGuard &) = delete;

private:
  int Slot = -1;
};

/// Installs the handlers (once, from main): each removes the registered
/// files, then lets the signal end the process as it would have.
void installTempFileCleanup();

} // namespace bankwise
