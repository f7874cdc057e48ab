// Included after Clang's CUDA runtime wrapper by bankwise's frontend.
// Clang 19 does not know CUDA 13's version, so it lowers `k<<<g, b>>>(...)`
// through the launch API of CUDA before 9.2, which CUDA 13 no longer
// declares. The declaration lets launch sites parse; nothing is called.
#pragma once
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
                                 cudaStream_t stream = 0);
