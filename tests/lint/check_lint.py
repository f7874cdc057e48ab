#!/usr/bin/env python3
"""Runs `bankwise lint` on one annotated .cu file, clang-tidy's way.

Every diagnostic that names a check (`... [bankwise-bank-conflict]`, also
`[bankwise-unanalyzed]` and `[clang-diagnostic-error]`) must be announced in
the file by a comment, and every announcement must be met:

    x = tile[tx][ty];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]

An annotation on a line of its own applies to the next line that holds code
(several may stack up). The text after `CHECK:` is the diagnostic's
severity, message and check exactly as printed. `// REQUESTS: N`, placed
the same way, announces the warp requests the JSON report counts over the
whole launch at that line's sites, summed (what Nsight Compute counts at
the launch's own sizes; `-1` where they are figured over every size; words
after N are a comment). Notes attached to a warning (no check name) are not
matched. `// RUN-ARGS: --block 32,8` adds lint
arguments; `// EXIT: 1` sets the expected exit code (default 0). A header
the file includes by a quoted name from its own folder (`#include
"kernels.cuh"`) is read for annotations the same way: its diagnostics are
announced in it.

Beyond the annotations, every file is held to what any input must give
(issue [10]): an answer within TIME_LIMIT seconds (`// TIME-LIMIT: N`
changes it), no crash (an exit code of 0, 1 or 2, never a signal), every
diagnostic with a location (`file:line:col:`), nothing on stderr (the
text report holds every diagnostic), and with `// EXIT: 2` (a file that
is not valid CUDA) at least one located error in the file itself. The file is linted a second time with `--format json`: the output
must be one complete JSON document, with the same exit code and the same
diagnostics as the text. Files are read as bytes, so a file that is not
UTF-8 is a test like any other.

    check_lint.py BANKWISE FILE.cu
"""
import json
import os
import re
import subprocess
import sys

DIAG = re.compile(r"^(.*?):(\d+):(\d+): (warning|note|error): (.*) \[([a-z0-9-]+)\]$")
# A diagnostic line of any shape, located or not ("file: error: ... [check]").
ANY_DIAG = re.compile(r"^(.*?): (warning|error): (.*) \[([a-z0-9-]+)\]$")
ANNOT = re.compile(r"//\s*(CHECK|REQUESTS):\s*(.*?)\s*$")
TIME_LIMIT = 60


def annotation(m):
    """A CHECK's diagnostic text, or "requests: N"."""
    return m.group(2) if m.group(1) == "CHECK" else f"requests: {m.group(2)}"


def expectations(path, seen=None):
    """([(real path, line, text)], args, exit code, time limit) of path and
    the local headers it includes."""
    seen = set() if seen is None else seen
    seen.add(os.path.realpath(path))
    expected, pending, args, exit_code, limit = [], [], [], 0, TIME_LIMIT
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="surrogateescape")
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        header = os.path.join(os.path.dirname(path), name)
        if os.path.isfile(header) and os.path.realpath(header) not in seen:
            expected += expectations(header, seen)[0]
    # Lines as Clang counts them (str.splitlines would also break at \f,
    # \x1c and the like, which a binary file holds).
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        code, _, comment = line.partition("//")
        comment = "//" + comment if comment else ""
        if m := re.search(r"//\s*RUN-ARGS:\s*(.*)$", line):
            args += m.group(1).split()
            continue
        if m := re.search(r"//\s*EXIT:\s*(\d+)", line):
            exit_code = int(m.group(1))
            continue
        if m := re.search(r"//\s*TIME-LIMIT:\s*(\d+)", line):
            limit = int(m.group(1))
            continue
        m = ANNOT.search(comment)
        if code.strip():
            target = number
            for text_ in pending:
                expected.append((os.path.realpath(path), target, text_))
            pending = []
            if m:
                expected.append((os.path.realpath(path), number, annotation(m)))
        elif m:
            pending.append(annotation(m))
    if pending:
        sys.exit(f"{path}: CHECK annotations at the end of the file apply to no line")
    return expected, args, exit_code, limit


def lint(bankwise, path, args, limit):
    """(exit code, stdout, stderr) of one run, or a problem in words."""
    try:
        run = subprocess.run([bankwise, "lint", path, *args], capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, f"no answer in {limit} s (a hang, or unbounded work): {' '.join(['lint', path, *args])}"
    out = run.stdout.decode("utf-8", errors="surrogateescape")
    err = run.stderr.decode("utf-8", errors="surrogateescape")
    if run.returncode < 0 or run.returncode > 2:
        return None, f"crashed (exit {run.returncode}) on {' '.join(['lint', path, *args])}\n{err[-3000:]}"
    return (run.returncode, out, err), None


def main():
    bankwise, path = sys.argv[1], sys.argv[2]
    expected, args, want_exit, limit = expectations(path)
    requests = [(f, l, int(t.split(": ", 1)[1].split()[0])) for f, l, t in expected if t.startswith("requests: ")]
    expected = [e for e in expected if not e[2].startswith("requests: ")]
    result, failure = lint(bankwise, path, args, limit)
    if failure:
        print(f"{path}: {failure}")
        return 1
    code, out, err = result
    got, problems = [], []
    lines = out.splitlines()
    # A diagnostic's source line, echoed above its caret, is not a diagnostic
    # (it may hold a trailing CHECK annotation).
    echoed = {i for i in range(len(lines) - 1) if re.fullmatch(r"[ \t]*\^", lines[i + 1])}
    for i, line in enumerate(lines):
        if i in echoed:
            continue
        if m := DIAG.match(line):
            file, lno, col, sev, msg, check = m.groups()
            got.append((os.path.realpath(file), int(lno), f"{sev}: {msg} [{check}]"))
            if sev == "error" and (int(lno) < 1 or int(col) < 1):
                problems.append(f"an error without a line and column:\n    {line}")
        elif ANY_DIAG.match(line):
            problems.append(f"a diagnostic without a location (file:line:col):\n    {line}")
    remaining = list(got)
    for want in expected:
        if want in remaining:
            remaining.remove(want)
        else:
            problems.append(f"{want[0]}:{want[1]}: expected diagnostic not produced:\n    {want[2]}")
    for extra in remaining:
        problems.append(f"{extra[0]}:{extra[1]}: diagnostic not announced:\n    {extra[2]}")
    if code != want_exit:
        problems.append(f"exit code {code}, expected {want_exit}\n{err}")
    if err:  # text prints everything, errors included, as diagnostics on stdout
        problems.append(f"the text run wrote to stderr:\n{err[-2000:]}")
    if want_exit == 2:
        located = [l for i, l in enumerate(lines)
                   if i not in echoed and (m := DIAG.match(l)) and m.group(4) == "error"
                   and os.path.realpath(m.group(1)) == os.path.realpath(path)]
        if not located:
            problems.append("exit code 2 without a located error in the file (file:line:col: error: ...)")

    # The same run as JSON: one complete document, the same findings.
    result, failure = lint(bankwise, path, [*args, "--format", "json"], limit)
    if failure:
        problems.append(f"--format json: {failure}")
    else:
        jcode, jout, jerr = result
        if jcode != code:
            problems.append(f"--format json: exit code {jcode}, the text run's was {code}\n{jerr}")
        try:
            doc = json.loads(jout)
            jgot = [(os.path.realpath(d["file"]), d["line"], f"{d['severity']}: {d['message']} [{d['check']}]")
                    for f in doc["files"] for d in f["diagnostics"]]
            for file, lno, want in requests:
                sites = [s for f in doc["files"] for k in f["kernels"] for s in k["sites"]
                         if (m := re.match(r"^(.*):(\d+):\d+$", s["location"]))
                         and os.path.realpath(m.group(1)) == file and int(m.group(2)) == lno]
                have = sum(s.get("requests", -1) for s in sites) if all(s.get("requests", -1) >= 0 for s in sites) else -1
                if not sites or have != want:
                    problems.append(f"{file}:{lno}: {want} requests announced, the JSON report counts "
                                    f"{have if sites else 'no site'}")
            if sorted(jgot) != sorted(got):
                problems.append("--format json: the diagnostics differ from the text's:\n    "
                                + "\n    ".join(map(str, sorted(set(jgot) ^ set(got)))))
        except (ValueError, KeyError, TypeError) as e:
            problems.append(f"--format json: not one complete report ({e}):\n{jout[-500:]}")

    if problems:
        print("\n".join(problems))
        print("--- lint output ---\n" + out + err)
        return 1
    print(f"{path}: {len(expected)} diagnostics and {len(requests)} request counts as announced, exit {code}; JSON agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
