#!/usr/bin/env python3
"""End-to-end checks of `bankwise lint` beyond the annotated corpus:
--emit-bw output that `bankwise analyze` accepts, exit codes (0, 1 with
--werror, 2 for a file Clang cannot read), the JSON report, the SARIF 2.1.0
report's required structure, and --fix.

The official SARIF 2.1.0 JSON schema is not available offline, so SARIF is
checked against SARIF_SUBSET below: the properties the OASIS standard
requires of a log, run, tool, result, location and region (sections 3.13,
3.14, 3.18, 3.19, 3.27, 3.28, 3.29, 3.30), with jsonschema when it is
installed and by hand otherwise.

    cli_checks.py BANKWISE SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

BW, SRC, WORK = sys.argv[1:4]
FAILS = []


def run(*args, **kw):
    return subprocess.run([BW, *args], capture_output=True, text=True, timeout=120, **kw)


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)
    else:
        print("ok:", what)


transpose = os.path.join(SRC, "tests/lint/bank-conflict/transpose.cu")
os.makedirs(WORK, exist_ok=True)

# --emit-bw: a .bw program analyze reads, with the conflict the lint saw.
r = run("lint", transpose, "--emit-bw")
check(r.returncode == 0 and "kernel transpose_naive" in r.stdout, "--emit-bw prints the kernels")
bw = os.path.join(WORK, "transpose.bw")
open(bw, "w").write(r.stdout)
a = run("analyze", bw, "-D", "n=4096", "--json")
check(a.returncode == 0, f"analyze accepts the emitted program ({a.stderr.strip()[:300]})")
if a.returncode == 0:
    rep = json.loads(a.stdout)
    naive = [k for k in rep["kernels"] if k["kernel"] == "transpose_naive"][0]
    waves = [s["sm90_wavefronts"]["max"] for s in naive["sites"] if s["space"] == "shared"]
    check(max(waves) == 32, "analyze of the emitted program finds the 32-way read")

# Exit codes.
check(run("lint", transpose).returncode == 0, "findings without --werror: exit 0")
check(run("lint", transpose, "--werror").returncode == 1, "findings with --werror: exit 1")
clean = os.path.join(SRC, "tests/lint/bank-conflict/matmul.cu")
check(run("lint", clean, "--werror").returncode == 0, "a clean file with --werror: exit 0")
missing = run("lint", os.path.join(WORK, "no-such-file.cu"))
check(missing.returncode == 2 and "cannot open CUDA file" in missing.stdout + missing.stderr,
      "a file Clang cannot read: a clear error and exit 2")
check(run("lint", transpose, "--block", "32,x").returncode == 2, "a malformed --block: exit 2")

# JSON: every kernel, every diagnostic with its check.
j = json.loads(run("lint", transpose, "--format", "json").stdout)
f = j["files"][0]
check([k["name"] for k in f["kernels"]] ==
      ["transpose_naive", "transpose_padded", "transpose_diagonal", "transpose_swizzled"], "JSON lists the kernels")
warn = [d for d in f["diagnostics"] if d["severity"] == "warning"]
check(len(warn) == 1 and warn[0]["check"] == "bankwise-bank-conflict" and warn[0]["line"] == 19,
      "JSON has the one warning, located")

# SARIF 2.1.0.
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {
                    "driver": {"type": "object", "required": ["name"], "properties": {
                        "name": {"type": "string"},
                        "rules": {"type": "array", "items": {"type": "object", "required": ["id"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "items": {"$ref": "#/$defs/location"}},
                        "relatedLocations": {"type": "array", "items": {"$ref": "#/$defs/location"}}}}}}}}},
    "$defs": {"location": {"type": "object", "properties": {
        "id": {"type": "integer", "minimum": -1},
        "message": {"type": "object", "required": ["text"]},
        "physicalLocation": {"type": "object", "required": ["artifactLocation"], "properties": {
            "artifactLocation": {"type": "object", "properties": {"uri": {"type": "string"}}},
            "region": {"type": "object", "properties": {
                "startLine": {"type": "integer", "minimum": 1},
                "startColumn": {"type": "integer", "minimum": 1}}}}}}}},
}
s = json.loads(run("lint", transpose, "--format", "sarif").stdout)
try:
    import jsonschema
    try:
        jsonschema.validate(s, SARIF_SUBSET)
        check(True, "SARIF validates against the 2.1.0 subset schema")
    except jsonschema.ValidationError as e:
        check(False, f"SARIF validates against the 2.1.0 subset schema: {e.message}")
except ImportError:
    check(s.get("version") == "2.1.0" and s["runs"][0]["tool"]["driver"]["name"] == "bankwise",
          "SARIF has version and tool (jsonschema not installed)")
res = s["runs"][0]["results"]
rules = s["runs"][0]["tool"]["driver"]["rules"]
check(all(rules[x["ruleIndex"]]["id"] == x["ruleId"] for x in res), "SARIF ruleIndex points at ruleId")
check(any(x["level"] == "warning" and x["locations"][0]["physicalLocation"]["region"]["startLine"] == 19
          for x in res), "SARIF has the warning at line 19")

# --fix: pads the literal tile; the conflict is gone afterwards; again is a no-op.
fixable = os.path.join(WORK, "fixable.cu")
shutil.copy(os.path.join(SRC, "tests/lint/cli/fixable.cu"), fixable)
r = run("lint", fixable, "--fix")
text = open(fixable).read()
check("__shared__ float tile[32][33];" in text, "--fix pads the tile to 33")
check(run("lint", fixable, "--werror").returncode == 0, "after --fix the file is clean")
before = open(fixable).read()
run("lint", fixable, "--fix")
check(open(fixable).read() == before, "--fix again changes nothing")
# A size spelled with a macro or a constant is rewritten where the array
# declares it (`[TILE]` -> `[TILE + 1]`): that array alone changes.
macro = os.path.join(WORK, "macro.cu")
shutil.copy(transpose, macro)
r = run("lint", macro, "--fix")
after, orig = open(macro).read(), open(transpose).read()
check(after.count("__shared__ float tile[TILE][TILE + 1];") == 2 and
      orig.count("__shared__ float tile[TILE][TILE + 1];") == 1 and
      after.count("__shared__ float tile[TILE][TILE];") == orig.count("__shared__ float tile[TILE][TILE];") - 1,
      "--fix pads the naive kernel's macro-sized tile only")
check("padded 'tile' [TILE] -> [TILE + 1]" in r.stdout, "--fix says what it padded")
check("bank-conflict" not in run("lint", macro).stdout, "after --fix the macro-sized file has no bank conflict")
first = os.path.join(WORK, "first_fix.cu")
shutil.copy(os.path.join(SRC, "samples/first_fix/transpose.cu"), first)
run("lint", first, "--fix")
check("__shared__ float tile[TILE][TILE + 1];" in open(first).read(), "--fix pads a tile sized by a constexpr")
# A template's size has one text and several values: left alone, with the reason.
templ = os.path.join(WORK, "template_tile.cu")
open(templ, "w").write("""template <int T>
__global__ void tr(const float *in, float *out, int n) {
  __shared__ float tile[T][T];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * n + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
void go(const float *in, float *out, int n) { tr<32><<<1, dim3(32, 32)>>>(in, out, n); }
""")
before = open(templ).read()
r = run("lint", templ, "--fix")
check(open(templ).read() == before and "depends on a template parameter" in r.stdout,
      "--fix leaves a template-sized tile alone and says why")
# A declaration a macro writes is left alone, with the reason.
decl = os.path.join(WORK, "macro_decl.cu")
open(decl, "w").write(before.replace("template <int T>\n", "").replace("tr<32>", "tr")
                      .replace("__shared__ float tile[T][T];", "DECL(tile);")
                      .replace("__global__", "#define DECL(name) __shared__ float name[32][32]\n__global__", 1))
before = open(decl).read()
r = run("lint", decl, "--fix")
check(open(decl).read() == before and "not written in the file's own text" in r.stdout,
      "--fix leaves a tile a macro declares alone and says why")

# --fix never rewrites a file Clang reports errors in: what it means is
# not known (the same tile, with a host error added).
broken = os.path.join(WORK, "fixable_broken.cu")
open(broken, "w").write(open(os.path.join(SRC, "tests/lint/cli/fixable.cu")).read()
                        + "\nint host_side() { return undeclared_name; }\n")
before = open(broken).read()
r = run("lint", broken, "--fix")
check(r.returncode == 2 and open(broken).read() == before, "--fix leaves a file with errors alone (exit 2)")

# Exit 2 for a file that is not valid CUDA, in every format, with its
# errors located on stderr where stdout is JSON or SARIF (which stay whole).
bad = os.path.join(SRC, "tests/lint/robustness/broken_syntax.cu")
for fmt in ("json", "sarif"):
    r = run("lint", bad, "--format", fmt)
    try:
        json.loads(r.stdout)
        whole = True
    except ValueError:
        whole = False
    check(r.returncode == 2 and whole and "broken_syntax.cu:9:48: error: expected ';'" in r.stderr,
          f"--format {fmt}: a broken file is exit 2, the report whole, the error on stderr")

# A path that is not UTF-8 (Linux allows any bytes): JSON and SARIF with
# U+FFFD in it, not an uncaught exception (they once aborted).
latin1 = os.path.join(WORK, os.fsdecode(b"caf\xe9.cu"))
shutil.copy(transpose, latin1)
for fmt in ("json", "sarif"):
    r = subprocess.run([BW, "lint", latin1, "--format", fmt], capture_output=True, timeout=120)
    try:
        ok = r.returncode == 0 and "caf\ufffd.cu" in json.dumps(json.loads(r.stdout), ensure_ascii=False)
    except ValueError:
        ok = False
    check(ok, f"--format {fmt} of a file whose name is not UTF-8")

# Many files at once, broken ones among them: each file's report in order,
# whatever the number of threads, and exit 2.
files = [os.path.join(SRC, "tests/lint", f) for f in
         ("robustness/empty.cu", "bank-conflict/transpose.cu", "robustness/broken_not_cuda.cu",
          "uncoalesced/strides.cu", "robustness/broken_binary.cu")]
outs = [run("lint", *files, "--format", "json", "--threads", str(t)) for t in (1, 3)]
check(all(o.returncode == 2 for o in outs) and outs[0].stdout == outs[1].stdout and
      [f["file"] for f in json.loads(outs[0].stdout)["files"]] == files,
      "several files, broken ones among them: every report, in order, exit 2")

# --html: one page beside the text report, the 32-way read of the tile drawn
# as written (32 lanes in one bank) and under each fix, no script, nothing
# fetched; a path that cannot be written is exit 2 and no file.
page = os.path.join(WORK, "lint.html")
r = run("lint", transpose, "--html", page)
html = open(page, encoding="utf-8").read() if os.path.exists(page) else ""
check(r.returncode == 0 and "32-way bank conflict" in r.stdout and html.startswith("<!DOCTYPE html>") and
      html.count('class="bank-map"') >= 3 and "fix: pad the inner dimension to 33" in html and
      'data-bank="0" data-turn="32"' in html and "<script" not in html and not os.path.exists(page + ".tmp"),
      "--html writes the page: the 32-way warp as written and under the fixes")
# n is a runtime size: each site's histogram is over n's 32 residue classes,
# the worst warp of each. The global read and write cost 5 sectors unless
# n % 8 == 0 (28 classes of 32); the naive tile read 32 wavefronts at its one.
check(html.count("<figcaption>the worst warp&#39;s sectors at each size: 32 size classes: n mod 32") == 8 and
      html.count('data-cost="5" data-count="28"') == 8 and html.count('data-cost="4" data-count="4"') == 8 and
      html.count('data-cost="32" data-count="1"') == 1,
      "--html over all sizes: a histogram of the worst warp at each of n's classes")
r = run("lint", transpose, "--html", os.path.join(WORK, "no-such-dir", "lint.html"))
check(r.returncode == 2 and "cannot write" in r.stderr and not os.path.exists(os.path.join(WORK, "no-such-dir")),
      "--html to a path that cannot be written: exit 2, no file")

# 16-byte shared accesses: the fixes the lint offers for a float4 tile's
# column read are priced by the measured quarter-warp rule (each quarter's 8
# lanes in 8 bank groups: 4 wavefronts, the ideal), and the GEMM fragment
# read is 4-way (16 wavefronts).
quarter = os.path.join(SRC, "tests/lint/bank-conflict/quarter.cu")
r = run("lint", quarter)
check(r.returncode == 0 and "4-way bank conflict on shared load from 's4' (16 wavefronts per request" in r.stdout and
      "note: pad the inner dimension to 9: 4 wavefronts per request (conflict-free)" in r.stdout and
      "note: XOR swizzle: index [r][c ^ (r % 8)]: 4 wavefronts per request (conflict-free)" in r.stdout,
      "16-byte accesses: the quarter-warp figure and the fixes' figures")

# Host-only function bodies of system headers are skipped (thrust's host
# templates were most of a thrust file's time): the vendor header's host
# bodies do not even name declared functions, yet the file lints without
# error, and its device function's stride still gives the 2-way conflict.
# (.cuda: not a corpus file, nvcc would reject the header's host bodies.)
vendor = os.path.join(SRC, "tests/lint/cli/sysheader/uses_vendorlib.cuda")
sysinc = ["--", "-isystem", os.path.join(SRC, "tests/lint/cli/sysheader")]
r = run("lint", vendor, *sysinc)
check(r.returncode == 0 and "2-way bank conflict on shared store to 's'" in r.stdout and "error" not in r.stdout,
      "a system header's host bodies are skipped, its device functions read")
# The same header as a user header (-I): its host bodies are parsed, and
# Clang's errors in them make exit 2.
r = run("lint", vendor, "--", "-I", os.path.join(SRC, "tests/lint/cli/sysheader"))
check(r.returncode == 2 and "vendor_undeclared_helper" in r.stdout + r.stderr,
      "a user header's host bodies are parsed")

# Each kernel's figures are its own when the kernels are lowered in another
# order than they are listed in (two headers whose kernels' lines run the
# other way, a template): the list was once sorted by line alone and paired
# with the IR's kernels by position, so a kernel got another's sites.
r = run("lint", os.path.join(SRC, "tests/lint/cli/order/order.cuda"), "--format", "json")
arrays = {k["name"]: sorted({s["array"] for s in k["sites"]}) for k in json.loads(r.stdout)["files"][0]["kernels"]}
check(arrays == {"from_header": ["h", "hs"], "from_second_header": ["c"], "templ<4>": ["t"], "plain": ["d"]},
      f"each kernel's sites are its own, whatever order the kernels were lowered in ({arrays})")

# --timing: where each file's time went, on stderr; the report is unchanged.
plain = run("lint", transpose, "--format", "json")
timed = run("lint", transpose, "--format", "json", "--timing")
lines = [l for l in timed.stderr.splitlines() if l.startswith("timing:")]
check(timed.returncode == plain.returncode == 0 and timed.stdout == plain.stdout and len(lines) >= 2 and
      "Clang" in lines[0] and "lowering" in lines[0] and "kernels" in lines[0] and
      any("transpose_naive" in l for l in lines[1:]),
      "--timing prints Clang, lowering and each kernel's seconds to stderr, the report unchanged")

# A whole project (issue [13] item 5): -p with no file lints every .cu
# file of compile_commands.json, in parallel, with a summary and one SARIF
# log; exit 1 on any warning, 2 when any file fails.
proj = os.path.join(WORK, "project")
os.makedirs(proj, exist_ok=True)
entries = [{"directory": os.path.join(SRC, "tests/lint"), "file": "bank-conflict/transpose.cu",
            "command": "nvcc -c bank-conflict/transpose.cu"},
           {"directory": SRC, "file": clean, "command": "nvcc -c " + clean},
           {"directory": SRC, "file": clean, "command": "nvcc -c -O3 " + clean},  # the same file twice: once
           {"directory": SRC, "file": "host.cpp", "command": "c++ -c host.cpp"}]  # not CUDA: left out
json.dump(entries, open(os.path.join(proj, "compile_commands.json"), "w"))
r = run("lint", "-p", proj, "-j", "2")
check(r.returncode == 1 and "32-way bank conflict" in r.stdout and
      "lint summary: 2 files (0 failed), 5 kernels (0 not analyzed), 1 warnings (1 bankwise-bank-conflict)" in r.stdout,
      "-p without files: both .cu files, once each, the summary, exit 1 on the warning (%s)" % r.stdout[-400:])
j = json.loads(run("lint", "-p", proj, "--format", "json").stdout)
sites = [s for f in j["files"] for k in f["kernels"] for s in k["sites"]]
shared = sum(1 for s in sites if s["space"] == "shared")
check(len(j["files"]) == 2 and j["summary"]["files"] == 2 and j["summary"]["kernels"] == 5 and
      j["summary"]["shared_accesses_with_figures"] == shared and
      j["summary"]["global_accesses_with_figures"] == len(sites) - shared and shared > 0 and
      j["summary"]["accesses_not_analyzed"] == 0,
      "-p --format json: a summary whose access counts are the sites listed")
s = json.loads(run("lint", "-p", proj, "--format", "sarif").stdout)
uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for res in s["runs"][0]["results"]
        for loc in res["locations"]}
check(len(s["runs"]) == 1 and any(u.endswith("transpose.cu") for u in uris), "-p --format sarif: one log for all")
opaque = os.path.join(SRC, "tests/lint/unanalyzed/opaque.cu")
j = json.loads(run("lint", opaque, clean, "--format", "json").stdout)
check(j["summary"]["accesses_not_analyzed"] == 3 and
      j["summary"]["accesses_not_analyzed_by_cause"].get(
          "the index of '…' is not understood (a call to '…')") == 1,
      "the summary counts accesses not analyzed, by cause with names elided (%s)" % j["summary"])
check(j["summary"]["accesses_not_analyzed_by_space"] == {"shared": 2, "global": 1, "other": 0, "unknown": 0},
      "the summary counts accesses not analyzed by space: two of shared 's', one of the kernel's pointer 'out' (%s)"
      % j["summary"])
spaces = os.path.join(SRC, "tests/lint/unanalyzed/spaces.cu")
j = json.loads(run("lint", spaces, "--format", "json").stdout)
check(j["summary"]["accesses_not_analyzed_by_space"] == {"shared": 1, "global": 2, "other": 1, "unknown": 1},
      "spaces.cu: the space of each access not analyzed, from the declaration it starts at (%s)" % j["summary"])
entries.append({"directory": WORK, "file": os.path.join(WORK, "no-such-file.cu"), "command": "nvcc -c x.cu"})
json.dump(entries, open(os.path.join(proj, "compile_commands.json"), "w"))
r = run("lint", "-p", proj)
check(r.returncode == 2 and "lint summary: 3 files (1 failed)" in r.stdout, "-p: a file that fails makes exit 2")
r = run("lint")
check(r.returncode == 2 and "-p BUILD_DIR" in r.stderr, "no file and no -p: exit 2, saying what to give")
r = run("lint", "-p", os.path.join(WORK, "no-such-dir"))
check(r.returncode == 2 and "compile_commands.json" in r.stderr, "-p without a compilation database: exit 2")

# Instantiations that lower to one IR are analyzed once: a template whose
# parameter only scales data (as mergeSort's sortDir only picks a data
# comparison's sense),
# and one whose parameter is the stride, which the figures see.
same = os.path.join(WORK, "same_ir.cu")
open(same, "w").write("""
template <unsigned Up>
__global__ void pick(const float *keys, float *out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = keys[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = s[(t * 2) % 256] * (float)Up;
}
template <int Stride>
__global__ void gather(const float *in, float *out) {
  __shared__ float s[32 * 33];
  s[threadIdx.x * Stride] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
void launch(const float *k, float *o, const float *in, float *out, int n) {
  pick<1><<<n / 256, 256>>>(k, o, n);
  pick<0><<<n / 256, 256>>>(k, o, n);
  gather<32><<<1, 32>>>(in, out);
  gather<33><<<1, 32>>>(in, out);
}
""")
j = json.loads(run("lint", same, "--format", "json").stdout)
ks = {k["name"]: k for k in j["files"][0]["kernels"]}
check(set(ks) == {"pick<1U>", "pick<0U>", "gather<32>", "gather<33>"}, "same_ir.cu: four kernels (%s)" % sorted(ks))
if len(ks) == 4:
    check(ks["pick<0U>"].get("figures_of") == "pick<1U>" and "figures_of" not in ks["pick<1U>"] and
          ks["pick<0U>"]["sites"] == ks["pick<1U>"]["sites"],
          "two instantiations with one IR: the second takes the first's figures, and says so")
    check("figures_of" not in ks["gather<33>"] and
          [s.get("sm90_wavefronts") for s in ks["gather<32>"]["sites"]] !=
          [s.get("sm90_wavefronts") for s in ks["gather<33>"]["sites"]],
          "instantiations whose IR differs are each analyzed: stride 32 and 33 differ")
t = run("lint", same, "--timing")
check("pick<0U> (figures of pick<1U>)" in t.stderr + t.stdout, "--timing names the kernel whose figures were taken")

# --size-budget: block_loops.cu's even_sum has more sizes' work than the
# default budget (sampled, said so); with no budget every size is evaluated
# and the figure is proven; the same report whatever the threads.
loops = os.path.join(SRC, "tests/lint/idioms/block_loops.cu")
even = "block_loops.cu:66:12: warning: uncoalesced global load from 'in': 8 sectors per request, 4 at best (2 128-byte lines)"
d1, d2, full = run("lint", loops, "-j", "1"), run("lint", loops, "-j", "2"), run("lint", loops, "--size-budget", "0")
check(even + " (at the sizes tried, sampled; other sizes may cost more) [bankwise-uncoalesced]" in d1.stdout, "--size-budget's default: even_sum sampled")
check(even + " [bankwise-uncoalesced]" in full.stdout, "--size-budget 0: even_sum proven for every size")
check(d1.stdout == d2.stdout, "the budget keeps the same sizes with 1 and 2 threads")
bad = run("lint", loops, "--size-budget", "-1")
check(bad.returncode == 2 and "--size-budget" in bad.stderr, "--size-budget -1: a usage error, exit 2")

sys.exit(1 if FAILS else 0)
