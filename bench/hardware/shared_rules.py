#!/usr/bin/env python3
"""Lane patterns that tell the sm_90 shared-memory rules apart, and the
table of what Nsight Compute measured for each (bench/gpu-shared-rules.sh).

  shared_rules.py patterns > patterns.txt
  shared_rules.py report patterns.txt launches.txt ncu.csv OUT.md OUT.jsonl

The rules are written here from their statements, sharing no code with
bankwise's model (analysis/models/MemoryModel.cpp), which a test checks
against the committed table instead.
"""
import csv
import json
import random
import sys

SHARED_BYTES = 16384
BYTES = (1, 2, 4, 8, 16)


def patterns():
    """(name, bytes, lanes) for every class that separates the rules."""
    out = []
    for b in BYTES:
        n = SHARED_BYTES // b
        per_wavefront = max(1, 128 // b)  # lanes a conflict-free wavefront serves
        rows = []
        L = range(32)
        rows.append(("contiguous", [l for l in L]))
        rows.append(("reverse", [31 - l for l in L]))
        rows.append(("broadcast", [0 for l in L]))
        rows.append(("broadcast-but-one", [0 if l else 40 for l in L]))
        rows.append(("pairs l/2", [l // 2 for l in L]))
        rows.append(("repeat-quarter l%8", [l % 8 for l in L]))
        rows.append(("repeat-half l%16", [l % 16 for l in L]))
        rows.append(("two-halves-same-quarter (l%8)+8(l/16)", [(l % 8) + 8 * (l // 16) for l in L]))
        for s in (2, 3, 4, 8, 16, 32, 33):
            rows.append((f"stride {s}", [(l * s) % n for l in L]))
        # Conflicts inside a quarter-warp only, and across quarters only.
        rows.append(("quarter-conflict 32w+4(l%8)+l/8", [4 * (l % 8) + l // 8 for l in L]))
        rows.append(("quarter-conflict 8(l%8)+l/8", [8 * (l % 8) + l // 8 for l in L]))
        rows.append(("quarter-conflict (l%8)*32/b'+l/8", [(l % 8) * (128 // b if b < 128 else 1) + l // 8 for l in L]))
        rows.append(("across-quarters 8q*k: (l%8)+stride128B*(l/8)", [(l % 8) + (128 // b) * (l // 8) * 4 for l in L]))
        rows.append(("half-conflict 16(l%2)+l/2", [16 * (l % 2) + l // 2 for l in L]))
        rows.append(("alternate 0/128B", [(l % 2) * (128 // b) for l in L]))
        rows.append(("quarters-alternate rows (l%8)+(128/b)(l/8%2)", [(l % 8) + (128 // b) * ((l // 8) % 2) for l in L]))
        # Idle lanes.
        rows.append(("only quarter 0", [l if l < 8 else -1 for l in L]))
        rows.append(("only half 0", [l if l < 16 else -1 for l in L]))
        rows.append(("lanes 0,8,16,24 contiguous", [l // 8 if l % 8 == 0 else -1 for l in L]))
        rows.append(("lanes 0,16", [l // 16 if l % 16 == 0 else -1 for l in L]))
        rows.append(("one lane", [5 if l == 3 else -1 for l in L]))
        rows.append(("even lanes contiguous", [l // 2 if l % 2 == 0 else -1 for l in L]))
        rows.append(("lanes 0-3 of each quarter", [4 * (l // 8) + l % 8 if l % 8 < 4 else -1 for l in L]))
        # Seeded random patterns: the strongest check that a rule is exact.
        rng = random.Random(20261127 + b)
        for k in range(8):
            span = n if k < 4 else min(n, 4 * per_wavefront)
            rows.append((f"random {k} in [0,{span})", [rng.randrange(span) for _ in L]))
        for k in range(4):
            rows.append((f"random-masked {k}", [rng.randrange(min(n, 512)) if rng.random() < 0.6 else -1 for _ in L]))
        # Lanes that name one address between them: which groupings of lanes
        # let 8- and 16-byte loads merge (adjacent pairs, any pairs of a quad,
        # pairs 4 apart), with the second address conflicting inside a half.
        c = 128 // b if b >= 8 else 32  # elements 128 bytes apart: same banks
        quads = {
            "XXXY": lambda k, j: k + c * (j == 3),
            "XYYX": lambda k, j: k + c * (j in (1, 2)),
            "XYXY": lambda k, j: k + c * (j % 2),
            "XXYY": lambda k, j: k + c * (j >= 2),
            "XYYY": lambda k, j: k + c * (j != 0),
            "X_Y_": lambda k, j: -1 if j % 2 else k + c * (j == 2),
            "XY__": lambda k, j: -1 if j >= 2 else k + c * j,
            "X__Y": lambda k, j: -1 if j in (1, 2) else k + c * (j == 3),
        }
        for qn, f in quads.items():
            rows.append((f"quads {qn} (X = quad, Y = X + 128 B)", [f(l // 4, l % 4) for l in L]))
        rows.append(("lanes l, l+4 share: (l%4)+4(l/8)", [(l % 4) + 4 * (l // 8) for l in L]))
        rows.append(("lanes l, l+2 share: (l%2)+2(l/4)", [(l % 2) + 2 * (l // 4) for l in L]))
        rows.append(("alternate, odd half shifted: (l%2)c+(l/16)", [(l % 2) * c + l // 16 for l in L]))
        for k in range(12):
            names = list(quads)
            pick = [names[rng.randrange(len(names))] for _ in range(8)]
            base = [rng.randrange(2 * c) for _ in range(8)]
            rows.append((f"random quads {k}: " + " ".join(pick),
                         [(lambda v: v if v < 0 else v - (l // 4) + base[l // 4])(quads[pick[l // 4]](l // 4, l % 4)) for l in L]))
        # Quads that merge under different pairings in one warp: per quad, or
        # one pairing for the whole warp?
        mergeable = ["XXYY", "XYXY", "XY__", "X_Y_", "X__Y"]
        for k in range(10):
            pick = [mergeable[rng.randrange(len(mergeable))] for _ in range(8)]
            if k < 2:
                pick = ["XXYY", "XYXY"] * 4 if k == 0 else ["XY__", "X_Y_"] * 4
            base = [rng.randrange(2 * c) for _ in range(8)]
            rows.append((f"mixed quads {k}: " + " ".join(pick),
                         [(lambda v: v if v < 0 else v - (l // 4) + base[l // 4])(quads[pick[l // 4]](l // 4, l % 4)) for l in L]))
        for name, lanes in rows:
            lanes = [(-1 if v < 0 else v % n) for v in lanes]
            if all(v < 0 for v in lanes):
                continue
            out.append((name, b, lanes))
    return out


def rule_cost(lanes, b, part, floor_distinct=False):
    """Wavefronts: lanes split into consecutive groups of `part`; each group
    costs max(max over 32 banks of distinct 4-byte words, ceil(bytes/128)),
    bytes being the lanes' bytes (or the distinct words' bytes); summed."""
    total = 0
    for first in range(0, 32, part):
        active = [v for v in lanes[first:first + part] if v >= 0]
        if not active:
            continue
        words = set()
        for v in active:
            a = v * b
            for w in range(a // 4, (a + b - 1) // 4 + 1):
                words.add(w)
        per_bank = {}
        for w in words:
            per_bank[w % 32] = per_bank.get(w % 32, 0) + 1
        moved = len(words) * 4 if floor_distinct else len(active) * b
        total += max(max(per_bank.values()), -(-moved // 128))
    return total


def collapsed_cost(lanes, b, pairs_of_quad):
    """8- and 16-byte loads whose lanes merge: when every quad of lanes
    splits into pairs (by pairs_of_quad) that each name at most one
    address, the 32 lanes count as 16 and are served in one group (8 B) or
    two groups of lanes 0-15 and 16-31 (16 B); else the split rule."""
    part = {8: 16, 16: 8}.get(b, 32)
    if b >= 8:
        def uniform(group):
            vs = {lanes[i] for i in group if lanes[i] >= 0}
            return len(vs) <= 1
        ok = True
        for q in range(0, 32, 4):
            if not any(all(uniform([q + i for i in pair]) for pair in pairing) for pairing in pairs_of_quad):
                ok = False
        if ok:
            part = {8: 32, 16: 16}[b]
    return rule_cost(lanes, b, part)


ADJACENT = [((0, 1), (2, 3))]
ANY_PAIRS = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]


RULES = {
    "whole warp": lambda lanes, b: rule_cost(lanes, b, 32),
    "split (8 B: halves, 16 B: quarters)": lambda lanes, b: rule_cost(lanes, b, {8: 16, 16: 8}.get(b, 32)),
    "split, floor by distinct words": lambda lanes, b: rule_cost(lanes, b, {8: 16, 16: 8}.get(b, 32), True),
    "quarters for 8 and 16 B": lambda lanes, b: rule_cost(lanes, b, 8 if b >= 8 else 32),
    "split; loads merge adjacent-lane pairs": lambda lanes, b: collapsed_cost(lanes, b, ADJACENT),
    "split; loads merge any pairs of a quad": lambda lanes, b: collapsed_cost(lanes, b, ANY_PAIRS),
}


def rule_applies(rule, op):
    return op == "ld" or "loads merge" not in rule


def read_ncu(path):
    """Rows of `ncu --csv --page raw`, in launch order, as metric dicts."""
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.DictReader(lines))
    # The second row of the raw page holds units.
    return [r for r in rows if r.get("ID", "").strip().isdigit()]


def metric(row, name):
    v = row[name].replace(",", "")
    return float(v)


def report(patterns_path, launches_path, ncu_path, md_path, jsonl_path):
    pats = []
    with open(patterns_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, rest = line.split("\t")
            parts = rest.split()
            pats.append((name, int(parts[0]), parts[1], [int(x) for x in parts[2:]]))
    launched = [l for l in open(launches_path) if l.startswith("launch ")]
    rows = read_ncu(ncu_path)
    if not (len(pats) == len(launched) == len(rows)):
        sys.exit(f"error: {len(pats)} patterns, {len(launched)} launches, {len(rows)} ncu rows")
    records = []
    fits = {r: 0 for r in RULES}
    for (name, b, op, lanes), row in zip(pats, rows):
        kname = row["Kernel Name"]
        want = ("probeStore" if op == "st" else "probeLoad") + f"<{b}>"
        if want not in kname.replace(" ", ""):
            sys.exit(f"error: launch of {kname} for pattern {name} {b} {op}")
        wf = metric(row, f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
        inst = metric(row, f"smsp__sass_inst_executed_op_shared_{op}.sum")
        # The load probe executes exactly one load; the store probe one store.
        if inst != 1:
            sys.exit(f"error: pattern {name} {b} {op}: {inst} shared {op} instructions, expected 1")
        rec = {"name": name, "bytes": b, "op": op, "lanes": lanes, "wavefronts": wf}
        for r, f in RULES.items():
            rec[r] = f(lanes, b) if rule_applies(r, op) else RULES["split (8 B: halves, 16 B: quarters)"](lanes, b)
            fits[r] += rec[r] == wf
        records.append(rec)
    with open(jsonl_path, "w") as f:
        for rec in records:
            f.write(json.dumps({k: rec[k] for k in ("name", "bytes", "op", "lanes", "wavefronts")}) + "\n")
    names = list(RULES)
    with open(md_path, "w") as f:
        f.write("| bytes | op | pattern (element index of lane l; -1 idle) | measured wavefronts | "
                + " | ".join(names) + " |\n")
        f.write("|---|---|---|---|" + "---|" * len(names) + "\n")
        for rec in records:
            cells = []
            for r in names:
                mark = "" if rec[r] == rec["wavefronts"] else " **x**"
                cells.append(f"{rec[r]}{mark}")
            f.write(f"| {rec['bytes']} | {rec['op']} | {rec['name']} | {rec['wavefronts']:g} | " + " | ".join(cells) + " |\n")
        f.write("\nRows each rule reproduces exactly, of {}:\n\n".format(len(records)))
        for r in names:
            f.write(f"- {r}: {fits[r]}\n")
    print(json.dumps(fits))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "patterns":
        print("# NAME<TAB>BYTES ld|st E0 ... E31 (element indices, -1 idle)")
        for name, b, lanes in patterns():
            for op in ("ld", "st"):
                print(f"{name}\t{b} {op} " + " ".join(map(str, lanes)))
    elif len(sys.argv) == 7 and sys.argv[1] == "report":
        report(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
