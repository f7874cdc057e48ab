// Layouts: bijections from an array's logical index to an address, the one
// place their formulas live (analysis, the rap-table experiment and codegen's
// templates all follow these). For an array of shape [..., R][C], write i for
// the row (the row-major linear index of all but the last index) and j for
// the column:
//
//   raw          (i, j) -> i*C + j
//   pad(k)       (i, j) -> i*(C + k) + j
//   xor          (i, j) -> i*C + (j ^ (i mod C))       C a power of two; CuTe's
//                                                     Swizzle<log2 C, 0, log2 C>
//   swizzle(B, M, S)   o -> o ^ ((o >> S) & ((2^B - 1) << M)) on the raw
//                      offset o = i*C + j: CuTe's Swizzle<B, M, S>, S >= B
//   diagonal     (i, j) -> i*C + (i + j) mod C         seed 001 Sec. V
//   ras(s)       (i, j) -> i*C + (j + r_i) mod C       r_i independent, uniform
//                                                     in [0, C): seed 002 [7]
//   rap(s)       (i, j) -> i*C + (j + r_{i mod C}) mod C   r a random
//                                                     permutation: seed 002 IV
// and for an array a[i][j][k][l] of w^4 elements (seed 002 Sec. VII), the
// shift f(i, j, k) replacing r_i:
//   rap1p        f = r_k
//   rapr1p       f = r_i + r_j + r_k
//   rap3p        f = r_i + s_j + t_k                    r, s, t independent
//   rapw2p       f = r^{i*w + j}_k                      w^2 permutations
//   rap1pw2r     f = s_{i*w + j} + r_k                  s_x uniform in [0, w)
// Random tables come from bankwise's own generator, so a seed gives the same
// layout everywhere. Worked example (seed 002 Fig. 6): w = 4, r = (2, 0, 3, 1)
// puts a[2][2] at 2*4 + (2 + 3) mod 4 = 9.
#pragma once

#include "ir/Program.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bankwise {

/// A layout's kind: the IR's (ir/Program.h), which names the models' kinds
/// too; `auto` (not yet chosen) is laid out as raw.
using LayoutKind = ir::LayoutKind;

/// CuTe's Swizzle<B, M, S>: B bits of mask, M least-significant bits kept,
/// shift S.
struct SwizzleBits {
  int B = 0, M = 0, S = 0;
  bool operator==(const SwizzleBits &) const = default;
};


/// A layout of one array: kind, shape, parameters and random tables.
struct LayoutFn {
  LayoutKind Kind = LayoutKind::Raw;
  std::vector<std::int64_t> Shape;
  std::int64_t Pad = 0;      ///< pad's k
  SwizzleBits Swz;           ///< swizzle's B, M, S
  std::uint64_t Seed = 0;    ///< for the random kinds
  /// Random tables, concatenated: ras: r_i per row; rap, rap1p, rapr1p: r;
  /// rap3p: r, s, t; rapw2p: w^2 permutations; rap1pw2r: r then s.
  std::vector<std::int64_t> Table;
  bool operator==(const LayoutFn &) const = default;

  /// Address of a logical index (one value per dimension, in bounds).
  std::int64_t map(std::span<const std::int64_t> Index) const;
  /// Number of addresses the layout spans (elements plus padding).
  std::int64_t footprint() const;
  /// Printable form: "rap(seed: 7) of [32][32]".
  std::string str() const;
  /// True for raw and pad, whose address is affine in the index.
  bool isAffine() const { return Kind == LayoutKind::Raw || Kind == LayoutKind::Pad; }
};

/// Builds a layout; throws UserError when the kind does not fit the shape
/// (xor needs a power-of-two last dimension; the seed 002 Sec. VII kinds need
/// four dimensions of the same size w).
LayoutFn makeLayout(LayoutKind Kind, std::vector<std::int64_t> Shape,
                    std::int64_t Pad = 0, std::uint64_t Seed = 0);

/// A Swizzle<B, M, S> layout of Shape; throws UserError unless 0 <= B,
/// 0 <= M, S >= B and the swizzled bits stay inside the array (the element
/// count is a multiple of 2^(M + S + B)).
LayoutFn makeSwizzle(std::vector<std::int64_t> Shape, SwizzleBits Bits);

} // namespace bankwise
