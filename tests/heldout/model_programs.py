"""An independent model of the access costs of the held-out programs
(tests/heldout/README.md): their kernels, as walks over every warp; the
costs come from model_costs.py.

Nothing here reads a .bw file's semantics or calls bankwise: every kernel of
programs/ is described below by hand, from its text, as a Python walk over
every warp of its launch at concrete sizes. Each access site receives, for
each warp execution (a warp with at least one lane active at the site), the
32 lanes' element addresses (None for a lane that does not access), and the
costs of that warp access are counted from the addresses alone, by
model_costs.py.

Addresses are element indices after the layout (row-major with the declared
dimensions; pad(k) adds k to the row pitch); a view's addresses are indices
of its vectors, its element size the vector's.

A program is a class with FILE, PARAMS, SIZES (the size tuples to check),
optional DATA (arrays given to bankwise with --data, generated here) and
one method per kernel, named as bankwise names the kernel, which takes the
sizes and a Recorder. Sites are named by a tag: a comment `#@TAG` on their
source line (the only thing read from the .bw file, to find line numbers),
the array name, the kind (read, write, atomic) and the ordinal among the
sites of one (array, kind) on that line in column order.
"""

import random
import struct

from model_costs import Recorder, dmm_congestion, expected_max_load

# ---------------------------------------------------------------------------
# Enumerating a launch.


def launch(grid, block):
    """Every warp of the launch: (bx, by, bz, warp, lanes), lanes a list of
    32 (tx, ty, tz) tuples or None past the block's threads."""
    gx, gy, gz = (tuple(grid) + (1, 1))[:3]
    bx_, by_, bz_ = (tuple(block) + (1, 1))[:3]
    nthreads = bx_ * by_ * bz_
    nwarps = (nthreads + 31) // 32
    threads = []
    for f in range(nwarps * 32):
        if f < nthreads:
            threads.append((f % bx_, (f // bx_) % by_, f // (bx_ * by_)))
        else:
            threads.append(None)
    warps = [threads[32 * w:32 * w + 32] for w in range(nwarps)]
    for bz in range(gz):
        for by in range(gy):
            for bx in range(gx):
                for w in range(nwarps):
                    yield bx, by, bz, w, warps[w]


def cdiv(a, b):
    return -(-a // b)


def fdiv(a, b):
    """bankwise's / (floor)."""
    return a // b


def lcg_values(n, modulo, seed):
    rnd = random.Random(seed)
    return [rnd.randrange(modulo) for _ in range(n)]


def pack(values, fmt):
    return b"".join(struct.pack("<" + fmt, v) for v in values)


# ---------------------------------------------------------------------------
# The programs, each kernel described by hand from its .bw text.

F32, F64, I8, U16, I16, I32, U32, U64, F16 = 4, 8, 1, 2, 2, 4, 4, 8, 2


class Sgemm:
    FILE = "sgemm.bw"
    PARAMS = ("M", "N", "K")
    SIZES = [dict(M=1, N=1, K=1), dict(M=2, N=3, K=1), dict(M=31, N=33, K=17),
             dict(M=33, N=31, K=40), dict(M=3, N=1000, K=2), dict(M=64, N=48, K=64)]

    def sgemm(self, P, rec):
        M, N, K = P["M"], P["N"], P["K"]
        for bx, by, bz, w, th in launch((cdiv(N, 16), cdiv(M, 16)), (16, 16)):
            row = [by * 16 + ty for tx, ty, tz in th]
            col = [bx * 16 + tx for tx, ty, tz in th]
            for t in range(cdiv(K, 16)):
                ka = [t * 16 + tx for tx, ty, tz in th]
                kb = [t * 16 + ty for tx, ty, tz in th]
                rec("S_LOADA", "a", "read",
                    [row[l] * K + ka[l] if row[l] < M and ka[l] < K else None for l in range(32)])
                rec("S_LOADA", "ta", "write", [ty * 16 + tx for tx, ty, tz in th])
                rec("S_LOADB", "b", "read",
                    [kb[l] * N + col[l] if kb[l] < K and col[l] < N else None for l in range(32)])
                rec("S_LOADB", "tb", "write", [ty * 17 + tx for tx, ty, tz in th])
                for k in range(16):
                    rec("S_MAC", "ta", "read", [ty * 16 + k for tx, ty, tz in th])
                    rec("S_MAC", "tb", "read", [k * 17 + tx for tx, ty, tz in th])
            rec("S_STORE", "c", "write",
                [row[l] * N + col[l] if row[l] < M and col[l] < N else None for l in range(32)])

    ARRAYS = {"sgemm": dict(a=("global", F32), b=("global", F32), c=("global", F32),
                            ta=("shared", F32), tb=("shared", F32))}


class Permute3d:
    FILE = "permute3d.bw"
    PARAMS = ("X", "Y", "Z")
    SIZES = [dict(X=1, Y=1, Z=1), dict(X=2, Y=1, Z=4), dict(X=33, Y=2, Z=31),
             dict(X=31, Y=3, Z=33), dict(X=100, Y=1, Z=64), dict(X=4, Y=5, Z=1000)]
    ARRAYS = {"p210": {"in": ("global", F32), "out": ("global", F32), "tile": ("shared", F32)},
              "p021": {"in": ("global", F64), "out": ("global", F64), "tile": ("shared", F64)}}

    def p210(self, P, rec):
        X, Y, Z = P["X"], P["Y"], P["Z"]
        for bx, by, bz, w, th in launch((cdiv(Z, 32), cdiv(X, 32), Y), (32, 8)):
            for k in range(4):
                ok = [by * 32 + ty + 8 * k < X and bx * 32 + tx < Z for tx, ty, tz in th]
                rec("P_IN", "tile", "write",
                    [(ty + 8 * k) * 33 + tx if ok[l] else None for l, (tx, ty, tz) in enumerate(th)])
                rec("P_IN", "in", "read",
                    [(by * 32 + ty + 8 * k) * Y * Z + bz * Z + bx * 32 + tx if ok[l] else None
                     for l, (tx, ty, tz) in enumerate(th)])
            for k in range(4):
                ok = [bx * 32 + ty + 8 * k < Z and by * 32 + tx < X for tx, ty, tz in th]
                rec("P_OUT", "out", "write",
                    [(bx * 32 + ty + 8 * k) * Y * X + bz * X + by * 32 + tx if ok[l] else None
                     for l, (tx, ty, tz) in enumerate(th)])
                rec("P_OUT", "tile", "read",
                    [tx * 33 + ty + 8 * k if ok[l] else None for l, (tx, ty, tz) in enumerate(th)])

    def p021(self, P, rec):
        X, Y, Z = P["X"], P["Y"], P["Z"]
        for bx, by, bz, w, th in launch((cdiv(Z, 32), cdiv(Y, 32), X), (32, 8)):
            for k in range(4):
                ok = [by * 32 + ty + 8 * k < Y and bx * 32 + tx < Z for tx, ty, tz in th]
                rec("Q_IN", "tile", "write",
                    [(ty + 8 * k) * 32 + tx if ok[l] else None for l, (tx, ty, tz) in enumerate(th)])
                rec("Q_IN", "in", "read",
                    [bz * Y * Z + (by * 32 + ty + 8 * k) * Z + bx * 32 + tx if ok[l] else None
                     for l, (tx, ty, tz) in enumerate(th)])
            for k in range(4):
                ok = [bx * 32 + ty + 8 * k < Z and by * 32 + tx < Y for tx, ty, tz in th]
                rec("Q_OUT", "out", "write",
                    [bz * Z * Y + (bx * 32 + ty + 8 * k) * Y + by * 32 + tx if ok[l] else None
                     for l, (tx, ty, tz) in enumerate(th)])
                rec("Q_OUT", "tile", "read",
                    [tx * 32 + ty + 8 * k if ok[l] else None for l, (tx, ty, tz) in enumerate(th)])


class GemvT:
    FILE = "gemv_t.bw"
    PARAMS = ("M", "N", "LDA")
    SIZES = [dict(M=1, N=1, LDA=1), dict(M=2, N=3, LDA=3), dict(M=33, N=31, LDA=31),
             dict(M=31, N=33, LDA=40), dict(M=100, N=7, LDA=1000), dict(M=1000, N=2, LDA=2)]
    ARRAYS = {k: dict(a=("global", F32), x=("global", F32), y=("global", F32))
              for k in ("gemv_t_col", "gemv_t_warp")}

    def gemv_t_col(self, P, rec):
        M, N, LDA = P["M"], P["N"], P["LDA"]
        for bx, by, bz, w, th in launch((cdiv(N, 128),), (128,)):
            j = [bx * 128 + tx for tx, ty, tz in th]
            on = [v < N for v in j]
            for i in range(M):
                rec("G_COL", "a", "read", [i * LDA + j[l] if on[l] else None for l in range(32)])
                rec("G_COL", "x", "read", [i if on[l] else None for l in range(32)])
            rec("G_COLST", "y", "write", [j[l] if on[l] else None for l in range(32)])

    def gemv_t_warp(self, P, rec):
        M, N, LDA = P["M"], P["N"], P["LDA"]
        for bx, by, bz, w, th in launch((cdiv(N, 8),), (256,)):
            j = bx * 8 + w
            for i0 in range(cdiv(M, 32)):
                i = [i0 * 32 + l for l in range(32)]
                rec("G_WARP", "a", "read", [i[l] * LDA + j if j < N and i[l] < M else None for l in range(32)])
                rec("G_WARP", "x", "read", [i[l] if j < N and i[l] < M else None for l in range(32)])
            rec("G_WARPST", "y", "write", [j if j < N and l == 0 else None for l in range(32)])


class Embedding:
    FILE = "embedding.bw"
    PARAMS = ("T", "V")
    SIZES = [dict(T=1, V=1), dict(T=2, V=3), dict(T=31, V=33), dict(T=33, V=5),
             dict(T=1000, V=31), dict(T=9, V=1000)]
    ARRAYS = {"embed": dict(ids=("global", I32), table=("global", F32), out=("global", F32)),
              "embed_half": dict(ids=("global", I32), table=("global", F16), out=("global", F16))}

    def data(self, P):
        return {"ids": (lcg_values(P["T"], P["V"], 7 + P["T"]), "i")}

    def embed(self, P, rec):
        T = P["T"]
        ids = self.data(P)["ids"][0]
        for bx, by, bz, w, th in launch((cdiv(T, 8),), (256,)):
            t = bx * 8 + w
            if t >= T:
                continue
            rec("E_ID", "ids", "read", [t] * 32)
            r = ids[t]
            for k in range(2):
                rec("E_ROW", "out", "write", [t * 64 + l + 32 * k for l in range(32)])
                rec("E_ROW", "table", "read", [r * 64 + l + 32 * k for l in range(32)])

    def embed_half(self, P, rec):
        T = P["T"]
        ids = self.data(P)["ids"][0]
        for bx, by, bz, w, th in launch((cdiv(T, 8),), (256,)):
            t = bx * 8 + w
            if t >= T:
                continue
            rec("H_ID", "ids", "read", [t] * 32)
            r = ids[t]
            for k in range(2):
                rec("H_ROW", "out", "write", [t * 50 + l + 32 * k if l + 32 * k < 50 else None for l in range(32)])
                rec("H_ROW", "table", "read", [r * 50 + l + 32 * k if l + 32 * k < 50 else None for l in range(32)])


class GenericReduce:
    FILE = "generic_reduce.bw"
    PARAMS = ("N",)
    SIZES = [dict(N=1), dict(N=2), dict(N=31), dict(N=33), dict(N=257), dict(N=1000)]
    ARRAYS = {}
    for _t, _s in (("f32", F32), ("f64", F64), ("i8", I8), ("u16", U16)):
        ARRAYS["bsum_" + _t] = dict(a=("global", _s), out=("global", _s), part=("shared", _s))
    for _t, _s in (("f32", F32), ("f64", F64), ("i16", I16)):
        ARRAYS["isum_" + _t] = dict(a=("global", _s), out=("global", _s), part=("shared", _s))
    GATHERS = {"gather_f32_1": (F32, 1), "gather_f64_2": (F64, 2), "gather_u8_3": (I8, 3),
               "gather_i16_33": (I16, 33)}
    for _k, (_s, _S) in GATHERS.items():
        ARRAYS[_k] = dict(a=("global", _s), b=("global", _s), buf=("shared", _s))

    def _bsum(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            rec("R_LOAD", "a", "read", [i[l] if i[l] < N else None for l in range(32)])
            rec("R_LOAD", "part", "write", tx)
            for k in range(8):
                h = 128 >> k
                rec("R_HALF", "part", "read", [x if x < h else None for x in tx], 0)
                rec("R_HALF", "part", "read", [x + h if x < h else None for x in tx], 1)
                rec("R_HALF", "part", "write", [x if x < h else None for x in tx])
            rec("R_OUT", "part", "read", [0 if x == 0 else None for x in tx])
            rec("R_OUT", "out", "write", [bx if x == 0 else None for x in tx])

    def _isum(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            rec("I_LOAD", "a", "read", [i[l] if i[l] < N else None for l in range(32)])
            rec("I_LOAD", "part", "write", tx)
            for k in range(8):
                s = 1 << k
                idx = [2 * s * x for x in tx]
                rec("I_STEP", "part", "read", [v if v < 256 else None for v in idx], 0)
                rec("I_STEP", "part", "read", [v + s if v < 256 else None for v in idx], 1)
                rec("I_STEP", "part", "write", [v if v < 256 else None for v in idx])
            rec("I_OUT", "part", "read", [0 if x == 0 else None for x in tx])
            rec("I_OUT", "out", "write", [bx if x == 0 else None for x in tx])

    def _gather(self, S, P, rec):
        N = P["N"]
        pitch = 8 * S + 1
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            i = [bx * 256 + t[0] for t in th]
            on = [S * v < N for v in i]
            rec("T_IN", "buf", "write", [l * pitch + w * S if on[l] else None for l in range(32)])
            rec("T_IN", "a", "read", [S * i[l] if on[l] else None for l in range(32)])
            on = [v < N for v in i]
            rec("T_OUT", "b", "write", [i[l] if on[l] else None for l in range(32)])
            rec("T_OUT", "buf", "read", [((l + w) % 32) * pitch + w * S if on[l] else None for l in range(32)])

    def __getattr__(self, name):
        if name.startswith("bsum_"):
            return self._bsum
        if name.startswith("isum_"):
            return self._isum
        if name in self.GATHERS:
            S = self.GATHERS[name][1]
            return lambda P, rec: self._gather(S, P, rec)
        raise AttributeError(name)


class Vectors:
    FILE = "vectors.bw"
    PARAMS = ("R",)
    SIZES = [dict(R=1), dict(R=2), dict(R=3), dict(R=31), dict(R=33), dict(R=1000)]
    ARRAYS = {"quads": dict(s4=("shared", 16), a4=("global", 16), b4=("global", 16)),
              "pairs": dict(s2=("shared", 8), a2=("global", 8), c2=("global", 8), d=("shared", F64),
                            b=("global", F64)),
              "odd": dict(a2=("global", 8), b2=("global", 8), p4=("global", 4), q4=("global", 4),
                          sb4=("shared", 4)),
              "mixed": dict(sd2=("shared", 16), a2=("global", 16), b2=("global", 16), sh4=("shared", 8),
                            h4=("global", 8), g4=("global", 8))}

    def mixed(self, P, rec):
        R = P["R"]
        for bx, by, bz, w, th in launch((cdiv(R, 8),), (256,)):
            r = bx * 8 + w
            if r >= R:
                continue
            rec("V_M1", "sd2", "write", [w * 32 + 8 * (l % 4) + l // 4 for l in range(32)])
            rec("V_M1", "a2", "read", [r * 32 + l for l in range(32)])
            rec("V_M2", "sh4", "write", [w * 32 + l for l in range(32)])
            rec("V_M2", "h4", "read", [r * 32 + l for l in range(32)])
            rec("V_M3", "b2", "write", [r * 32 + l for l in range(32)])
            rec("V_M3", "sd2", "read", [w * 32 + l for l in range(32)])
            rec("V_M4", "g4", "write", [r * 32 + l for l in range(32)])
            rec("V_M4", "sh4", "read", [w * 32 + (2 * l) % 32 for l in range(32)])

    def quads(self, P, rec):
        R = P["R"]
        for bx, by, bz, w, th in launch((cdiv(R, 8),), (256,)):
            r = bx * 8 + w
            if r >= R:
                continue
            rec("V_Q1", "s4", "write", [32 * w + 4 * (l % 8) + l // 8 for l in range(32)])
            rec("V_Q1", "a4", "read", [r * 32 + l for l in range(32)])
            rec("V_Q2", "b4", "write", [r * 32 + l for l in range(32)])
            rec("V_Q2", "s4", "read", [(64 * w + 8 * (l % 8) + l // 8) % 256 for l in range(32)])

    def pairs(self, P, rec):
        R = P["R"]
        for bx, by, bz, w, th in launch((cdiv(R, 8),), (256,)):
            r = bx * 8 + w
            if r >= R:
                continue
            rec("V_P1", "s2", "write", [16 * (l % 2) + l // 2 + 32 * w for l in range(32)])
            rec("V_P1", "a2", "read", [r * 32 + l for l in range(32)])
            rec("V_P2", "d", "write", [32 * w + (5 * l) % 32 for l in range(32)])
            rec("V_P2", "b", "read", [r * 32 + l for l in range(32)])
            rec("V_P3", "c2", "write", [r * 32 + l for l in range(32)])
            rec("V_P3", "s2", "read", [32 * w + l for l in range(32)])

    def odd(self, P, rec):
        R = P["R"]
        for bx, by, bz, w, th in launch((cdiv(R, 2),), (64,)):
            r = bx * 2 + w
            if r >= R:
                continue
            rec("V_O1", "b2", "write", [r * 17 + l if l < 17 else None for l in range(32)])
            rec("V_O1", "a2", "read", [r * 17 + l if l < 17 else None for l in range(32)])
            rec("V_O2", "sb4", "write", [w * 36 + 4 * l if l < 9 else None for l in range(32)])
            rec("V_O2", "p4", "read", [r * 9 + l if l < 9 else None for l in range(32)])
            rec("V_O3", "q4", "write", [r * 9 + l if l < 9 else None for l in range(32)])
            rec("V_O3", "sb4", "read", [w * 36 + 4 * l if l < 9 else None for l in range(32)])


class Atomics:
    FILE = "atomics.bw"
    PARAMS = ("N",)
    SIZES = [dict(N=1), dict(N=2), dict(N=31), dict(N=33), dict(N=1000), dict(N=4099)]
    ARRAYS = {"hist": dict(keys=("global", U32), bins=("global", U32), total=("global", U32),
                           big=("global", U64), top=("global", I32), flags=("global", I32),
                           h=("shared", U32))}

    def data(self, P):
        return {"keys": (lcg_values(P["N"], 1 << 32, 11 + P["N"]), "I")}

    def hist(self, P, rec):
        N = P["N"]
        keys = self.data(P)["keys"][0]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            on = [v < N for v in i]
            rec("A_ZERO", "h", "write", tx)
            # An add of 1 to shared u32, old value dropped: POPC.INC.
            rec("A_STRIDE", "h", "atomic", [(l * 8) % 256 if on[l] else None for l in range(32)],
                combine="address")
            rec("A_GROUP", "keys", "read", [i[l] if on[l] else None for l in range(32)])
            rec("A_GROUP", "h", "atomic", [w * 4 + l // 8 if on[l] else None for l in range(32)])
            rec("A_KEYED", "keys", "read", [i[l] if on[l] else None for l in range(32)])
            rec("A_KEYED", "h", "atomic", [keys[i[l]] % 256 if on[l] else None for l in range(32)],
                combine="address")
            # A global u32 add at total[0], the same address in every
            # thread: one atomic a warp. (A_GROUP adds data at a thread-
            # dependent address, A_BIG is u64, A_MAX global max, A_CAS and
            # A_MERGE per lane: nvcc combines none of them.)
            rec("A_TOTAL", "total", "atomic", [0 if on[l] else None for l in range(32)], combine="warp")
            rec("A_BIG", "big", "atomic", [l % 4 if on[l] else None for l in range(32)])
            rec("A_MAX", "top", "atomic", [(i[l] * 3) % 64 if on[l] else None for l in range(32)])
            rec("A_CAS", "flags", "atomic", [(i[l] * 33) % 4096 if on[l] else None for l in range(32)])
            rec("A_MERGE", "h", "read", tx)
            rec("A_MERGE", "bins", "atomic", tx)


class Shuffles:
    FILE = "shuffles.bw"
    PARAMS = ("N",)
    SIZES = [dict(N=1), dict(N=2), dict(N=31), dict(N=33), dict(N=1000), dict(N=1027)]
    ARRAYS = {"warp_sum": dict(a=("global", F32), out=("global", F32)),
              "lanes": dict(a=("global", F32), out=("global", F32), s=("shared", F32),
                            s2=("shared", F32), t=("shared", F32))}

    def warp_sum(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            i = [bx * 256 + t[0] for t in th]
            rec("W_LOAD", "a", "read", [v if v < N else None for v in i])
            rec("W_OUT", "out", "write", [i[l] // 32 if l == 0 and i[l] < N else None for l in range(32)])

    def lanes(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            i = [bx * 256 + t[0] for t in th]
            j = [l ^ 1 for l in range(32)]                         # shfl_xor(lane, 1)
            k = [2 * ((l + 16) % 32) for l in range(32)]            # shfl(2 * lane, lane + 16)
            m = [33 * (l - 1) if l >= 1 else 0 for l in range(32)]  # shfl_up(33 * lane, 1)
            g = [i[l + 3] if l + 3 <= 31 else i[l] for l in range(32)]  # shfl_down(i, 3)
            rec("U_SWAP", "s", "write", [w * 64 + j[l] for l in range(32)])
            rec("U_ROT", "s2", "write", [w * 64 + k[l] for l in range(32)])
            rec("U_UP", "t", "write", [m[l] + (1 if l == 0 else 0) for l in range(32)])
            rec("U_DOWN", "out", "write", [g[l] if g[l] < N else None for l in range(32)])
            rec("U_DOWN", "a", "read", [g[l] if g[l] < N else None for l in range(32)])


class GridStride:
    FILE = "grid_stride.bw"
    PARAMS = ("N", "C")
    SIZES = [dict(N=1, C=1), dict(N=2, C=3), dict(N=31, C=33), dict(N=33, C=31),
             dict(N=1000, C=2), dict(N=3, C=1000)]
    ARRAYS = {"saxpy": dict(x=("global", F32), y=("global", F32)),
              "rowsum": dict(m=("global", F32), s=("global", F32)),
              "mirror": dict(a=("global", F32), b=("global", F32), sm=("shared", F32))}

    def saxpy(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((4,), (128,)):
            i = [bx * 128 + t[0] for t in th]
            while any(v < N for v in i):
                lanes = [v if v < N else None for v in i]
                rec("GS_AXPY", "y", "write", lanes)
                rec("GS_AXPY", "x", "read", lanes)
                rec("GS_AXPY", "y", "read", lanes)
                i = [v + 512 if v < N else v for v in i]

    def rowsum(self, P, rec):
        N, C = P["N"], P["C"]
        for bx, by, bz, w, th in launch((cdiv(N, 8),), (256,)):
            r = bx * 8 + w
            c = list(range(32))
            while r < N and any(v < C for v in c):
                rec("GS_ROW", "m", "read", [r * C + v if v < C else None for v in c])
                c = [v + 32 if v < C else v for v in c]
            rec("GS_ROWST", "s", "write", [r if r < N and l == 0 else None for l in range(32)])

    def mirror(self, P, rec):
        N = P["N"]
        gdx = cdiv(N, 128)
        for bx, by, bz, w, th in launch((gdx,), (128,)):
            base = bx * 128 if bx % 2 == 0 else (gdx - 1 - bx) * 128
            stride = 32 if bx % 2 == 0 else 33
            i = [base + t[0] for t in th]
            rec("GS_SM", "sm", "write", [l * stride + w for l in range(32)])
            rec("GS_MIRROR", "b", "write", [v if v < N else None for v in i])
            rec("GS_MIRROR", "a", "read", [v if v < N else None for v in i])


class Reductions:
    FILE = "reductions.bw"
    PARAMS = ("N",)
    SIZES = [dict(N=1), dict(N=2), dict(N=31), dict(N=33), dict(N=1000), dict(N=4097)]
    ARRAYS = {"sum2": dict(a=("global", F32), total=("global", F32), partial=("shared", F32)),
              "dot": dict(a=("global", F64), b=("global", F64), out=("global", F64), prod=("shared", F64))}

    def sum2(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            i = [bx * 256 + t[0] for t in th]
            rec("D_LOAD", "a", "read", [v if v < N else None for v in i])
            rec("D_PART", "partial", "write", [w if l == 0 else None for l in range(32)])
            if w == 0:
                rec("D_READ", "partial", "read", [l if l < 8 else None for l in range(32)])
                rec("D_ATOM", "total", "atomic", [0 if l == 0 else None for l in range(32)])

    def dot(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            rec("D_PROD", "prod", "write", [(x % 16) * 17 + x // 16 for x in tx])
            rec("D_PROD", "a", "read", [v if v < N else None for v in i])
            rec("D_PROD", "b", "read", [v if v < N else None for v in i])
            for j in range(16):
                rec("D_ROWS", "prod", "read", [x * 17 + j if x < 16 else None for x in tx])
            rec("D_SUMS", "prod", "write", [x * 17 + 16 if x < 16 else None for x in tx])
            for j in range(16):
                rec("D_COL", "prod", "read", [j * 17 + 16 if x == 0 else None for x in tx])
            rec("D_OUT", "out", "write", [bx if x == 0 else None for x in tx])


class OddPitch:
    FILE = "odd_pitch.bw"
    PARAMS = ("R", "C")
    SIZES = [dict(R=1, C=1), dict(R=2, C=3), dict(R=31, C=33), dict(R=33, C=31),
             dict(R=3, C=1000), dict(R=100, C=37)]
    ARRAYS = {"columns": dict(a=("global", F32), b=("global", F32), f=("shared", F32), h=("shared", U16),
                              g=("shared", U16), e=("shared", I8), o=("shared", I8), p=("shared", F32),
                              d=("shared", F64))}
    # name -> (pitch in elements, site tag of the write, of the read)
    TILES = {"f": (33, "O_F", "O_COL1"), "h": (32, "O_H", "O_COL1"), "g": (34, "O_G", "O_COL1"),
             "e": (32, "O_E", "O_COL2"), "o": (33, "O_O", "O_COL2"), "p": (35, "O_P", "O_COL2"),
             "d": (33, "O_D", "O_COL2")}

    def columns(self, P, rec):
        R, C = P["R"], P["C"]
        for bx, by, bz, w, th in launch((cdiv(C, 32), cdiv(R, 32)), (32, 8)):
            for k in range(4):
                ok = [by * 32 + ty + 8 * k < R and bx * 32 + tx < C for tx, ty, tz in th]
                rec("O_IN", "a", "read", [(by * 32 + ty + 8 * k) * C + bx * 32 + tx if ok[l] else None
                                          for l, (tx, ty, tz) in enumerate(th)])
                for name, (pitch, wt, rt) in self.TILES.items():
                    rec(wt, name, "write", [(ty + 8 * k) * pitch + tx for tx, ty, tz in th])
            for k in range(4):
                ok = [by * 32 + ty + 8 * k < R and bx * 32 + tx < C for tx, ty, tz in th]
                for name, (pitch, wt, rt) in self.TILES.items():
                    rec(rt, name, "read", [tx * pitch + ty + 8 * k for tx, ty, tz in th])
                rec("O_OUT", "b", "write", [(by * 32 + ty + 8 * k) * C + bx * 32 + tx if ok[l] else None
                                            for l, (tx, ty, tz) in enumerate(th)])


class Stencil:
    FILE = "stencil.bw"
    PARAMS = ("N", "H", "W")
    SIZES = [dict(N=1, H=1, W=1), dict(N=2, H=3, W=3), dict(N=31, H=2, W=33),
             dict(N=33, H=33, W=31), dict(N=1000, H=5, W=100), dict(N=257, H=40, W=7)]
    ARRAYS = {"s1": dict(a=("global", F32), b=("global", F32), s=("shared", F32)),
              "s2": dict(a=("global", F32), b=("global", F32))}

    def s1(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            rec("S1_MID", "s", "write", [tx[l] + 1 if i[l] < N else None for l in range(32)])
            rec("S1_MID", "a", "read", [i[l] if i[l] < N else None for l in range(32)])
            c = [tx[l] == 0 and i[l] >= 1 for l in range(32)]
            rec("S1_LEFT", "s", "write", [0 if c[l] else None for l in range(32)])
            rec("S1_LEFT", "a", "read", [i[l] - 1 if c[l] else None for l in range(32)])
            c = [tx[l] == 255 and i[l] + 1 < N for l in range(32)]
            rec("S1_RIGHT", "s", "write", [257 if c[l] else None for l in range(32)])
            rec("S1_RIGHT", "a", "read", [i[l] + 1 if c[l] else None for l in range(32)])
            c = [i[l] >= 1 and i[l] + 1 < N for l in range(32)]
            rec("S1_OUT", "b", "write", [i[l] if c[l] else None for l in range(32)])
            for o in range(3):
                rec("S1_OUT", "s", "read", [tx[l] + o if c[l] else None for l in range(32)], o)

    def s2(self, P, rec):
        H, W = P["H"], P["W"]
        for bx, by, bz, w, th in launch((cdiv(W, 32), cdiv(H, 4)), (32, 4)):
            rc = [(by * 4 + ty, bx * 32 + tx) for tx, ty, tz in th]
            on = [r >= 1 and r + 1 < H and c >= 1 and c + 1 < W for r, c in rc]
            rec("S2", "b", "write", [r * W + c if on[l] else None for l, (r, c) in enumerate(rc)])
            for o, (dr, dc) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0), (0, 0))):
                rec("S2", "a", "read", [(r + dr) * W + c + dc if on[l] else None
                                        for l, (r, c) in enumerate(rc)], o)


class TransposeGeneric:
    FILE = "transpose_generic.bw"
    PARAMS = ("R", "C")
    SIZES = [dict(R=1, C=1), dict(R=2, C=3), dict(R=31, C=33), dict(R=33, C=31),
             dict(R=1000, C=3), dict(R=64, C=100)]
    TYPES = {"tr_f32": F32, "tr_f64": F64, "tr_u8": I8, "tr_i16": I16, "tr_f32x2": 8}
    ARRAYS = {k: {"in": ("global", s), "out": ("global", s), "tile": ("shared", s)} for k, s in TYPES.items()}

    def _tr(self, P, rec):
        R, C = P["R"], P["C"]
        for bx, by, bz, w, th in launch((cdiv(C, 32), cdiv(R, 32)), (32, 8)):
            for k in range(4):
                ok = [by * 32 + ty + 8 * k < R and bx * 32 + tx < C for tx, ty, tz in th]
                rec("TR_IN", "tile", "write", [(ty + 8 * k) * 33 + tx if ok[l] else None
                                               for l, (tx, ty, tz) in enumerate(th)])
                rec("TR_IN", "in", "read", [(by * 32 + ty + 8 * k) * C + bx * 32 + tx if ok[l] else None
                                            for l, (tx, ty, tz) in enumerate(th)])
            for k in range(4):
                ok = [bx * 32 + ty + 8 * k < C and by * 32 + tx < R for tx, ty, tz in th]
                rec("TR_OUT", "out", "write", [(bx * 32 + ty + 8 * k) * R + by * 32 + tx if ok[l] else None
                                               for l, (tx, ty, tz) in enumerate(th)])
                rec("TR_OUT", "tile", "read", [tx * 33 + ty + 8 * k if ok[l] else None
                                               for l, (tx, ty, tz) in enumerate(th)])

    def __getattr__(self, name):
        if name in self.TYPES:
            return self._tr
        raise AttributeError(name)


class OddBlocks:
    FILE = "odd_blocks.bw"
    PARAMS = ("R", "C")
    SIZES = [dict(R=1, C=1), dict(R=2, C=3), dict(R=5, C=33), dict(R=33, C=31),
             dict(R=3, C=1000), dict(R=31, C=24)]
    ARRAYS = {"tile24": dict(a=("global", F32), b=("global", F32), t=("shared", F32), x=("shared", F32),
                             d=("shared", F32)),
              "half": dict(a=("global", F32), s=("global", F32)),
              "cube": dict(v=("global", F32), w=("global", F32)),
              "flat": dict(a=("global", F32), b=("global", F32))}

    @staticmethod
    def xor(i, j):        # layout xor of a 32-wide row: i*C + (j xor (i mod C))
        return i * 32 + (j ^ (i % 32))

    @staticmethod
    def diagonal(i, j):   # layout diagonal: i*C + (i + j) mod C
        return i * 32 + (i + j) % 32

    def tile24(self, P, rec):
        R, C = P["R"], P["C"]
        for bx, by, bz, w, th in launch((cdiv(C, 24), cdiv(R, 4)), (24, 4)):
            rc = [None if t is None else (by * 4 + t[1], bx * 24 + t[0]) for t in th]
            on = [t is not None and rc[l][0] < R and rc[l][1] < C for l, t in enumerate(th)]
            rec("B_T", "a", "read", [rc[l][0] * C + rc[l][1] if on[l] else None for l in range(32)])
            rec("B_T", "t", "write", [t[1] * 24 + t[0] if on[l] else None for l, t in enumerate(th)], 0)
            rec("B_T", "t", "write", [t[1] * 24 + t[0] if t is not None and not on[l] else None
                                      for l, t in enumerate(th)], 1)
            rec("B_X", "x", "write", [self.xor(t[0], t[1] * 8) if t is not None else None for t in th])
            rec("B_D", "d", "write", [self.diagonal(t[0], t[1] * 8) if t is not None else None for t in th])
            rec("B_OUT", "b", "write", [rc[l][0] * C + rc[l][1] if on[l] else None for l in range(32)])
            rec("B_OUT", "t", "read", [t[1] * 24 + 23 - t[0] if on[l] else None for l, t in enumerate(th)])
            rec("B_OUT", "x", "read", [self.xor(t[0], t[1] * 8 + 1) if on[l] else None for l, t in enumerate(th)])
            rec("B_OUT", "d", "read", [self.diagonal(t[0], t[1] * 8 + 1) if on[l] else None
                                       for l, t in enumerate(th)])

    def half(self, P, rec):
        R, C = P["R"], P["C"]
        for bx, by, bz, w, th in launch((R,), (48,)):
            tx = [None if t is None else t[0] for t in th]
            k = 0
            while any(x is not None and x + 48 * k < C for x in tx):
                rec("B_STEP", "a", "read", [bx * C + x + 48 * k if x is not None and x + 48 * k < C else None
                                            for x in tx])
                k += 1
            rec("B_SUM", "s", "write", [bx if x == 0 else None for x in tx])

    def cube(self, P, rec):
        R, C = P["R"], P["C"]
        for bx, by, bz, w, th in launch((cdiv(C, 8), cdiv(R, 16)), (8, 4, 4)):
            rc = [(by * 16 + tz * 4 + ty, bx * 8 + tx) for tx, ty, tz in th]
            on = [r < R and c < C for r, c in rc]
            for k in (3, 2, 1, 0):
                rec("B_CUBE", "w", "write", [r * C + c if on[l] else None for l, (r, c) in enumerate(rc)])
                rec("B_CUBE", "v", "read", [r * C + min(c + k, C - 1) if on[l] else None
                                            for l, (r, c) in enumerate(rc)])


def _odd_blocks_flat(self, P, rec):
    R, C = P["R"], P["C"]
    gx, gy = cdiv(C, 16), cdiv(R, 4)
    for bx, by, bz, w, th in launch((gx, gy), (16, 4)):
        tid = [((bz * gy + by) * gx + bx) * 64 + (tz * 4 + ty) * 16 + tx for tx, ty, tz in th]
        rec("B_FLAT", "b", "write", [t if t < R * C else None for t in tid])
        rec("B_FLAT", "a", "read", [(t * 7) % (R * C) if t < R * C else None for t in tid])


OddBlocks.flat = _odd_blocks_flat


class Ragged:
    FILE = "ragged.bw"
    PARAMS = ("N",)
    SIZES = [dict(N=1), dict(N=2), dict(N=3), dict(N=31), dict(N=33), dict(N=1000)]
    ARRAYS = {"hundred": dict(a=("global", F32), b=("global", F32)),
              "thirds": dict(a=("global", F32), b=("global", F32), s=("shared", F32))}

    def hundred(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 100),), (128,)):
            i = [bx * 100 + t[0] if t[0] < 100 and bx * 100 + t[0] < N else None for t in th]
            rec("H_COPY", "b", "write", i)
            rec("H_COPY", "a", "read", i)

    def thirds(self, P, rec):
        N = P["N"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            tx = [t[0] for t in th]
            i = [bx * 256 + x for x in tx]
            rec("H_THIRD", "s", "write", [tx[l] if i[l] < N else None for l in range(32)])
            rec("H_THIRD", "a", "read", [i[l] // 3 if i[l] < N else None for l in range(32)])
            rec("H_BACK", "b", "write", [i[l] if 3 * i[l] < N else None for l in range(32)])
            rec("H_BACK", "s", "read", [(3 * tx[l]) % 256 if 3 * i[l] < N else None for l in range(32)])


class Indices:
    FILE = "indices.bw"
    PARAMS = ("N", "S")
    SIZES = [dict(N=1, S=1), dict(N=2, S=1), dict(N=3, S=2), dict(N=31, S=3), dict(N=33, S=2),
             dict(N=1000, S=7), dict(N=100, S=1000)]
    ARRAYS = {"idx": dict(a=("global", F32), b=("global", F32), s=("shared", F32), c=("shared", F32))}

    @staticmethod
    def bitrev5(x):
        return int("{:05b}".format(x)[::-1], 2)

    def idx(self, P, rec):
        N, S = P["N"], P["S"]
        for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
            i = [bx * 256 + t[0] for t in th]
            rec("X_SEL", "s", "write", [w * 64 + (2 * l if l < 16 else 2 * l - 31) for l in range(32)])
            rec("X_BITS", "s", "read", [w * 64 + (l ^ (w & 7)) for l in range(32)], 0)
            rec("X_BITS", "s", "read", [w * 64 + ((5 * l) & 31) for l in range(32)], 1)
            rec("X_BITS", "s", "read", [w * 64 + self.bitrev5(l) for l in range(32)], 2)
            rec("X_CUBE", "c", "write", [(w % 4) * 264 + (l % 8) * 33 + l // 8 + 4 * (w // 4) for l in range(32)])
            for j in range(0, N, S):
                on = [j + l < N for l in range(32)]
                rec("X_STEP", "b", "write", [(i[l] + j) % N if on[l] else None for l in range(32)])
                rec("X_STEP", "a", "read", [min(j + l, N - 1) if on[l] else None for l in range(32)])
                rec("X_STEP", "c", "read", [(l % 4) * 264 + (j % 8) * 33 + l if on[l] else None for l in range(32)])


def _embedding_nodata(self, kernel, P):
    """The data-dependent table read without --data: the row r is any of
    0..V-1 (the same in every lane of a warp). Returns the worst congestion
    over warps and rows and the mean over warps of the mean over rows."""
    T, V = P["T"], P["V"]
    pitch, tag = (64, "E_ROW") if kernel == "embed" else (50, "H_ROW")
    worst, total, n = 0, 0.0, 0
    for t in range(T):
        for k in range(2):
            costs = [dmm_congestion([r * pitch + l + 32 * k if l + 32 * k < pitch else None for l in range(32)], False)
                     for r in range(V)]
            worst = max(worst, max(costs))
            total += sum(costs) / V
            n += 1
    return {(tag, "table", "read", 0): {"worst": worst, "expected": total / n}}


def _atomics_nodata(self, kernel, P):
    """atomic_add(h[keys[i] % 256], 1) without --data: nvcc merges lanes on
    one bin (POPC.INC), so a bank receives at most its 256 / 32 = 8 bins
    (worst: min(active lanes, 8)); keys uniform make each lane's bank
    uniform and independent (expected: E[max load] of the active lanes in
    32 banks, repeats counted, as docs/analysis.md defines the figure for
    random indices, at most the worst; averaged over warp executions)."""
    N = P["N"]
    worst, total, n = 0, 0.0, 0
    for bx, by, bz, w, th in launch((cdiv(N, 256),), (256,)):
        k = sum(1 for t in th if bx * 256 + t[0] < N)
        if k == 0:
            continue
        worst = max(worst, min(k, 8))
        total += min(expected_max_load(k), min(k, 8))
        n += 1
    return {("A_KEYED", "h", "atomic", 0): {"worst": worst, "expected": total / n}}


Embedding.nodata = _embedding_nodata
Embedding.NODATA_SIZES = [dict(T=33, V=5), dict(T=9, V=40)]
Atomics.nodata = _atomics_nodata
Atomics.NODATA_SIZES = [dict(N=33), dict(N=1000)]
GemvT.valid = staticmethod(lambda P: P["LDA"] >= P["N"])

PROGRAMS = [Sgemm, Permute3d, GemvT, Embedding, GenericReduce, Vectors, Atomics, Shuffles,
            GridStride, Reductions, OddPitch, Stencil, TransposeGeneric, OddBlocks, Ragged, Indices]


def evaluate(program, kernel, sizes):
    """The model's figures of every site of one kernel at fixed sizes:
    {(tag, array, kind, ordinal): {"executions": n, metric: {min, mean, max}}}."""
    rec = Recorder(program.ARRAYS[kernel])
    getattr(program, kernel)(sizes, rec)
    return {k: v.result() for k, v in rec.sites.items()}
