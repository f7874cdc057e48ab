#!/usr/bin/env python3
"""Checks and times the PyTorch extensions `bankwise compile --torch` made of
the transpose, permute and bit-reversal samples (bench/gpu-torch.sh builds
them): every op against PyTorch's own result on many shapes and dtypes, its
out= form and a side stream, the errors its checks raise, then each op and
its PyTorch counterpart side by side (CUDA events, median of many runs).

    gpu-torch.py WORK OUT     # WORK/<module>/ holds each extension

Writes OUT/torch.md and OUT/torch.json; exit code 0 when every check passed.
"""

import faulthandler
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import torch

faulthandler.enable()
WORK, OUT = sys.argv[1], sys.argv[2]
MODULES = ["transpose_any_shape", "permute3d", "bit_reversal"]
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def load(module):
    sys.path.insert(0, os.path.join(WORK, module))
    mod = __import__(module)
    t0 = time.time()
    ops = mod.load(build_directory=os.path.join(WORK, module + "-build"))
    print(f"{module}: loaded in {time.time() - t0:.1f} s, ops {mod.OPS}", flush=True)
    return ops


def rand(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    return torch.randint(-128, 128, shape, device="cuda", dtype=dtype)


def bitrev_index(m):
    i = torch.arange(1 << m, device="cuda", dtype=torch.int64)
    r = torch.zeros_like(i)
    for b in range(m):
        r |= ((i >> b) & 1) << (m - 1 - b)
    return r


ops_t, ops_p, ops_b = (load(m) for m in MODULES)
T_OPS = {torch.float32: "transpose_f32", torch.float64: "transpose_f64", torch.float16: "transpose_f16",
         torch.int8: "transpose_i8"}
P_OPS = {"permute_021": (0, 2, 1), "permute_210": (2, 1, 0), "permute_102": (1, 0, 2)}

# The errors the ops' checks raise: name -> (call, a fragment the message
# must hold). Each runs in a process of its own (`--error NAME`), so that a
# crash is recorded as one failed check, not the end of the run.
x64 = rand((64, 48), torch.float32)
ERROR_CASES = {
    "wrong dtype": (lambda: ops_t.transpose_f32(x64.double()), "must be torch.float32"),
    "CPU tensor": (lambda: ops_t.transpose_f32(x64.cpu()), "must be a CUDA tensor"),
    "not contiguous": (lambda: ops_t.transpose_f32(x64.t()), "must be contiguous"),
    "wrong rank": (lambda: ops_t.transpose_f32(x64.view(-1)), "must have 2 dimensions"),
    "wrong rank (3-D)": (lambda: ops_t.transpose_f32(x64.view(64, 48, 1)), "must have 2 dimensions"),
    "empty": (lambda: ops_t.transpose_f32(x64[:0]), "is empty"),
    "out= of the wrong shape": (lambda: ops_t.transpose_f32.out(x64, out=torch.empty((64, 48), device="cuda")),
                                "has shape"),
    "not a power of two": (lambda: ops_b.bitrev_naive(rand((3000,), torch.float32)), "must be a power of two"),
    "where broken": (lambda: ops_b.bitrev_naive(rand((256,), torch.float32)), "breaks `where"),
    "tiled shape": (lambda: ops_b.bitrev_tiled(rand((32, 4, 16), torch.float32)), "has shape"),
}
if len(sys.argv) > 4 and sys.argv[3] == "--error":
    call, fragment = ERROR_CASES[sys.argv[4]]
    try:
        call()
    except RuntimeError as e:
        print("MESSAGE:", str(e).splitlines()[0], flush=True)
        sys.exit(0 if fragment in str(e) else 3)
    print("MESSAGE: no error", flush=True)
    sys.exit(3)

# 1. Correctness against PyTorch's own results.
t_shapes = [(1, 1), (1, 7), (7, 1), (1, 4097), (4097, 1), (31, 33), (32, 32), (33, 65), (64, 64), (100, 31),
            (127, 129), (1000, 4097), (4097, 1000), (2047, 3), (8191, 12289), (8192, 8192)]
for dtype, name in T_OPS.items():
    op = getattr(ops_t, name)
    for shape in t_shapes:
        x = rand(shape, dtype)
        check(torch.equal(op(x), x.t().contiguous()), f"{name} {shape}")
    x = rand((300, 77), dtype)
    out = torch.empty((77, 300), device="cuda", dtype=dtype)
    r = op.out(x, out=out)
    check(r.data_ptr() == out.data_ptr() and torch.equal(out, x.t().contiguous()), f"{name}.out")
p_shapes = [(1, 1, 1), (1, 1, 513), (1, 513, 1), (513, 1, 1), (2, 33, 65), (3, 100, 70), (7, 32, 32),
            (5, 31, 1025), (16, 1000, 1000), (64, 512, 512)]
for name, perm in P_OPS.items():
    op = getattr(ops_p, name)
    for shape in p_shapes:
        x = rand(shape, torch.float32)
        check(torch.equal(op(x), x.permute(*perm).contiguous()), f"{name} {shape}")
    x = rand((4, 50, 60), torch.float32)
    out = torch.empty(x.permute(*perm).shape, device="cuda")
    op.out(x, out=out)
    check(torch.equal(out, x.permute(*perm).contiguous()), f"{name}.out")
for m in [10, 11, 12, 15, 17, 20, 22, 24, 26]:
    a = rand((1 << m,), torch.float32)
    ref = a.index_select(0, bitrev_index(m))
    check(torch.equal(ops_b.bitrev_naive(a), ref), f"bitrev_naive M={m}")
    check(torch.equal(ops_b.bitrev_tiled(a.view(32, -1, 32)).view(-1), ref), f"bitrev_tiled M={m}")

# The current stream: an op on a side stream, read after that stream only;
# and an op captured in a CUDA graph (capture fails if a kernel goes to the
# legacy default stream instead of the capturing one).
s = torch.cuda.Stream()
x = rand((4097, 1000), torch.float32)
torch.cuda.synchronize()
with torch.cuda.stream(s):
    y = ops_t.transpose_f32(x)
s.synchronize()
check(torch.equal(y, x.t().contiguous()), "side stream")
try:
    out = torch.empty((1000, 4097), device="cuda")
    ops_t.transpose_f32.out(x, out=out)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        ops_t.transpose_f32.out(x, out=out)
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    check(torch.equal(out, x.t().contiguous()), "CUDA graph capture and replay")
except RuntimeError as e:
    check(False, f"CUDA graph capture: {e}")

# 2b. The other two routes of docs/torch.md, on bit_reversal: the emitted
# setup.py's `build_ext --inplace` (load() then takes the library built
# beside NAME.py) and `pip install` of the emitted directory (into a target
# folder: no network, so no build isolation). Each result is checked in a
# fresh process against index_select.
SETUP_CHECK = """
import glob, os, sys, torch
sys.path.insert(0, sys.argv[1])
import bit_reversal
so = glob.glob(os.path.join(os.path.dirname(bit_reversal.__file__), "bit_reversal_C*.so"))
assert so, "no library beside bit_reversal.py"
ops = bit_reversal.load()
m = 20
x = torch.randn(1 << m, device="cuda")
i = torch.arange(1 << m, device="cuda")
r = torch.zeros_like(i)
for b in range(m):
    r |= ((i >> b) & 1) << (m - 1 - b)
y = ops.bitrev_tiled(x.view(32, -1, 32))
ok = torch.equal(y.view(-1), x.index_select(0, r)) and torch.equal(ops.bitrev_naive(x), x.index_select(0, r))
print("SETUP-ROUTE", "ok" if ok else "WRONG", os.path.basename(so[0]), flush=True)
sys.exit(0 if ok else 3)
"""
setup_routes = []


def setup_route(name, build_cmd, cwd, where):
    t0 = time.time()
    b = subprocess.run(build_cmd, cwd=cwd, capture_output=True, text=True)
    secs = time.time() - t0
    if b.returncode != 0:
        print(b.stdout[-2000:], b.stderr[-3000:], flush=True)
        check(False, f"{name}: the build failed (exit {b.returncode})")
        setup_routes.append((name, f"build failed (exit {b.returncode})"))
        return
    r = subprocess.run([sys.executable, "-c", SETUP_CHECK, where], capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith("SETUP-ROUTE")), "")
    check(r.returncode == 0 and line.startswith("SETUP-ROUTE ok"),
          f"{name}: bitrev_tiled and bitrev_naive equal index_select")
    if r.returncode != 0:
        print(r.stdout[-1000:], r.stderr[-3000:], flush=True)
    setup_routes.append((name, f"built in {secs:.0f} s ({line.split()[-1] if line else 'no library'}), "
                               f"{'equal to index_select' if r.returncode == 0 else 'FAILED'}"))


def fresh_copy(name):  # the emitted files alone, without the load() route's build
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(WORK, "bit_reversal"), d, ignore=shutil.ignore_patterns("*.so", "build", "__pycache__"))
    return d


inplace = fresh_copy("setup-bit_reversal")
setup_route("python setup.py build_ext --inplace", [sys.executable, "setup.py", "build_ext", "--inplace"], inplace,
            inplace)
site = os.path.join(WORK, "pip-site")
shutil.rmtree(site, ignore_errors=True)
setup_route("pip install --no-build-isolation --target DIR",
            [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "--target",
             site, fresh_copy("pip-bit_reversal")], None, site)

# 3. Side by side: CUDA events around each call, median of RUNS after warm-ups.
RUNS, WARMUP = 50, 5


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(RUNS):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


rows = []


def bench(op, shape, dtype, ours, theirs, check_fn=None):
    x = rand(shape, dtype)
    ours_x = x
    if check_fn:
        ours_x = check_fn(x)
    t_ours, t_torch = median_ms(lambda: ours(ours_x)), median_ms(lambda: theirs(x))
    nbytes = 2 * x.numel() * x.element_size()
    rows.append({"op": op, "shape": list(shape), "dtype": str(dtype).replace("torch.", ""),
                 "bankwise_ms": t_ours, "torch_ms": t_torch, "bankwise_gbs": nbytes / t_ours / 1e6,
                 "torch_gbs": nbytes / t_torch / 1e6, "speedup": t_torch / t_ours})
    print(f"{op} {shape} {dtype}: bankwise {t_ours:.4f} ms, torch {t_torch:.4f} ms", flush=True)


for dtype, name in T_OPS.items():
    for shape in [(8192, 8192), (8191, 12289), (4097, 1000), (1000, 4097)]:
        bench(f"transpose_any_shape.{name}", shape, dtype, getattr(ops_t, name), lambda x: x.t().contiguous())
for name, perm in P_OPS.items():
    for shape in [(16, 1000, 1000), (64, 512, 512)]:
        bench(f"permute3d.{name}", shape, torch.float32, getattr(ops_p, name),
              lambda x, perm=perm: x.permute(*perm).contiguous())
for m in [20, 24, 26]:
    idx = bitrev_index(m)
    bench("bit_reversal.bitrev_naive", (1 << m,), torch.float32, ops_b.bitrev_naive, lambda x: x.index_select(0, idx))
    bench("bit_reversal.bitrev_tiled", (1 << m,), torch.float32, ops_b.bitrev_tiled,
          lambda x: x.index_select(0, idx), check_fn=lambda x: x.view(32, -1, 32))

# 4. The table (written before the error checks and again after them).

def write_table(errors):
    dev = torch.cuda.get_device_name()
    result = {"device": dev, "torch": torch.__version__, "cuda": torch.version.cuda, "checks": checks,
              "failures": failures, "errors": errors, "runs": RUNS, "warmup": WARMUP, "rows": rows}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "torch.json"), "w") as f:
        json.dump(result, f, indent=1)
    md = [f"# bankwise ops in PyTorch (`compile --torch`) against PyTorch, {dev}", "",
          f"`bench/gpu-torch.sh` on {time.strftime('%Y-%m-%d')}: torch {torch.__version__}, CUDA {torch.version.cuda}. "
          f"{checks} checks, {len(failures)} failed: every op against PyTorch's own result (`torch.equal`) on "
          f"{len(t_shapes)} transpose shapes x 4 dtypes, {len(p_shapes)} shapes x 3 permutes, bit reversal at "
          "n = 2^10 .. 2^26 (both kernels), the out= forms, a side stream, a CUDA graph capture and replay, and "
          "the errors below (each call in a process of its own).", "",
          f"Times: CUDA events around one call of each (the op allocates its output, as PyTorch's does), median of "
          f"{RUNS} after {WARMUP} warm-ups; GB/s counts the bytes read and written once (2 x the tensor). "
          "Speedup: PyTorch's time / bankwise's.", "",
          "| op | shape | dtype | bankwise ms | PyTorch ms | bankwise GB/s | PyTorch GB/s | speedup | PyTorch's counterpart |",
          "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        counterpart = ("x.t().contiguous()" if "transpose" in r["op"] else
                       "x.index_select(0, bitrev)" if "bitrev" in r["op"] else
                       f"x.permute{P_OPS[r['op'].split('.')[1]]}.contiguous()")
        md.append(f"| {r['op']} | {' x '.join(map(str, r['shape']))} | {r['dtype']} | {r['bankwise_ms']:.4f} | "
                  f"{r['torch_ms']:.4f} | {r['bankwise_gbs']:.0f} | {r['torch_gbs']:.0f} | {r['speedup']:.2f}x | "
                  f"`{counterpart}` |")
    md += ["", "The routes of docs/torch.md besides `load()` (used for everything above), on bit_reversal, each "
           "checked in a fresh process:", ""]
    md += [f"- `{name}`: {what}" for name, what in setup_routes]
    md += ["", "The errors the ops' checks raised (first line of each RuntimeError):", ""]
    for k, v in errors.items():
        md.append(f"- {k}: `` {v} ``")
    if failures:
        md += ["", "Failed checks:", ""] + [f"- {f}" for f in failures]
    with open(os.path.join(OUT, "torch.md"), "w") as f:
        f.write("\n".join(md) + "\n")
write_table({})
# 5. The checks' errors, each in a process of its own.
errors = {}
for name in ERROR_CASES:
    r = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), WORK, OUT, "--error", name],
                       capture_output=True, text=True)
    lines = [l[len("MESSAGE: "):] for l in r.stdout.splitlines() if l.startswith("MESSAGE: ")]
    errors[name] = lines[0] if lines else f"crashed (exit code {r.returncode})"
    check(r.returncode == 0, f"error check '{name}': {errors[name]}")
    if not lines:  # a crash: its Python stack, and its native one where gdb is
        print(r.stderr[-3000:], flush=True)
        if shutil.which("gdb"):
            g = subprocess.run(["gdb", "-batch", "-ex", "run", "-ex", "bt 25", "--args", sys.executable,
                                os.path.abspath(__file__), WORK, OUT, "--error", name], capture_output=True, text=True)
            print("\n".join(g.stdout.splitlines()[-40:]), flush=True)
    print(f"error check '{name}': {errors[name]}", flush=True)
write_table(errors)
print(f"gpu-torch: {checks} checks, {len(failures)} failed", flush=True)
sys.exit(1 if failures else 0)
