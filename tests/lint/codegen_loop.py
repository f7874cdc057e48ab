#!/usr/bin/env python3
"""Issue [7] item 6: the lint against codegen's promises.

For each sample: `bankwise compile --report` writes the CUDA and, per site,
the figures the DSL analysis promised; `bankwise lint --format json` reads
that CUDA back with Clang. Each lint site is paired with the .bw sites whose
markers codegen wrote on the comment lines above its statement (same array,
read/write, space), and the lint's sm_90 figure (shared wavefronts, global
sectors per request: min and max) must equal the promise. A lint site with
no marker (codegen's staging copies, host code) is not compared; a marked
site the lint could not analyze is counted as unanalyzed, never as agreeing.

  codegen_loop.py BANKWISE SAMPLES_DIR WORK_DIR [SAMPLE...]
Exit 0 when every compared site agrees, 1 otherwise; prints a table.
"""
import json, os, re, subprocess, sys

bw, samples_dir, work = (os.path.abspath(a) for a in sys.argv[1:4])
names = sys.argv[4:] or sorted(f[:-3] for f in os.listdir(samples_dir) if f.endswith(".bw"))
os.makedirs(work, exist_ok=True)
MARK = re.compile(r"^\s*// (\d+):(\d+) (read|write) of '([A-Za-z_0-9]+)' \[[^\]]*\] \((shared|global)[^)]*\)")

def figure(site, space):
    key = "sm90_wavefronts" if space == "shared" else "sm90_sectors"
    f = site.get(key)
    return None if f is None else (f["min"], f["max"])

failed = 0
rows = []
for name in names:
    src = os.path.join(samples_dir, name + ".bw")
    cu, rep = os.path.join(work, name + ".cu"), os.path.join(work, name + ".report.json")
    r = subprocess.run([bw, "compile", src, "-o", cu, "--report", rep], capture_output=True, text=True,
                       cwd=samples_dir)
    if r.returncode != 0:
        print(f"{name}: compile failed: {r.stderr.strip()}")
        failed += 1
        continue
    promised = {}
    report = json.load(open(rep))
    # Runtime sizes: the promise is at the representative sizes, so the lint
    # is asked for the figures at the same values (its -D binds a kernel
    # parameter, which is what a runtime size is in the generated CUDA).
    sizes = [f"-D{n}={v}" for n, v in report.get("predicted_at", {}).items()]
    for k in report["kernels"]:
        for s in k["sites"]:
            loc = s["location"].rsplit(":", 2)
            if len(loc) != 3:  # codegen's staging copies: no .bw location
                continue
            promised[(k["kernel"], int(loc[1]), int(loc[2]), s["array"], s["access"], s["space"])] = s
    r = subprocess.run([bw, "lint", cu, "--format", "json", *sizes], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        print(f"{name}: lint failed ({r.returncode}): {r.stderr.strip()[:300]}")
        failed += 1
        continue
    lines = open(cu).read().split("\n")
    agree = disagree = unanalyzed = 0
    for f in json.loads(r.stdout)["files"]:
        for k in f["kernels"]:
            marked_lines = set()
            for s in k.get("sites", []):
                line = int(s["location"].rsplit(":", 2)[1])
                marks, i = [], line - 2
                while i >= 0 and lines[i].lstrip().startswith("//"):
                    m = MARK.match(lines[i])
                    if m:
                        marks.append(m)
                    i -= 1
                access = "read" if s["access"] == "load" else "write"
                match = [m for m in marks if m.group(4) == s["array"] and m.group(3) == access
                         and m.group(5) == s["space"]]
                if not match:
                    continue
                marked_lines.add(line)
                want = set()
                for m in match:
                    p = promised.get((k["name"], int(m.group(1)), int(m.group(2)), m.group(4), m.group(3), m.group(5)))
                    if p is None or p.get("data_dependent"):
                        continue
                    want.add(figure(p, s["space"]))
                if not want:
                    continue
                got = figure(s, s["space"])
                if s.get("data_dependent") or got is None:
                    unanalyzed += 1
                elif got in want:
                    agree += 1
                else:
                    disagree += 1
                    print(f"{name}: {k['name']} {s['location']} {s['array']} {access}: lint {got}, promised {sorted(want)}")
            if not k.get("analyzed"):
                unanalyzed += sum(1 for key in promised if key[0] == k["name"])
    rows.append((name, agree, disagree, unanalyzed))
    failed += disagree > 0

print("| sample | sites agree | disagree | not analyzed by the lint |")
print("|---|---:|---:|---:|")
for name, a, d, u in rows:
    print(f"| {name} | {a} | {d} | {u} |")
print(f"total: {sum(r[1] for r in rows)} agree, {sum(r[2] for r in rows)} disagree, "
      f"{sum(r[3] for r in rows)} not analyzed, over {len(rows)} samples")
sys.exit(1 if failed else 0)
