#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root (nvcc, ncu, python3 and
# the GPU there; nothing of bankwise is built). Measures how sm_90 serves one
# warp's shared-memory load or store of 1, 2, 4, 8 and 16 bytes per lane:
# every lane pattern of bench/hardware/shared_rules.py (contiguous, strides,
# broadcast, conflicts inside and across quarter- and half-warps, idle lanes,
# seeded random) runs as one launch of one warp, Nsight Compute reads each
# launch's shared wavefronts and instructions, and the table compares them
# with the candidate rules. Writes shared-rules.md and shared-rules.jsonl to
# $OUT when set, else bench/results/h100/. tests/analysis/MemoryModelTest.cpp
# checks bankwise's sm_90 model against every row of the .jsonl.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/bench/results/h100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
py=$root/bench/hardware/shared_rules.py

python3 "$py" patterns >"$work/patterns.txt"
"$nvcc" -O3 -arch=sm_90 -o "$work/shared_rules" "$root/bench/hardware/shared_rules.cu"
# The instruction widths in the SASS, as the PTX asked.
cuobjdump=$(command -v cuobjdump || echo "$(dirname "$nvcc")/cuobjdump")
"$cuobjdump" -sass "$work/shared_rules" | grep -oE '(LDS|STS)(\.[A-Z0-9]+)*' | sort | uniq -c >"$work/sass.txt"
cat "$work/sass.txt" >&2
"$work/shared_rules" "$work/patterns.txt" >"$work/plain.txt"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
"$ncu" --clock-control none --csv --page raw --metrics "$metrics" \
  "$work/shared_rules" "$work/patterns.txt" >"$work/ncu.csv" 2>"$work/ncu.err" || { tail -20 "$work/ncu.err"; exit 1; }
grep '^launch ' "$work/ncu.csv" >"$work/launches.txt" || true
{
  echo "# How sm_90 serves one warp's shared access, by access size (measured)"
  echo
  echo "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), $("$ncu" --version | tail -1), $("$nvcc" --version | tail -2 | head -1), $(date -u +%F)."
  echo "One block of one warp per launch; each launch executes exactly one shared"
  echo "instruction of the pattern (inline PTX \`ld.shared\`/\`st.shared\`, .u8 to .v4.u32);"
  echo "measured = \`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum\` of that launch"
  echo "(\`smsp__sass_inst_executed_op_shared_*\` checked to be 1). Made by"
  echo "\`bench/gpu-shared-rules.sh\`; the rule columns are computed in"
  echo "\`bench/hardware/shared_rules.py\` from their statements (**x** = differs from"
  echo "the measurement). SASS shared instructions in the probe:"
  echo
  sed 's/^/    /' "$work/sass.txt"
  echo
} >"$out/shared-rules.md"
python3 "$py" report "$work/patterns.txt" "$work/launches.txt" "$work/ncu.csv" "$work/table.md" "$out/shared-rules.jsonl"
cat "$work/table.md" >>"$out/shared-rules.md"
echo "gpu-shared-rules: wrote $out/shared-rules.md and shared-rules.jsonl" >&2
