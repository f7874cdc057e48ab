#!/usr/bin/env bash
# Runs on the GPU machine after bench/gpu-verify.sh built bankwise into
# build-gpu/: Nsight Compute's view of what limits the generated kernels
# that miss an issue [8] goal (bench/results/h100/bench-kernels.md), so the
# next step is clear. Each kernel is built by `bankwise compile --harness`,
# run once with --check-only (every output element checked against the CPU
# reference; a wrong output makes the harness, and so ncu, exit non-zero,
# which fails this script) and profiled by ncu on that
# launch, with the sections SpeedOfLight, Occupancy, LaunchStats,
# WarpStateStats and MemoryWorkloadAnalysis. The table lists per kernel:
# duration, DRAM throughput (% of peak) and bytes against the bytes the
# kernel must move, SM throughput, achieved and theoretical occupancy and
# what limits it, and the three largest warp stall reasons.
#
# Writes $OUT/limiters.md and limiters.csv (the raw page of every profile),
# or bench/results/h100/. LIMITERS_ONLY=TEXT profiles only the jobs whose
# label contains TEXT.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bw=$root/build-gpu/driver/bankwise
out=${OUT:-$root/bench/results/h100}
work=$(mktemp -d)
[ -x "$bw" ] || { echo "gpu-limiters: build bankwise first (bench/gpu-verify.sh)" >&2; exit 2; }
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)
[ -n "$ncu" ] || { echo "gpu-limiters: ncu not found" >&2; exit 2; }

# label | sample | defines | harness args | kernel regex | bytes the kernel must move (read + write)
jobs=(
  "transpose_f32 8191x12289|transpose_any_shape||R=8191 C=12289|^transpose_f32$|$((8191 * 12289 * 4 * 2))"
  "transpose_f32 16384^2|transpose_any_shape||R=16384 C=16384|^transpose_f32$|$((16384 * 16384 * 4 * 2))"
  "transpose_f16 16384^2|transpose_any_shape||R=16384 C=16384|^transpose_f16$|$((16384 * 16384 * 2 * 2))"
  "transpose_i8 16384^2|transpose_any_shape||R=16384 C=16384|^transpose_i8$|$((16384 * 16384 * 2))"
  "permute_210 16x1000x1000|permute3d||B=16 M=1000 N=1000|^permute_210$|$((16 * 1000 * 1000 * 4 * 2))"
  "bit_reverse 2^26 (schedule bits)|bit_permutations|-D M=26||^bit_reverse$|$(((1 << 26) * 4 * 2))"
  "scheduled random P 2^26, each pass|offline_permutation_scheduled|-D N=67108864||^permute_random_pass|$(((1 << 26) * (4 * 2 + 4)))"
  "scheduled random P 2^26 f64, each pass|offline_permutation_scheduled|-D N=67108864||^permute_random_f64_pass|$(((1 << 26) * (8 * 2 + 4)))"
)
# LIMITERS_ONLY=TEXT keeps the jobs whose label contains TEXT.
if [ -n "${LIMITERS_ONLY:-}" ]; then
  keep=()
  for j in "${jobs[@]}"; do [[ "${j%%|*}" == *"$LIMITERS_ONLY"* ]] && keep+=("$j"); done
  jobs=("${keep[@]}")
fi

declare -A built=()
for j in "${jobs[@]}"; do
  IFS='|' read -r _ sample defines _ _ _ <<<"$j"
  key="$sample$defines"
  [ -n "${built[$key]:-}" ] && continue
  built[$key]=1
  name=$(echo "$key" | tr -c 'A-Za-z0-9_\n' '_')
  # shellcheck disable=SC2086
  (cd "$root/samples" && "$bw" compile "$sample.bw" $defines --harness -o "$work/$name.cu" >"$work/$name.log" 2>&1 &&
    nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o "$work/$name" "$work/$name.cu" >>"$work/$name.log" 2>&1) &
done
wait
status=0
i=0
for j in "${jobs[@]}"; do
  IFS='|' read -r label sample defines args regex bytes <<<"$j"
  name=$(echo "$sample$defines" | tr -c 'A-Za-z0-9_\n' '_')
  [ -x "$work/$name" ] || { echo "gpu-limiters: building $sample $defines failed:" >&2; tail -20 "$work/$name.log" >&2; status=1; continue; }
  i=$((i + 1))
  echo "gpu-limiters: $label" >&2
  # shellcheck disable=SC2086
  if ! (cd "$work" && timeout 400 "$ncu" --clock-control none -k "regex:$regex" \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        --section MemoryWorkloadAnalysis --csv --page raw "./$name" $args --check-only >"$work/p$i.csv" 2>"$work/p$i.err"); then
    echo "gpu-limiters: ncu on $label failed:" >&2; tail -5 "$work/p$i.err" >&2; status=1; continue
  fi
  echo "$label|$bytes|$work/p$i.csv" >>"$work/index"
done

# One CSV with every profile, each section headed "# label|bytes needed";
# bench/limiters-report.py makes the table from it (and can remake it
# from the committed limiters.csv).
: >"$work/limiters.csv"
while IFS='|' read -r label bytes csvpath; do
  echo "# $label|$bytes" >>"$work/limiters.csv"
  sed -n '/^"ID"/,$p' "$csvpath" >>"$work/limiters.csv"
done <"$work/index"
mkdir -p "$out"
cp "$work/limiters.csv" "$out/limiters.csv"
python3 "$root/bench/limiters-report.py" "$out/limiters.csv" --date "$(date -u +%Y-%m-%d)" >"$out/limiters.md" || status=1
cat "$out/limiters.md"
exit $status
