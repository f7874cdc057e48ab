#!/usr/bin/env bash
# Issue [7] item 7, on the GPU machine (nvcc, ncu; .deps/ from
# scripts/gpu-deps.sh for the report tool): every file of the lint corpus
# (tests/lint/*/*.cu) is built with a generated main that calls each of its
# host launch functions (every pointer argument a zeroed 256 MiB device
# buffer, every int argument n = 1024), built twice (nvcc -O3, and a
# source-faithful nvcc -Xcicc -O1 -Xptxas -O0 that keeps one SASS
# instruction per source access), each with -lineinfo, run, and
# profiled with `ncu --section SourceCounters`; bench/verify's
# lint-verify-report then pairs each CUDA line's shared and global
# instructions with the lint's predictions for that line
# (bench/lint-corpus/, made by bench/lint-corpus-predict.sh where Clang
# is). Writes lint-corpus{,-faithful}.{md,json} to $OUT, else
# bench/results/. Exit code 0 when every judged figure holds (in the -O3
# build, fewer wavefronts where the SASS shows nvcc's vector instructions
# or removed reloads are listed as such, not failures).
#
#   bench/gpu-lint-corpus.sh
#   GPU_LINT_ONLY="stem stem..." bench/gpu-lint-corpus.sh
#
# GPU_LINT_ONLY (stems as in bench/lint-corpus/, e.g. robustness_nvcc_spellings):
# only those files are built and profiled; every other file keeps its
# export from the committed bench/results/h100/lint-corpus-ncu.tgz (valid
# while its source is unchanged since that run: list every changed file),
# so one call under the device's 10-minute limit refreshes the tables.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${OUT:-$root/bench/results}
build=$root/build-gpu
work=$build/lint-corpus
mkdir -p "$out" "$work"
log() { echo "gpu-lint-corpus: $*" >&2; }
[ -d "$root/.deps/usr" ] || { log "error: .deps/ is missing; run scripts/gpu-deps.sh first"; exit 2; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)
[ -n "$ncu" ] || { log "error: ncu not found"; exit 2; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$root" --preset gpu -B "$build" "${generator[@]}" >"$work/cmake.log" 2>&1 ||
  { log "cmake failed"; tail -20 "$work/cmake.log"; exit 2; }
cmake --build "$build" -j "$(nproc)" --target lint_verify_report >"$work/build.log" 2>&1 ||
  { log "build failed"; tail -20 "$work/build.log"; exit 2; }

# The driver of a corpus file: the file itself, then a main calling its
# launch functions (exit code 1 when it has none).
cat >"$work/driver.py" <<'PY'
import re, sys
src, dst = sys.argv[1], sys.argv[2]
text = open(src, encoding='utf-8', errors='replace').read()
calls = []
def body_at(end):
    line_end = text.find('\n', end)
    rest_of_line = text[end:line_end]
    return rest_of_line if '}' in rest_of_line else text[end:text.find('\n}', end)]
# Launching functions main cannot call itself (a function-pointer
# parameter): a function that calls one of them launches too.
indirect = [m.group(1) for m in re.finditer(r'^(?:static\s+)?void\s+(\w+)\s*\([^{;]*\)\s*\{', text, re.M)
            if '<<<' in body_at(m.end()) and '(*' in m.group(0)]
for m in re.finditer(r'^(?:static\s+)?void\s+(\w+)\s*\(([^)]*)\)\s*\{', text, re.M):
    body = body_at(m.end())
    if '<<<' not in body and not any(re.search(r'\b' + n + r'\s*\(', body) for n in indirect):
        continue
    args, buf = [], 0
    for p in [p.strip() for p in m.group(2).split(',') if p.strip()]:
        if '*' in p:
            ty = p[:p.rfind('*') + 1]
            args.append(f'({ty})bw_buf[{buf}]')
            buf += 1
        else:
            args.append('1024')
    calls.append(f'  {m.group(1)}({", ".join(args)});')
if not calls:
    sys.exit(1)
# Device functions declared without a body (the corpus's opaque calls):
# the identity, so the file links; the lint does not see it.
stubs = ''.join(f'__device__ int {n}(int bw_i) {{ return bw_i; }}\n'
                for n in re.findall(r'^__device__\s+int\s+(\w+)\s*\(\s*int\s*\)\s*;', text, re.M))
# ... and one returning a pointer: into a device buffer of its own.
stubs += ''.join(f'__device__ {t} bw_stub_{n}[1 << 16];\n__device__ {t} *{n}(int) {{ return bw_stub_{n}; }}\n'
                 for t, n in re.findall(r'^__device__\s+(\w+)\s*\*\s*(\w+)\s*\(\s*int\s*\)\s*;', text, re.M))
open(dst, 'w').write(f'''#include "{src}"
#include <cstdio>
{stubs}static void *bw_buf[8];
int main() {{
  for (void *&b : bw_buf) {{
    if (cudaMalloc(&b, 256u << 20) != cudaSuccess) {{ std::printf("cudaMalloc failed\\n"); return 1; }}
    cudaMemset(b, 0, 256u << 20);
  }}
''' + '\n'.join(calls) + '''
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("%s\\n", cudaGetErrorString(e)); return 1; }
  std::printf("ok\\n");
  return 0;
}
''')
PY

# Two builds: the release one users run, and one that keeps every source
# access as one SASS instruction (NVVM at -O1 keeps the loops rolled and
# the shared address space; ptxas at -O0 merges and forwards nothing), which
# tests the model itself where the release build's vector instructions and
# removed reloads leave nothing to compare.
variant_flags() { if [ "$1" = release ]; then echo -O3; else echo -Xcicc -O1 -Xptxas -O0; fi; }
variant_suffix() { if [ "$1" = release ]; then echo .cuda-sass.csv; else echo .faithful.cuda-sass.csv; fi; }

if [ -n "${GPU_LINT_ONLY:-}" ]; then
  tar xzf "$root/bench/results/h100/lint-corpus-ncu.tgz" -C "$work" --strip-components=1 ||
    { log "error: cannot read the committed exports"; exit 2; }
fi

# 1. Drivers and nvcc builds, in parallel (nvcc dominates the time).
stems=()
files=()
for f in tests/lint/*/*.cu; do
  rel=${f#tests/lint/}
  stem=$(echo "$rel" | sed 's#/#_#; s#\.cu$##')
  stems+=("$stem")
  cp "bench/lint-corpus/$stem.lint.json" "$work/$stem.lint.json" 2>/dev/null || { log "no prediction for $f"; continue; }
  [ -f "bench/lint-corpus/$stem.as-written.lint.json" ] && cp "bench/lint-corpus/$stem.as-written.lint.json" "$work/"
  if [ -n "${GPU_LINT_ONLY:-}" ] && [[ " $GPU_LINT_ONLY " != *" $stem "* ]]; then
    [ -f "$work/$stem.cuda-sass.csv" ] || log "$f: not in GPU_LINT_ONLY and not in the committed exports"
    continue
  fi
  # GPU_LINT_RESUME=1: a file an earlier run (cut off by a time limit, on
  # the same machine) profiled in both builds is kept as it is.
  if [ -n "${GPU_LINT_RESUME:-}" ] && [ -f "$work/$stem.cuda-sass.csv" ] && [ -f "$work/$stem.faithful.cuda-sass.csv" ]; then
    log "$f kept from the earlier run"
    continue
  fi
  rm -f "$work/$stem.cuda-sass.csv" "$work/$stem.faithful.cuda-sass.csv" "$work/$stem.release" "$work/$stem.faithful"
  python3 "$work/driver.py" "$root/$f" "$work/$stem.main.cu" || { log "$f: no launch function"; continue; }
  files+=("$f")
  for variant in release faithful; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
    exe=$work/$stem.$variant
    # `// NVCC-FLAGS: ...` in the file: flags its build needs (-rdc=true for a device-side launch)
    extra=$(sed -n 's#^// NVCC-FLAGS: ##p' "$f" | head -1)
    # shellcheck disable=SC2046,SC2086
    "$nvcc" $(variant_flags $variant) -lineinfo -std=c++17 -arch=sm_90 -o "$exe" "$work/$stem.main.cu" $extra \
      >"$exe.nvcc.log" 2>&1 &
  done
done
wait

# 2. Run and profile, one at a time (the GPU is one).
for f in "${files[@]}"; do
  rel=${f#tests/lint/}
  stem=$(echo "$rel" | sed 's#/#_#; s#\.cu$##')
  for variant in release faithful; do
    suffix=$(variant_suffix $variant)
    exe=$work/$stem.$variant
    if [ ! -x "$exe" ]; then
      log "$f does not build with nvcc (see $exe.nvcc.log): $(grep -m1 error "$exe.nvcc.log")"
      continue
    fi
    if ! timeout 60 "$exe" >"$exe.run.log" 2>&1; then
      log "$f ($variant) fails to run: $(cat "$exe.run.log")"
      continue
    fi
    (cd "$work" && timeout 120 "$ncu" --clock-control none --section SourceCounters --import-source yes \
        -f -o "$stem.$variant.prof" "$exe" >"$exe.prof.log" 2>&1) ||
      { log "ncu on $f ($variant) failed or took over 120 s (see $exe.prof.log)"; continue; }
    "$ncu" --import "$work/$stem.$variant.prof.ncu-rep" --csv --page source --print-source cuda,sass \
      >"$work/$stem$suffix" 2>"$exe.export.log" ||
      { log "ncu export of $f ($variant) failed"; rm -f "$work/$stem$suffix"; }
    rm -f "$work/$stem.$variant.prof.ncu-rep"
    log "$f profiled ($variant)"
  done
done

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
report=$build/bench/verify/lint-verify-report
"$report" --dir "$work" --out "$out/lint-corpus" --gpu "${gpu:-unknown GPU}" --build "nvcc -O3 -lineinfo" \
  --date "$(date -u +%Y-%m-%d)" "${stems[@]}"
rc=$?
"$report" --dir "$work" --out "$out/lint-corpus-faithful" --gpu "${gpu:-unknown GPU}" \
  --build "nvcc -Xcicc -O1 -Xptxas -O0 -lineinfo" --csv-suffix .faithful.cuda-sass.csv --as-written \
  --date "$(date -u +%Y-%m-%d)" "${stems[@]}" || rc=1
# The trimmed exports, so the report can be rerun (and tested) without a GPU.
mkdir -p "$out/lint-corpus-ncu"
for s in "${stems[@]}"; do
  for e in .cuda-sass.csv .faithful.cuda-sass.csv; do
    [ -f "$work/$s$e" ] && cp "$work/$s$e" "$out/lint-corpus-ncu/"
  done
done
exit $rc
