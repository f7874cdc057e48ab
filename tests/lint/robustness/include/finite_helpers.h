// A project header of host and device helpers (nvcc_isfinite_header.cu):
// host code calling isfinite on a float, which CUDA 13's headers under
// Clang do not overload for the host side.
#pragma once
#include <cmath>

inline bool all_finite(const float *v, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(v[i]))
      return false;
  return true;
}

__device__ inline float finite_or_zero(float v) { return isfinite(v) ? v : 0.0f; }
