#!/usr/bin/env bash
# The sanitizer job: builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer (GCC, -DBANKWISE_SANITIZE=ON) into build-san/
# (or $BANKWISE_SAN_BUILD) and runs the whole test suite there; any
# sanitizer report fails the test that triggered it (-fno-sanitize-recover).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_SAN_BUILD:-$root/build-san}
"$root/scripts/setup.sh"
BANKWISE_BUILD_DIR=$build "$root/scripts/build.sh" -DBANKWISE_SANITIZE=ON
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
