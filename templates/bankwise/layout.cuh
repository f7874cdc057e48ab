// bankwise/layout.cuh: layout policies, the address functions of
// analysis/models/Layout.h for CUDA and host C++. A policy maps (row, column) of an
// array whose innermost dimension has C elements to an element offset; the
// row is the row-major linear index of all the other dimensions.
//
//   RawLayout<C>              (i, j) -> i*C + j
//   PadLayout<C, K>           (i, j) -> i*(C + K) + j
//   XorLayout<C>              (i, j) -> i*C + (j ^ (i mod C))    C = 2^k
//   DiagonalLayout<C>         (i, j) -> i*C + (i + j) mod C      seed 001 Sec. V
//   RapLayout<C, Bits, Words> (i, j) -> i*C + (j + r[i mod C]) mod C
//                                                            seed 002 Sec. IV
//   Rap3PLayout<W, Bits, Words> a[i][j][k][l] -> row*W + (l + r_i + s_j + t_k) mod W
//                                                            seed 002 Sec. VII
//
// The RAP shifts live in registers, packed as seed 002 Section VI does: Bits
// bits per shift, 32 / Bits shifts per 32-bit word (six 5-bit shifts for
// w = 32, so 32 shifts take 6 registers); shift i is
// (R[i / PerWord] >> (Bits * (i % PerWord))) & ((1 << Bits) - 1). The word
// is selected with an unrolled compare chain, never a dynamic index, so the
// array stays in registers. Worked example (seed 002 Fig. 6): C = 4,
// r = (2, 0, 3, 1), Bits = 2: R[0] = 2 | 0 << 2 | 3 << 4 | 1 << 6 = 0x72,
// and (2, 2) maps to 2*4 + (2 + 3) mod 4 = 9.
//
// Rows, columns and the result are of the caller's index type (int or long
// long); rows are never negative.
#pragma once

#include "bankwise/arith.cuh"

namespace bankwise {

template <long long C> struct RawLayout {
  static constexpr long long RowPitch = C;
  template <class R, class J> BANKWISE_HD auto offset(R Row, J Col) const -> decltype(Row + Col) {
    return Row * C + Col;
  }
};

template <long long C, long long K> struct PadLayout {
  static constexpr long long RowPitch = C + K;
  template <class R, class J> BANKWISE_HD auto offset(R Row, J Col) const -> decltype(Row + Col) {
    return Row * (C + K) + Col;
  }
};

template <long long C> struct XorLayout {
  static_assert(C > 0 && (C & (C - 1)) == 0, "xor needs a power-of-two row");
  static constexpr long long RowPitch = C;
  template <class R, class J> BANKWISE_HD auto offset(R Row, J Col) const -> decltype(Row + Col) {
    return Row * C + (Col ^ (Row & (C - 1)));
  }
};

template <long long C> struct DiagonalLayout {
  static constexpr long long RowPitch = C;
  template <class R, class J> BANKWISE_HD auto offset(R Row, J Col) const -> decltype(Row + Col) {
    return Row * C + (Row + Col) % C;
  }
};

/// Extracts packed shift I from Words registers: Bits bits per shift.
template <int Bits, int Words>
BANKWISE_HD unsigned packedShift(const unsigned (&R)[Words], unsigned I) {
  constexpr unsigned PerWord = 32 / Bits;
  const unsigned Q = I / PerWord, S = I % PerWord;
  unsigned W = R[0];
BANKWISE_UNROLL
  for (int K = 1; K < Words; ++K)
    if (Q == static_cast<unsigned>(K))
      W = R[K];
  return (W >> (Bits * S)) & ((1u << Bits) - 1u);
}

template <long long C, int Bits, int Words> struct RapLayout {
  static_assert(Bits >= 1 && Bits <= 16 && (1LL << Bits) >= C, "shifts must fit Bits");
  static_assert(Words * (32 / Bits) >= C, "Words registers must hold C shifts");
  static constexpr long long RowPitch = C;
  unsigned R[Words]; ///< packed shifts r[0..C-1]

  BANKWISE_HD unsigned shift(unsigned I) const { return packedShift<Bits, Words>(R, I); }
  template <class Rw, class J> BANKWISE_HD auto offset(Rw Row, J Col) const -> decltype(Row + Col) {
    using I = decltype(Row + Col);
    return Row * C + (Col + static_cast<I>(shift(static_cast<unsigned>(Row % C)))) % C;
  }
};

/// Seed 002 Sec. VII's 3P layout of a W x W x W x W array: three packed
/// permutations r, s, t; element (i, j, k, l) at ((i*W + j)*W + k)*W +
/// (l + (r_i + s_j + t_k) mod W) mod W.
template <long long W, int Bits, int Words> struct Rap3PLayout {
  static constexpr long long RowPitch = W;
  unsigned R[Words], S[Words], T[Words];

  template <class I> BANKWISE_HD I offset(I A, I B, I K, I L) const {
    const I F = static_cast<I>(packedShift<Bits, Words>(R, static_cast<unsigned>(A)) +
                               packedShift<Bits, Words>(S, static_cast<unsigned>(B)) +
                               packedShift<Bits, Words>(T, static_cast<unsigned>(K)));
    return ((A * W + B) * W + K) * W + (L + F % W) % W;
  }
};

} // namespace bankwise
