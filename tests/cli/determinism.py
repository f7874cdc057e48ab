#!/usr/bin/env python3
"""Same inputs, same bytes (issue [10] item 5): runs one bankwise command
four times, each in a directory of its own: with 1 thread (--threads 1), 2
(BANKWISE_THREADS=2), and 8 twice (--threads 8, then BANKWISE_THREADS=8: a
repeat where races would show most), and compares every output byte for
byte with the first run's: stdout, the exit code, every file the command
wrote, and stderr. (It used to run each count both ways: six runs, half
as much time again, for no code path these four leave out.)

One line of stderr legitimately differs between runs: the note giving the
wall time of an offline schedule ("took 1.23 s of wall time", and the runs
that repay it, which are computed from that time). In it the two numbers
are masked; everything else is compared as it is.

    determinism.py BANKWISE WORK_DIR NAME EXIT -- ARG...

ARG... is the command (without the program), run in the run's directory:
a relative output path lands there. NAME names the work directory; EXIT is
the exit code every run must give.
"""
import os
import re
import shutil
import subprocess
import sys

# (threads, given through BANKWISE_THREADS rather than --threads)
RUNS = ((1, False), (2, True), (8, False), (8, True))
TIMING = re.compile(rb"took [0-9.]+ s of wall time( \(once per P\))?(; repaid after [0-9]+ runs)?")
TIME_LIMIT = 900


def masked(stderr):
    return TIMING.sub(lambda m: b"took <s> s of wall time" + (m.group(1) or b"") +
                      (b"; repaid after <n> runs" if m.group(2) else b""), stderr)


def outputs(bankwise, directory, args, threads, by_env):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    env = dict(os.environ)
    env.pop("BANKWISE_THREADS", None)
    if by_env:
        env["BANKWISE_THREADS"] = str(threads)
        cmd = [bankwise, *args]
    else:
        cmd = [bankwise, *args, "--threads", str(threads)]
    run = subprocess.run(cmd, cwd=directory, capture_output=True, env=env, timeout=TIME_LIMIT)
    out = {"exit code": str(run.returncode).encode(), "stdout": run.stdout, "stderr": masked(run.stderr)}
    for root, _, files in os.walk(directory):
        for f in sorted(files):
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                out["file " + os.path.relpath(path, directory)] = fh.read()
    return out


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb), start=1):
        if x != y:
            return f"line {i}:\n    {x[:300]!r}\n    {y[:300]!r}"
    return f"line {min(len(la), len(lb)) + 1}: one ends ({len(la)} against {len(lb)} lines)"


def main():
    bankwise, work, name, want_exit = sys.argv[1:5]
    assert sys.argv[5] == "--"
    args = sys.argv[6:]
    reference, ref_label, problems = None, None, []
    for threads, by_env in RUNS:
        label = f"{threads} thread{'s' if threads > 1 else ''} ({'BANKWISE_THREADS' if by_env else '--threads'})"
        got = outputs(bankwise, os.path.join(work, name, f"t{threads}{'e' if by_env else ''}"), args, threads,
                      by_env)
        if reference is None:
            reference, ref_label = got, label
            if got["exit code"] != want_exit.encode():
                problems.append(f"exit code {got['exit code'].decode()}, expected {want_exit}, with {label}:\n"
                                + got["stderr"].decode(errors="replace")[-2000:])
            continue
        for key in sorted(set(reference) | set(got)):
            if key not in got or key not in reference:
                problems.append(f"{key}: written with {ref_label if key in reference else label} only")
            elif got[key] != reference[key]:
                problems.append(f"{key} differs between {ref_label} and {label}, first at "
                                + first_difference(reference[key], got[key]))
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{name}: {len(reference)} outputs byte-identical over {len(RUNS)} runs "
          f"({', '.join(str(t) + (' by environment' if e else ' by option') for t, e in RUNS)} threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
