// bankwise/arith.cuh: the integer semantics of the .bw language for CUDA and
// host C++ (docs/language.md): `/` and `%` round toward negative infinity,
// bitrev, floor log2, min, max; the closed-form permutations of ir/Program.h;
// and keep(), which stops the compiler from deleting a load whose value the
// program never uses. Every function is __host__ __device__, so the CPU
// reference of a harness and the kernels share one definition.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BANKWISE_HD __host__ __device__ __forceinline__
#else
#define BANKWISE_HD inline
#endif
// The unroll pragma only in nvcc's device pass: the host compiler does not
// know it (GCC's -Wall -Werror rejects it in __host__ __device__ code).
#if defined(__CUDA_ARCH__)
#define BANKWISE_UNROLL _Pragma("unroll")
#else
#define BANKWISE_UNROLL
#endif

namespace bankwise {

/// a / b rounded toward negative infinity: floorDiv(-7, 2) == -4.
template <class A, class B> BANKWISE_HD auto floorDiv(A X, B Y) -> decltype(X / Y) {
  const auto Q = X / Y;
  return (X % Y != 0 && ((X < 0) != (Y < 0))) ? Q - 1 : Q;
}

/// a mod b with the sign of b: floorMod(-1, 4) == 3.
template <class A, class B> BANKWISE_HD auto floorMod(A X, B Y) -> decltype(X % Y) {
  const auto R = X % Y;
  return (R != 0 && ((R < 0) != (Y < 0))) ? R + Y : R;
}

template <class A, class B> BANKWISE_HD auto minOf(A X, B Y) -> decltype(X + Y) {
  return X < Y ? X : Y;
}

template <class A, class B> BANKWISE_HD auto maxOf(A X, B Y) -> decltype(X + Y) {
  return X < Y ? Y : X;
}

/// floor(log2 x) for x > 0: log2Floor(8) == 3, log2Floor(9) == 3.
template <class A> BANKWISE_HD A log2Floor(A X) {
  A R = 0;
  while (X > 1) {
    X >>= 1;
    ++R;
  }
  return R;
}

/// Reverses the low Bits bits of x: bitReverse(1, 4) == 8.
template <class A, class B> BANKWISE_HD A bitReverse(A X, B Bits) {
#if defined(__CUDA_ARCH__)
  if (Bits == 0)
    return 0;
  return static_cast<A>(__brevll(static_cast<unsigned long long>(X)) >> (64 - Bits));
#else
  unsigned long long V = static_cast<unsigned long long>(X), R = 0;
  for (B I = 0; I < Bits; ++I) {
    R = (R << 1) | (V & 1);
    V >>= 1;
  }
  return static_cast<A>(R);
#endif
}

/// shuffle(n), n = 2^Bits: the index rotated left by one bit,
/// i_m..i_1 -> i_{m-1}..i_1 i_m. shufflePerm(1, 4) == 2, shufflePerm(8, 4) == 1.
template <class A, class B> BANKWISE_HD A shufflePerm(A X, B Bits) {
  if (Bits <= 1)
    return X;
  const A Mask = (A(1) << Bits) - 1;
  return ((X << 1) & Mask) | (X >> (Bits - 1));
}

/// The inverse of shufflePerm: rotate right by one bit.
template <class A, class B> BANKWISE_HD A shuffleInverse(A X, B Bits) {
  if (Bits <= 1)
    return X;
  return (X >> 1) | ((X & 1) << (Bits - 1));
}

/// transpose(r, c): P(i*c + j) = j*r + i. transposePerm(1, 2, 3) == 2.
template <class A, class B> BANKWISE_HD A transposePerm(A X, B Rows, B Cols) {
  return (X % Cols) * Rows + X / Cols;
}

#if defined(__CUDACC__)
/// Keeps a value alive: the load that produced it stays in the program even
/// when nothing reads the value (the .bw sample `let x = m[i]` measures a
/// load). An empty `asm volatile` using the value is not enough: ptxas
/// deletes the load behind it (seen on sm_90: the kernel was one EXIT). So
/// the value's bits decide a branch to a trap that never runs (the bits
/// would have to equal 0x7FBADC0D while the clock reads 0): a compare and a
/// branch, no memory instruction.
__device__ __forceinline__ void keepBits(unsigned Bits) {
  if (Bits == 0x7FBADC0Du && clock() == 0)
    __trap();
}
template <class T> __device__ __forceinline__ void keep(const T &V) {
  static_assert(sizeof(T) % 2 == 0 || sizeof(T) == 1, "keep() takes 1-byte and even-sized values");
  unsigned Bits = 0;
  if constexpr (sizeof(T) % 4 == 0) {
    const unsigned *W = reinterpret_cast<const unsigned *>(&V);
#pragma unroll
    for (unsigned I = 0; I < sizeof(T) / 4; ++I)
      Bits ^= W[I];
  } else if constexpr (sizeof(T) % 2 == 0) {
    const unsigned short *H = reinterpret_cast<const unsigned short *>(&V);
#pragma unroll
    for (unsigned I = 0; I < sizeof(T) / 2; ++I)
      Bits ^= static_cast<unsigned>(H[I]) << (16 * (I % 2));
  } else {
    Bits = *reinterpret_cast<const unsigned char *>(&V);
  }
  keepBits(Bits);
}
#endif

} // namespace bankwise
