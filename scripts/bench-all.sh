#!/usr/bin/env bash
# Every GPU benchmark and verification of bench/, in order, on one GPU
# machine (CUDA, Nsight Compute, PyTorch and CuPy): builds bankwise into
# build-gpu/ (gpu-verify.sh does), then each script writes its tables to
# $OUT (default: bench/results/h100/; perf.jsonl there too). About 20
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
exit $status
