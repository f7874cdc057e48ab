#!/usr/bin/env bash
# Configures and builds bankwise into build/ (or $BANKWISE_BUILD_DIR).
# Extra arguments go to CMake, e.g. -DBANKWISE_ENABLE_FRONTEND=OFF.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_BUILD_DIR:-$root/build}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBANKWISE_WERROR=ON "$@"
cmake --build "$build" -j "$(nproc)"
