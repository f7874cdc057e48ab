// How every subcommand ends: one JSON object (--json) or the text report.
#pragma once

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

} // namespace bankwise::driver
