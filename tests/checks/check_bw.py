#!/usr/bin/env python3
"""Runs the correctness checks on one annotated .bw file, the way
tests/lint/check_lint.py runs the lint on CUDA.

Every diagnostic that names a check (`... [bankwise-shared-race]`) must be
announced in the file by a comment, and every announcement must be met:

    s[tx] = a[tid]  # CHECK: error: data race on shared 's': ... [bankwise-shared-race]

An annotation on a line of its own applies to the next line that holds code
(several may stack up). The text after `CHECK:` is the severity, message and
check exactly as printed; notes are matched by `# CHECK-NOTE: TEXT`, which
must be a substring of some note printed. `# RUN-ARGS: -D N=100` adds
arguments to both commands.

The file is run through `bankwise analyze` (the diagnostics on stderr, exit
2 when one is an error) and `bankwise compile` (exit 2 and no output when
one is an error; exit 0 and the .cu written otherwise).

    check_bw.py BANKWISE FILE.bw TMPDIR
"""
import os
import re
import subprocess
import sys

DIAG = re.compile(r"^(.*?):(\d+):(\d+): (warning|note|error): (.*) \[(bankwise-[a-z0-9-]+)\]$")
NOTE = re.compile(r"^(.*?):(\d+):(\d+): note: (.*)$")
ANNOT = re.compile(r"#\s*CHECK:\s*(.*?)\s*$")


def expectations(path):
    expected, pending, notes, args = [], [], [], []
    for number, line in enumerate(open(path, encoding="utf-8"), start=1):
        code, _, comment = line.partition("#")
        comment = "#" + comment if comment else ""
        if m := re.search(r"#\s*RUN-ARGS:\s*(.*)$", line):
            args += m.group(1).split()
            continue
        if m := re.search(r"#\s*CHECK-NOTE:\s*(.*?)\s*$", line):
            notes.append(m.group(1))
            continue
        m = ANNOT.search(comment)
        if code.strip():
            for text in pending:
                expected.append((number, text))
            pending = []
            if m:
                expected.append((number, m.group(1)))
        elif m:
            pending.append(m.group(1))
    if pending:
        sys.exit(f"{path}: CHECK annotations at the end of the file apply to no line")
    return expected, notes, args


def diagnostics(stderr, path):
    got, notes = [], []
    for line in stderr.splitlines():
        if m := DIAG.match(line):
            if os.path.basename(m.group(1)) == os.path.basename(path):
                got.append((int(m.group(2)), f"{m.group(4)}: {m.group(5)} [{m.group(6)}]"))
        elif m := NOTE.match(line):
            notes.append(m.group(4))
    return got, notes


def main():
    bankwise, path, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    expected, want_notes, args = expectations(path)
    errors = any(text.startswith("error:") for _, text in expected)
    problems = []
    run = subprocess.run([bankwise, "analyze", path, *args], capture_output=True, text=True, timeout=300)
    got, notes = diagnostics(run.stderr, path)
    remaining = list(got)
    for want in expected:
        if want in remaining:
            remaining.remove(want)
        else:
            problems.append(f"{path}:{want[0]}: expected diagnostic not produced:\n    {want[1]}")
    for extra in remaining:
        problems.append(f"{path}:{extra[0]}: diagnostic not announced:\n    {extra[1]}")
    for note in want_notes:
        if not any(note in n for n in notes):
            problems.append(f"{path}: expected note not produced:\n    {note}")
    if run.returncode != (2 if errors else 0):
        problems.append(f"analyze exit code {run.returncode}, expected {2 if errors else 0}")
    # The check's folder in the name: two checks may each have an atomics.bw,
    # and ctest -j runs them side by side.
    out = os.path.join(tmp, os.path.basename(os.path.dirname(os.path.abspath(path))) + "." +
                       os.path.basename(path) + ".cu")
    if os.path.exists(out):
        os.remove(out)
    comp = subprocess.run([bankwise, "compile", path, "-o", out, *args], capture_output=True, text=True,
                          timeout=300)
    comp_got, _ = diagnostics(comp.stderr, path)
    if sorted(comp_got) != sorted(got):
        problems.append("compile's diagnostics differ from analyze's:\n" + comp.stderr)
    if comp.returncode != (2 if errors else 0):
        problems.append(f"compile exit code {comp.returncode}, expected {2 if errors else 0}\n{comp.stderr}")
    if os.path.exists(out) == errors:
        problems.append(f"compile {'wrote' if errors else 'did not write'} {out}")
    if problems:
        print("\n".join(problems))
        print("--- analyze stderr ---\n" + run.stderr)
        return 1
    print(f"{path}: {len(expected)} diagnostics and {len(want_notes)} notes as announced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
