// How every subcommand ends: one JSON object (--json) or the text report.
#pragma once

#include "support/Diagnostic.h"
#include "support/TempFiles.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace bankwise::driver {

/// Prints J (one line) when Json is set, else Text; returns exit code 0.
inline int emitReport(bool Json, const nlohmann::json &J, const std::string &Text) {
  if (Json)
    // A path that is not UTF-8 (Linux allows any bytes) gets U+FFFD in
    // the JSON instead of throwing.
    std::cout << J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  else
    std::cout << Text;
  return 0;
}

/// Writes Path through Write(stream) into a temporary file renamed into
/// place, so a failed write leaves no half-written output.
template <class F> void writeAtomically(const std::string &Path, F &&Write) {
  const std::string Tmp = Path + ".tmp";
  const TempFileGuard Guard(Tmp);
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    if (!Out)
      throw UserError(fmt::format("cannot write '{}'", Path));
    Write(Out);
    Out.flush();
    if (!Out) {
      Out.close();
      std::error_code Ignored;
      std::filesystem::remove(Tmp, Ignored);
      throw UserError(fmt::format("cannot write '{}'", Path));
    }
  }
  std::error_code EC;
  std::filesystem::rename(Tmp, Path, EC);
  if (EC) {
    std::filesystem::remove(Tmp, EC);
    throw UserError(fmt::format("cannot write '{}': {}", Path, EC.message()));
  }
}

/// writeAtomically of Text.
inline void writeTextAtomically(const std::string &Path, const std::string &Text) {
  writeAtomically(Path, [&](std::ostream &Out) { Out.write(Text.data(), static_cast<std::streamsize>(Text.size())); });
}

} // namespace bankwise::driver
