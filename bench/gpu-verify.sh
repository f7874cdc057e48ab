#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root (CMake, nvcc, ncu and the
# GPU there; fmt, CLI11, nlohmann-json and doctest from .deps/, made here by
# scripts/gpu-deps.sh). For every sample: `bankwise compile --harness`, nvcc
# (-lineinfo), run the harness (every output checked against the CPU
# reference, median of 21 timed runs), and Nsight Compute's source counters
# (`--section SourceCounters`) on a small launch, exported per CUDA line and
# SASS instruction; the report tool (bench/verify/) pairs each instruction
# with the .bw access sites whose markers codegen wrote above its statement
# and compares measured shared wavefronts per instruction and global sectors
# per request with the model's prediction, per site. Writes gpu-verify.md,
# gpu-verify.json and ncu-source.tgz (trimmed inputs of the report, enough
# to rerun it) to $OUT when set, else bench/results/. Samples with runtime
# sizes (`param R`) are compiled once; the harness and ncu run at the
# representative sizes the predictions were made at, and the same binary
# then runs at each size of runtime_sizes below, one row per size and kernel
# in gpu-verify-sizes.md and .jsonl. The same binary is also profiled by ncu
# at each size of profile_sizes (odd shapes, launches small enough for the
# source-counter replay), and each such launch is compared site by site with
# the model's predictions AT THAT SIZE (`bankwise compile --size ... --report`;
# sites are keyed by their .bw location, so the markers of the profiled .cu
# pair them): report sample "S@R=33,C=65", rows in gpu-verify.md/.json like
# any sample, whose device code is checked to be that of the profiled binary.
# Exit code 0 when every kernel is correct at every size and every exact
# site matches, at the representative sizes and at every profiled size.
#
#   bench/gpu-verify.sh [SAMPLE...]      # default: every samples/*.bw
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
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

# 1. The core, without LLVM and without the test suites, and the report tool.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" --preset gpu -B "$build" "${generator[@]}" >"$work/cmake.log" 2>&1 ||
  { log "cmake failed (see $work/cmake.log)"; tail -20 "$work/cmake.log"; exit 2; }
cmake --build "$build" -j "$jobs" --target bankwise gpu_verify_report >"$work/build.log" 2>&1 ||
  { log "build failed (see $work/build.log)"; tail -20 "$work/build.log"; exit 2; }
bw=$build/driver/bankwise
report=$build/bench/verify/gpu-verify-report

# Params that make a small launch for Nsight Compute (the counters are read
# on small launches, as HARDWARE.md advises); samples not listed are small.
small_defines() {
  case "$1" in
    transpose_tiled) echo "-D N=1024" ;;
    transpose_diagonal_tile) echo "-D S=1024" ;;
    permutation_destination | permutation_source) echo "-D N=65536" ;;
    prefix_sum_simple | prefix_sum_optimal | sum) echo "-D M=14" ;;
    offline_permutation | offline_permutation_scheduled) echo "-D N=65536" ;;
    bit_reversal) echo "-D M=14" ;;
  esac
}

# Sizes at which the one binary of a runtime-sized sample runs, each
# "NAME=VALUE,..." (the harness's arguments).
runtime_sizes() {
  case "$1" in
    transpose_any_shape) echo "R=4097,C=1000 R=1000,C=4097 R=33,C=65 R=8192,C=8192" ;;
    permute3d) echo "B=8,M=1000,N=1000 B=1,M=33,N=65 B=64,M=512,N=512" ;;
    bit_reversal) echo "M=11 M=20 M=26" ;;
  esac
}

# Sizes at which ncu also profiles that binary and the report compares each
# launch with the predictions at its size (kept small: the source-counter
# replay is slow on big launches).
profile_sizes() {
  case "$1" in
    transpose_any_shape) echo "R=33,C=65 R=1000,C=4097 R=4097,C=1000" ;;
    permute3d) echo "B=1,M=33,N=65 B=8,M=100,N=100" ;;
    bit_reversal) echo "M=13 M=16" ;;
  esac
}

# The device code of a generated .cu: the __global__ functions, comments and
# blank lines dropped (a compile at other --size values must give the same).
device_code() {
  python3 - "$1" <<'PY'
import re, sys
out, depth, inside = [], 0, False
for line in open(sys.argv[1]):
    code = re.sub(r"//.*", "", line).strip()
    if not inside and "__global__" in code:
        inside, depth = True, 0
    if inside:
        if code:
            out.append(code)
        depth += code.count("{") - code.count("}")
        if depth <= 0 and "}" in code:
            inside = False
print("\n".join(out))
PY
}

# A .bw with the layouts of a generated .cu pinned: each `__shared__` array's
# `// layout X of [..]` comment, in order, appended as `layout X` to the
# .bw's shared declarations that name none, in order.
pin_layouts() { # BW CU
  python3 - "$1" "$2" <<'PY'
import re, sys
bw, cu = open(sys.argv[1]).read().split("\n"), open(sys.argv[2]).read()
layouts = re.findall(r"__shared__[^;]*;\s*// layout (\S+) of \[", cu)
decl = re.compile(r"^(\s*shared \w+: \w+(\[[^]]*\])+)\s*$")
slots = [i for i, l in enumerate(bw) if decl.match(l)]
if len(slots) != len(layouts):
    sys.exit("pin_layouts: %d shared declarations, %d layouts" % (len(slots), len(layouts)))
for i, lay in zip(slots, layouts):
    bw[i] = bw[i].rstrip() + " layout " + lay
print("\n".join(bw), end="")
PY
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
  rm -f "$work/$s" "$work/$s.small" "$work/$s.report.json" "$work/$s.run.json" "$work/$s.cuda-sass.csv" "$work/$s.prof.log"
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

# 2b. Runtime-sized samples: the predictions at each profiled size, from a
# compile with --size (no nvcc: the binary of step 2 runs at every size; its
# device code must be what this compile emits).
sizes_status=0
sized=() # "SAMPLE|LABEL|SIZE"
for s in "${samples[@]}"; do
  for size in $(profile_sizes "$s"); do
    label="$s@$size"
    d="$work/sizes/$label"
    rm -rf "$d" "$work/$label".*
    mkdir -p "$d"
    args=()
    for kv in ${size//,/ }; do args+=(--size "$kv"); done
    # Same output name as step 2, so the module name (and the namespace) is the same.
    if ! "$bw" compile "samples/$s.bw" --harness -o "$d/$s.cu" --report "$work/$label.report.json" "${args[@]}" \
      >"$d/compile.log" 2>&1; then
      log "compile of $s at $size failed (see $d/compile.log)"
      continue
    fi
    if [ -f "$work/$s.cu" ] && ! cmp -s <(device_code "$work/$s.cu") <(device_code "$d/$s.cu"); then
      # layout auto chose other layouts at this size (a tie, e.g. B = 1): predict at this size for
      # the binary's layouts, pinned in a copy of the .bw (`layout X` appended to each shared
      # declaration without one, in order; no .bw column moves).
      log "$s at $size: layout auto chooses other layouts than at the representative sizes; pinning the binary's"
      pin_layouts "samples/$s.bw" "$work/$s.cu" >"$d/$s.bw" &&
        "$bw" compile "$d/$s.bw" --harness -o "$d/$s.cu" --report "$work/$label.report.json" "${args[@]}" \
          >>"$d/compile.log" 2>&1
      if ! cmp -s <(device_code "$work/$s.cu") <(device_code "$d/$s.cu"); then
        log "error: $s compiled at $size has other device code than the binary; not comparable"
        rm -f "$work/$label.report.json"
        sizes_status=1
        continue
      fi
    fi
    sized+=("$s|$label|$size")
  done
done

# 3. Run the harnesses one at a time (they time the GPU).
for s in "${samples[@]}"; do
  if [ -x "$work/$s" ]; then
    (cd "$work" && timeout 180 "./$s" >"$s.run.json" 2>"$s.run.log")
    log "$s: $(tail -c 300 "$work/$s.run.json" | tr -d '\n' | cut -c1-200)"
  fi
done

# 3b. Runtime-sized samples: the same binary at every size of runtime_sizes,
# one JSON line per size (each with its "sizes"), then one row per size and
# kernel.
sizes_jsonl=$out/gpu-verify-sizes.jsonl
: >"$sizes_jsonl"
for s in "${samples[@]}"; do
  [ -x "$work/$s" ] || continue
  for size in $(printf '%s\n' $(runtime_sizes "$s") $(profile_sizes "$s") | awk '!seen[$0]++'); do
    # shellcheck disable=SC2086
    line=$(cd "$work" && timeout 600 "./$s" ${size//,/ } 2>>"$work/$s.sizes.log")
    rc=$?
    [ $rc -eq 0 ] || sizes_status=1
    if [ -n "$line" ]; then echo "$line" >>"$sizes_jsonl"; fi
    # The profiled sizes' report takes this timed run as its harness line.
    [ -f "$work/$s@$size.report.json" ] && echo "$line" >"$work/$s@$size.run.json"
    log "$s at $size: exit $rc"
  done
done
if [ -s "$sizes_jsonl" ]; then
  python3 - "$sizes_jsonl" "$out/gpu-verify-sizes.md" <<'PY' || log "could not write gpu-verify-sizes.md"
import json, sys
rows = ["| program | sizes | kernel | correct | median ms | GB/s |", "|---|---|---|---|---:|---:|"]
for text in open(sys.argv[1]):
    run = json.loads(text)
    sizes = ", ".join(f"{k} = {v}" for k, v in run.get("sizes", {}).items())
    for k in run["kernels"]:
        rows.append(f"| {run['program']} | {sizes} | {k['kernel']} | {'yes' if k['correct'] else 'NO'} "
                    f"| {k['median_ms']:.6f} | {k['gbps']:.1f} |")
open(sys.argv[2], "w").write("# Runtime sizes, one binary per program\n\n" + "\n".join(rows) + "\n")
PY
fi

# 4. Nsight Compute on the small launch (the counters are read on small
# launches, as HARDWARE.md advises): the source counters of every SASS
# instruction, exported with the CUDA line -lineinfo gives it.
if [ -n "$ncu" ]; then
  log "$("$ncu" --version | tail -1)"
  for s in "${samples[@]}"; do
    bin=$s
    [ -x "$work/$s.small" ] && bin=$s.small
    [ -x "$work/$bin" ] || continue
    (cd "$work" && timeout 300 "$ncu" --clock-control none --section SourceCounters --import-source yes \
      -o "$s.prof" -f "./$bin" --check-only >"$s.prof.log" 2>&1) ||
      { log "ncu on $s failed (see $work/$s.prof.log)"; continue; }
    "$ncu" --import "$work/$s.prof.ncu-rep" --csv --page source --print-source cuda,sass \
      >"$work/$s.cuda-sass.csv" 2>"$work/$s.export.log" ||
      { log "ncu export of $s failed (see $work/$s.export.log)"; rm -f "$work/$s.cuda-sass.csv"; }
    rm -f "$work/$s.prof.ncu-rep"
    log "$s: $(grep -c '^"Function Name"' "$work/$s.cuda-sass.csv" 2>/dev/null || echo 0) kernel(s) profiled ($bin)"
  done
  # The same binary of each runtime-sized sample at its profile_sizes.
  for e in "${sized[@]}"; do
    IFS='|' read -r s label size <<<"$e"
    [ -x "$work/$s" ] || continue
    # shellcheck disable=SC2086
    (cd "$work" && timeout 300 "$ncu" --clock-control none --section SourceCounters --import-source yes \
      -o "$label.prof" -f "./$s" ${size//,/ } --check-only >"$label.prof.log" 2>&1) ||
      { log "ncu on $s at $size failed (see $work/$label.prof.log)"; continue; }
    "$ncu" --import "$work/$label.prof.ncu-rep" --csv --page source --print-source cuda,sass \
      >"$work/$label.cuda-sass.csv" 2>"$work/$label.export.log" ||
      { log "ncu export of $label failed (see $work/$label.export.log)"; rm -f "$work/$label.cuda-sass.csv"; }
    rm -f "$work/$label.prof.ncu-rep"
    log "$label: $(grep -c '^"Function Name"' "$work/$label.cuda-sass.csv" 2>/dev/null || echo 0) kernel(s) profiled ($s $size)"
  done
else
  log "ncu not found: no measured counters (every exact site will read 'not measured')"
fi

# 5. The report, from one directory: per sample the predictions and the .cu
# of the launch ncu profiled (the small variant where there is one), its
# source counters, and the full-size harness run.
rm -rf "$work/report"
mkdir -p "$work/report"
for s in "${samples[@]}"; do
  bin=$s
  [ -x "$work/$s.small" ] && bin=$s.small # the launch ncu profiled (step 4)
  for ext in report.json cu; do [ -f "$work/$bin.$ext" ] && cp "$work/$bin.$ext" "$work/report/$s.$ext"; done
  for ext in cuda-sass.csv run.json run.log prof.log; do [ -f "$work/$s.$ext" ] && cp "$work/$s.$ext" "$work/report/"; done
done
# Each profiled size: its predictions (compiled at that size), the .cu of the
# binary ncu ran (its markers: same sites, same lines as the device code),
# the counters and the timed harness line at that size.
labels=()
for e in "${sized[@]}"; do
  IFS='|' read -r s label size <<<"$e"
  labels+=("$label")
  cp "$work/$label.report.json" "$work/report/"
  [ -f "$work/$s.cu" ] && cp "$work/$s.cu" "$work/report/$label.cu"
  for ext in cuda-sass.csv run.json prof.log; do [ -f "$work/$label.$ext" ] && cp "$work/$label.$ext" "$work/report/"; done
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
"$report" --dir "$work/report" --out "$out/gpu-verify" --gpu "${gpu:-unknown GPU}" --driver "${driver:-unknown}" \
  --date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${samples[@]}" "${labels[@]}"
status=$?
# The report's inputs, trimmed to what it reads, as one archive (rerun the
# report with `tar xzf $out/ncu-source.tgz -C D && gpu-verify-report --dir
# D/ncu-source --out X SAMPLE...`; tests/verify reads the same archive). The
# archive is reproducible: sorted names, no times or owners.
rm -rf "$work/ncu-source"
if "$report" --dir "$work/report" --trim-fixture "$work/ncu-source" "${samples[@]}" "${labels[@]}"; then
  cp "$root/bench/verify/ncu-source.README.md" "$work/ncu-source/README.md"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$work" ncu-source | gzip -n -9 >"$out/ncu-source.tgz.new" &&
    mv "$out/ncu-source.tgz.new" "$out/ncu-source.tgz"
else
  log "could not write $out/ncu-source.tgz"
fi
[ $sizes_status -eq 0 ] || { log "a runtime-sized run failed (see gpu-verify-sizes.jsonl)"; [ $status -ne 0 ] || status=1; }
log "wrote $out/gpu-verify.md, $out/gpu-verify.json, gpu-verify-sizes.md and $out/ncu-source.tgz (exit $status)"
exit $status
