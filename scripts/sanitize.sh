#!/usr/bin/env bash
# The sanitizer job (issue [10] items 1 and 2): builds everything, the tests
# and the libFuzzer targets included, with Clang 19 under AddressSanitizer
# and UndefinedBehaviorSanitizer (-DBANKWISE_FUZZ=ON: every library also
# carries libFuzzer's coverage hooks) into build-san/ (or $BANKWISE_SAN_BUILD),
# runs the whole test suite there (any sanitizer report fails the test that
# triggered it: -fno-sanitize-recover, abort_on_error), then runs each fuzz
# target for $BANKWISE_FUZZ_SECONDS (default 60; 0 skips them) on the seeds
# of scripts/fuzz.sh.
#
# BANKWISE_SAN_CXX=g++ builds with GCC instead (no fuzz targets then).
# Line tables only (-gline-tables-only): sanitizer reports keep file and
# line, and the build is quicker than with full debug information.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_SAN_BUILD:-$root/build-san}
cxx=${BANKWISE_SAN_CXX:-clang++-19}
secs=${BANKWISE_FUZZ_SECONDS:-60}
"$root/scripts/setup.sh"
# Presets "sanitize" (Clang: with the fuzz targets; Clang 19 with GCC 12's
# libstdc++ warns inside the library's own headers (get_temporary_buffer),
# so -Werror is the GCC build's) and "sanitize-gcc".
if [[ $cxx == clang* ]]; then
  preset=sanitize
else
  preset=sanitize-gcc
  secs=0
fi
BANKWISE_PRESET=$preset BANKWISE_BUILD_DIR=$build "$root/scripts/build.sh" -DCMAKE_CXX_COMPILER="$cxx"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
if ((secs > 0)); then
  BANKWISE_FUZZ_BUILD=$build FUZZ_TABLE=$build/fuzz.md "$root/scripts/fuzz.sh" "$secs"
fi
