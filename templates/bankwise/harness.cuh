// bankwise/harness.cuh: host-side support for generated harnesses and host
// APIs: checked CUDA calls, deterministic random data, host images of device
// elements, offline tables read from a side file, and timing statistics.
// Holds no decision: what to fill, compare and time is codegen's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "bankwise/types.cuh"

namespace bankwise {

/// Exits with a message naming the call when a CUDA call of a harness fails.
inline void checkCuda(cudaError_t Err, const char *Call, int Line) {
  if (Err != cudaSuccess) {
    std::fprintf(stderr, "harness:%d: %s failed: %s\n", Line, Call, cudaGetErrorString(Err));
    std::exit(2);
  }
}
#define BANKWISE_CHECK(Call) ::bankwise::checkCuda((Call), #Call, __LINE__)

/// splitmix64: the harness's deterministic random stream.
struct HarnessRng {
  unsigned long long State;
  unsigned long long next() {
    unsigned long long Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
};

/// The host image of a device element: f16 and bf16 are held as float (the
/// values are exactly representable), everything else as itself.
template <class T> struct HostOf { using Type = T; };
template <> struct HostOf<__half> { using Type = float; };
template <> struct HostOf<__nv_bfloat16> { using Type = float; };
template <class T> using HostT = typename HostOf<T>::Type;

template <class T> HostT<T> toHost(T X) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(X);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(X);
  else
    return X;
}

template <class T> T toDevice(HostT<T> X) { return fromCompute<T>(X); }

/// Rounds a compute value to what an element of type T holds (the CPU
/// reference's store).
template <class T, class V> HostT<T> roundTo(V X) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
    return toHost(fromCompute<T>(X));
  else
    return static_cast<HostT<T>>(X);
}

/// A random element: floats uniform in [-1, 1) on a grid exact in T, integers
/// uniform over their type, vectors lane by lane.
template <class T> T randomElement(HarnessRng &R) {
  if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(static_cast<long long>(R.next() >> 40) - (1LL << 23)) * 0x1p-23f;
  else if constexpr (std::is_same_v<T, double>)
    return static_cast<double>(static_cast<long long>(R.next() >> 11) - (1LL << 52)) * 0x1p-52;
  else if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
    return fromCompute<T>(static_cast<float>(static_cast<int>(R.next() >> 54) - 512) * 0x1p-9f);
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(R.next());
  else {
    T V;
    using Lane = std::remove_reference_t<decltype(V.V[0])>;
    for (auto &L : V.V)
      L = randomElement<Lane>(R);
    return V;
  }
}

/// A random integer in [0, Limit), for an array whose values bound a loop
/// (values over the whole type would run it for billions of iterations).
template <class T> T randomBelow(HarnessRng &R, unsigned long long Limit) {
  return static_cast<T>(R.next() % Limit);
}

/// True when two host values are the same bits, or both are floating point
/// within Tol relative to the reference (arithmetic kernels only).
template <class H> bool sameValue(const H &Got, const H &Want, double Tol) {
  if (std::memcmp(&Got, &Want, sizeof(H)) == 0)
    return true;
  if constexpr (std::is_floating_point_v<H>) {
    if (Tol <= 0 || std::isnan(Got) || std::isnan(Want))
      return false;
    return std::fabs(static_cast<double>(Got) - static_cast<double>(Want)) <=
           Tol * (1.0 + std::fabs(static_cast<double>(Want)));
  } else {
    return false;
  }
}

/// Prints a host value for a mismatch report.
template <class H> std::string showValue(const H &X) {
  if constexpr (std::is_floating_point_v<H>)
    return std::to_string(static_cast<double>(X));
  else if constexpr (std::is_integral_v<H>)
    return std::to_string(static_cast<long long>(X));
  else {
    std::string S = "0x";
    const unsigned char *B = reinterpret_cast<const unsigned char *>(&X);
    static const char *Hex = "0123456789abcdef";
    for (std::size_t I = sizeof(H); I-- > 0;) {
      S += Hex[B[I] >> 4];
      S += Hex[B[I] & 15];
    }
    return S;
  }
}

/// Median of the samples (sorted copy; the mean of the middle two for an
/// even count).
inline double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  const std::size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

} // namespace bankwise
