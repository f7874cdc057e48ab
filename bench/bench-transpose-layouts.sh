#!/usr/bin/env bash
# Runs on the GPU machine after bench/gpu-verify.sh built bankwise into
# build-gpu/: the tiled transpose of samples/transpose_tiled.bw (8192 x 8192
# f32) with each tile layout, every output checked by the harness, side by
# side with PyTorch's x.t().contiguous() in the same run. One line each to
# $OUT/transpose-layouts.txt (or stdout).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bw=$root/build-gpu/driver/bankwise
out=${OUT:-/dev/stdout}
[ "$out" = /dev/stdout ] || out=$out/transpose-layouts.txt
work=$(mktemp -d)
i=0
for L in raw "pad(1)" xor diagonal "rap(seed: 1)" auto; do
  i=$((i + 1))
  sed "s/shared tile: f32\[32\]\[32\]/& layout $L/" "$root/samples/transpose_tiled.bw" >"$work/t$i.bw"
  ("$bw" compile "$work/t$i.bw" --harness -o "$work/t$i.cu" &&
    nvcc -O3 -arch=sm_90 -std=c++17 -o "$work/t$i" "$work/t$i.cu") &
done
wait
{
  for i in 1 2 3 4 5 6; do
    echo "layout=$(sed -n 's/.*shared tile: f32\[32\]\[32\] layout \(.*\)$/\1/p' "$work/t$i.bw") $("$work/t$i")"
  done
  python3 - <<'PY'
import torch
x = torch.randn(8192, 8192, device='cuda')
for _ in range(3):
    y = x.t().contiguous()
torch.cuda.synchronize()
ts = []
for _ in range(21):
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record(); y = x.t().contiguous(); e.record(); torch.cuda.synchronize()
    ts.append(s.elapsed_time(e))
ts.sort()
print("torch x.t().contiguous() 8192x8192 f32: median_ms=%.4f" % ts[10], "correct=", bool((y == x.t()).all()))
PY
} | tee "$out"
