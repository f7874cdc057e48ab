#!/usr/bin/env bash
# Wall time of `bankwise analyze` and `bankwise compile` on every sample at
# its largest benchmark size (issue [5]'s targets: under a second on the
# 2-core development machine), at runtime sizes (analyze without -D: the
# figures over every size), and on a legal 2^33-element copy. Each job's
# output is checked, so a broken analysis cannot look fast:
#   - analyze --json at a size: every kernel counted by class (fast_path),
#     and the figure named in the job's CHECK (a site's min and max);
#   - analyze without -D: the report covers every site, and CHECK as above;
#   - compile: exit 0 and a .cu whose every kernel says "analyzed by class".
# Peak memory is GNU time's maximum resident set size.
#
#   bench/analyze-samples.sh [BUILD_DIR]    # writes bench/results/analyze.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bw=$build/driver/bankwise
out=${OUT:-$root/bench/results}/analyze.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bw" ] || { echo "analyze-samples: build bankwise first ($bw)" >&2; exit 2; }

# A copy of 2^33 f32 elements: 2^25 blocks of 256 threads (CUDA allows
# 2^31 - 1 blocks in x); the old analysis refused more than 2^25 warps.
cat >"$work/copy_2p33.bw" <<'EOF'
target sm_90
param N = 1 << 33
kernel copy(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) {
  b[tid] = a[tid]
}
EOF

# name | file | defines | CHECK: kernel:array:access:metric=min..max
jobs=(
  "transpose_any_shape 8191 x 12289|samples/transpose_any_shape.bw|-D R=8191 -D C=12289|transpose_f32:in:read:sm90_sectors=1..5"
  "transpose_any_shape 16384 x 16384|samples/transpose_any_shape.bw|-D R=16384 -D C=16384|transpose_f32:in:read:sm90_sectors=4..4"
  "transpose_any_shape, every size|samples/transpose_any_shape.bw||transpose_f32:tile:read:sm90_wavefronts=1..1"
  "permute3d 16 x 1000 x 1000|samples/permute3d.bw|-D B=16 -D M=1000 -D N=1000|permute_021:in:read:sm90_sectors=1..4"
  "permute3d, every size|samples/permute3d.bw||permute_210:tile:read:sm90_wavefronts=1..1"
  "bit_reversal n = 2^26|samples/bit_reversal.bw|-D M=26|bitrev_tiled:b:write:sm90_sectors=4..4"
  "bit_reversal, every M|samples/bit_reversal.bw||bitrev_naive:b:write:sm90_sectors=32..32"
  "transpose_tiled 16384^2|samples/transpose_tiled.bw|-D N=16384|transpose:tile:read:sm90_wavefronts=1..1"
  "prefix_sum_simple n = 2^30|samples/prefix_sum_simple.bw|-D M=30|prefix_sum_simple:a:write:congestion=1..1"
  "prefix_sum_optimal n = 2^30|samples/prefix_sum_optimal.bw|-D M=30|"
  "copy of 2^33 elements|$work/copy_2p33.bw||copy:b:write:sm90_sectors=4..4"
  "offline_permutation_scheduled n = 2^26|samples/offline_permutation_scheduled.bw|-D N=67108864|permute_bitrev_pass2:b:write:sm90_sectors=4..4"
)
for f in "$root"/samples/*.bw; do
  s=$(basename "$f" .bw)
  case $s in transpose_any_shape | permute3d | bit_reversal | transpose_tiled | prefix_sum_simple | prefix_sum_optimal | offline_permutation_scheduled) continue ;; esac
  jobs+=("$s (as written)|samples/$s.bw||")
done

check_json() { # JSON CHECK MODE
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
rep, check, mode = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
ks = rep["kernels"]
if mode == "size":
    # A table read per lane at a block-dependent index (a random
    # permutation, a holds array) has no finite class argument, nor has a
    # while loop (its trip count is per warp): those kernels are evaluated
    # warp by warp, say so, and count in the "walked" column.
    bad = [k["kernel"] for k in ks if not k.get("fast_path")
           and "indexed by block indices" not in k.get("fallback_reason", "")
           and k.get("fallback_reason") != "a while loop"]
    if bad:
        sys.exit(f"not counted by class: {bad}")
if check:
    where, want = check.split("=")
    kern, arr, acc, metric = where.split(":")
    lo, hi = (int(x) for x in want.split(".."))
    k = next(k for k in ks if k["kernel"] == kern)
    s = next(s for s in k["sites"] if s["array"] == arr and s["access"] == acc)
    got = s[metric]
    if got is None or got["min"] != lo or got["max"] != hi:
        sys.exit(f"{where}: expected {lo}..{hi}, got {got}")
PY
}

rows=()
status=0
for j in "${jobs[@]}"; do
  IFS='|' read -r name file defines check <<<"$j"
  case $file in /*) ;; *) file=$root/$file ;; esac
  # shellcheck disable=SC2086
  if ! /usr/bin/time -f "%e %M" -o "$work/a.time" "$bw" analyze "$file" $defines --json \
      >"$work/a.json" 2>"$work/a.err"; then
    echo "analyze-samples: analyze failed on $name:" >&2; cat "$work/a.err" >&2; status=1; continue
  fi
  mode=size; [ -z "$defines" ] && grep -q '"runtime_params"' "$work/a.json" && mode=all
  if ! msg=$(check_json "$work/a.json" "$check" "$mode" 2>&1); then
    echo "analyze-samples: check failed on $name: $msg" >&2; status=1; continue
  fi
  read -r at am <"$work/a.time"
  # shellcheck disable=SC2086
  if ! (cd "$work" && /usr/bin/time -f "%e %M" -o "$work/c.time" "$bw" compile "$file" $defines \
      -o "$work/out.cu" >"$work/c.log" 2>&1); then
    echo "analyze-samples: compile failed on $name:" >&2; cat "$work/c.log" >&2; status=1; continue
  fi
  kernels=$(grep -c "^// Kernel '" "$work/out.cu" || true)
  byclass=$(grep -c "analyzed by class\|indexed by block indices\|warp by warp (a while loop)" "$work/out.cu" || true)
  if [ "$kernels" != "$byclass" ]; then
    echo "analyze-samples: $name: $byclass of $kernels kernels analyzed by class" >&2; status=1
  fi
  walked=$(python3 -c "import json,sys; print(sum(1 for k in json.load(open(sys.argv[1]))['kernels'] if k.get('fast_path') is False))" "$work/a.json")
  read -r ct cm <"$work/c.time"
  rows+=("| $name | \`${defines:-(none)}\` | $mode | ${check:-by class} | $walked | $at | $((am / 1024)) | $ct | $((cm / 1024)) |")
  echo "analyze-samples: $name: analyze $at s, compile $ct s" >&2
done

{
  echo "# analyze and compile at size"
  echo
  echo "\`bench/analyze-samples.sh\` on the development machine ($(nproc) cores), $(date -u +%Y-%m-%d), RelWithDebInfo."
  echo "Wall seconds and peak MiB of the whole command (parse, layout auto, analysis; compile also emits the .cu)."
  echo "\"size\": -D gives every size, figures counted by class; \"all\": runtime sizes, figures over every size"
  echo "(analyze) or at the representative sizes (compile). Each row's check passed (see the script)."
  echo
  echo "\"walked\": kernels that fell back to the warp-by-warp interpreter (exhaustive path); sites reading a table per lane are walked in compiled form and do not count here."
  echo
  echo "| job | -D | mode | check | walked | analyze s | analyze MiB | compile s | compile MiB |"
  echo "|---|---|---|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
} >"$out"
echo "analyze-samples: wrote $out" >&2
exit $status
