// FNV-1a, 64 bits: the checksum of permutation files' headers and of
// template texts in the goldens. Continues from H, so a hash can be taken
// chunk by chunk.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bankwise {

inline constexpr std::uint64_t Fnv1aBasis = 0xcbf29ce484222325ULL;

inline std::uint64_t fnv1a(const unsigned char *Data, std::size_t N, std::uint64_t H = Fnv1aBasis) {
  for (std::size_t I = 0; I < N; ++I)
    H = (H ^ Data[I]) * 0x100000001b3ULL;
  return H;
}

} // namespace bankwise
