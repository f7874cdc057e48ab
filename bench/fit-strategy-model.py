#!/usr/bin/env python3
"""Fits the constants of the sm_90 strategy model (analysis/models/
StrategyModel.cpp, StrategyCosts::sm90) to the medians of
bench/results/h100/strategies.jsonl, and prints each row's estimate against
its median.

For each of the six named permutations at n = 2^20 and 2^26 it writes the
auto program, runs `bankwise analyze --json` for the sector counts of the
scattered side (full / first / refetched / reused sectors and fetched lines,
per block of 256), and fits, by non-negative least squares weighted by
1 / median:

  2^26 (beyond L2): t = 5.8 + stream_MB * a + sum over the scatter's (write)
                    and the gather's (read) counts of count * c
  2^20 (in L2):     t = launch + stream_MB * b + partial sectors * h

The bench's gather reads a 4-byte table q; its scatter reads P's table for
random P only (closed forms otherwise). Usage:
  bench/fit-strategy-model.py [--bankwise build/driver/bankwise] [--jsonl ...]
"""
import argparse, itertools, json, os, subprocess, sys, tempfile

PERMS = {
    "random": "random(N, seed: 7)",
    "bitreverse": "bitreverse(N)",
    "shuffle": "shuffle(N)",
    "transpose": "transpose(1 << (M / 2), 1 << (M - M / 2))",
    "stride8": "stride(N, 8)",
    "identity": "identity(N)",
}


def solve(A, b):
    n = len(A[0])
    M = [[sum(r[i] * r[j] for r in A) for j in range(n)] + [sum(r[i] * y for r, y in zip(A, b))] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(M[r][i]))
        M[i], M[p] = M[p], M[i]
        if abs(M[i][i]) < 1e-30:
            return None
        for r in range(n):
            if r != i:
                f = M[r][i] / M[i][i]
                M[r] = [a - f * c for a, c in zip(M[r], M[i])]
    return [M[i][n] / M[i][i] for i in range(n)]


def nnls(A, b):
    """Exact NNLS by trying every support (few unknowns), weighted 1/b."""
    Aw = [[a / y for a in r] for r, y in zip(A, b)]
    bw = [1.0] * len(b)
    best = None
    n = len(A[0])
    for k in range(n + 1):
        for S in itertools.combinations(range(n), k):
            x = [0.0] * n
            if S:
                xs = solve([[r[i] for i in S] for r in Aw], bw)
                if xs is None or min(xs) < 0:
                    continue
                for i, v in zip(S, xs):
                    x[i] = v
            res = sum((sum(a * c for a, c in zip(r, x)) - y) ** 2 for r, y in zip(Aw, bw))
            if best is None or res < best[0]:
                best = (res, x)
    return best[1]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bankwise", default=os.path.join(root, "build", "driver", "bankwise"))
    ap.add_argument("--jsonl", default=os.path.join(root, "bench", "results", "h100", "strategies.jsonl"))
    o = ap.parse_args()
    meas = {}
    for line in open(o.jsonl):
        r = json.loads(line)
        meas[r["program"]] = {k["kernel"]: k["median_ms"] * 1000 for k in r["result"]["kernels"]}
    counts = {}
    with tempfile.TemporaryDirectory() as work:
        for m in (20, 26):
            for name, decl in PERMS.items():
                if "%s_2p%d" % (name, m) not in meas:
                    continue
                bw = os.path.join(work, "%s_%d.bw" % (name, m))
                with open(bw, "w") as f:
                    f.write("target sm_90\nparam M = %d\nparam N = 1 << M\npermutation P = %s\n"
                            "kernel k(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) "
                            "schedule auto {\n  b[P(tid)] = a[tid]\n}\n" % (m, decl))
                out = subprocess.run([o.bankwise, "analyze", bw, "--json"], capture_output=True, text=True, check=True)
                est = json.loads(out.stdout)["auto_schedules"][0]["estimates"]
                counts[(name, m)] = {e["strategy"]: e.get("sectors") for e in est}
    B = 4
    # Beyond L2.
    A, b, rows = [], [], []
    N = 1 << 26
    for (name, m), c in sorted(counts.items()):
        if m != 26:
            continue
        for s in ("scatter", "gather"):
            t = 4 if (s == "gather" or name == "random") else 0
            x = c[s]
            side = [x["first"] / 1e6, x["refetched"] / 1e6, x["reused"] / 1e6, x["fetched_lines"] / 1e6]
            A.append([(N * (B + t) + 32 * x["full"]) / 1e6] + (side + [0] * 4 if s == "scatter" else [0] * 4 + side))
            b.append(meas["%s_2p%d" % (name, m)][s] - 5.8)
            rows.append("%s %s 2^%d" % (s, name, m))
    x = nnls(A, b)
    print("beyond L2: %.3g bytes/us streamed" % (1e6 / x[0] if x[0] else float("inf")))
    print("  write us per sector first %.3g refetched %.3g reused %.3g, per line %.3g" % tuple(v * 1e-6 for v in x[1:5]))
    print("  read  us per sector first %.3g refetched %.3g reused %.3g, per line %.3g" % tuple(v * 1e-6 for v in x[5:9]))
    for r, y, name in zip(A, b, rows):
        e = sum(a * c for a, c in zip(r, x)) + 5.8
        print("  %-24s median %8.1f us  model %8.1f us  %+5.1f%%" % (name, y + 5.8, e, 100 * (e / (y + 5.8) - 1)))
    # In L2.
    A, b, rows = [], [], []
    N = 1 << 20
    for (name, m), c in sorted(counts.items()):
        if m != 20:
            continue
        for s in ("scatter", "gather"):
            t = 4 if (s == "gather" or name == "random") else 0
            x2 = c[s]
            part = (x2["first"] + x2["reused"] + x2["refetched"]) / 1e6
            A.append([1, (N * (B + t) + 32 * x2["full"]) / 1e6, part if s == "scatter" else 0, part if s == "gather" else 0])
            b.append(meas["%s_2p%d" % (name, m)][s])
            rows.append("%s %s 2^%d" % (s, name, m))
    x = nnls(A, b)
    print("in L2: launch %.3g us, %.3g bytes/us, us per partial sector write %.3g read %.3g" %
          (x[0], 1e6 / x[1] if x[1] else float("inf"), x[2] * 1e-6, x[3] * 1e-6))
    for r, y, name in zip(A, b, rows):
        e = sum(a * c for a, c in zip(r, x))
        print("  %-24s median %8.1f us  model %8.1f us  %+5.1f%%" % (name, y, e, 100 * (e / y - 1)))
    for m in (20, 26):
        for s in ("bits", "colored"):
            v = [meas[k][s] for k in meas if k.endswith("_2p%d" % m) and s in meas[k]]
            if v:
                print("%s at 2^%d: median of medians %.1f us over %d P" % (s, m, sorted(v)[len(v) // 2], len(v)))


if __name__ == "__main__":
    sys.exit(main())
