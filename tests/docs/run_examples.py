#!/usr/bin/env python3
"""Runs the examples of a Markdown page and compares their output.

In each ```console block, a line "$ bankwise ARGS" (or "$ cp A B") is a
command, run with the built binary in a scratch directory that links the
repository's samples/, tests/ and docs/ (so examples may write files); the
lines after it, up to the next "$ " line or the end of the block, are its
expected stdout, exactly, with the scratch directory's path removed from
the output; a line "..." stands for any number of lines. Exit code 1 on any
difference (printed as a diff), 2 on bad usage or a page without examples,
so a page that lost its examples fails too.

    run_examples.py BANKWISE REPO_ROOT PAGE.md...
"""
import difflib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile


def matches(expected, got):
    """expected with "..." lines matching any run of lines, against got."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


def examples(path):
    out, block, cmd, expected = [], False, None, []
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if block and cmd:
                out.append((cmd, expected))
            block, cmd, expected = line.strip() == "```console", None, []
            continue
        if not block:
            continue
        if line.startswith("$ "):
            if cmd:
                out.append((cmd, expected))
            cmd, expected = (no, line[2:]), []
        elif cmd:
            expected.append(line)
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    bankwise, root, pages = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    failed = 0
    for page in pages:
        scratch = tempfile.mkdtemp(prefix="bankwise-docs-")
        for d in ("samples", "tests", "docs"):
            os.symlink(os.path.join(root, d), os.path.join(scratch, d))
        found = examples(page)
        if not found:
            print(f"{page}: no ```console examples", file=sys.stderr)
            return 2
        for (no, text), expected in found:
            args = shlex.split(text)
            if args[0] == "bankwise":
                args[0] = bankwise
            elif args[0] != "cp":
                print(f"{page}:{no}: an example runs bankwise or cp: {text}", file=sys.stderr)
                return 2
            r = subprocess.run(args, cwd=scratch, capture_output=True, text=True, timeout=300)
            out = r.stdout.replace(scratch + "/", "").replace(root + "/", "")
            got = out.rstrip("\n").split("\n") if out.strip() else []
            if not matches(expected, got) or r.returncode != 0:
                failed += 1
                print(f"{page}:{no}: `{text}` (exit {r.returncode}) differs from the page:")
                sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(expected, got, "page", "tool", lineterm=""))
                if r.stderr:
                    print(r.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
        print(f"{page}: {len(found)} examples run")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
