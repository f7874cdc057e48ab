#!/usr/bin/env bash
# Every GPU benchmark and verification of bench/, in order, on one GPU
# machine (CUDA, Nsight Compute, PyTorch and CuPy): builds bankwise into
# build-gpu/ (gpu-verify.sh does), then each script writes its tables to
# $OUT (default: bench/results/h100/; perf.jsonl there too). About 30
# minutes on an H100. Exits non-zero if any script failed (a wrong output
# fails its script).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export OUT=${OUT:-$root/bench/results/h100}
mkdir -p "$OUT"
status=0
for s in gpu-verify.sh bench-kernels.sh bench-papers.sh gpu-limiters.sh bench-strategies.sh bench-transpose-layouts.sh; do
  echo "bench-all: $s" >&2
  bash "$root/scripts/$s" || { echo "bench-all: $s failed" >&2; status=1; }
done
# schedule auto away from the sizes its model was fitted on, and the spread
# of every strategy over ten random P (issue [8] goals 3 and 5).
STRATEGY_NAME=strategies-validation STRATEGY_SIZES="22 23 24" STRATEGY_PERMS="random blockrandom windowrandom transpose" \
  bash "$root/bench/bench-strategies.sh" || { echo "bench-all: strategies-validation failed" >&2; status=1; }
STRATEGY_NAME=strategies-random-spread STRATEGY_SIZES=26 STRATEGY_RANDOM_SEEDS="1 2 3 4 5 6 8 9 10" \
  STRATEGY_PERMS="random random_s1 random_s2 random_s3 random_s4 random_s5 random_s6 random_s8 random_s9 random_s10" \
  bash "$root/bench/bench-strategies.sh" || { echo "bench-all: strategies-random-spread failed" >&2; status=1; }
exit $status
