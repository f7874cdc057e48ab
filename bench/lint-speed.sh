#!/usr/bin/env bash
# Issue [7]'s speed target: `bankwise lint` on a 5,000-line .cu file in under
# 3 s on the 2-core development machine. The file is generated: KERNELS
# kernels in rotation from four shapes users write (a naive tiled transpose:
# one 32-way conflict; its padded twin: clean; a sequential reduction:
# clean; a column read of a row-major matrix: uncoalesced), each with its
# launch, padded with host code to 5,000 lines. The run is checked, so a lint that skips work cannot
# look fast: the JSON must list every kernel and exactly the warnings the
# shapes imply, per check.
#
# Then a realistic file (bench/lint-speed/realistic.cu: templates,
# cooperative groups, many instantiations), median of RUNS (5) runs, its
# kernels and warnings checked against bench/lint-speed/realistic.expect.
#
#   bench/lint-speed.sh [BUILD_DIR]     # writes bench/results/lint-speed.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bw=$build/driver/bankwise
out=${OUT:-$root/bench/results}/lint-speed.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$bw" ] || { echo "lint-speed: build bankwise first ($bw)" >&2; exit 2; }
"$bw" lint --help >/dev/null 2>&1 || { echo "lint-speed: this bankwise has no lint (built without Clang)" >&2; exit 2; }

python3 - "$work/big.cu" <<'PY'
import sys
path = sys.argv[1]
shapes = [
  ("transpose_naive", 1, 0, """__global__ void transpose_naive_{i}(const float *in, float *out, int n) {{
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}}
void launch_transpose_naive_{i}(const float *in, float *out, int n) {{
  transpose_naive_{i}<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(in, out, n);
}}
"""),
  ("transpose_padded", 0, 0, """__global__ void transpose_padded_{i}(const float *in, float *out, int n) {{
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}}
void launch_transpose_padded_{i}(const float *in, float *out, int n) {{
  transpose_padded_{i}<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(in, out, n);
}}
"""),
  ("reduce_sequential", 0, 0, """__global__ void reduce_sequential_{i}(const float *in, float *out) {{
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned h = 128; h > 0; h >>= 1) {{
    if (t < h)
      s[t] += s[t + h];
    __syncthreads();
  }}
  if (t == 0)
    out[blockIdx.x] = s[0];
}}
void launch_reduce_sequential_{i}(const float *in, float *out) {{
  reduce_sequential_{i}<<<1024, 256>>>(in, out);
}}
"""),
  ("column_read", 0, 1, """__global__ void column_read_{i}(const float *in, float *out, int n) {{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 64; ++r)
    acc += in[c * 64 + r];
  out[c] = acc;
}}
void launch_column_read_{i}(const float *in, float *out, int n) {{
  column_read_{i}<<<n / 256, 256>>>(in, out, n);
}}
"""),
]
lines, text, i = 0, ["#include <cuda_runtime.h>\n\n"], 0
expect = {"bankwise-bank-conflict": 0, "bankwise-uncoalesced": 0}
kernels = 0
while lines < 4900:
    name, conflicts, uncoalesced, body = shapes[i % len(shapes)]
    text.append(body.format(i=i))
    expect["bankwise-bank-conflict"] += conflicts
    expect["bankwise-uncoalesced"] += uncoalesced
    kernels += 1
    i += 1
    lines = sum(t.count("\n") for t in text)
# Host code to 5,000 lines.
text.append("int host_padding(int x) {\n")
lines += 1
while lines < 4999:
    text.append(f"  x = x * 3 + {lines};\n")
    lines += 1
text.append("  return x;\n}\n")
open(path, "w").write("".join(text))
open(path + ".expect", "w").write(f"{kernels} {expect['bankwise-bank-conflict']} {expect['bankwise-uncoalesced']}\n")
PY
read -r kernels want_conflicts want_uncoalesced <"$work/big.cu.expect"
lines=$(wc -l <"$work/big.cu")

load_before=$(cut -d' ' -f1 /proc/loadavg)
best=""
for run in 1 2 3; do
  start=$(date +%s.%N)
  set +e
  /usr/bin/time -f "%U %M" -o "$work/mem" "$bw" lint "$work/big.cu" --format json >"$work/out.json" 2>"$work/err"
  rc=$?
  set -e
  end=$(date +%s.%N)
  [ "$rc" -le 1 ] || { echo "lint-speed: lint failed (exit $rc)" >&2; cat "$work/err" >&2; exit 1; }
  secs=$(python3 -c "print(f'{$end - $start:.2f}')")
  read -r user kib < <(tail -1 "$work/mem")
  if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $secs < $best else 1)"; then
    best=$secs
    best_user=$user
    mem=$((kib / 1024))
  fi
done

python3 - "$work/out.json" "$kernels" "$want_conflicts" "$want_uncoalesced" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
kernels, conflicts, uncoalesced = (int(x) for x in sys.argv[2:5])
files = rep["files"]
got_k = sum(len(f.get("kernels", [])) for f in files)
count = {"bankwise-bank-conflict": 0, "bankwise-uncoalesced": 0}
for f in files:
    for d in f.get("diagnostics", []):
        if d.get("severity") == "warning":
            count[d["check"]] = count.get(d["check"], 0) + 1
ok = got_k == kernels and count["bankwise-bank-conflict"] == conflicts and count["bankwise-uncoalesced"] == uncoalesced
print(f"kernels {got_k}/{kernels}, bank-conflict warnings {count['bankwise-bank-conflict']}/{conflicts}, "
      f"uncoalesced warnings {count['bankwise-uncoalesced']}/{uncoalesced}")
sys.exit(0 if ok else 1)
PY

# A realistic file (issue [13] item 4): bench/lint-speed/realistic.cu,
# templates instantiated from host dispatch, cooperative groups, 18
# instantiations; the median of RUNS runs, wall and user seconds, and the
# output checked against realistic.expect (kernels and warnings per check).
real=$root/bench/lint-speed/realistic.cu
runs=${RUNS:-5}
real_lines=$(wc -l <"$real")
: >"$work/real-times"
for run in $(seq "$runs"); do
  set +e
  /usr/bin/time -f "%e %U %M" -o "$work/real-time" "$bw" lint "$real" --format json >"$work/real.json" 2>"$work/real-err"
  rc=$?
  set -e
  [ "$rc" -le 1 ] || { echo "lint-speed: lint failed on $real (exit $rc)" >&2; cat "$work/real-err" >&2; exit 1; }
  tail -1 "$work/real-time" >>"$work/real-times"
  python3 - "$work/real.json" "$root/bench/lint-speed/realistic.expect" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
want = json.load(open(sys.argv[2]))
got = {k: s.get(k) for k in want}
if got != want:
    print(f"lint-speed: realistic.cu gave {got}, expected {want}", file=sys.stderr)
    sys.exit(1)
PY
done
read -r real_wall real_user real_mem < <(python3 - "$work/real-times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
wall = statistics.median(float(r[0]) for r in rows)
user = statistics.median(float(r[1]) for r in rows)
mem = max(int(r[2]) for r in rows) // 1024
print(f"{wall:.2f} {user:.2f} {mem}")
PY
)
real_kernels=$(python3 -c "import json; print(json.load(open('$root/bench/lint-speed/realistic.expect'))['kernels'])")

cores=$(nproc)
mkdir -p "$(dirname "$out")"
{
  echo "# lint speed"
  echo
  echo "\`bench/lint-speed.sh\` on the development machine ($cores cores), $(date -u +%Y-%m-%d); load average"
  echo "$load_before when it started (wall times grow with the load; user times much less)."
  echo "One generated file of $lines lines, $kernels kernels (naive and padded transposes, a sequential"
  echo "reduction, a column read), each with its launch; \`bankwise lint FILE --format json\`, best of 3 runs."
  echo "The output is checked: every kernel reported, and exactly the warnings the shapes imply."
  echo
  echo "| lines | kernels | wall s | user s | peak MiB | warnings as expected |"
  echo "|---:|---:|---:|---:|---:|---|"
  echo "| $lines | $kernels | $best | $best_user | $mem | yes |"
  echo
  echo "A realistic file, \`bench/lint-speed/realistic.cu\` ($real_lines lines, written for this benchmark in the"
  echo "style of public code): templated transposes, tiled matrix multiplies, block reductions (cooperative"
  echo "groups), column sums and shared histograms, $real_kernels instantiations from host dispatch;"
  echo "\`bankwise lint FILE --format json\` (every core), median of $runs runs. Checked each run: the"
  echo "kernels and the warnings per check equal \`realistic.expect\`."
  echo
  echo "| lines | kernels | wall s (median) | user s (median) | peak MiB | output as expected |"
  echo "|---:|---:|---:|---:|---:|---|"
  echo "| $real_lines | $real_kernels | $real_wall | $real_user | $real_mem | yes |"
} >"$out"
echo "lint-speed: $lines lines, $kernels kernels, ${best} s, ${mem} MiB; realistic.cu ${real_wall} s wall, ${real_user} s user (median of $runs) -> $out"
