#!/usr/bin/env python3
"""The table of bench/gpu-limiters.sh from its limiters.csv: every section
is headed "# label|bytes the kernel must move" and holds ncu's raw page
(`--csv --page raw`: metric names, units, one row per profiled launch).

  python3 bench/limiters-report.py bench/results/h100/limiters.csv --date 2026-11-24
"""
import argparse, csv, io, sys

ap = argparse.ArgumentParser()
ap.add_argument("csv")
ap.add_argument("--date", required=True)
args = ap.parse_args()

sections, cur = [], None
for line in open(args.csv):
    if line.startswith("# "):
        label, need = line[2:].rstrip("\n").rsplit("|", 1)
        cur = [label, float(need), ""]
        sections.append(cur)
    elif cur is not None:
        cur[2] += line

TIME = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1, "msecond": 1, "s": 1e3, "second": 1e3}
RATE = {"byte/s": 1, "Kbyte/s": 1e3, "Mbyte/s": 1e6, "Gbyte/s": 1e9, "Tbyte/s": 1e12,
        "B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12}
STALL = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")
rows = []
for label, need, text in sections:
    table = list(csv.reader(io.StringIO(text)))
    if len(table) < 3:
        sys.exit("limiters-report: no profiled launch for %s" % label)
    head, units = table[0], table[1]
    col = {h: k for k, h in enumerate(head)}
    for r in table[2:]:
        if len(r) != len(head):
            continue
        def num(name, scale=None):
            if name not in col:
                return float("nan")
            try:
                v = float(r[col[name]].replace(",", ""))
            except ValueError:
                return float("nan")
            if scale is not None:
                u = units[col[name]]
                if u not in scale:
                    sys.exit("limiters-report: unknown unit %r of %s" % (u, name))
                v *= scale[u]
            return v
        ms = num("gpu__time_duration.sum", TIME)
        dram = num("dram__bytes.sum.per_second", RATE) * ms / 1e3
        stalls = sorted(((num(h), h[len(STALL[0]):-len(STALL[1])]) for h in head
                         if h.startswith(STALL[0]) and h.endswith(STALL[1])), reverse=True)[:3]
        limits = [(num("launch__occupancy_limit_" + k), k) for k in ("registers", "shared_mem", "warps", "blocks")]
        limits = [l for l in limits if l[0] == l[0]]
        rows.append((label, r[col["Kernel Name"]].split("(")[0], ms, num("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
                     dram, need, num("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                     num("sm__warps_active.avg.pct_of_peak_sustained_active"),
                     num("sm__maximum_warps_per_active_cycle_pct"),
                     ", ".join(k for v, k in limits if v == min(limits)[0]) if limits else "?",
                     num("launch__registers_per_thread"), stalls))

out = ["# What limits the kernels that miss an issue [8] goal (Nsight Compute)\n",
       "%s, one run of `bench/gpu-limiters.sh` (`python3 bench/limiters-report.py limiters.csv` remakes this table "
       "from the raw profiles beside it). Each kernel profiled on one launch of its harness (`--check-only`: every "
       "output checked), `--clock-control none`. DRAM MB = ncu's DRAM bytes per second x duration (read and written); "
       "need MB = what the kernel must move (its input once and output once; for the scheduled passes also their s "
       "and d planes). A DRAM figure far above need means wasted sectors; DRAM %% near 90 means the kernel is "
       "bandwidth-bound. Stalls: ncu's warps stalled per issued instruction, the largest three.\n" % args.date,
       "| job | kernel | ms | DRAM % of peak | DRAM MB | need MB | SM % | occupancy achieved / theoretical % | occupancy limited by | regs | top stalls |",
       "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|"]
for (label, kern, ms, dpct, dram, need, sm, occ, theo, lim, regs, stalls) in rows:
    out.append("| %s | `%s` | %.4f | %.1f | %.0f | %.0f | %.1f | %.1f / %.1f | %s | %.0f | %s |" % (
        label, kern, ms, dpct, dram / 1e6, need / 1e6, sm, occ, theo, lim, regs,
        ", ".join("%s %.2f" % (n, v) for v, n in stalls)))
print("\n".join(out))
