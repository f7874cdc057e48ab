#!/usr/bin/env bash
# Installs dependencies, builds, and runs bankwise's main job on a sample:
# analyze the CUDA-style tiled transpose written in the DSL (layout auto pads
# its tile), compile it to CUDA with a checking harness, and build that with
# nvcc when nvcc is present (running it needs a GPU: bench/gpu-verify.sh).
# Also shows the memory-machine models on seed 001's worked example.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${BANKWISE_BUILD_DIR:-$root/build}
bw="$build/driver/bankwise"
out="$build/sample-out"
mkdir -p "$out"
set -x
"$bw" model --machine dmm --w 4 --l 5 --trace "$root/samples/fig3.trace"
"$bw" analyze "$root/samples/transpose_tiled.bw" --transformed
"$bw" compile "$root/samples/transpose_tiled.bw" -o "$out/transpose_tiled.cu" \
  --header "$out/transpose_tiled.h" --harness
set +x
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ -n "$nvcc" ]; then
  "$nvcc" -O3 -arch=sm_90 -std=c++17 -o "$out/transpose_tiled" "$out/transpose_tiled.cu"
  echo "built $out/transpose_tiled (run it on an sm_90 GPU: it checks every output and prints timing JSON)"
else
  echo "nvcc not found: generated $out/transpose_tiled.cu but did not build it"
fi
