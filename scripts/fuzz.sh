#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (Clang 19, ASan + UBSan) into
# build-fuzz/ (or $BANKWISE_FUZZ_BUILD) and runs each for SECONDS (default
# 60) on a corpus seeded from the repository: samples/ and the .bw tests for
# the DSL targets, permutation and data files for fuzz_files, tests/lint/ and
# bench/lint-corpus/ snippets for fuzz_lint. Writes one row per target
# (executions, coverage, corpus, findings) to $FUZZ_TABLE (default
# build-fuzz/fuzz.md); a finding's input is kept under build-fuzz/findings/,
# as are inputs slower than 10 s (counted apart: slow, not wrong).
# Exit code 1 when any target found a crash, a timeout, a leak or an
# out-of-memory input, 2 when the build failed.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    # targets: fuzz_dsl fuzz_compile fuzz_files fuzz_lint
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BANKWISE_FUZZ_BUILD:-$root/build-fuzz}
secs=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_dsl fuzz_compile fuzz_files fuzz_lint)
table=${FUZZ_TABLE:-$build/fuzz.md}
log() { echo "fuzz: $*" >&2; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
configure=(cmake -S "$root" --preset fuzz -B "$build" "${generator[@]}")
# A tree already configured with BANKWISE_FUZZ (scripts/sanitize.sh's, tests
# and all) is built as it is.
grep -q '^BANKWISE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && configure=(true)
if ! "${configure[@]}" >"$build.cmake.log" 2>&1 ||
   ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$build.build.log" 2>&1; then
  tail -30 "$build.cmake.log" "$build.build.log" >&2 2>/dev/null
  log "error: the fuzz build failed"
  exit 2
fi

# Seeds, fresh each run (the corpus directory keeps what the fuzzer found).
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{bw,files,cu}
find "$root/samples" "$root/tests/dsl" "$root/tests/checks" "$root/tests/codegen/inputs" -name '*.bw' -size -64k \
  -exec cp -t "$seeds/bw" {} + 2>/dev/null
i=0
for f in "$root"/samples/*.bin; do # permutation files: 4-byte indices (pick byte 0)
  [ -f "$f" ] || continue
  { printf '\x00'; head -c 4096 "$f"; } >"$seeds/files/perm$((i++))"
done
printf '\x00\x01\x00\x00\x00\x00\x00\x00\x00' >"$seeds/files/perm-2"
printf '\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$seeds/files/perm8-2"
python3 - "$seeds/files/perm-header" <<'PY' # a 4-entry file with its checked header (docs/cli.md)
import struct, sys
body = struct.pack('<4I', 2, 0, 3, 1)
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) % (1 << 64)
open(sys.argv[1], 'wb').write(b'\x00' + b'BWPERM1\n' + bytes([4]) + bytes(7) + struct.pack('<QQ', 4, h) + body)
PY
printf '\x42\x01\x00\x02\x00\x03\x00\x04\x00' >"$seeds/files/data-u16"
printf '\x46\x00\x00\x80\x3f\x00\x00\x00\x40' >"$seeds/files/data-f32"
find "$root/tests/lint" "$root/bench/lint-corpus" -name '*.cu' -size -4k -exec cp -t "$seeds/cu" {} + 2>/dev/null

findings=$build/findings
mkdir -p "$findings"
status=0
{
  echo "| target | seconds | executions | exec/s | coverage (edges) | features | corpus | findings | slow units (> 10 s) |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >"$table"
for t in "${targets[@]}"; do
  timeout=30 # seconds one input may take; compile weighs layouts over 63 sizes, slowly under ASan
  case $t in
    fuzz_dsl) seed=$seeds/bw ;;
    fuzz_compile) seed=$seeds/bw timeout=180 ;;
    fuzz_files) seed=$seeds/files ;;
    fuzz_lint) seed=$seeds/cu ;;
    *) log "error: unknown target $t"; exit 2 ;;
  esac
  corpus=$build/corpus/$t
  mkdir -p "$corpus" "$findings/$t"
  log "$t: ${secs} s"
  out=$build/$t.log
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout="$timeout" \
    -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/$t/" "$corpus" "$seed" \
    >"$out" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
  # libFuzzer also keeps inputs slower than 10 s (slow-unit-*): reported,
  # not findings; a finding is a crash, timeout, leak or out-of-memory input.
  found=$(find "$findings/$t" -type f ! -name 'slow-unit-*' | wc -l)
  slow=$(find "$findings/$t" -type f -name 'slow-unit-*' | wc -l)
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$out" | tail -1)
  if ((rc != 0 || found > 0)); then
    status=1
    log "$t: FINDING (exit $rc); see $out and $findings/$t/"
    grep -m3 -E 'ERROR|SUMMARY|runtime error' "$out" >&2
  fi
  echo "| $t | $secs | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $found | $slow (slowest ${slowest:-?} s) |" >>"$table"
done
cat "$table"
exit $status
