// Deterministic pseudo-random numbers. std::uniform_int_distribution differs
// between standard libraries, so bankwise draws its own: SplitMix64 to seed,
// xoshiro256** to generate, Lemire's multiply-shift for unbiased bounds. The
// same seed gives the same permutation, RAP shifts and Monte-Carlo samples on
// every platform.
#pragma once

#include <array>
#include <cstdint>

namespace bankwise {

/// splitmix64: x += 0x9e3779b97f4a7c15; then two xor-shift-multiply rounds.
inline std::uint64_t splitMix64(std::uint64_t &State) {
  std::uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

/// xoshiro256** (Blackman and Vigna), seeded through splitmix64.
class Rng {
public:
  explicit Rng(std::uint64_t Seed) {
    std::uint64_t S = Seed;
    for (auto &Word : State)
      Word = splitMix64(S);
  }

  std::uint64_t next() {
    const std::uint64_t Result = rotl(State[1] * 5, 7) * 9;
    const std::uint64_t T = State[1] << 17;
    State[2] ^= State[0];
    State[3] ^= State[1];
    State[1] ^= State[2];
    State[0] ^= State[3];
    State[2] ^= T;
    State[3] = rotl(State[3], 45);
    return Result;
  }

  /// Uniform in [0, Bound) without modulo bias (Lemire 2019). Bound > 0.
  std::uint64_t below(std::uint64_t Bound) {
    __uint128_t M = static_cast<__uint128_t>(next()) * Bound;
    auto Low = static_cast<std::uint64_t>(M);
    if (Low < Bound) {
      const std::uint64_t Threshold = (0 - Bound) % Bound;
      while (Low < Threshold) {
        M = static_cast<__uint128_t>(next()) * Bound;
        Low = static_cast<std::uint64_t>(M);
      }
    }
    return static_cast<std::uint64_t>(M >> 64);
  }

private:
  static std::uint64_t rotl(std::uint64_t X, int K) {
    return (X << K) | (X >> (64 - K));
  }
  std::array<std::uint64_t, 4> State{};
};

} // namespace bankwise
