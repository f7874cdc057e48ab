#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root (nvcc, CMake, PyTorch; the
# header-only libraries in .deps/ from scripts/gpu-deps.sh). Builds the
# bankwise core, emits the PyTorch extensions of the transpose, permute and
# bit-reversal samples (`bankwise compile --torch`), builds them with
# torch.utils.cpp_extension.load (the emitted loader, nothing else), checks
# every op against PyTorch's own result on many shapes and dtypes, builds
# bit_reversal's again through its emitted setup.py (build_ext --inplace, and
# pip install) and checks those, and times each op beside its PyTorch
# counterpart (bench/gpu-torch.py). Writes
# torch.md and torch.json to $OUT when set, else bench/results/h100/. Exit
# code 0 when every check passed.
#
#   bench/gpu-torch.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${OUT:-$root/bench/results/h100}
build=$root/build-gpu
work=$build/torch
jobs=$(nproc)
mkdir -p "$out" "$work"
log() { echo "gpu-torch: $*" >&2; }

# 1. The core, without LLVM and without the test suites. With
# BANKWISE_TORCH_EMITTED=DIR (DIR/<module>/ made by `bankwise compile
# --torch` of this commit elsewhere), steps 1 and 2's emission are skipped,
# to spare device time.
emitted=${BANKWISE_TORCH_EMITTED:-}
t0=$SECONDS
if [ -z "$emitted" ]; then
  if [ ! -d "$root/.deps/usr" ]; then
    log "error: .deps/ is missing; run scripts/gpu-deps.sh on a machine with apt first"
    exit 2
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" --preset gpu -B "$build" "${generator[@]}" >"$work/cmake.log" 2>&1 ||
    { log "cmake failed (see $work/cmake.log)"; tail -20 "$work/cmake.log"; exit 2; }
  cmake --build "$build" -j "$jobs" --target bankwise >"$work/build.log" 2>&1 ||
    { log "build failed (see $work/build.log)"; tail -20 "$work/build.log"; exit 2; }
  bw=$build/driver/bankwise
  log "built bankwise in $((SECONDS - t0)) s"
fi

# 2. The extensions: emitted, then built in parallel by their own loaders.
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
export MAX_JOBS=${MAX_JOBS:-$jobs}
modules=(transpose_any_shape permute3d bit_reversal)
t0=$SECONDS
pids=()
for m in "${modules[@]}"; do
  rm -rf "${work:?}/$m" "$work/$m-build"
  mkdir -p "$work/$m-build"
  if [ -n "$emitted" ]; then
    cp -r "$emitted/$m" "$work/$m" && : >"$work/$m.log" || exit 1
  else
    "$bw" compile "samples/$m.bw" --torch "$work/$m" >"$work/$m.log" 2>&1 ||
      { log "bankwise compile --torch of $m failed:"; cat "$work/$m.log" >&2; exit 1; }
  fi
  (cd "$work/$m" && python3 -c "import $m; $m.load(build_directory='$work/$m-build')") >>"$work/$m.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { log "building the extension of ${modules[$i]} failed:"; tail -40 "$work/${modules[$i]}.log" >&2; status=1; }
done
[ "$status" = 0 ] || exit 1
log "built the extensions in $((SECONDS - t0)) s"

# 3. Checks and times.
python3 "$root/bench/gpu-torch.py" "$work" "$out"
