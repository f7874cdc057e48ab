#!/usr/bin/env python3
"""The held-out check of issue [12]: bankwise's figures against an
independent model, on programs written for it (tests/heldout/README.md).

    run.py BANKWISE [--work DIR] [--only NAME] [--random K] [--seed S] [--json FILE]

For every program of model_programs.PROGRAMS:

1. Fixed sizes. `bankwise analyze P.bw -D ... --json` at each of the
   program's SIZES (with --data for the arrays the program's DATA gives),
   against model_programs.py's count of every warp of the launch: per
   site, warp executions and the min, mean and max of sm_90 wavefronts
   (shared) or sectors and lines (global), DMM congestion, UMM groups and,
   for atomics, same-address serialization. Without --data, the worst and
   expected congestion of the data-dependent sites (model's nodata).
2. All sizes. `bankwise analyze P.bw --json` (no -D): every claimed figure
   (min, max, and the condition under which each is reached) is checked at
   the fixed sizes and at K random size tuples, jointly small and ragged,
   against the model's figures and bankwise's own at those sizes.
3. Refusals. Any run that exits non-zero, or takes more than 10 s.

It prints a table and every finding with the command that reproduces it,
and exits 1 when there is any finding (2 for a usage error).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_costs  # noqa: E402
import model_programs  # noqa: E402

TIME_LIMIT = 10.0
# bankwise's JSON name of a figure -> the model's.
METRICS = {"sm90_wavefronts": "wavefronts", "sm90_sectors": "sectors", "sm90_lines": "lines",
           "congestion": "dmm", "groups": "umm", "same_address_serialization": "serial"}
VALUES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 97, 100, 129]


# ---------------------------------------------------------------------------
# Running bankwise.

def program_path(cls):
    return os.path.join(HERE, "programs", cls.FILE)


def shown(path):
    """A path as the reproduction commands give it: relative to the
    repository root when it is inside it."""
    root = os.path.dirname(os.path.dirname(HERE))
    rel = os.path.relpath(path, root)
    return rel if not rel.startswith("..") else path


def data_files(prog, sizes, work):
    """Writes the program's data arrays at these sizes; returns --data args."""
    if not hasattr(prog, "data"):
        return []
    args = []
    tag = "_".join("%s%d" % (k, v) for k, v in sorted(sizes.items()))
    for name, (values, fmt) in prog.data(sizes).items():
        path = os.path.join(work, "%s_%s_%s.bin" % (prog.FILE[:-3], name, tag))
        with open(path, "wb") as f:
            f.write(model_programs.pack(values, fmt))
        args += ["--data", "%s=%s" % (name, path)]
    return args


def bankwise_args(cls, sizes, extra):
    args = ["analyze", program_path(cls)]
    for k in cls.PARAMS:
        if sizes is not None:
            args += ["-D", "%s=%d" % (k, sizes[k])]
    return args + list(extra) + ["--json"]


def command_line(bankwise, args):
    return " ".join([shown(bankwise) if os.path.isabs(bankwise) else bankwise] + [shown(a) if os.path.isabs(a) else
                                         ("%s=%s" % (a.split("=", 1)[0], shown(a.split("=", 1)[1]))
                                          if "=" in a and os.path.isabs(a.split("=", 1)[1]) else a)
                                         for a in args])


def run_bankwise(bankwise, args, timeout, threads="1"):
    """(exit code or None on a timeout, JSON or None, error text, seconds)."""
    start = time.monotonic()
    env = dict(os.environ)
    env.pop("BANKWISE_THREADS", None)
    if threads is not None:
        env["BANKWISE_THREADS"] = threads
    try:
        p = subprocess.run([bankwise] + args, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, None, "timed out after %.0f s" % timeout, timeout
    took = time.monotonic() - start
    if p.returncode != 0:
        return p.returncode, None, p.stderr.decode(errors="replace")[-2000:], took
    try:
        return 0, json.loads(p.stdout), "", took
    except ValueError as e:
        return 0, None, "unreadable JSON: %s" % e, took


# ---------------------------------------------------------------------------
# Sites: bankwise's, named as the model names them.

def tag_lines(path):
    tags = {}
    with open(path) as f:
        for n, line in enumerate(f, start=1):
            m = re.search(r"#@(\w+)", line)
            if m:
                tags[n] = m.group(1)
    return tags


def keyed_sites(kernel_json, tags):
    """{(tag, array, kind, ordinal): site}; ordinals by column within one
    (line, array, kind)."""
    groups = {}
    for s in kernel_json.get("sites", []):
        _, line, col = s["location"].rsplit(":", 2)
        groups.setdefault((int(line), s["array"], s["access"]), []).append((int(col), s))
    out = {}
    for (line, array, kind), items in groups.items():
        for o, (col, s) in enumerate(sorted(items, key=lambda x: x[0])):
            out[(tags.get(line, "line%d" % line), array, kind, o)] = s
    return out


def site_name(key, site=None):
    tag, array, kind, o = key
    loc = os.path.basename(site["location"]) if site else tag
    return "%s %s %s%s" % (loc, kind, array, " #%d" % o if o else "")


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


# ---------------------------------------------------------------------------
# All-sizes conditions ("C % 8 != 0", "N % 128 in {1..6, 33..35}", "N % 32
# == 1"; several joined by "and", "&&" or ";"). An unknown form is a finding
# of its own ("claim format"), so a change of format cannot pass silently:
# extend ATOM below.

ATOM = re.compile(r"^\(?\s*(\w+)\s*%\s*(\d+)\s*(==|!=|not in|in)\s*(.+?)\s*\)?$")
CMP = re.compile(r"^\(?\s*(\w+)\s*(<=|>=|<|>|==|!=)\s*(-?\d+)\s*\)?$")


def parse_set(text):
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError("not a set: %r" % text)
    vals = set()
    for part in text[1:-1].split(","):
        part = part.strip()
        if ".." in part:
            a, b = part.split("..")
            vals.update(range(int(a), int(b) + 1))
        elif part:
            vals.add(int(part))
    return vals


def parse_condition(text):
    """A predicate over a dict of sizes; raises ValueError on an unknown form."""
    text = text.strip()
    if not text:
        return lambda s: True
    ors = [t for t in re.split(r"\s+or\s+|\s*\|\|\s*", text)]
    if len(ors) > 1:
        preds = [parse_condition(t) for t in ors]
        return lambda s: any(p(s) for p in preds)
    atoms = [t for t in re.split(r"\s+and\s+|\s*&&\s*|\s*;\s*", text) if t.strip()]
    preds = []
    for a in atoms:
        m = ATOM.match(a.strip())
        if m:
            name, mod, op, rhs = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            if op in ("in", "not in"):
                vals = parse_set(rhs)
                preds.append((lambda name, mod, vals, neg: lambda s: ((s[name] % mod) in vals) != neg)
                             (name, mod, vals, op == "not in"))
            else:
                v = int(rhs)
                preds.append((lambda name, mod, v, neg: lambda s: ((s[name] % mod) == v) != neg)
                             (name, mod, v, op == "!="))
            continue
        m = CMP.match(a.strip())
        if m:
            name, op, v = m.group(1), m.group(2), int(m.group(3))
            ops = {"<": lambda x: x < v, "<=": lambda x: x <= v, ">": lambda x: x > v,
                   ">=": lambda x: x >= v, "==": lambda x: x == v, "!=": lambda x: x != v}
            preds.append((lambda name, f: lambda s: f(s[name]))(name, ops[op]))
            continue
        raise ValueError("condition not understood: %r" % a)
    return lambda s: all(p(s) for p in preds)


# ---------------------------------------------------------------------------
# Checking one program.

def random_sizes(cls, prog, k, seed):
    rnd = random.Random("%s/%d" % (cls.FILE, seed))
    out = []
    tries = 0
    while len(out) < k and tries < 1000:
        tries += 1
        # Jointly small: most sizes tiny, one of them possibly larger.
        s = {p: rnd.choice(VALUES[:12]) for p in cls.PARAMS}
        if rnd.random() < 0.6:
            s[rnd.choice(cls.PARAMS)] = rnd.choice(VALUES)
        if len(cls.PARAMS) == 1 and rnd.random() < 0.5:
            s[cls.PARAMS[0]] = rnd.randrange(1, 1100)
        if hasattr(prog, "valid") and not prog.valid(s):
            continue
        if s not in out and s not in cls.SIZES:
            out.append(s)
    return out


def check_program(cls, bankwise, work, n_random, seed, all_sizes):
    prog = cls()
    path = program_path(cls)
    tags = tag_lines(path)
    findings = []
    stats = {"program": cls.FILE, "fixed_sizes": 0, "sites": 0, "figures": 0, "claims": 0, "sampled": 0,
             "claim_checks": 0, "all_sizes_s": None, "slowest_fixed_s": 0.0}

    def finding(category, kernel, what, detail, args, figure="", sizes=None):
        findings.append({"category": category, "program": cls.FILE, "kernel": kernel, "site": what,
                         "figure": figure, "sizes": fmt_sizes(sizes) if sizes else "",
                         "detail": detail, "command": command_line(bankwise, args)})

    def fixed(sizes, with_data=True):
        extra = data_files(prog, sizes, work) if with_data else []
        args = bankwise_args(cls, sizes, extra)
        rc, js, err, took = run_bankwise(bankwise, args, TIME_LIMIT)
        stats["slowest_fixed_s"] = max(stats["slowest_fixed_s"], took)
        if js is None:
            finding("refusal", "-", "-", "sizes %s: %s" % (sizes, err.strip().splitlines()[-1:] or err), args)
            return None, args
        if took > TIME_LIMIT:
            finding("slow", "-", "-", "sizes %s took %.1f s" % (sizes, took), args)
        return js, args

    # 1. Fixed sizes, against the model.
    per_size = []  # (sizes, {kernel: {key: model figures}}, {kernel: {key: site}})
    for sizes in cls.SIZES:
        js, args = fixed(sizes)
        stats["fixed_sizes"] += 1
        modeled = {k: model_programs.evaluate(prog, k, sizes) for k in prog.ARRAYS}
        got = {}
        if js is not None:
            for kj in js.get("kernels", []):
                got[kj["kernel"]] = keyed_sites(kj, tags)
            compare_fixed(cls, sizes, modeled, got, args, finding, stats)
        per_size.append((sizes, modeled, got))

    # 1b. Data-dependent sites without --data.
    for sizes in getattr(cls, "NODATA_SIZES", []):
        js, args = fixed(sizes, with_data=False)
        if js is None:
            continue
        for kj in js.get("kernels", []):
            want = prog.nodata(kj["kernel"], sizes)
            got = keyed_sites(kj, tags)
            for key, exp in want.items():
                s = got.get(key)
                if s is None:
                    finding("fixed", kj["kernel"], site_name(key), "sizes %s: site missing" % sizes, args,
                            "worst/expected", sizes)
                    continue
                stats["figures"] += 2
                if "worst_congestion" in s:
                    w, e = s["worst_congestion"], s.get("expected_congestion_random")
                elif s.get("congestion"):
                    w, e = s["congestion"]["max"], s["congestion"]["mean"]
                else:
                    w, e = None, None
                if w != exp["worst"]:
                    finding("fixed", kj["kernel"], site_name(key, s),
                            "sizes %s, no --data: worst congestion %s, model %s (every value of the data)"
                            % (sizes, w, exp["worst"]), args, "worst congestion (no --data)", sizes)
                if e is None or not abs(e - exp["expected"]) <= 1e-6 * max(1, exp["expected"]):
                    finding("fixed", kj["kernel"], site_name(key, s),
                            "sizes %s, no --data: expected congestion %s, model %.6g (mean over warp "
                            "executions of the expectation over the data)" % (sizes, e, exp["expected"]), args,
                            "expected congestion (no --data)", sizes)

    # 2. All sizes (run beforehand, one program at a time: its time is
    # measured on a machine this script does not load otherwise).
    args = bankwise_args(cls, None, [])
    rc, js, err, took = all_sizes
    stats["all_sizes_s"] = took
    if js is None:
        finding("refusal" if rc else "slow", "-", "-",
                "all sizes: %s" % (err.strip().splitlines()[-1] if err.strip() else "exit %s" % rc), args)
    else:
        if took > TIME_LIMIT:
            finding("slow", "-", "-", "all sizes took %.1f s" % took, args)
        samples = list(per_size)
        for sizes in random_sizes(cls, prog, n_random, seed):
            bj, bargs = fixed(sizes)
            got = {}
            if bj is not None:
                for kj in bj.get("kernels", []):
                    got[kj["kernel"]] = keyed_sites(kj, tags)
            modeled = {k: model_programs.evaluate(prog, k, sizes) for k in prog.ARRAYS}
            compare_fixed(cls, sizes, modeled, got, bargs, finding, stats)
            samples.append((sizes, modeled, got))
        check_claims(cls, js, tags, samples, args, finding, stats)
    return stats, findings


def compare_fixed(cls, sizes, modeled, got, args, finding, stats):
    for kernel, want in modeled.items():
        have = got.get(kernel)
        if have is None:
            finding("fixed", kernel, "-", "sizes %s: kernel missing from bankwise's report" % sizes, args,
                    "", sizes)
            continue
        for key in sorted(set(want) | set(have), key=str):
            w, s = want.get(key), have.get(key)
            if s is None:
                finding("fixed", kernel, site_name(key), "sizes %s: the model has this site (%d warp "
                        "executions), bankwise does not" % (sizes, w["executions"]), args, "site", sizes)
                continue
            stats["sites"] += 1
            if w is None:
                if s.get("warp_executions", 0) != 0:
                    finding("fixed", kernel, site_name(key, s), "sizes %s: bankwise has %d warp executions, "
                            "the model none (or no such site)" % (sizes, s["warp_executions"]), args, "site", sizes)
                continue
            stats["figures"] += 1
            if s.get("warp_executions") != w["executions"]:
                finding("fixed", kernel, site_name(key, s), "sizes %s: warp executions %s, model %d"
                        % (sizes, s.get("warp_executions"), w["executions"]), args, "warp executions", sizes)
            if s.get("data_dependent"):
                finding("fixed", kernel, site_name(key, s), "sizes %s: data-dependent (%s) although --data "
                        "gives every value" % (sizes, s.get("data_source")), args, "data", sizes)
                continue
            for bname, mname in METRICS.items():
                if mname not in w:
                    continue
                b, m = s.get(bname), w[mname]
                if b is None and m is None:
                    continue
                stats["figures"] += 1
                if b is None or m is None:
                    finding("fixed", kernel, site_name(key, s), "sizes %s: %s %s, model %s"
                            % (sizes, bname, b, m), args, bname, sizes)
                    continue
                bad = [f for f in ("min", "mean", "max") if not close(float(b[f]), float(m[f]))]
                if bad:
                    finding("fixed", kernel, site_name(key, s),
                            "sizes %s: %s min/mean/max %s/%.6g/%s, model %s/%.6g/%s"
                            % (sizes, bname, b["min"], b["mean"], b["max"], m["min"], m["mean"], m["max"]), args,
                            bname, sizes)


def check_claims(cls, js, tags, samples, args, finding, stats):
    if any(k.get("sites") for k in js.get("kernels", [])) and not any(
            isinstance(s.get(b), dict) and "min" in s[b] for k in js["kernels"] for s in k.get("sites", [])
            for b in METRICS):
        finding("claim format", "-", "-", "the all-sizes report has sites but no figure run.py reads "
                "(expected {min, max, min_when, max_when} under %s)" % ", ".join(METRICS), args)
    for kj in js.get("kernels", []):
        kernel = kj["kernel"]
        for key, s in keyed_sites(kj, tags).items():
            if s.get("data_dependent"):
                continue
            if not any(modeled.get(kernel, {}).get(key) for _, modeled, _ in samples):
                finding("claim format", kernel, site_name(key, s), "a site of the all-sizes report that the "
                        "model never saw at the sizes checked (tag, array, access or kernel name changed?)", args)
                continue
            for bname, mname in METRICS.items():
                claim = s.get(bname)
                if not isinstance(claim, dict):
                    continue
                stats["claims"] += 1
                if claim.get("sampled"):
                    # "at the sizes tried, sampled": the report claims this
                    # range and its conditions only at the sizes it tried,
                    # and says so (docs/analysis.md).
                    stats["sampled"] += 1
                    continue
                try:
                    conds = {e: parse_condition(claim.get(e + "_when", "") or "") for e in ("min", "max")}
                except ValueError as e:
                    finding("claim format", kernel, site_name(key, s), "%s: %s (claim %s)"
                            % (bname, e, json.dumps(claim, sort_keys=True)), args, bname)
                    continue
                for sizes, modeled, got in samples:
                    for source, figs in (("model", modeled.get(kernel, {}).get(key, {}).get(mname)),
                                         ("bankwise -D", (got.get(kernel, {}).get(key) or {}).get(bname))):
                        if not figs:
                            continue
                        stats["claim_checks"] += 1
                        text = "%s %s" % (bname, describe_claim(claim))
                        problem = None
                        if figs["min"] < claim["min"] or figs["max"] > claim["max"]:
                            problem = "%s: at %s warps cost %s..%s, outside the claimed range" % (
                                text, fmt_sizes(sizes), figs["min"], figs["max"])
                        elif figs["max"] == claim["max"] and not conds["max"](sizes):
                            problem = "%s: at %s the max %s is reached (%s), but '%s' is false" % (
                                text, fmt_sizes(sizes), claim["max"], source, claim.get("max_when"))
                        elif figs["min"] == claim["min"] and not conds["min"](sizes):
                            problem = "%s: at %s the min %s is reached (%s), but '%s' is false" % (
                                text, fmt_sizes(sizes), claim["min"], source, claim.get("min_when"))
                        if problem:
                            finding("false claim", kernel, site_name(key, s),
                                    problem + " [per %s; check: %s]" % (source, command_line(
                                        "bankwise", bankwise_args(cls, sizes, []))),
                                    args, bname + " (" + source + ")", sizes)


def describe_claim(c):
    lo = "%s%s" % (c["min"], " when " + c["min_when"] if c.get("min_when") else "")
    hi = "%s%s" % (c["max"], " when " + c["max_when"] if c.get("max_when") else "")
    return "min %s, max %s" % (lo, hi)


def fmt_sizes(s):
    return ", ".join("%s=%d" % kv for kv in s.items())


# ---------------------------------------------------------------------------

def parser_self_check():
    """The condition forms seen in bankwise's reports, parsed as meant."""
    cases = [("N % 32 == 1", {"N": 33}, True), ("N % 32 == 1", {"N": 2}, False),
             ("C % 8 != 0", {"C": 16}, False), ("N % 128 in {1..6, 33..35, 68, 70}", {"N": 198}, True),
             ("N % 128 in {1..6, 33..35, 68, 70}", {"N": 69}, False),
             ("N % 128 not in {0, 66, 98..127}", {"N": 100}, False), ("N % 32 in {1, 2}", {"N": 34}, True),
             ("M % 32 == 1 and C % 8 != 0", {"M": 1, "C": 8}, False), ("", {"N": 5}, True)]
    bad = []
    for text, sizes, want in cases:
        if parse_condition(text)(sizes) != want:
            bad.append("condition parser: %r at %s is not %s" % (text, sizes, want))
    return bad


def set_limit(limit):
    global TIME_LIMIT
    TIME_LIMIT = limit


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bankwise")
    ap.add_argument("--work", default=os.path.join(os.getcwd(), "heldout-work"))
    ap.add_argument("--only", action="append", help="program file (sgemm.bw), repeatable")
    ap.add_argument("--time-limit", type=float, default=10.0,
                    help="seconds after which a bankwise run counts as a refusal (default 10)")
    ap.add_argument("--random", type=int, default=6, help="random size tuples per program (all-sizes claims)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the findings here")
    ap.add_argument("--known", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "known.json"),
                    help="findings known and explained (they do not fail the run; one that no longer shows does)")
    ap.add_argument("--fail-slow", action="store_true",
                    help="count runs past --time-limit as failures (by default they are reported: speed is a "
                         "benchmark, and a run past the limit is killed)")
    a = ap.parse_args()
    if not os.access(a.bankwise, os.X_OK):
        print("run.py: %s is not an executable" % a.bankwise, file=sys.stderr)
        return 2
    set_limit(a.time_limit)
    os.makedirs(a.work, exist_ok=True)
    bad = model_costs.self_check() + parser_self_check()
    if bad:
        print("run.py: self-check failed (the model against HARDWARE.md, the condition parser):\n  "
              + "\n  ".join(bad), file=sys.stderr)
        return 1
    progs = [c for c in model_programs.PROGRAMS if not a.only or c.FILE in a.only]
    bankwise = os.path.abspath(a.bankwise)
    start = time.monotonic()
    # Every all-sizes analysis first, one at a time with bankwise's default
    # threads, so that its time is its own.
    all_sizes = [run_bankwise(bankwise, bankwise_args(c, None, []), TIME_LIMIT, threads=None) for c in progs]
    with ProcessPoolExecutor(max_workers=a.jobs, initializer=set_limit, initargs=(TIME_LIMIT,)) as ex:
        results = list(ex.map(check_program, progs, [bankwise] * len(progs), [a.work] * len(progs),
                              [a.random] * len(progs), [a.seed] * len(progs), all_sizes))
    findings = [f for _, fs in results for f in fs]

    print("%-22s %5s %6s %7s %7s %7s %8s %6s %6s %6s %6s %s" % (
        "program", "sizes", "sites", "figures", "claims", "sampled", "checks", "fixed", "claim", "refuse", "slow",
        "all-sizes s"))
    for st, fs in results:
        cnt = lambda c: sum(1 for f in fs if f["category"] == c)
        print("%-22s %5d %6d %7d %7d %7d %8d %6d %6d %6d %6d %s" % (
            st["program"], st["fixed_sizes"], st["sites"], st["figures"], st["claims"], st["sampled"],
            st["claim_checks"],
            cnt("fixed"), cnt("false claim") + cnt("claim format"), cnt("refusal"), cnt("slow"),
            "%.1f" % st["all_sizes_s"] if st["all_sizes_s"] is not None else "-"))
    print()
    # One entry per (category, program, kernel, site, figure): the sizes at
    # which it shows and up to three examples with their commands.
    groups = {}
    for f in findings:
        groups.setdefault((f["category"], f["program"], f["kernel"], f["site"], f.get("figure", "")), []).append(f)
    for (cat, prog, kernel, site, fig), fs in groups.items():
        print("[%s] %s kernel %s, %s%s: %d case%s" % (cat, prog, kernel, site, " " + fig if fig else "",
                                                    len(fs), "" if len(fs) == 1 else "s"))
        for f in fs[:3]:
            print("    %s\n      $ %s" % (f["detail"], f["command"]))
        if len(fs) > 3:
            print("    ... and at %s" % "; ".join(f.get("sizes", "?") for f in fs[3:]))
    print("\n%d findings (%s) in %.0f s" % (
        len(findings), ", ".join("%d %s" % (sum(1 for f in findings if f["category"] == c), c)
                                 for c in ("fixed", "false claim", "claim format", "refusal", "slow")),
        time.monotonic() - start))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(findings, fh, indent=1)
    # Known findings, each with why it is not fixed yet: reported, not
    # failed; a known one that no longer shows fails, so the list stays true.
    known = json.load(open(a.known)) if a.known and os.path.exists(a.known) else []
    failing, gone = [], []
    for k in known:
        if not any(f["category"] == k["category"] and f["program"] == k["program"] for f in findings):
            gone.append(k)
    for f in findings:
        k = next((k for k in known if f["category"] == k["category"] and f["program"] == k["program"]), None)
        if k is not None:
            print("known: [%s] %s: %s" % (f["category"], f["program"], k["why"]))
        elif f["category"] == "slow" and not a.fail_slow:
            print("slow (a benchmark figure, not a failure): %s: %s" % (f["program"], f["detail"]))
        else:
            failing.append(f)
    for k in gone:
        print("known finding no longer seen, remove it from %s: [%s] %s" % (a.known, k["category"], k["program"]))
    print("%d findings fail the check, %d known ones no longer seen" % (len(failing), len(gone)))
    return 1 if failing or gone else 0


if __name__ == "__main__":
    sys.exit(main())
