#!/usr/bin/env python3
"""perf.jsonl (issue [8]) from a bench-kernels.jsonl: one JSON object per
bankwise job (kernel and sizes), with job, gpu, dtype, shape, bankwise_ms,
memcpy_ms (a device-to-device copy of the same bytes, same run), of_memcpy,
baselines (name -> ms, same run), correct (every output element checked by
the harness), checked (elements), date and command.

  bench/perf-jsonl.py bench/results/h100/bench-kernels.jsonl --date 2026-11-24 > perf.jsonl
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--date", required=True)
    a = ap.parse_args()
    ours, base, rows = [], {}, []
    for n, line in enumerate(open(a.jsonl), 1):
        try:
            o = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit("perf-jsonl: %s:%d: %s" % (a.jsonl, n, e))
        if "variant" in o:
            ours.append(o)
        elif "pytorch" in o:
            base[o["pytorch"]] = o
        elif "row" in o:
            rows.append(o["row"])
    if not rows:
        sys.exit("perf-jsonl: %s has no rows" % a.jsonl)
    for t in rows:
        v, kn = t["variant"], t["kernel"]
        run = next((o for o in ours if o["variant"] == v and
                    (o["defines"] or " ".join("%s=%s" % kv for kv in o["result"].get("sizes", {}).items())) == t["sizes"]),
                   None)
        if run is None:
            sys.exit("perf-jsonl: no run for %s %s" % (v, t["sizes"]))
        k = next(k for k in run["result"]["kernels"] if k["kernel"] == kn)
        dtype = next((x for x in ("f64", "f16", "bf16", "i8", "f32") if kn.endswith("_" + x)), "f32")
        baselines = {}
        if t.get("pytorch_ms") is not None:
            baselines["pytorch " + base[t["pytorch"]]["op"]] = t["pytorch_ms"]
        if v.startswith("offline_permutation") and kn in ("permute_random", "permute_random_f64"):
            g = base.get("perm_gather_%s2p%s" % ("f64_" if dtype == "f64" else "", v.rsplit("_2p", 1)[1]))
            if g:
                baselines["pytorch " + g["op"]] = g["median_ms"]
        program = run["result"].get("program", v + ".bw")
        print(json.dumps({
            "job": "%s/%s" % (v, kn),
            "gpu": run["result"].get("device", "unknown GPU"),
            "dtype": dtype,
            "shape": t["sizes"],
            "bankwise_ms": t["median_ms"],
            "memcpy_ms": t["copy_ms"],
            "of_memcpy": round(t["copy_ms"] / t["median_ms"], 4) if t["median_ms"] else None,
            "baselines": baselines,
            "correct": bool(k["correct"]) and k.get("mismatches", 0) == 0,
            "checked": k.get("checked"),
            "date": a.date,
            "command": "bankwise compile samples/%s %s--harness -o h.cu && nvcc -O3 -arch=sm_90 -o h h.cu && ./h %s" % (
                program, (run["defines"] + " ") if run["defines"] else "", run.get("args", "")),
        }))


main()
