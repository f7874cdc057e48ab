#!/usr/bin/env python3
"""Runs `bankwise lint` on one annotated .cu file, clang-tidy's way.

Every diagnostic that names a check (`... [bankwise-bank-conflict]`, also
`[bankwise-unanalyzed]` and `[clang-diagnostic-error]`) must be announced in
the file by a comment, and every announcement must be met:

    x = tile[tx][ty];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]

An annotation on a line of its own applies to the next line that holds code
(several may stack up). The text after `CHECK:` is the diagnostic's
severity, message and check exactly as printed. Notes attached to a warning
(no check name) are not matched. `// RUN-ARGS: --block 32,8` adds lint
arguments; `// EXIT: 1` sets the expected exit code (default 0).

    check_lint.py BANKWISE FILE.cu
"""
import re
import subprocess
import sys

DIAG = re.compile(r"^(.*?):(\d+):(\d+): (warning|note|error): (.*) \[([a-z0-9-]+)\]$")
ANNOT = re.compile(r"//\s*CHECK:\s*(.*?)\s*$")


def expectations(path):
    expected, pending, args, exit_code = [], [], [], 0
    for number, line in enumerate(open(path, encoding="utf-8"), start=1):
        code, _, comment = line.partition("//")
        comment = "//" + comment if comment else ""
        if m := re.search(r"//\s*RUN-ARGS:\s*(.*)$", line):
            args += m.group(1).split()
            continue
        if m := re.search(r"//\s*EXIT:\s*(\d+)", line):
            exit_code = int(m.group(1))
            continue
        m = ANNOT.search(comment)
        if code.strip():
            target = number
            for text in pending:
                expected.append((target, text))
            pending = []
            if m:
                expected.append((number, m.group(1)))
        elif m:
            pending.append(m.group(1))
    if pending:
        sys.exit(f"{path}: CHECK annotations at the end of the file apply to no line")
    return expected, args, exit_code


def main():
    bankwise, path = sys.argv[1], sys.argv[2]
    expected, args, want_exit = expectations(path)
    run = subprocess.run([bankwise, "lint", path, *args], capture_output=True, text=True, timeout=120)
    got = []
    for line in run.stdout.splitlines():
        if m := DIAG.match(line):
            file, lno, _col, sev, msg, check = m.groups()
            got.append((int(lno), f"{sev}: {msg} [{check}]"))
    problems = []
    remaining = list(got)
    for want in expected:
        if want in remaining:
            remaining.remove(want)
        else:
            problems.append(f"{path}:{want[0]}: expected diagnostic not produced:\n    {want[1]}")
    for extra in remaining:
        problems.append(f"{path}:{extra[0]}: diagnostic not announced:\n    {extra[1]}")
    if run.returncode != want_exit:
        problems.append(f"exit code {run.returncode}, expected {want_exit}\n{run.stderr}")
    if problems:
        print("\n".join(problems))
        print("--- lint output ---\n" + run.stdout + run.stderr)
        return 1
    print(f"{path}: {len(expected)} diagnostics as announced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
