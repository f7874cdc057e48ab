#!/usr/bin/env python3
"""Reruns gpu-verify-report on archived inputs and compares its output with
the committed table: REPORT_TOOL INPUT_DIR COMMITTED_PREFIX OUT_PREFIX.

The samples, GPU, driver and date are read from COMMITTED_PREFIX.json; the
regenerated PREFIX.md and PREFIX.json must equal the committed ones byte for
byte (prints a unified diff's head otherwise and exits 1)."""
import difflib, json, subprocess, sys

tool, inputs, committed, out = sys.argv[1:5]
meta = json.load(open(committed + ".json"))
samples = [s["sample"] if isinstance(s, dict) else s for s in meta["samples"]]
if not samples:
    sys.exit("no samples in " + committed + ".json")
run = subprocess.run([tool, "--quiet", "--dir", inputs, "--out", out, "--gpu", meta["gpu"],
                      "--driver", meta["driver"], "--date", meta["date"], *samples])
print(f"report tool exit {run.returncode} on {len(samples)} samples")
bad = False
for ext in ("md", "json"):
    want = open(f"{committed}.{ext}").read().splitlines(keepends=True)
    got = open(f"{out}.{ext}").read().splitlines(keepends=True)
    if want != got:
        bad = True
        sys.stdout.writelines(list(difflib.unified_diff(want, got, f"committed.{ext}", f"regenerated.{ext}"))[:40])
if bad:
    sys.exit(1)
print("gpu-verify.md and gpu-verify.json current")
