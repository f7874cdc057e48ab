"""The independent model's pricing (tests/heldout/README.md): the costs of
one warp access, counted from the 32 lanes' element addresses alone (None
for a lane that does not access), their accumulation over a site's warp
executions, and the model's self-check against the measured hardware.
model_programs.py walks every kernel's launch and records the addresses;
nothing here reads a .bw file or calls bankwise.

  sm_90 shared wavefronts  (docs in /work/shared/HARDWARE.md): 32 banks of
      4-byte words. Elements of 4 bytes or fewer: the whole warp at once;
      8-byte elements per half-warp (lanes 0-15, 16-31), 16-byte per
      quarter-warp (8 lanes); each part costs the most distinct 4-byte words
      in one bank, at least ceil(bytes the part moves / 128), and the parts
      add up; except 8- and 16-byte loads whose lanes pair up (l with l ^ 1
      throughout, or l with l ^ 2), served as their 16 pairs, in one part
      (8 B) or two (16 B). run.py first checks this against every pattern
      measured in bench/results/h100/shared-rules.jsonl. A 4-byte atomic: the most active lanes in one bank, repeats
      counted (measured; docs/analysis.md "Atomics"), of the lanes nvcc -O3
      issues (bench/results/h100/atomic-aggregation.md, read by hand for each
      atomic of model_programs.py: `combine`): all of them; "warp", only the first active
      lane (a 32-bit add/sub/min/max/and/or/xor, global add, at an address
      with no thread index: REDUX/POPC and one atomic); "address", the first
      lane at each address (a shared 32-bit add of 1, old value dropped:
      ATOMS.POPC.INC).
  sm_90 global sectors, lines: distinct 32-byte sectors and 128-byte lines
      the active lanes touch.
  DMM congestion (w = 32): the most distinct element addresses in one bank
      (address mod 32); an atomic counts repeats. UMM groups: distinct
      address // 32.

An address is an element index (a view's, an index of its vectors); esize is
the element size in bytes (a view's, the vector's).
"""

import json
import math
import os

# ---------------------------------------------------------------------------
# Cost of one warp access.


def _distinct_per_bank_max(addrs, repeats):
    banks = {}
    for a in addrs:
        banks.setdefault(a % 32, []).append(a)
    best = 0
    for v in banks.values():
        n = len(v) if repeats else len(set(v))
        best = max(best, n)
    return best


def _paired(lanes):
    """The 16 pairs of a warp whose lanes pair up: lane l with l ^ 1 for
    every l, or else l with l ^ 2, each pair naming at most one address (an
    inactive lane joins its partner); None when neither pairing holds."""
    for mask in (1, 2):
        units = []
        for q in range(8):
            for i in range(2):
                a = 4 * q + (2 * i if mask == 1 else i)
                x, y = lanes[a], lanes[a ^ mask]
                if x is not None and y is not None and x != y:
                    units = None
                    break
                units.append(x if x is not None else y)
            if units is None:
                break
        if units is not None:
            return units
    return None


def shared_wavefronts(lanes, esize, atomic, load=False):
    """lanes: 32 element addresses (None: inactive); esize in bytes; load:
    the access reads (8- and 16-byte loads whose lanes pair up are served
    as the 16 pairs: one part for 8 bytes, two of 8 pairs for 16;
    bench/results/h100/shared-rules.md)."""
    if atomic:
        # Measured for 4-byte atomics: lanes in the busiest bank, repeats
        # counted (one word each).
        words = [a * esize // 4 for a in lanes if a is not None]
        return _distinct_per_bank_max(words, True)
    parts = 1 if esize <= 4 else 32 * esize // 128
    if load and esize >= 8:
        units = _paired(list(lanes) + [None] * (32 - len(lanes)))
        if units is not None:
            lanes, parts = units, parts // 2
    per = max(1, len(lanes) // parts)
    total = 0
    for p in range(parts):
        part = [a for a in lanes[p * per:(p + 1) * per] if a is not None]
        if not part:
            continue
        words = set()
        moved = 0
        for a in part:
            b0 = a * esize
            moved += esize
            for w in range(b0 // 4, (b0 + esize - 1) // 4 + 1):
                words.add(w)
        cost = _distinct_per_bank_max(list(words), False)
        total += max(cost, -(-moved // 128))
    return total


def global_sectors_lines(lanes, esize):
    sectors, lines = set(), set()
    for a in lanes:
        if a is None:
            continue
        b0, b1 = a * esize, a * esize + esize - 1
        for s in range(b0 // 32, b1 // 32 + 1):
            sectors.add(s)
        for s in range(b0 // 128, b1 // 128 + 1):
            lines.add(s)
    return len(sectors), len(lines)


def dmm_congestion(lanes, atomic):
    act = [a for a in lanes if a is not None]
    return _distinct_per_bank_max(act, atomic)


def umm_groups(lanes):
    return len({a // 32 for a in lanes if a is not None})


# ---------------------------------------------------------------------------
# Accumulating a site's figures over its warp executions.


class Stat:
    __slots__ = ("n", "lo", "hi", "sum")

    def __init__(self):
        self.n, self.lo, self.hi, self.sum = 0, None, None, 0

    def add(self, v):
        self.n += 1
        self.sum += v
        self.lo = v if self.lo is None or v < self.lo else self.lo
        self.hi = v if self.hi is None or v > self.hi else self.hi

    def as_dict(self):
        if self.n == 0:
            return None
        return {"min": self.lo, "mean": self.sum / self.n, "max": self.hi}


def issued(lanes, combine):
    """The lanes whose atomics reach memory once nvcc combined them."""
    if combine is None:
        return lanes
    out, seen = [], set()
    for a in lanes:
        keep = a is not None and (a not in seen if combine == "address" else not seen)
        out.append(a if keep else None)
        if a is not None:
            seen.add(a)
    return out


class SiteFigures:
    def __init__(self, space, esize, atomic, load=False, combine=None):
        self.space, self.esize, self.atomic, self.load = space, esize, atomic, load
        self.combine = combine
        self.executions = 0
        names = ("wavefronts", "dmm", "umm") if space == "shared" else ("sectors", "lines", "dmm", "umm")
        if atomic:
            names += ("serial",)
        self.stats = {k: Stat() for k in names}
        self.cache = {}

    def add(self, lanes):
        lanes = issued(lanes, self.combine)
        # A warp-uniform shift of every address by a multiple of 1024 bytes
        # and of 32 elements changes no figure: used only to make the cache
        # hit (the figures are still computed from the lanes, below).
        base = min(a for a in lanes if a is not None)
        q = 1024 // math.gcd(1024, self.esize) * 32
        shift = base - base % q
        key = tuple(None if a is None else a - shift for a in lanes)
        figs = self.cache.get(key)
        if figs is None:
            figs = self._figures(key)
            if len(self.cache) < 200000:
                self.cache[key] = figs
        self.executions += 1
        for k, v in figs.items():
            self.stats[k].add(v)

    def _figures(self, lanes):
        f = {"dmm": dmm_congestion(lanes, self.atomic), "umm": umm_groups(lanes)}
        if self.atomic:
            act = [a for a in lanes if a is not None]
            f["serial"] = max(act.count(a) for a in set(act))
        if self.space == "shared":
            f["wavefronts"] = shared_wavefronts(lanes, self.esize, self.atomic, self.load)
        else:
            f["sectors"], f["lines"] = global_sectors_lines(lanes, self.esize)
        return f

    def result(self):
        out = {"executions": self.executions}
        for k, s in self.stats.items():
            out[k] = s.as_dict()
        return out


class Recorder:
    """Collects the sites of one kernel: rec(tag, array, kind, lanes)."""

    def __init__(self, arrays):
        # arrays: name -> (space, element bytes)
        self.arrays = arrays
        self.sites = {}
        self.order = {}

    def __call__(self, tag, array, kind, lanes, ordinal=0, combine=None):
        if all(a is None for a in lanes):
            return
        key = (tag, array, kind, ordinal)
        site = self.sites.get(key)
        if site is None:
            space, esize = self.arrays[array]
            site = self.sites[key] = SiteFigures(space, esize, kind == "atomic", kind == "read", combine)
        site.add(lanes)

    def touch(self, tag, array, kind, ordinal=0):
        """A site that exists in the program even if no warp reaches it."""
        key = (tag, array, kind, ordinal)
        if key not in self.sites:
            space, esize = self.arrays[array]
            self.sites[key] = SiteFigures(space, esize, kind == "atomic", kind == "read")


# ---------------------------------------------------------------------------
# Expected congestion of random indices.


def expected_max_load(k, bins=32):
    """E[the fullest bin's count] for k balls thrown independently and
    uniformly into `bins` bins: sum over m >= 1 of P(max >= m), with
    P(max <= m) = k! / bins^k [x^k] (sum_{j <= m} x^j / j!)^bins."""
    if k == 0:
        return 0.0
    total = 0.0
    for m in range(0, k):
        # P(max <= m)
        base = [1.0 / math.factorial(j) if j <= m else 0.0 for j in range(k + 1)]
        poly = [1.0] + [0.0] * k
        for _ in range(bins):
            poly = [sum(poly[i] * base[d - i] for i in range(d + 1)) for d in range(k + 1)]
        p_le = poly[k] * math.factorial(k) / bins ** k
        total += 1.0 - p_le
    return total


# ---------------------------------------------------------------------------
# The self-check against measured hardware.


# The measured rows of /work/shared/HARDWARE.md (sm_90, H100/H200, Nsight
# Compute): (what, space, element bytes, atomic, lanes of warp w, figure,
# value). The model must reproduce every one; run.py checks it first.
HARDWARE_ROWS = [
    ("f32 contiguous", "shared", 4, False, lambda w: [32 * w + l for l in range(32)], "wavefronts", 1),
    ("f32 stride 32", "shared", 4, False, lambda w: [l * 32 + w for l in range(32)], "wavefronts", 32),
    ("f32 stride 33", "shared", 4, False, lambda w: [l * 33 + w for l in range(32)], "wavefronts", 1),
    ("f32 diagonal", "shared", 4, False, lambda w: [l * 32 + (l + w) % 32 for l in range(32)], "wavefronts", 1),
    ("f32 two-way", "shared", 4, False, lambda w: [w * 64 + l * 2 for l in range(32)], "wavefronts", 2),
    ("f32 broadcast", "shared", 4, False, lambda w: [w] * 32, "wavefronts", 1),
    ("f64 contiguous", "shared", 8, False, lambda w: [32 * w + l for l in range(32)], "wavefronts", 2),
    ("f64 stride 16", "shared", 8, False, lambda w: [l * 16 + w for l in range(32)], "wavefronts", 32),
    ("f64 stride 32", "shared", 8, False, lambda w: [l * 32 + w for l in range(32)], "wavefronts", 32),
    ("f64 stride 33", "shared", 8, False, lambda w: [l * 33 + w for l in range(32)], "wavefronts", 2),
    ("f32x4 contiguous", "shared", 16, False, lambda w: [32 * w + l for l in range(32)], "wavefronts", 4),
    ("f32x4 stride 8", "shared", 16, False, lambda w: [l * 8 + w for l in range(32)], "wavefronts", 32),
    ("f32x4 stride 32", "shared", 16, False, lambda w: [l * 32 + w for l in range(32)], "wavefronts", 32),
    ("f32x4 32w+4(l%8)+l/8", "shared", 16, False,
     lambda w: [32 * w + 4 * (l % 8) + l // 8 for l in range(32)], "wavefronts", 16),
    ("f32x4 (64w+8(l%8)+l/8)%256", "shared", 16, False,
     lambda w: [(64 * w + 8 * (l % 8) + l // 8) % 256 for l in range(32)], "wavefronts", 32),
    ("f64 16(l%2)+l/2+32w", "shared", 8, False,
     lambda w: [16 * (l % 2) + l // 2 + 32 * w for l in range(32)], "wavefronts", 4),
    ("atomic, 32 lanes on one word", "shared", 4, True, lambda w: [w] * 32, "wavefronts", 32),
    ("atomic, lane l on word 2l", "shared", 4, True, lambda w: [2 * l for l in range(32)], "wavefronts", 2),
    ("atomic, lane l on word l", "shared", 4, True, lambda w: list(range(32)), "wavefronts", 1),
    ("f32 global contiguous", "global", 4, False, lambda w: [32 * w + l for l in range(32)], "sectors", 4),
    ("f32 global stride 2", "global", 4, False, lambda w: [2 * l + 64 * w for l in range(32)], "sectors", 8),
    ("f32 global stride 8", "global", 4, False, lambda w: [8 * l + 256 * w for l in range(32)], "sectors", 32),
    ("f32 global stride 32", "global", 4, False, lambda w: [32 * l + w for l in range(32)], "sectors", 32),
]


MEASURED_RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "results", "h100",
                              "shared-rules.jsonl")


def self_check():
    """Mismatches of the model against HARDWARE_ROWS and against every lane
    pattern bench/gpu-shared-rules.sh measured (empty: none)."""
    bad = []
    with open(MEASURED_RULES) as f:
        for line in f:
            r = json.loads(line)
            lanes = [None if e < 0 else e for e in r["lanes"]]
            got = shared_wavefronts(lanes, r["bytes"], False, r["op"] == "ld")
            if got != r["wavefronts"]:
                bad.append("%s (%d B %s): model %s wavefronts, measured %s" % (r["name"], r["bytes"], r["op"], got,
                                                                              r["wavefronts"]))
    for what, space, esize, atomic, lanes, fig, want in HARDWARE_ROWS:
        site = SiteFigures(space, esize, atomic)
        for w in range(32):
            site.add(lanes(w))
        got = site.result()[fig]
        if (got["min"], got["max"]) != (want, want):
            bad.append("%s: model %s..%s %s, measured %s" % (what, got["min"], got["max"], fig, want))
    return bad
