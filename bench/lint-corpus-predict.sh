#!/usr/bin/env bash
# The lint's predictions for every file of its corpus (tests/lint/*/*.cu) at
# n = 1024, the size bench/gpu-lint-corpus.sh runs them at on the GPU
# (which has no Clang, so the predictions travel with the repo). Paths in
# the JSON are made relative to the repository. CTest
# (lint.corpus-predictions-current) runs this into a scratch directory and
# compares, so the committed files cannot fall behind the lint.
#
#   bench/lint-corpus-predict.sh [BUILD_DIR] [OUT_DIR]   # default build/, bench/lint-corpus/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/bench/lint-corpus}
bw=$build/driver/bankwise
mkdir -p "$out"
# Each file twice: as nvcc -O3 builds it (an unrolled loop's consecutive
# shared accesses merged into vector ones) and --as-written (the source's
# accesses, what the faithful build keeps); STEM.as-written.lint.json is
# kept only where the two differ.
for f in "$root"/tests/lint/*/*.cu; do
  rel=${f#"$root"/}
  stem=$(echo "${rel#tests/lint/}" | sed 's#/#_#; s#\.cu$##')
  for variant in "" .as-written; do
    set +e
    (cd "$root" && "$bw" lint "$rel" --format json -D n=1024 ${variant:+--as-written} 2>/dev/null) >"$out/$stem$variant.lint.json.tmp"
    rc=$?
    set -e
    # A file that is not valid CUDA (the corpus's broken files) exits 2 with
    # Clang's errors in its report, which is kept; any other failure stops here.
    if [ "$rc" -eq 2 ] && grep -q '"check":"clang-diagnostic-error"' "$out/$stem$variant.lint.json.tmp"; then rc=0; fi
    [ "$rc" -le 1 ] || { echo "lint-corpus-predict: lint failed on $rel (exit $rc)" >&2; exit 1; }
    python3 - "$out/$stem$variant.lint.json.tmp" "$root/" <<'PY'
import json, sys
path, root = sys.argv[1], sys.argv[2]
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items()}
    if isinstance(x, list): return [strip(v) for v in x]
    if isinstance(x, str): return x.replace(root, "")
    return x
d = strip(json.load(open(path)))
d.pop("summary", None)  # coverage totals: the files above hold every figure they count
open(path, "w").write(json.dumps(d, indent=1, sort_keys=True) + "\n")
PY
    if [ -n "$variant" ] && cmp -s "$out/$stem$variant.lint.json.tmp" "$out/$stem.lint.json"; then
      rm -f "$out/$stem$variant.lint.json.tmp" "$out/$stem$variant.lint.json"
    else
      mv "$out/$stem$variant.lint.json.tmp" "$out/$stem$variant.lint.json"
    fi
  done
done
echo "lint-corpus-predict: $(ls "$out"/*.lint.json | wc -l) files -> $out"
