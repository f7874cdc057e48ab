#!/usr/bin/env bash
# ThreadSanitizer run of the multi-threaded parts (issue [10] item 2):
# builds build-tsan/ (or $BANKWISE_TSAN_BUILD) with -DBANKWISE_TSAN=ON and
# runs the tests that start threads: schedule construction (parallelFor in
# analysis/schedule/HmmSchedule.cpp), the all-sizes analysis and the
# parallel class counting (their worker pools), compile's side-file writer
# thread and progress (cli.*), many-file lint (lint.*, where the front end
# is built), and the determinism runs with 1, 2 and 8 threads of the smaller
# samples. A TSan report ends its test with a failure (halt_on_error).
# Extra arguments go to CMake (-DBANKWISE_ENABLE_FRONTEND=OFF where there is
# no LLVM). Exit code: ctest's.
#
#   scripts/tsan.sh [CMAKE_ARG...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_TSAN_BUILD:-$root/build-tsan}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
(cd "$root" && cmake --preset tsan -B "$build" "${generator[@]}" "$@")
cmake --build "$build" -j "$(nproc)"
# The random-kernel oracles evaluate every warp of hundreds of kernels: the
# same code on one thread, and hours under TSan.
tests='^(analysis|schedule|cli|support|lint)\.|^determinism\.(analyze|analyze-json|compile)\.(permute3d|permute_auto|bit_reversal|bit_permutations|offline_permutation_scheduled|permutation_colored|transpose_tiled|transpose_diagonal_tile)$'
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
  ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900 -R "$tests" -E 'random|equals warp-by-warp'
