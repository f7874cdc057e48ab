#!/usr/bin/env python3
"""Issue [13] item 6: a sample of the lint's warnings on public code, for a
hand check.

    lint-warnings-sample.py RUN.jsonl CORPUS_DIR [-n 30] [--seed 13]

RUN.jsonl is bench/lint-realworld.py's output (each row keeps its
file's warnings). Draws N warnings, every check represented in proportion
(at least one each), deterministically for the seed, and prints each with
its file, line, message and the five source lines ending at it, as a
Markdown list whose verdicts are written by hand afterwards
(bench/results/lint-realworld-warnings.md). The script judges nothing.
"""
import argparse
import json
import os
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("corpus")
    ap.add_argument("-n", type=int, default=30)
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    warnings = []
    for line in open(a.run):
        row = json.loads(line)
        for w in row.get("warnings") or []:
            warnings.append(dict(w, corpus_file=row["file"]))
    if not warnings:
        print("lint-warnings-sample: no warning in", a.run, file=sys.stderr)
        return 2
    by_check = {}
    for w in warnings:
        by_check.setdefault(w["check"], []).append(w)
    rng = random.Random(a.seed)
    n = min(a.n, len(warnings))
    picks = []
    for check, ws in sorted(by_check.items()):
        k = max(1, round(n * len(ws) / len(warnings)))
        picks += rng.sample(ws, min(k, len(ws)))
    picks = picks[:max(n, len(by_check))]
    print("%d warnings in %d files; %d drawn (seed %d): %s" % (
        len(warnings), len({w["corpus_file"] for w in warnings}), len(picks), a.seed,
        ", ".join("%d of %d %s" % (sum(1 for p in picks if p["check"] == c), len(ws), c)
                  for c, ws in sorted(by_check.items()))))
    print()
    for i, w in enumerate(picks, 1):
        path = os.path.join(a.corpus, w["corpus_file"]) if w["file"] == "" else w["file"]
        try:
            lines = open(path, errors="replace").read().split("\n")
        except OSError:
            lines = []
        # A warning in an included header names the header (its line is
        # the header's), then the file that was linted.
        where, linted = w["corpus_file"], ""
        if w["file"]:
            rel = os.path.relpath(w["file"], a.corpus)
            where = w["file"] if rel.startswith("..") else rel
            if where != w["corpus_file"]:
                linted = " (linted as `%s`)" % w["corpus_file"]
        print("%d. `%s:%d`%s [%s] %s" % (i, where, w["line"], linted, w["check"], w["message"]))
        print("   ```cuda")
        for k in range(max(0, w["line"] - 5), min(len(lines), w["line"])):
            print("   %5d| %s" % (k + 1, lines[k][:160]))
        print("   ```")
        print("   Verdict: ")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
