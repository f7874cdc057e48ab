// bankwise: an empty stand-in. Clang 19's CUDA runtime wrapper includes this
// header, which CUDA 13 no longer ships; bankwise reads device code for its
// memory accesses and needs none of the texture fetch functions.
#pragma once
