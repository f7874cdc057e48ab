// bankwise/types.cuh: element types of the .bw language in CUDA. Scalars map
// to the CUDA types (f16 -> __half, bf16 -> __nv_bfloat16); a vector of N
// scalars (f32x4, u8x4, ...) is Vec<T, N>, aligned to its size so that it
// moves with one vector load or store, as float4 does. Arithmetic runs in the
// compute type (float for f16, bf16 and f32; double for f64): toCompute reads
// a value into it, fromCompute<T> rounds it back on a store.
#pragma once

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "bankwise/arith.cuh"

namespace bankwise {

template <class T, int N> struct alignas(sizeof(T) * N) Vec {
  T V[N];
};

BANKWISE_HD float toCompute(__half X) { return __half2float(X); }
BANKWISE_HD float toCompute(__nv_bfloat16 X) { return __bfloat162float(X); }
template <class T> BANKWISE_HD T toCompute(T X) { return X; }

template <class T, class V> BANKWISE_HD T fromCompute(V X) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half(static_cast<float>(X));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16(static_cast<float>(X));
  else
    return static_cast<T>(X);
}

} // namespace bankwise
