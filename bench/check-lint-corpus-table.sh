#!/usr/bin/env bash
# The committed hardware tables of the lint corpus
# (bench/results/h100/lint-corpus{,-faithful}.md) are what lint-verify-report
# makes today from the committed ncu exports (lint-corpus-ncu.tgz) and the
# committed predictions (bench/lint-corpus/): a change to the lint's figures
# or to the report that the GPU run has not seen fails here (CTest
# lint.hardware-tables-current). Rerun bench/gpu-lint-corpus.sh on the GPU
# to refresh them.
#
#   bench/check-lint-corpus-table.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
scratch=$2
results=$root/bench/results/h100
report=$build/bench/verify/lint-verify-report
rm -rf "$scratch"
mkdir -p "$scratch"
tar xzf "$results/lint-corpus-ncu.tgz" -C "$scratch"
cp "$root"/bench/lint-corpus/*.lint.json "$scratch/lint-corpus-ncu/"
# The files the GPU run measured (a corpus file added since has no ncu
# export yet: it is listed, and joins the tables at the next GPU run).
stems=()
for f in "$root"/bench/lint-corpus/*.lint.json; do
  stem=$(basename "$f" .lint.json)
  case $stem in *.as-written) continue ;; esac
  if [ -f "$scratch/lint-corpus-ncu/$stem.cuda-sass.csv" ] || grep -q "$stem" "$results/lint-corpus.md"; then
    stems+=("$stem")
  else
    echo "check-lint-corpus-table: $stem not measured on the GPU yet (rerun bench/gpu-lint-corpus.sh)"
  fi
done
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
status=0
for table in lint-corpus:.cuda-sass.csv lint-corpus-faithful:.faithful.cuda-sass.csv; do
  name=${table%%:*}
  suffix=${table#*:}
  committed=$results/$name
  written=()
  [ "$name" = lint-corpus-faithful ] && written=(--as-written)
  "$report" --dir "$scratch/lint-corpus-ncu" --out "$scratch/$name" --csv-suffix "$suffix" "${written[@]}" \
    --gpu "$(field "$committed.json" gpu)" --date "$(field "$committed.json" date)" \
    --build "$(field "$committed.json" build)" "${stems[@]}" || status=1
  diff "$committed.md" "$scratch/$name.md" || { echo "$name.md is not what the report makes today" >&2; status=1; }
  diff "$committed.json" "$scratch/$name.json" || { echo "$name.json is not what the report makes today" >&2; status=1; }
done
exit $status
