// A project header for nvcc_missing_omp.cu: host helpers on OpenMP, whose
// header Clang does not find here.
#pragma once
#include <omp.h>

inline int host_thread_count() { return omp_get_max_threads(); }
