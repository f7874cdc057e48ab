// A library header the user includes with -isystem (as thrust, cub and the
// C++ library are system headers): its host-only function bodies are not
// parsed by the lint; its device functions are.
#pragma once

// Not valid C++: a parse of this body would be an error (the lint skips it).
template <typename T> inline void vendor_host_fill(T *p, int n) { vendor_undeclared_helper(p, n); }

inline int vendor_host_count() { return vendor_also_undeclared(); }

// Device code of a system header is read: the kernel's stride comes from it.
__device__ inline int vendor_stride_index(int t) { return 2 * t; }
