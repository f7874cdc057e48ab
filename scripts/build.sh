#!/usr/bin/env bash
# Configures and builds bankwise into build/ (or $BANKWISE_BUILD_DIR) with
# CMakePresets.json's "default" preset ($BANKWISE_PRESET picks another).
# Extra arguments go to CMake, e.g. -DBANKWISE_ENABLE_FRONTEND=OFF.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_BUILD_DIR:-$root/build}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
(cd "$root" && cmake --preset "${BANKWISE_PRESET:-default}" -B "$build" "${generator[@]}" "$@")
cmake --build "$build" -j "$(nproc)"
