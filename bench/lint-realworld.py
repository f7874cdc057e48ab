#!/usr/bin/env python3
"""Issue [13] item 6: `bankwise lint` on CUDA nobody here wrote.

    lint-realworld.py BANKWISE CORPUS_DIR [--out bench/results/lint-realworld]
                      [--timeout 120] [-j 2] [--lint-threads 1] [--provenance FILE]

CORPUS_DIR holds one folder per public repository (owner+name, as the
`fetch` tool names them), kept outside the repo. Every .cu file is linted
alone (`bankwise lint FILE --format json -j T`, T = --lint-threads: 1 by
default; 0 is the lint's own default, every core, which is what a user
gets: run the files one at a time, -j 1, then), with -I for the file's own
folder, the repository's root and, where it has them, its Common/ (NVIDIA's
samples' helper headers), src/ and include/ folders. Per file: the exit code (a signal is a crash), the
wall time, the kernels, the warnings by check and the summary's coverage.
Writes OUT.md (the table, the totals, the provenance) and OUT.jsonl (one
line a file). The files are not copied into the repo.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def includes(root, path):
    """-I for the file's own folder and its repository's include folders."""
    repo = os.path.relpath(path, root).split(os.sep)[0]
    out = ["-I", os.path.dirname(path)]
    for sub in ("", "Common", "src", "include"):  # the include folders the projects' builds add
        if os.path.isdir(os.path.join(root, repo, sub)):
            out += ["-I", os.path.join(root, repo, sub)]
    return out


def nvcc_accepts(root, path, timeout):
    """(True/False/None, first error line): whether `nvcc -c` compiles the
    file with the same include folders (None: no nvcc, or it timed out)."""
    import shutil
    import tempfile
    if not shutil.which("nvcc"):
        return None, "no nvcc"
    with tempfile.TemporaryDirectory() as d:
        args = ["nvcc", "-c", "-std=c++17", "-arch=sm_90", path, "-o", os.path.join(d, "x.o")] + includes(root, path)
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace")
        except subprocess.TimeoutExpired:
            return None, "nvcc timed out"
    first = next((l for l in (p.stderr + p.stdout).splitlines() if "error" in l), "")
    return p.returncode == 0, first[:200]


def lint_one(bw, root, path, timeout, threads):
    rel = os.path.relpath(path, root)
    repo = rel.split(os.sep)[0]
    args = [bw, "lint", path, "--format", "json", "-j", str(threads), "--"] + includes(root, path)
    t0 = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace")
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", "", ""
    wall = time.monotonic() - t0
    row = {"file": rel, "repo": repo, "rc": rc, "seconds": round(wall, 2)}
    if isinstance(rc, int) and rc < 0:
        row["crash"] = -rc
    try:
        j = json.loads(out)
        s = j.get("summary", {})
        row.update({k: s.get(k) for k in ("kernels", "kernels_not_analyzed", "warnings_by_check",
                                          "shared_accesses_with_figures", "global_accesses_with_figures",
                                          "accesses_not_analyzed", "accesses_not_analyzed_by_cause",
                                          "accesses_not_analyzed_by_space",
                                          "texture_fetches_not_priced")})
        row["warnings"] = [{"line": d["line"], "check": d["check"], "message": d["message"], "file": d["file"]}
                           for f in j["files"] for d in f["diagnostics"] if d["severity"] == "warning"]
        row["clang_errors"] = [d["message"] for f in j["files"] for d in f["diagnostics"]
                               if d["check"] == "clang-diagnostic-error"][:3]
    except (json.JSONDecodeError, KeyError, TypeError):
        row["stderr"] = err[-400:]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bankwise")
    ap.add_argument("corpus")
    ap.add_argument("--out", default="bench/results/lint-realworld")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--lint-threads", type=int, default=1, help="each lint's -j (0: every core)")
    ap.add_argument("--provenance", help="a file of 'owner/name commit' lines for the table")
    a = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".cu"))
    if not files:
        print("lint-realworld: no .cu file under", a.corpus, file=sys.stderr)
        return 2
    with ThreadPoolExecutor(a.j) as ex:
        rows = list(ex.map(lambda f: lint_one(a.bankwise, a.corpus, f, a.timeout, a.lint_threads), files))
    # Exit 2 is a defect only where nvcc compiles the file (item 3): ask it.
    for r in rows:
        if r["rc"] == 2:
            r["nvcc_accepts"], r["nvcc_error"] = nvcc_accepts(a.corpus, os.path.join(a.corpus, r["file"]), 600)
    with open(a.out + ".jsonl", "w") as o:
        for r in rows:
            o.write(json.dumps(r, sort_keys=True) + "\n")

    crashes = [r for r in rows if "crash" in r]
    exit2 = [r for r in rows if r["rc"] == 2]
    exit2_nvcc = [r for r in exit2 if r.get("nvcc_accepts")]
    timeouts = [r for r in rows if r["rc"] == "timeout"]
    slow = [r for r in rows if r["seconds"] > 10]
    times = [r["seconds"] for r in rows]
    sum_ = lambda k: sum((r.get(k) or 0) for r in rows)
    shared, glob, unan = sum_("shared_accesses_with_figures"), sum_("global_accesses_with_figures"), sum_(
        "accesses_not_analyzed")
    space = {k: sum((r.get("accesses_not_analyzed_by_space") or {}).get(k, 0) for r in rows)
             for k in ("shared", "global", "other", "unknown")}
    causes = {}
    for r in rows:
        for c, n in (r.get("accesses_not_analyzed_by_cause") or {}).items():
            causes[c] = causes.get(c, 0) + n
    warnings = {}
    for r in rows:
        for c, n in (r.get("warnings_by_check") or {}).items():
            warnings[c] = warnings.get(c, 0) + n
    repos = {}
    for r in rows:
        repos[r["repo"]] = repos.get(r["repo"], 0) + 1
    L = ["# bankwise lint on public CUDA (issue [13] item 6)", "",
         "`bench/lint-realworld.py` on the 2-core development machine; each file linted alone, "
         "`-j %d`%s, %d at a time. The corpus is kept outside the repo." % (
             a.lint_threads, " (every core)" if a.lint_threads == 0 else "", a.j), ""]
    L += ["## Provenance", "", "| repository | .cu files | commit |", "|---|---:|---|"]
    prov = {}
    if a.provenance and os.path.exists(a.provenance):
        for line in open(a.provenance):
            parts = line.split()
            if len(parts) == 2:
                prov[parts[0].replace("/", "+")] = parts[1]
    for repo, n in sorted(repos.items()):
        L.append("| %s | %d | %s |" % (repo.replace("+", "/"), n, prov.get(repo, "")))
    L += ["", "## Totals", "",
          "| files | crashes | exit 2 (nvcc accepts) | timeouts (> %d s) | over 10 s | median s | max s | kernels | "
          "not analyzed | shared sites | global sites | accesses not analyzed | figures share |" % a.timeout,
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
          "| %d | %d | %d (%d) | %d | %d | %.2f | %.1f | %d | %d | %d | %d | %d | %.1f%% |" % (
              len(rows), len(crashes), len(exit2), len(exit2_nvcc), len(timeouts), len(slow),
              statistics.median(times), max(times), sum_("kernels"), sum_("kernels_not_analyzed"), shared, glob,
              unan, 100.0 * (shared + glob) / max(1, shared + glob + unan))]
    pct = lambda n, d: 100.0 * n / max(1, d)
    L += ["", "## Coverage by memory space", "",
          "Accesses not analyzed are split by the space the source shows (`accesses_not_analyzed_by_space`): "
          "a `__shared__` array; a kernel's pointer parameter or a `__device__` variable (global); "
          "`__constant__` or a local variable (other); a pointer whose origin the lint did not follow "
          "(unknown). The global share is given twice: counting only known-global accesses, and counting "
          "every unknown one as global too (a lower bound).", "",
          "| space | with figures | not analyzed | share with figures |", "|---|---:|---:|---:|",
          "| shared | %d | %d | %.1f%% |" % (shared, space["shared"], pct(shared, shared + space["shared"])),
          "| global | %d | %d | %.1f%% |" % (glob, space["global"], pct(glob, glob + space["global"])),
          "| global, unknown counted as global | %d | %d | %.1f%% |" % (
              glob, space["global"] + space["unknown"], pct(glob, glob + space["global"] + space["unknown"])),
          "| other (constant, local) | - | %d | - |" % space["other"],
          "| unknown | - | %d | - |" % space["unknown"]]
    L += ["", "Texture fetches, not priced (neither shared nor global accesses, outside both counts): %d"
          % sum_("texture_fetches_not_priced")]
    L += ["", "Warnings by check: " + (", ".join("%d %s" % (n, c) for c, n in sorted(warnings.items())) or "none"),
          "", "## Accesses not analyzed, by cause", "", "| accesses | cause |", "|---:|---|"]
    for c, n in sorted(causes.items(), key=lambda x: -x[1]):
        L.append("| %d | %s |" % (n, c.replace("|", "\\|")))
    L += ["", "## Files that crashed, exited 2, timed out or took over 10 s", "",
          "| file | exit | nvcc -c | s | first Clang error |", "|---|---|---|---:|---|"]
    for r in rows:
        if "crash" in r or r["rc"] in (2, "timeout") or r["seconds"] > 10:
            err = (r.get("clang_errors") or [r.get("stderr", "")])[0] if (r.get("clang_errors") or r.get(
                "stderr")) else ""
            nv = {True: "accepts", False: "rejects", None: r.get("nvcc_error", "")}.get(r.get("nvcc_accepts"), "")
            L.append("| %s | %s | %s | %.1f | %s |" % (
                r["file"], ("signal %d" % r["crash"]) if "crash" in r else r["rc"], nv if r["rc"] == 2 else "",
                r["seconds"], err.replace("|", "\\|").replace("\n", " ")[:160]))
    open(a.out + ".md", "w").write("\n".join(L) + "\n")
    print("\n".join(L[L.index("## Totals"):L.index("## Totals") + 5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
