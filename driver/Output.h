// How every subcommand ends: one JSON object (--json) or the text report.
#pragma once

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace bankwise::driver {

/// Prints J (one line) when Json is set, else Text; returns exit code 0.
inline int emitReport(bool Json, const nlohmann::json &J, const std::string &Text) {
  if (Json)
    std::cout << J.dump() << '\n';
  else
    std::cout << Text;
  return 0;
}

} // namespace bankwise::driver
