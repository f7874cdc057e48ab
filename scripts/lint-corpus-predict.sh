#!/usr/bin/env bash
# The lint's predictions for every file of its corpus (tests/lint/*/*.cu) at
# n = 1024, the size scripts/gpu-lint-corpus.sh runs them at on the GPU
# (which has no Clang, so the predictions travel with the repo). Paths in
# the JSON are made relative to the repository. CTest
# (lint.corpus-predictions-current) runs this into a scratch directory and
# compares, so the committed files cannot fall behind the lint.
#
#   scripts/lint-corpus-predict.sh [BUILD_DIR] [OUT_DIR]   # default build/, bench/lint-corpus/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/bench/lint-corpus}
bw=$build/driver/bankwise
mkdir -p "$out"
for f in "$root"/tests/lint/*/*.cu; do
  rel=${f#"$root"/}
  stem=$(echo "${rel#tests/lint/}" | sed 's#/#_#; s#\.cu$##')
  set +e
  (cd "$root" && "$bw" lint "$rel" --format json -D n=1024 2>/dev/null) >"$out/$stem.lint.json.tmp"
  rc=$?
  set -e
  # A file that is not valid CUDA (the corpus's broken files) exits 2 with
  # Clang's errors in its report, which is kept; any other failure stops here.
  if [ "$rc" -eq 2 ] && grep -q '"check":"clang-diagnostic-error"' "$out/$stem.lint.json.tmp"; then rc=0; fi
  [ "$rc" -le 1 ] || { echo "lint-corpus-predict: lint failed on $rel (exit $rc)" >&2; exit 1; }
  python3 - "$out/$stem.lint.json.tmp" "$root/" <<'PY'
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
  mv "$out/$stem.lint.json.tmp" "$out/$stem.lint.json"
done
echo "lint-corpus-predict: $(ls "$out"/*.lint.json | wc -l) files -> $out"
