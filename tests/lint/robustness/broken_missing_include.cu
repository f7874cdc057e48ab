// EXIT: 2
// A header of the project that is not on the include path, which the
// kernel needs: the header is skipped, the kernel's use of what it would
// declare is an error, and the missing header is an error too (the cause),
// located at the #include.
#include <cuda_runtime.h>
// CHECK: error: 'common/tile_config.cuh' file not found [clang-diagnostic-error]
#include "common/tile_config.cuh"

// CHECK: note: kernel 'uses_config' not analyzed: its body has errors (the first at line 12) [bankwise-unanalyzed]
// CHECK: error: use of undeclared identifier 'TILE' [clang-diagnostic-error]
__global__ void uses_config(float *out) { out[threadIdx.x] = TILE; }
