// Commentaires en Latin-1 (pas UTF-8) : été, façade, © 2019. Valid CUDA:
// Clang reads bytes that are not UTF-8 in comments; the lint prints the
// line of its warning as it is.
#include <cuda_runtime.h>

__global__ void colonne(const float *in, float *out) {
  __shared__ float tuile[32][32];  // la tuile « carrée »
  tuile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // CHECK: warning: 32-way bank conflict on shared load from 'tuile' (lanes stride 32 words) [bankwise-bank-conflict]
  out[threadIdx.y * 32 + threadIdx.x] = tuile[threadIdx.x][threadIdx.y];  // lecture en colonne à 32 voies
}

void lancer(const float *in, float *out) { colonne<<<1, dim3(32, 32)>>>(in, out); }
