// EXIT: 2
// A header of the project that is not on the include path: Clang's fatal
// error stops the file there.
#include <cuda_runtime.h>
// CHECK: error: 'common/tile_config.cuh' file not found [clang-diagnostic-error]
#include "common/tile_config.cuh"

__global__ void uses_config(float *out) { out[threadIdx.x] = TILE; }
