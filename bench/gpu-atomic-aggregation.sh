#!/usr/bin/env bash
# On the GPU machine (nvcc, cuobjdump, ncu): which atomics nvcc aggregates
# across a warp, measured. Builds bench/atomics/aggregation.cu twice (nvcc
# -O3, and the source-faithful -Xcicc -O1 -Xptxas -O0 of
# bench/gpu-lint-corpus.sh), lists each probe kernel's atomic-related
# SASS (ATOMS/ATOM/RED/POPC/REDUX/VOTE/...), profiles each launch (64
# blocks of 256 threads: 512 warps) with ncu, and writes
# $OUT/atomic-aggregation.md (else bench/results/h100/).
#
#   OUT=dir bench/gpu-atomic-aggregation.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/bench/results/h100}
work=$(mktemp -d)
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
bin=$(dirname "$nvcc")
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
src=$root/bench/atomics/aggregation.cu
arch=${ARCH:-sm_90}
"$nvcc" -arch=$arch -O3 -diag-suppress 550 -o "$work/probe-O3" "$src" || exit 2
"$nvcc" -arch=$arch -Xcicc -O1 -Xptxas -O0 -diag-suppress 550 -o "$work/probe-faithful" "$src" || exit 2
for b in O3 faithful; do
  "$work/probe-$b" | grep -qx ok || { echo "probe-$b failed"; exit 1; }
  "$bin/cuobjdump" -sass "$work/probe-$b" >"$work/sass-$b.txt" || exit 2
done
cands="smsp__sass_inst_executed_op_shared_atom l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom smsp__sass_inst_executed_op_global_atom smsp__sass_inst_executed_op_global_red l1tex__t_requests_pipe_lsu_mem_global_op_atom l1tex__t_requests_pipe_lsu_mem_global_op_red"
"$ncu" --query-metrics >"$work/query.txt" 2>&1
metrics=$(for m in $cands; do grep -q "^$m " "$work/query.txt" && echo -n "$m.sum,"; done)
metrics=${metrics%,}
echo "metrics: $metrics"
for b in O3 faithful; do
  "$ncu" --clock-control none --csv --page raw --metrics "$metrics" "$work/probe-$b" >"$work/ncu-$b.csv" 2>"$work/ncu-$b.err" ||
    { tail -20 "$work/ncu-$b.err"; exit 2; }
done
python3 - "$work" "$src" "$out/atomic-aggregation.md" "$metrics" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" "$("$nvcc" --version | tail -2 | head -1)" <<'PY'
import csv, re, sys, io
work, src, dst, metrics, gpu, nvccv = sys.argv[1:7]
metrics = metrics.split(',')
stmts = {}
for m in re.finditer(r'^(?:SHARED_SCALAR\([\w ]+?, |GLOBAL_PROBE\()(\w+), (.*)\)$', open(src).read(), re.M):
    stmts[m.group(1)] = m.group(2)
def sass(b):
    text = open(f'{work}/sass-{b}.txt').read()
    res = {}
    for part in re.split(r'\n\s*Function : ', text)[1:]:
        name = re.match(r'_Z\d+(\w+?)P', part)
        if not name: continue
        k = name.group(1)
        ops = []
        for line in part.splitlines():
            m = re.search(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)', line)
            if m and re.match(r'(ATOMS|ATOMG|ATOM|RED|REDG|POPC|REDUX|VOTE|MATCH|FLO|UFLO|UPOPC|S2R)\b', m.group(1)):
                op = m.group(1)
                if op.startswith('S2R') and 'LANEMASK' not in line: continue
                if op.startswith('S2R'): op += ' ' + re.search(r'SR_\w+', line).group(0)
                ops.append(op)
        res[k] = ' '.join(ops)
    return res
def ncu(b):
    rows = list(csv.reader(open(f'{work}/ncu-{b}.csv')))
    hdr = next(i for i, r in enumerate(rows) if 'Kernel Name' in r)
    h = rows[hdr]
    res = {}
    for r in rows[hdr + 2:]:
        if len(r) != len(h): continue
        d = dict(zip(h, r))
        k = re.match(r'(\w+)', d['Kernel Name']).group(1)
        res[k] = {m: float(d[m].replace(',', '')) if d.get(m, '').replace(',', '').replace('.', '').isdigit() else None for m in metrics}
    return res
S = {b: sass(b) for b in ('O3', 'faithful')}
N = {b: ncu(b) for b in ('O3', 'faithful')}
def per(vals):
    i = vals.get('smsp__sass_inst_executed_op_shared_atom.sum'); w = vals.get('l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum')
    return f'{w / i:.3g}' if i and w is not None else '-'
short = {m: m.split('__')[1].replace('.sum', '') for m in metrics}
with open(dst, 'w') as f:
    f.write('# Which atomics nvcc aggregates across a warp\n\n')
    f.write(f'GPU: {gpu}; {nvccv}. `bench/gpu-atomic-aggregation.sh` on `bench/atomics/aggregation.cu`: each probe kernel runs one atomic statement once per thread, 64 blocks of 256 threads (512 warps, 16,384 threads); `v` is data (`in[i] = (7i + 3) % 29`, odd in some lanes), `p` a kernel argument (5). SASS: the atomic-related instructions cuobjdump lists (ATOMS/ATOM/RED, POPC, REDUX, VOTE, FLO, S2R of lane masks). Counters: ncu `--metrics` totals over the launch.\n\n')
    for b, what in (('O3', 'nvcc -O3 (what users build)'), ('faithful', 'nvcc -Xcicc -O1 -Xptxas -O0 (the lint corpus\'s source-faithful build)')):
        f.write(f'## {what}\n\n| kernel | statement | SASS | ' + ' | '.join(f'`{short[m]}`' for m in metrics) + ' | shared wavefronts per instruction |\n|' + '---|' * (4 + len(metrics)) + '\n')
        for k, st in stmts.items():
            vals = N[b].get(k, {})
            f.write(f'| {k} | `{st}` | {S[b].get(k, "?")} | ' + ' | '.join('-' if vals.get(m) is None else f'{vals[m]:,.0f}' for m in metrics) + f' | {per(vals)} |\n')
        f.write('\n')
print(open(dst).read())
PY
