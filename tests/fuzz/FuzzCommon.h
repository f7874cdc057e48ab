// Shared by the libFuzzer targets (tests/fuzz/README.md): inputs that the
// readers take by path go through a file of this process's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

namespace bankwise::fuzz {

/// Writes Size bytes of Data to a file named for this process and Suffix
/// (under TMPDIR or /tmp) and returns its path.
inline std::string writeInput(const std::uint8_t *Data, std::size_t Size, const std::string &Suffix) {
  const char *Dir = std::getenv("TMPDIR");
  const std::string Path =
      std::string(Dir && *Dir ? Dir : "/tmp") + "/bankwise-fuzz-" + std::to_string(::getpid()) + Suffix;
  std::ofstream(Path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char *>(Data),
                                                                 static_cast<std::streamsize>(Size));
  return Path;
}

} // namespace bankwise::fuzz
