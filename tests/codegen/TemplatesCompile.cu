// Every template of templates/ instantiated once, so that nvcc checks them
// on their own (the golden files check the ones codegen embeds).
#include "bankwise/harness.cuh"
#include "bankwise/hmm_pass.cuh"
#include "bankwise/layout.cuh"
#include "bankwise/scheduled_permutation.cuh"
#include "bankwise/shared_permutation.cuh"
#include "bankwise/tables.cuh"
#include "bankwise/tile_transpose.cuh"

__global__ void tileTransposeRaw(const float *In, float *Out, int Rows, int Cols) {
  __shared__ float Tile[32 * 33];
  bankwise::tileTranspose<float, 32, 8>(In, Out, Rows, Cols, static_cast<int>(blockIdx.y),
                                        static_cast<int>(blockIdx.x), Tile, bankwise::PadLayout<32, 1>{});
}

__global__ void tileTransposeRap(const double *In, double *Out, long long Rows, long long Cols) {
  __shared__ double Tile[32 * 32];
  const bankwise::RapLayout<32, 5, 6> Lay{{0x1234567u, 0x89abcdefu, 0x0u, 0x1u, 0x2u, 0x3u}};
  bankwise::tileTranspose<double, 32, 8>(In, Out, Rows, Cols, static_cast<long long>(blockIdx.y),
                                         static_cast<long long>(blockIdx.x), Tile, Lay);
}

__global__ void sharedPermutation(const float *A, float *B, const unsigned short *S, const unsigned short *D) {
  __shared__ float Alpha[1024], Beta[1024];
  for (int K = threadIdx.x; K < 1024; K += blockDim.x)
    Alpha[K] = A[K];
  __syncthreads();
  bankwise::conflictFreePermute(Beta, Alpha, S, D, 1024);
  __syncthreads();
  for (int K = threadIdx.x; K < 1024; K += blockDim.x)
    B[K] = Beta[K];
}

__global__ void rap3p(float *A) {
  __shared__ float Smem[8 * 8 * 8 * 8];
  const bankwise::Rap3PLayout<8, 3, 1> Lay{{0x1u}, {0x2u}, {0x3u}};
  const int T = static_cast<int>(threadIdx.x);
  Smem[Lay.offset(T / 512, T / 64 % 8, T / 8 % 8, T % 8)] = A[T];
  __syncthreads();
  A[T] = Smem[T] + bankwise::toCompute(__float2half(1.0f)) +
         static_cast<float>(bankwise::floorDiv(T - 7, 2) + bankwise::bitReverse(T, 4));
}

template __global__ void bankwise::hmmPermutationPass<float, false, 8>(const float *, float *,
                                                                      const std::uint16_t *,
                                                                      const std::uint16_t *,
                                                                      unsigned long long, unsigned);
template __global__ void bankwise::hmmPermutationPass<float, true, 8>(const float *, float *,
                                                                     const std::uint16_t *,
                                                                     const std::uint16_t *,
                                                                     unsigned long long, unsigned);

int main() {
  bankwise::HarnessRng Rng{1};
  std::vector<double> V = {3, 1, 2};
  const float X = bankwise::randomElement<float>(Rng);
  std::vector<unsigned> Out;
  const unsigned short Table[2] = {1, 0};
  bankwise::widenTable(Table, 2, Out);
  return bankwise::median(V) == 2 && bankwise::sameValue(X, X, 0) && Out[0] == 1 ? 0 : 1;
}
