#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test suite with CTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
ctest --test-dir "${BANKWISE_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
