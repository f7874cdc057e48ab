#!/usr/bin/env python3
"""Fuzzes `bankwise lint` with kernels built from real-code constructs
(issue [13] item 1).

A grammar writes CUDA files from the constructs public code uses and the
lint once crashed on: pointers as conditions, 12-byte and struct shared
elements, shared scalars and atomics on them, headers that are not on the
machine, cooperative groups, template kernels and grid helpers, vector
types, shuffles and ballots, cache-hinted loads, reductions and grid-stride
loops, host code nvcc accepts and Clang's headers do not (`max(int,
unsigned)`). Each grammar file is valid CUDA by construction (`--nvcc`
checks that with nvcc), so the lint must not exit 2 on it; a share of the
files are then mutated (lines dropped, duplicated or swapped, characters
deleted, the file truncated, stray tokens inserted), where exit 2 is fine.

Every file fails the run on: a signal (a crash), no answer in --timeout
seconds (a hang), an exit code outside {0, 1, 2}, anything on stderr (the
report holds every diagnostic; Clang's own text must not leak), or exit 2
on a grammar file. Files are made and linted until --seconds have passed
(a fixed seed by default, so a run is reproducible; the seed and each
failing case's number are printed, and `--seed S --case N` replays one).

    fuzz_lint.py BANKWISE WORKDIR [--seed S] [--seconds T] [--case N] [--nvcc]
"""
import argparse
import os
import random
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

DEFAULT_SEED = 13
RUNTIME_SIZES = 0.0  # the share of cases linted with n a runtime size (--runtime-sizes)


class Gen:
    """One generated file: grammar choices from one Random."""

    def __init__(self, rng, missing_headers=True):
        self.r = rng
        self.missing_headers = missing_headers
        self.includes = set()
        self.globals = []
        self.kernels = []
        self.host = []
        self.uses_missing = False

    def pick(self, *xs):
        return self.r.choice(xs)

    # Indices into shared arrays of 256 floats / [32][33] tiles.
    def idx256(self):
        k = self.r.randint(1, 33)
        return self.pick("tid", f"(tid * {k}) % 256", f"(tid ^ {k}) % 256", "tid / 2", f"(tid + {k}) % 256",
                         "255 - tid", f"(tid * {k} + lane) % 256", "(tid & 7) * 32 + (tid >> 3)")

    def idx32(self):
        return self.pick("lane", "(lane * 2) % 32", "31 - lane", "warp % 32", "(lane ^ 1)", "0")

    def gidx(self):
        k = self.r.randint(1, 8)
        return self.pick("g", f"(g * {k}) % n", f"g / {k}", "(g + 1) % n", f"(blockIdx.x * {k} + tid) % n")

    def stmt(self, depth=0):
        r = self.r
        choices = [
            lambda: f"s1[{self.idx256()}] = in[{self.gidx()}];",
            lambda: f"out[{self.gidx()}] = s1[{self.idx256()}];",
            lambda: f"tile[{self.idx32()}][{self.idx32()}] = in[{self.gidx()}];",
            lambda: f"out[{self.gidx()}] = tile[{self.idx32()}][{self.idx32()}];",
            lambda: "__syncthreads();",
            # pointers as conditions
            lambda: f"if (out) out[{self.gidx()}] = 1.0f;",
            lambda: f"if (in && out) out[{self.gidx()}] = in[{self.gidx()}];",
            lambda: "if (!in) return;",
            # 12-byte and struct elements
            lambda: f"f3[lane] = make_float3(in[{self.gidx()}], 1.0f, 2.0f);",
            lambda: f"out[{self.gidx()}] = f3[{self.idx32()}].{self.pick('x', 'y', 'z')};",
            lambda: f"{{ float3 t = f3[{self.idx32()}]; out[{self.gidx()}] = t.x + t.z; }}",
            lambda: f"pairs[{self.idx32()}].a = in[{self.gidx()}];",
            lambda: f"out[{self.gidx()}] = pairs[{self.idx32()}].a + (float)pairs[lane].b;",
            # shared scalars and atomics on them
            lambda: "if (tid == 0) hit = 0u;",
            lambda: "atomicAdd(&hit, 1u);",
            lambda: f"atomicAdd_block(&hit, {r.randint(1, 9)}u);",
            lambda: "atomicMax(&best, (int)tid);",
            lambda: "out[g % n] = (float)hit;",
            lambda: f"atomicAdd(&s1[{self.idx256()}], 1.0f);",
            lambda: f"atomicAdd(&out[{self.gidx()}], in[{self.gidx()}]);",
            lambda: f"atomicCAS(&counts[{self.gidx()}], 0, 1);",
            # warp intrinsics
            lambda: f"{{ float w = in[{self.gidx()}]; w += __shfl_down_sync(0xffffffffu, w, {r.choice([1, 2, 16])}); "
                    f"out[{self.gidx()}] = w; }}",
            lambda: f"{{ float w = s1[{self.idx256()}]; w = __shfl_xor_sync(0xffffffffu, w, {r.randint(1, 31)}); "
                    f"s1[tid] = w; }}",
            lambda: "{ unsigned m = __ballot_sync(0xffffffffu, tid & 1); if (lane == 0) counts[warp] = __popc(m); }",
            lambda: f"{{ int v = __shfl_sync(__activemask(), (int)tid, {r.randint(0, 31)}); counts[g % n] = v; }}",
            # vector types, __ldg, cache hints
            lambda: f"{{ float4 q = reinterpret_cast<const float4 *>(in)[{self.gidx()} / 4]; out[g % n] = q.x + q.w; }}",
            lambda: f"reinterpret_cast<float4 *>(s1)[{self.idx32()}] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);",
            lambda: f"out[{self.gidx()}] = __ldg(&in[{self.gidx()}]);",
            lambda: f"out[{self.gidx()}] = __ldcs(in + {self.gidx()});",
            lambda: f"__stcs(out + {self.gidx()}, 2.0f);",
            lambda: f"{{ int4 c4 = __ldcg(reinterpret_cast<const int4 *>(counts) + lane); "
                    f"__stcg(reinterpret_cast<int4 *>(counts) + lane, c4); }}",
            # pointers into shared memory, local arrays, ternaries
            lambda: f"{{ float *p = s1 + {self.idx256()}; *p = 3.0f; }}",
            lambda: f"{{ float loc[4]; loc[tid & 3] = in[{self.gidx()}]; out[g % n] = loc[0]; }}",
            lambda: f"out[{self.gidx()}] = (tid & 1) ? s1[{self.idx256()}] : s1[{self.idx256()}];",
            lambda: f"dyn[{self.idx256()}] = in[{self.gidx()}];",
            lambda: f"dbl[{self.idx32()}] = (double)in[{self.gidx()}];",
            lambda: f"bytes[{self.idx256()} % 128] = (char)tid;",
            lambda: f"if (g >= n) return;",
            lambda: f"out[{self.gidx()}] = fmaxf(in[g % n], 0.0f) + (float)max((int)tid, {r.randint(0, 9)});",
            # corners: pointers into split elements, casts of them, atomics on a component,
            # null tests written out, pointer differences, lambdas, members through this
            lambda: f"{{ float3 *p3 = &f3[{self.idx32()}]; p3->y = 1.0f; out[g % n] = p3->x; }}",
            lambda: f"{{ const float *pf = reinterpret_cast<const float *>(f3); out[g % n] = pf[{self.idx32()}]; }}",
            lambda: f"atomicAdd(&f3[{self.idx32()}].z, 1.0f);",
            lambda: f"atomicAdd(&pairs[{self.idx32()}].b, 1);",
            lambda: f"{{ Pair pr = pairs[{self.idx32()}]; pairs[lane] = pr; }}",
            lambda: f"if (out != nullptr && in == nullptr) out[{self.gidx()}] = 0.0f;",
            lambda: f"out[{self.gidx()}] = in ? in[{self.gidx()}] : 0.0f;",
            lambda: f"{{ float *p = &s1[{self.idx256()}]; counts[g % n] = (int)(p - s1); }}",
            lambda: f"{{ auto twice = [&](int k) {{ return s1[(k * 2) % 256]; }}; out[g % n] = twice((int)tid); }}",
            lambda: f"{{ Acc acc{{s1}}; acc.put({self.idx256()}, 1.0f); out[g % n] = acc.get(tid % 256); }}",
            lambda: f"{{ int3 c3 = make_int3((int)tid, 0, 1); counts[g % n] = c3.x + ints3[{self.idx32()}].y; }}",
            lambda: f"ints3[{self.idx32()}] = make_int3(1, 2, (int)tid);",
            lambda: f"{{ float3 *d3 = reinterpret_cast<float3 *>(dyn); d3[lane] = make_float3(0.0f, 1.0f, 2.0f); }}",
            lambda: f"{{ float *sp = s1; sp += {self.idx256()}; if (sp) *sp = 2.0f; }}",
            lambda: f"__stcs(&s1[{self.idx256()}], 1.0f);",
            lambda: f"out[{self.gidx()}] = __ldcs(&f3[{self.idx32()}].x);",
        ]
        if depth < 2:
            choices += [
                lambda: "for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
                        f"    if (tid < s) s1[tid % 256] += s1[(tid + s) % 256];\n    __syncthreads();\n  }}",
                lambda: "for (int i = g; i < n; i += blockDim.x * gridDim.x) {\n"
                        f"    {self.stmt(depth + 1)}\n  }}",
                lambda: f"#pragma unroll\n  for (int j = 0; j < {r.choice([2, 4, 8])}; ++j) {{\n"
                        f"    s1[(tid + j * 32) % 256] = in[(g + j) % n];\n  }}",
                lambda: f"for (int s = 1; s < 256; s *= 2) {{\n    int index = 2 * s * tid;\n"
                        "    if (index + s < 256) s1[index] += s1[index + s];\n    __syncthreads();\n  }",
                lambda: f"{{ int k = tid; while (k < 256) {{ s1[k] = 0.0f; k += blockDim.x; }} }}",
                lambda: f"if (tid < {r.choice([16, 32, 64])}) {{\n    {self.stmt(depth + 1)}\n  }} else {{\n"
                        f"    {self.stmt(depth + 1)}\n  }}",
                lambda: f"{{\n    int k = 0;\n    do {{\n    {self.stmt(depth + 1)}\n    ++k;\n    }} while (k < 2);\n  }}",
                lambda: f"switch (tid & 1) {{ case 0: out[g % n] = 0.0f; break; default: break; }}",
            ]
        return r.choice(choices)()

    def cg_block(self):
        self.includes.add("#include <cooperative_groups.h>")
        self.globals.append("namespace cg = cooperative_groups;")
        return self.pick(
            "cg::thread_block blk = cg::this_thread_block();\n  blk.sync();\n"
            "  out[g % n] = (float)blk.thread_rank();",
            "cg::thread_block blk = cg::this_thread_block();\n"
            "  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(blk);\n"
            "  float cv = in[g % n];\n  for (int o = t32.size() / 2; o > 0; o /= 2) cv += t32.shfl_down(cv, o);\n"
            "  if (t32.thread_rank() == 0) s1[warp % 256] = cv;\n  cg::sync(blk);",
            "cg::thread_block blk = cg::this_thread_block();\n"
            "  cg::thread_group tg = cg::tiled_partition(blk, 16);\n  tg.sync();\n  s1[tid % 256] = (float)tg.thread_rank();")

    def kernel(self, number):
        r = self.r
        template = r.random() < 0.3
        name = f"k{number}"
        body = [self.stmt() for _ in range(r.randint(2, 9))]
        if r.random() < 0.25:
            body.insert(r.randint(0, len(body)), self.cg_block())
        elem = "T" if template else "float"
        head = f"template <typename T, int B>\n" if template else ""
        if r.random() < 0.2:
            head += f"__launch_bounds__({r.choice([128, 256])})\n"
        sig = (f"__global__ void {name}(const {elem} *__restrict__ in_, {elem} *out_, int *counts, int n)")
        text = [f"{head}{sig} {{",
                "  const float *in = reinterpret_cast<const float *>(in_);",
                "  float *out = reinterpret_cast<float *>(out_);",
                "  " + self.pick("__shared__ float s1[256];",  # nvcc's spelling of an aligned array too
                                 "__shared__ alignas(16) float s1[256];"),
                "  __shared__ float tile[32][33];",
                "  __shared__ float3 f3[32];",
                "  __shared__ Pair pairs[32];",
                "  __shared__ int3 ints3[32];",
                "  __shared__ unsigned hit;",
                "  __shared__ int best;",
                "  __shared__ double dbl[32];",
                "  __shared__ char bytes[128];",
                "  extern __shared__ float dyn[];",
                "  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;",
                "  const unsigned lane = tid % 32, warp = tid / 32;",
                "  const int g = blockIdx.x * blockDim.x * blockDim.y + tid;",
                "  (void)lane; (void)warp; (void)g; (void)counts;"]
        text += ["  " + s for s in body]
        text.append("}")
        self.kernels.append("\n".join(text))
        # Launches: constant shapes, dim3 variables, grids from helpers.
        block = self.pick("256", "128", "dim3(32, 8)", "dim3(32, 4)", "64")
        grid = self.pick("(n + 255) / 256", "ceil_div(n, 256)", "dim3(ceil_div(n, 128))", "4", "grid")
        shmem = self.pick("", ", 1024", ", n * sizeof(float)")
        targs = f"<{self.pick('float', 'float4')}, {r.choice([64, 128])}>" if template else ""
        cast = "reinterpret_cast<float4 *>" if template and "float4" in targs else ""
        args = f"{cast}(x), {cast}(x), c, n" if cast else "x, x, c, n"
        # nvcc also reads chevrons an editor's formatter spaced apart
        open_, close = self.pick(("<<<", ">>>"), ("<< <", ">> >"))
        self.host.append(f"  {{ dim3 grid(ceil_div(n, 256)); dim3 block_shape({block}); (void)grid;\n"
                         f"    {name}{targs}{open_}{grid}, {self.pick(block, 'block_shape')}{shmem}{close}({args}); }}")

    def file(self):
        r = self.r
        self.includes.add("#include <cuda_runtime.h>")
        if r.random() < 0.3:
            self.includes.add("#include <cstdio>")
        missing = None
        if self.missing_headers and r.random() < 0.25:
            missing = self.pick("<omp.h>", "<bankwise_absent_host_library.h>", '"absent/project_helpers.h"')
        self.globals.append("struct Pair { float a; int b; };")
        self.globals.append("struct Acc {\n  float *base;\n"
                            "  __device__ void put(int i, float v) { this->base[i] = v; }\n"
                            "  __device__ float get(int i) const { return base[i]; }\n};")
        self.globals.append("template <typename T> T ceil_div(T a, T b) { return (a + b - 1) / b; }")
        for k in range(r.randint(1, 3)):
            self.kernel(k)
        host_extra = []
        if r.random() < 0.4:  # nvcc's host dialect: max over mixed and float types
            host_extra.append("int host_pick(int a, unsigned b, float c, float d) "
                              "{ return max(a, b) + (int)max(c, d); }")
        if missing:
            fn = "omp_get_max_threads" if "omp" in missing else "absent_library_call"
            host_extra.append(f"int host_threads() {{ return {fn}(); }}")
        lines = sorted(self.includes)
        if missing:
            lines.append(f"#include {missing}")
        unique = list(dict.fromkeys(self.globals))
        lines += [g for g in unique if g.startswith("namespace")] + [g for g in unique if not g.startswith("namespace")]
        lines += self.kernels
        lines += host_extra
        lines.append("void launch_all(float *x, int *c, int n) {")
        lines += self.host
        lines.append("}")
        return "\n".join(lines) + "\n", missing is not None


def mutate(rng, text):
    """1 to 3 edits that may break the syntax (exit 2 is then fine)."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        i = rng.randrange(len(lines))
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + lines[i][k + 1:]
        elif op == 4:
            tok = rng.choice(["{", "}", ";", "(", ")", "__syncthreads();", "return;", "0x", "\"", "/*", "template <",
                              "#include <cooperative_groups.h>", "__shared__ float3 z[7];", "&hit", "<<<1, 32>>>",
                              "if (out)", "float3", "->", "[[", "#if 1", "\\", "\x00", "\xff"])
            k = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:k] + tok + lines[i][k:]
        else:
            text = "\n".join(lines)
            return text[:rng.randrange(len(text) + 1)]
    return "\n".join(lines)


def make_case(seed, case):
    """(text, valid, lint arguments): case number `case` of the run with
    `seed`. The cases give the runtime size n a value unless
    --runtime-sizes asks otherwise: the all-sizes analysis of a runtime n
    takes from seconds to minutes on these kernels (its speed is issue [13]
    item 4), which would make the per-file limit fail at random."""
    rng = random.Random(seed * 1_000_003 + case)
    text, _ = Gen(rng).file()
    args = [] if rng.random() < RUNTIME_SIZES else ["-D", f"n={rng.choice([1000, 1024, 4096])}"]
    if rng.random() < 0.3:
        return mutate(rng, text), False, args
    return text, True, args


def run_case(bankwise, workdir, seed, case, timeout):
    """None, or a failure in words."""
    text, valid, args = make_case(seed, case)
    path = os.path.join(workdir, f"case{case}.cu")
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    start = time.monotonic()
    try:
        run = subprocess.run([bankwise, "lint", path, *args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"no answer in {timeout} s (a hang) with {' '.join(args) or 'no arguments'}", path
    took = time.monotonic() - start
    err = run.stderr.decode("utf-8", errors="replace")
    out = run.stdout.decode("utf-8", errors="replace")
    if run.returncode < 0:
        return f"killed by signal {-run.returncode} (a crash)\n{err[-2000:]}", path
    if run.returncode not in (0, 1, 2):
        return f"exit {run.returncode}, outside 0, 1, 2\n{err[-2000:]}", path
    if err:
        return f"wrote to stderr:\n{err[-2000:]}", path
    if valid and run.returncode == 2:
        errors = [l for l in out.splitlines() if ": error: " in l]
        return "exit 2 on valid CUDA:\n  " + "\n  ".join(errors[:8]), path
    os.remove(path)
    return None, took


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bankwise")
    ap.add_argument("workdir")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("BANKWISE_FUZZ_SEED", DEFAULT_SEED)))
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--timeout", type=float, default=60.0, help="per file (check_lint.py's limit)")
    ap.add_argument("--case", type=int, help="replay one case (its file is left in WORKDIR)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runtime-sizes", type=float, default=0.0, metavar="SHARE",
                    help="lint this share of the cases with n a runtime size (all-sizes analysis)")
    ap.add_argument("--nvcc", action="store_true",
                    help="instead of linting, check with nvcc -c that grammar files are valid CUDA")
    a = ap.parse_args()
    global RUNTIME_SIZES
    RUNTIME_SIZES = a.runtime_sizes
    os.makedirs(a.workdir, exist_ok=True)
    print(f"fuzz_lint: seed {a.seed} (replay a case with --seed {a.seed} --case N)", flush=True)
    if a.nvcc:
        bad = 0
        for case in range(a.case if a.case is not None else 40):
            rng = random.Random(a.seed * 1_000_003 + case)
            text, _ = Gen(rng, missing_headers=False).file()
            path = os.path.join(a.workdir, f"nvcc{case}.cu")
            with open(path, "w") as f:
                f.write(text)
            run = subprocess.run(["nvcc", "-c", "-arch=sm_90", path, "-o", os.devnull], capture_output=True)
            if run.returncode:
                bad += 1
                print(f"{path}: nvcc rejects it\n{run.stderr.decode()[-1500:]}")
        return 1 if bad else 0
    if a.case is not None:
        failure, where = run_case(a.bankwise, a.workdir, a.seed, a.case, a.timeout)
        print(f"case {a.case}: {failure or 'ok'}" + (f" ({where})" if failure else ""))
        return 1 if failure else 0
    deadline = time.monotonic() + a.seconds
    failures, done, slowest = [], 0, (0.0, -1)
    case = 0
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        pending = []
        while time.monotonic() < deadline or pending:
            while time.monotonic() < deadline and len(pending) < a.jobs:
                pending.append((case, pool.submit(run_case, a.bankwise, a.workdir, a.seed, case, a.timeout)))
                case += 1
            number, fut = pending.pop(0)
            failure, info = fut.result()
            done += 1
            if failure:
                failures.append(number)
                print(f"FAIL case {number}: {failure}\n  file: {info}\n  replay: fuzz_lint.py BANKWISE DIR "
                      f"--seed {a.seed} --case {number}", flush=True)
            elif info > slowest[0]:
                slowest = (info, number)
    print(f"fuzz_lint: {done} files, {len(failures)} failed; slowest case {slowest[1]} took {slowest[0]:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
