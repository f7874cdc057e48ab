// Included after Clang's CUDA runtime wrapper by bankwise's frontend.
// Device functions of CUDA 13 that nvcc declares and Clang 19's wrapper
// does not, declared here so that files using them parse as they do with
// nvcc. Nothing is called: bankwise reads device code for its memory
// accesses, and the lowering knows these by name (the cache-hinted loads
// and stores are accesses through their pointer argument; a surface access
// is memory it does not model).
#pragma once

// nvcc's cuda_runtime.h includes these C headers for every file
// (crt/common_functions.h, outside NVRTC); Clang's wrapper does not, and a
// host `clock() / CLOCKS_PER_SEC` or `memcpy` without its #include then
// fails under Clang only.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

template <typename T> struct __bankwise_identity { typedef T type; };

// Cache-hinted loads and stores (CUDA's sm_32_intrinsics.h, which Clang's
// wrapper keeps out, defines __ldg only itself). The value's type is not
// deduced, so `__stcs(p, 0)` converts as nvcc's overloads do.
#define __BANKWISE_LOAD(name) template <typename T> __device__ T name(const T *ptr);
#define __BANKWISE_STORE(name)                                                                      \
  template <typename T> __device__ void name(T *ptr, typename __bankwise_identity<T>::type value);
__BANKWISE_LOAD(__ldcg)
__BANKWISE_LOAD(__ldca)
__BANKWISE_LOAD(__ldcs)
__BANKWISE_LOAD(__ldlu)
__BANKWISE_LOAD(__ldcv)
__BANKWISE_STORE(__stwb)
__BANKWISE_STORE(__stcg)
__BANKWISE_STORE(__stcs)
__BANKWISE_STORE(__stwt)
#undef __BANKWISE_LOAD
#undef __BANKWISE_STORE

// Surface objects (CUDA's surface_indirect_functions.h, whose definitions
// need nvcc's texture and surface handler).
#define __BANKWISE_SURFACE(name, ...)                                                               \
  template <typename T>                                                                             \
  __device__ void name##write(T val, cudaSurfaceObject_t obj, __VA_ARGS__,                           \
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);                 \
  template <typename T>                                                                             \
  __device__ void name##read(T *ptr, cudaSurfaceObject_t obj, __VA_ARGS__,                           \
                             cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);                  \
  template <typename T>                                                                             \
  __device__ T name##read(cudaSurfaceObject_t obj, __VA_ARGS__,                                      \
                          cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap);
__BANKWISE_SURFACE(surf1D, int x)
__BANKWISE_SURFACE(surf2D, int x, int y)
__BANKWISE_SURFACE(surf3D, int x, int y, int z)
__BANKWISE_SURFACE(surf1DLayered, int x, int layer)
__BANKWISE_SURFACE(surf2DLayered, int x, int y, int layer)
__BANKWISE_SURFACE(surfCubemap, int x, int y, int face)
__BANKWISE_SURFACE(surfCubemapLayered, int x, int y, int layerface)
#undef __BANKWISE_SURFACE

// min and max for host code: nvcc declares them for both sides
// (crt/math_functions.hpp: int, every mix of signed and unsigned int, long
// and long long, float, double and their mixes); Clang's wrapper declares
// them for device code only. A host `max(1, n)` was an error, and the
// launches after it in that function were lost with it (llm.c's
// matmul_backward: its kernel's block was then assumed). Declared, never
// defined: nothing is run.
#define __BANKWISE_MINMAX(R, A, B)                                                                  \
  __host__ R min(A a, B b);                                                                         \
  __host__ R max(A a, B b);
__BANKWISE_MINMAX(int, int, int)
__BANKWISE_MINMAX(unsigned int, unsigned int, unsigned int)
__BANKWISE_MINMAX(unsigned int, int, unsigned int)
__BANKWISE_MINMAX(unsigned int, unsigned int, int)
__BANKWISE_MINMAX(long int, long int, long int)
__BANKWISE_MINMAX(unsigned long int, unsigned long int, unsigned long int)
__BANKWISE_MINMAX(unsigned long int, long int, unsigned long int)
__BANKWISE_MINMAX(unsigned long int, unsigned long int, long int)
__BANKWISE_MINMAX(long long int, long long int, long long int)
__BANKWISE_MINMAX(unsigned long long int, unsigned long long int, unsigned long long int)
__BANKWISE_MINMAX(unsigned long long int, long long int, unsigned long long int)
__BANKWISE_MINMAX(unsigned long long int, unsigned long long int, long long int)
__BANKWISE_MINMAX(float, float, float)
__BANKWISE_MINMAX(double, double, double)
__BANKWISE_MINMAX(double, float, double)
__BANKWISE_MINMAX(double, double, float)
#undef __BANKWISE_MINMAX
