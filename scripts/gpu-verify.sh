#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root (CMake, nvcc and the GPU
# there; fmt, CLI11, nlohmann-json and doctest from .deps/, made here by
# scripts/gpu-deps.sh). For every sample: `bankwise compile --harness`, nvcc,
# run the harness (every output checked against the CPU reference, median of
# 21 timed runs), and Nsight Compute on a small launch to compare measured
# shared wavefronts per instruction and global sectors per request with the
# model's prediction. Writes gpu-verify.md and gpu-verify.json to $OUT when
# set, else bench/results/. Exit code 0 when every kernel is correct.
#
#   scripts/gpu-verify.sh [SAMPLE...]      # default: every samples/*.bw
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/bench/results}
build=$root/build-gpu
work=$build/verify
jobs=$(nproc)
mkdir -p "$out" "$work"
log() { echo "gpu-verify: $*" >&2; }

if [ ! -d "$root/.deps/usr" ]; then
  log "error: .deps/ is missing; run scripts/gpu-deps.sh on a machine with apt first"
  exit 2
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)

# 1. The core, without LLVM and without the test suites.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/.deps/usr" -DBANKWISE_ENABLE_FRONTEND=OFF -DBANKWISE_BUILD_TESTS=OFF >"$work/cmake.log" 2>&1 ||
  { log "cmake failed (see $work/cmake.log)"; tail -20 "$work/cmake.log"; exit 2; }
cmake --build "$build" -j "$jobs" --target bankwise >"$work/build.log" 2>&1 ||
  { log "build failed (see $work/build.log)"; tail -20 "$work/build.log"; exit 2; }
bw=$build/driver/bankwise
g++ -std=c++20 -O1 -I"$root/.deps/usr/include" "$root/scripts/gpu-verify-report.cpp" -o "$work/gpu-verify-report" ||
  { log "cannot build the report tool"; exit 2; }

# Params that make a small launch for Nsight Compute (the counters are read
# on small launches, as HARDWARE.md advises); samples not listed are small.
small_defines() {
  case "$1" in
    transpose_tiled) echo "-D N=1024" ;;
    transpose_diagonal_tile) echo "-D S=1024" ;;
    permutation_destination | permutation_source) echo "-D N=65536" ;;
    prefix_sum_simple | prefix_sum_optimal | sum) echo "-D M=14" ;;
    offline_permutation) echo "-D N=65536" ;;
    bit_reversal) echo "-D M=14" ;;
  esac
}

if [ $# -gt 0 ]; then samples=("$@"); else
  samples=()
  for f in "$root"/samples/*.bw; do samples+=("$(basename "$f" .bw)"); done
fi

# 2. Generate and compile every sample, and its small variant, in parallel.
compile_one() { # NAME DEFINES...
  local s=$1 name=$2
  shift 2
  "$bw" compile "samples/$s.bw" "$@" --harness -o "$work/$name.cu" --header "$work/$name.h" \
    --report "$work/$name.report.json" >"$work/$name.compile.log" 2>&1 &&
    "$nvcc" -O3 -lineinfo -arch=sm_90 -std=c++17 -o "$work/$name" "$work/$name.cu" >>"$work/$name.compile.log" 2>&1
}
export -f compile_one
export bw nvcc work
pids=()
for s in "${samples[@]}"; do
  rm -f "$work/$s" "$work/$s.small" "$work/$s.report.json" "$work/$s.run.json" "$work/$s.ncu.csv"
  # shellcheck disable=SC2046
  (compile_one "$s" "$s" || log "compile of $s failed (see $work/$s.compile.log)") &
  pids+=($!)
  if [ -n "$(small_defines "$s")" ]; then
    # shellcheck disable=SC2046
    (compile_one "$s" "$s.small" $(small_defines "$s") || log "compile of $s (small) failed") &
    pids+=($!)
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
done
wait "${pids[@]}" 2>/dev/null
log "compiled $(ls "$work"/*.cu | wc -l) files"

# 3. Run the harnesses one at a time (they time the GPU).
for s in "${samples[@]}"; do
  if [ -x "$work/$s" ]; then
    (cd "$work" && timeout 180 "./$s" >"$s.run.json" 2>"$s.run.log")
    log "$s: $(tail -c 300 "$work/$s.run.json" | tr -d '\n' | cut -c1-200)"
  fi
done

# 4. Nsight Compute on the small launch: only the counters we compare.
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
if [ -n "$ncu" ]; then
  for s in "${samples[@]}"; do
    bin=$s
    [ -x "$work/$s.small" ] && bin=$s.small
    [ -x "$work/$bin" ] || continue
    (cd "$work" && timeout 240 "$ncu" --clock-control none --metrics "$metrics" --csv --page raw \
      --print-units base "./$bin" --check-only >"$s.ncu.csv" 2>"$s.ncu.log") ||
      log "ncu on $s failed (see $work/$s.ncu.log)"
    # The predictions of the launch ncu saw.
    [ "$bin" != "$s" ] && cp "$work/$bin.report.json" "$work/$s.ncu-report.json"
  done
else
  log "ncu not found: no measured counters"
fi

# 5. The report. Predictions come from the small variant where ncu ran it.
for s in "${samples[@]}"; do
  if [ -f "$work/$s.ncu-report.json" ]; then
    cp "$work/$s.ncu-report.json" "$work/$s.pred.json"
  else
    cp "$work/$s.report.json" "$work/$s.pred.json" 2>/dev/null || true
  fi
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
mkdir -p "$work/report"
for s in "${samples[@]}"; do
  for ext in run.json run.log ncu.csv; do [ -f "$work/$s.$ext" ] && cp "$work/$s.$ext" "$work/report/"; done
  [ -f "$work/$s.pred.json" ] && cp "$work/$s.pred.json" "$work/report/$s.report.json"
done
"$work/gpu-verify-report" "$work/report" "${gpu:-unknown GPU}" "${driver:-unknown}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$out/gpu-verify" "${samples[@]}"
status=$?
log "wrote $out/gpu-verify.md and $out/gpu-verify.json"
exit $status
