// Kernels defined in a header, the way tutorials keep one kernel a file
// (issue [13] item 1): the file that launches or instantiates them
// (launches.cu) has them analyzed; one it does not launch gets a note.
#pragma once

__global__ void header_transpose(const float *in, float *out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];  // CHECK: warning: 32-way bank conflict on shared load from 'tile' (lanes stride 32 words) [bankwise-bank-conflict]
}

template <int Stride>
__global__ void header_strided(float *p) {
  // CHECK: warning: uncoalesced global load from 'p': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 32 words) [bankwise-uncoalesced]
  // CHECK: warning: uncoalesced global store to 'p': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 32 words) [bankwise-uncoalesced]
  p[(blockIdx.x * blockDim.x + threadIdx.x) * Stride] *= 2.0f;
}

// CHECK: note: kernel 'header_unused' of an included header is not launched from this file: not analyzed here (lint the file that launches it) [bankwise-unanalyzed]
__global__ void header_unused(float *p) { p[threadIdx.x] = 0.0f; }
