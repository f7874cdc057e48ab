#!/usr/bin/env bash
# Installs dependencies, builds, and runs bankwise on a sample: the worked
# example of seed 001 Fig. 3 under the DMM and the UMM, a bit-reversal
# permutation's distribution, an sm_90 stride-32 access, and the analysis of
# a CUDA-style tiled transpose written in the DSL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bw="${BANKWISE_BUILD_DIR:-$root/build}/driver/bankwise"
set -x
"$bw" model --machine dmm --w 4 --l 5 --trace "$root/samples/fig3.trace"
"$bw" model --machine umm --w 4 --l 5 --trace "$root/samples/fig3.trace"
"$bw" perm-stats --perm bitrev --n 1048576 --w 32
"$bw" model --machine sm_90 --elem f32 --warp "$(seq -s, 0 32 992)"
"$bw" analyze "$root/samples/transpose_tiled.bw"
