#!/usr/bin/env bash
# Runs on the GPU machine after bench/gpu-verify.sh built bankwise into
# build-gpu/: the ways bankwise can move one offline permutation b[P(i)] =
# a[i] of f32 (STRATEGY_DTYPE=f64 for 8-byte elements), side by side, for
# several P and n (issue [8] goals 2, 3, 5):
#
#   scatter   b[P(tid)] = a[tid]                    (one pass, P computed or read)
#   gather    b[tid] = a[q[tid]], q holds P^-1      (one pass, the index table read,
#                                                    as PyTorch's a[q])
#   bits      schedule bits (one tiled pass), when P is a bit permutation
#   colored   schedule colored (seed 001's three passes, 4- or 8-byte elements)
#   auto      schedule auto (the choice of the calibrated model,
#             analysis/models/StrategyModel.h), when the DSL has it
#
# Each program is generated here from the template below, compiled by
# `bankwise compile --harness` (every output element checked against the
# CPU reference, median of 21 timed runs) and run; a wrong output fails the
# script. Writes $OUT/strategies.md and strategies.jsonl (or
# bench/results/h100/; STRATEGY_NAME renames them). STRATEGY_SIZES and
# STRATEGY_PERMS override the sets. Where P is uniformly random, PyTorch's
# gather a[p_inverse] and scatter b[p] = a of a random p of the same n and
# dtype run in the same call, for the ratios goal 3 asks for.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bw=${BANKWISE:-$root/build-gpu/driver/bankwise}
out=${OUT:-$root/bench/results/h100}
work=$(mktemp -d)
[ -x "$bw" ] || { echo "bench-strategies: build bankwise first (bench/gpu-verify.sh)" >&2; exit 2; }
read -r -a sizes <<<"${STRATEGY_SIZES:-20 23 26}"
dt=${STRATEGY_DTYPE:-f32}
# name | permutation declaration (N is the length) | is it a bit permutation
perms=(
  "random|random(N, seed: 7)|no"
  "bitreverse|bitreverse(N)|yes"
  "shuffle|shuffle(N)|yes"
  "transpose|transpose(1 << (M / 2), 1 << (M - M / 2))|yes"
  "stride8|stride(N, 8)|yes"
  "identity|identity(N)|yes"
  "blockrandom|file(\"blockrandom_2pM.bin\")|no"
  "windowrandom|file(\"windowrandom_2pM.bin\")|no"
)
# STRATEGY_RANDOM_SEEDS="1 2 ..." adds one random P per seed (random_s<seed>),
# for the spread of each strategy's time over P (issue [8] goal 3).
for seed in ${STRATEGY_RANDOM_SEEDS:-}; do perms+=("random_s$seed|random(N, seed: $seed)|no"); done
if [ -n "${STRATEGY_PERMS:-}" ]; then
  keep=()
  for p in "${perms[@]}"; do [[ " $STRATEGY_PERMS " == *" ${p%%|*} "* ]] && keep+=("$p"); done
  perms=("${keep[@]}")
fi
has_auto=no
printf 'target sm_90\nparam N = 1024\nkernel k(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) schedule auto {\n  b[tid] = a[tid]\n}\n' >"$work/probe.bw"
"$bw" analyze "$work/probe.bw" >/dev/null 2>&1 && has_auto=yes

# Permutations that are neither bit permutations nor uniformly random, read
# from files: random within each aligned block of 1,024 elements (blockrandom),
# and within each aligned window of 2^18 (1 MB of f32: windowrandom).
permfile() { # NAME M WINDOW
  python3 - "$work/$1_2p$2.bin" "$2" "$3" <<'PY'
import sys
import numpy as np
path, m, win = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = 1 << m
rng = np.random.default_rng(m * 1000 + win)
rows = n // win
p = np.argsort(rng.random((rows, win)), axis=1).astype("<u4") + (np.arange(rows, dtype="<u4") * win)[:, None]
p.astype("<u4").tofile(path)
PY
}

gen() { # NAME DECL BPC M
  local name=$1 decl=${2//2pM/2p$4} bpc=$3 m=$4
  {
    echo "target sm_90"
    echo "param M = $m"
    echo "param N = 1 << M"
    echo "permutation P = $decl"
    echo "kernel scatter(a: global $dt[N], b: global $dt[N]) grid (N / 256) block (256) {"
    echo "  b[P(tid)] = a[tid]"
    echo "}"
    echo "kernel gather(a: global $dt[N], b: global $dt[N], q: global i32[N] holds inverse(P)) grid (N / 256) block (256) {"
    echo "  b[tid] = a[q[tid]]"
    echo "}"
    if [ "$bpc" = yes ]; then
      echo "kernel bits(a: global $dt[N], b: global $dt[N]) grid (N / 256) block (256) schedule bits {"
      echo "  b[P(tid)] = a[tid]"
      echo "}"
    fi
    echo "kernel colored(a: global $dt[N], b: global $dt[N]) grid (N / 256) block (256) schedule colored {"
    echo "  b[P(tid)] = a[tid]"
    echo "}"
    if [ "$has_auto" = yes ]; then
      echo "kernel auto(a: global $dt[N], b: global $dt[N]) grid (N / 256) block (256) schedule auto {"
      echo "  b[P(tid)] = a[tid]"
      echo "}"
    fi
  } >"$work/$name.bw"
}

progs=()
for m in "${sizes[@]}"; do
  for p in "${perms[@]}"; do
    IFS='|' read -r pname decl bpc <<<"$p"
    name=${pname}_2p$m
    case $pname in
      blockrandom) permfile blockrandom "$m" 1024 ;;
      windowrandom) permfile windowrandom "$m" $((1 << 18 < (1 << m) ? 1 << 18 : 1 << m)) ;;
    esac
    gen "$name" "$decl" "$bpc" "$m"
    progs+=("$name")
  done
done
build_one() {
  local name=$1 t0=$SECONDS
  (cd "$work" && timeout 900 "$bw" compile "$name.bw" --harness -o "$name.cu" >"$name.log" 2>&1 &&
    nvcc -O3 -arch=sm_90 -std=c++17 -o "$name" "$name.cu" >>"$name.log" 2>&1) ||
    { echo "bench-strategies: building $name failed:" >&2; tail -20 "$work/$name.log" >&2; return 1; }
  echo "bench-strategies: built $name in $((SECONDS - t0)) s" >&2
}
status=0
# Compiles run four at a time: each 2^26 program holds its tables (and the
# schedule of the colored kernel) in memory while it compiles.
running=0
for name in "${progs[@]}"; do
  build_one "$name" &
  running=$((running + 1))
  if [ $running -ge 4 ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ $running -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
: >"$work/runs.jsonl"
for name in "${progs[@]}"; do
  [ -x "$work/$name" ] || { status=1; continue; }
  line=$(cd "$work" && timeout 300 "./$name" | tail -1) || { echo "bench-strategies: $name failed" >&2; status=1; continue; }
  echo "{\"program\":\"$name\",\"result\":$line}" >>"$work/runs.jsonl"
  grep -h "schedule auto of" "$work/$name.log" >>"$work/auto-choices.txt" 2>/dev/null || true
done

touch "$work/auto-choices.txt"
python3 - "$work/runs.jsonl" "$out" "$has_auto" "$work/auto-choices.txt" "${STRATEGY_NAME:-strategies}" "$dt" <<'PY' || status=1
import json, os, re, sys, datetime, subprocess
runs = [json.loads(l) for l in open(sys.argv[1])]
out, has_auto, stem, dt = sys.argv[2], sys.argv[3] == "yes", sys.argv[5], sys.argv[6]
# "<dir>/<program>.bw:L:C: note: schedule auto of 'auto': ... by gather (estimated 13.76 us on sm_90); ..."
chose = {}
for line in open(sys.argv[4]):
    m = re.search(r"([^/ ]+)\.bw:\d+:\d+: note: schedule auto of .* by (\w+) \(estimated ([0-9.e+]+) us", line)
    if m:
        chose[m.group(1)] = (m.group(2), float(m.group(3)))
gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip().splitlines()[0]
strategies = ["scatter", "gather", "bits", "colored"] + (["auto"] if has_auto else [])
lines = ["# One permutation b[P(i)] = a[i] of %s, every strategy, side by side\n" % dt,
         "GPU: %s; %s. One run of `bench/bench-strategies.sh`: each program generated from its template, "
         "compiled by `bankwise compile --harness`; every output element of every kernel checked against the "
         "CPU reference; medians of 21 timed runs after 3 warm-ups (CUDA events). ms per strategy; `-` where "
         "it does not apply (bits: P is not a bit permutation). best = the fastest of scatter, gather, bits "
         "and colored; auto / best is auto's time over it; auto chose is the strategy the model picked, with "
         "its estimate (analysis/models/StrategyModel.h, calibrated on the 2^20 and 2^26 rows of the six "
         "named P of 2026-11-24; blockrandom, windowrandom and 2^23 were not in that fit).\n" %
         (gpu, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
         "| P | n | " + " | ".join(strategies) + " | best | auto / best | auto chose (est. ms) |",
         "|---|---:|" + "---:|" * len(strategies) + "---|---:|---|"]
bad = []
for r in runs:
    name = r["program"]
    pname, m = name.rsplit("_2p", 1)
    ms = {}
    for k in r["result"]["kernels"]:
        ms[k["kernel"]] = k["median_ms"]
        if not k["correct"]:
            bad.append((name, k["kernel"]))
    cand = {s: ms[s] for s in ("scatter", "gather", "bits", "colored") if s in ms}
    best = min(cand, key=cand.get)
    ratio = ms["auto"] / cand[best] if "auto" in ms else None
    c = chose.get(name)
    lines.append("| %s | 2^%s | %s | %s | %s | %s |" % (
        pname, m, " | ".join("%.4f" % ms[s] if s in ms else "-" for s in strategies), best,
        "%.3f" % ratio if ratio else "", "%s (%.4f)" % (c[0], c[1] / 1000) if c else ""))
    r["auto_chose"] = c[0] if c else None
text = "\n".join(lines) + "\n"
# The spread over the random P (random, random_s<seed>) of each strategy, per n.
spread = {}
for r in runs:
    pname, m = r["program"].rsplit("_2p", 1)
    if pname == "random" or pname.startswith("random_s"):
        for k in r["result"]["kernels"]:
            spread.setdefault((m, k["kernel"]), []).append(k["median_ms"])
if any(len(v) > 2 for v in spread.values()):
    text += "\nSpread over the random P (max / min of the medians):\n\n| n | strategy | P | min ms | max ms | max / min |\n|---:|---|---:|---:|---:|---:|\n"
    for (m, k), v in sorted(spread.items()):
        text += "| 2^%s | %s | %d | %.4f | %.4f | %.3f |\n" % (m, k, len(v), min(v), max(v), max(v) / min(v))
# PyTorch on a random p of each n whose random P ran (time independent of
# P: strategies-random-spread.md), the same dtype, in this call.
rand_ms = {}
for r in runs:
    pname, m = r["program"].rsplit("_2p", 1)
    if pname == "random":
        rand_ms[int(m)] = {k["kernel"]: k["median_ms"] for k in r["result"]["kernels"]}
if rand_ms:
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tdt = {"f32": torch.float32, "f64": torch.float64, "i32": torch.int32, "u32": torch.int32}.get(dt)
        def median_ms(fn, runs=21, warm=3):
            for _ in range(warm):
                fn()
            torch.cuda.synchronize()
            ts = []
            for _ in range(runs):
                s0 = torch.cuda.Event(enable_timing=True); e0 = torch.cuda.Event(enable_timing=True)
                s0.record(); fn(); e0.record(); torch.cuda.synchronize()
                ts.append(s0.elapsed_time(e0))
            return sorted(ts)[runs // 2]
        text += ("\nRandom P against PyTorch (`a[p_inverse]` gather and `b[p] = a` scatter of a random p, %s, "
                 "same n, this call; both checked): speedup = PyTorch ms / bankwise ms.\n\n"
                 "| n | PyTorch gather ms | PyTorch scatter ms | colored ms | colored vs gather | colored vs scatter "
                 "| auto ms | auto vs gather |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n" % dt)
        for m in sorted(rand_ms):
            n = 1 << m
            g = torch.Generator(device="cuda"); g.manual_seed(2026 + m)
            p = torch.randperm(n, device="cuda", generator=g)
            pinv = torch.empty_like(p); pinv[p] = torch.arange(n, device="cuda")
            a = (torch.randn(n, device="cuda") * 1000).to(tdt)
            b = torch.empty_like(a)
            def scatter():
                b[p] = a
            scatter()
            if not bool((b[p] == a).all()) or not bool((a[pinv][p] == a).all()):
                bad.append(("pytorch", "2^%d" % m))
            tg, ts_ = median_ms(lambda: a[pinv]), median_ms(scatter)
            ours = rand_ms[m]
            col, au = ours.get("colored"), ours.get("auto")
            text += "| 2^%d | %.4f | %.4f | %s | %s | %s | %s | %s |\n" % (
                m, tg, ts_, "%.4f" % col if col else "-", "%.2fx" % (tg / col) if col else "-",
                "%.2fx" % (ts_ / col) if col else "-", "%.4f" % au if au else "-", "%.2fx" % (tg / au) if au else "-")
            for r in runs:
                if r["program"] == "random_2p%d" % m:
                    r["pytorch"] = {"gather_ms": tg, "scatter_ms": ts_}
            del p, pinv, a, b
            torch.cuda.empty_cache()
if bad:
    text += "\nWRONG OUTPUT: " + ", ".join("%s %s" % b for b in bad) + "\n"
os.makedirs(out, exist_ok=True)
open(os.path.join(out, stem + ".md"), "w").write(text)
with open(os.path.join(out, stem + ".jsonl"), "w") as f:
    for r in runs:
        f.write(json.dumps(r) + "\n")
print(text)
sys.exit(1 if bad else 0)
PY
exit $status
