// Bit tricks shared by the permutation tables and the IR's closed forms.
#pragma once

#include <cstdint>

namespace bankwise {

/// The low M bits of X in reverse order (M <= 64): the 64-bit reversal
/// (bytes swapped, then nibbles, pairs and bits), shifted down to M bits.
inline std::uint64_t reverseBits(std::uint64_t X, int M) {
  if (M == 0)
    return 0;
  X = __builtin_bswap64(X);
  X = ((X >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((X & 0x0F0F0F0F0F0F0F0FULL) << 4);
  X = ((X >> 2) & 0x3333333333333333ULL) | ((X & 0x3333333333333333ULL) << 2);
  X = ((X >> 1) & 0x5555555555555555ULL) | ((X & 0x5555555555555555ULL) << 1);
  return X >> (64 - M);
}

} // namespace bankwise
