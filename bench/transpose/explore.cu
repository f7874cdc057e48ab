// Issue [8] exploration: which tiling of a 2-D transpose gets closest to a
// device-to-device copy of the same bytes on this GPU, on square and odd
// shapes. Hand-written variants of the tiled transpose (tile rows x tile
// columns, block 32 x BY, edge tiles guarded, interior tiles not), each
// checked element by element against a one-element-per-thread transpose on
// the device, timed with CUDA events (median of 21 after 3 warm-ups) beside
// cudaMemcpyAsync of the same bytes in the same run.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o explore bench/transpose/explore.cu && ./explore
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                                  \
  do {                                                                                                         \
    cudaError_t e_ = (x);                                                                                      \
    if (e_ != cudaSuccess) {                                                                                   \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);                   \
      std::exit(1);                                                                                            \
    }                                                                                                          \
  } while (0)

template <typename T>
__global__ void naive(const T *in, T *out, int R, int C) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < (long long)R * C) {
    const int r = int(i / C), c = int(i % C);
    out[(long long)c * R + r] = in[i];
  }
}

template <typename T>
__global__ void mismatches(const T *a, const T *b, long long n, unsigned long long *count) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const auto x = reinterpret_cast<const unsigned char *>(a + i), y = reinterpret_cast<const unsigned char *>(b + i);
    for (int k = 0; k < (int)sizeof(T); ++k)
      if (x[k] != y[k]) {
        atomicAdd(count, 1ull);
        break;
      }
  }
}

// Tile TR x TC of the input, block (32, BY). Shared row pitch TC + PAD.
template <typename T, int TR, int TC, int BY, int PAD, bool SWAP>
__global__ void __launch_bounds__(32 * BY) tiled(const T *__restrict__ in, T *__restrict__ out, int R, int C) {
  __shared__ T tile[TR][TC + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // SWAP: consecutive blocks walk down the input's rows, so the tiles that
  // share an output sector run at about the same time.
  const int c0 = (SWAP ? blockIdx.y : blockIdx.x) * TC, r0 = (SWAP ? blockIdx.x : blockIdx.y) * TR;
  const bool full = r0 + TR <= R && c0 + TC <= C;
  if (full) {
#pragma unroll
    for (int k = 0; k < TR / BY; ++k)
#pragma unroll
      for (int j = 0; j < TC / 32; ++j)
        tile[ty + BY * k][tx + 32 * j] = in[(long long)(r0 + ty + BY * k) * C + c0 + tx + 32 * j];
  } else {
#pragma unroll
    for (int k = 0; k < TR / BY; ++k)
#pragma unroll
      for (int j = 0; j < TC / 32; ++j) {
        const int r = r0 + ty + BY * k, c = c0 + tx + 32 * j;
        if (r < R && c < C)
          tile[ty + BY * k][tx + 32 * j] = in[(long long)r * C + c];
      }
  }
  __syncthreads();
  if (full) {
#pragma unroll
    for (int k = 0; k < TC / BY; ++k)
#pragma unroll
      for (int j = 0; j < TR / 32; ++j)
        out[(long long)(c0 + ty + BY * k) * R + r0 + tx + 32 * j] = tile[tx + 32 * j][ty + BY * k];
  } else {
#pragma unroll
    for (int k = 0; k < TC / BY; ++k)
#pragma unroll
      for (int j = 0; j < TR / 32; ++j) {
        const int c = c0 + ty + BY * k, r = r0 + tx + 32 * j;
        if (c < C && r < R)
          out[(long long)c * R + r] = tile[tx + 32 * j][ty + BY * k];
      }
  }
}

template <typename T>
struct Bufs {
  T *in, *out, *ref;
  long long n;
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
float timeIt(F &&f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  std::vector<float> ms;
  for (int i = 0; i < 21; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  return median(ms);
}

/// Runs Launch once into a poisoned output, counts the elements that differ
/// from the reference, times it, and prints the row.
template <typename T, typename Launch>
void measure(const char *type, const char *name, Bufs<T> &B, int R, int C, float copyMs, unsigned long long *dcount,
             Launch launch) {
  CK(cudaMemset(B.out, 0xff, B.n * sizeof(T)));
  launch();
  CK(cudaDeviceSynchronize());
  CK(cudaMemset(dcount, 0, 8));
  mismatches<<<1024, 256>>>(B.out, B.ref, B.n, dcount);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, dcount, 8, cudaMemcpyDeviceToHost));
  const float ms = timeIt(launch);
  std::printf("| %s | %d x %d | %s | %s | %.4f | %.4f | %.3f |\n", type, R, C, name, bad ? "NO" : "yes", ms, copyMs,
              copyMs / ms);
}

template <typename T, int TR, int TC, int BY, int PAD, bool SWAP = false>
void run(const char *type, const char *name, Bufs<T> &B, int R, int C, float copyMs, unsigned long long *dcount) {
  const dim3 grid(SWAP ? (R + TR - 1) / TR : (C + TC - 1) / TC, SWAP ? (C + TC - 1) / TC : (R + TR - 1) / TR),
      block(32, BY);
  measure(type, name, B, R, C, copyMs, dcount,
          [&] { tiled<T, TR, TC, BY, PAD, SWAP><<<grid, block>>>(B.in, B.out, R, C); });
}

// Sector-aligned writes: output row c of a tile starts at the sector
// boundary at or before r0, so every block writes whole 32-byte sectors of
// the output (only the matrix's own ends are partial) and no sector is
// written by two blocks. The tile is skewed by sh(c) = (c * R + r0) mod S
// (S elements per sector); the reads cover TR + S - 1 input rows, each lane
// taking the rows of its column's skew. Consecutive blocks walk down the
// input's rows.
template <typename T, int TR, int TC, int BY>
__global__ void __launch_bounds__(32 * BY) skewed(const T *__restrict__ in, T *__restrict__ out, int R, int C) {
  constexpr int S = 32 / sizeof(T);
  constexpr int ROWS = TR + S - 1, LOADS = (ROWS + BY - 1) / BY;
  __shared__ T tile[TR][TC + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.x * TR, c0 = blockIdx.y * TC;
  int shLoad[TC / 32];
#pragma unroll
  for (int j = 0; j < TC / 32; ++j)
    shLoad[j] = int(((long long)(c0 + tx + 32 * j) * R + r0) % S);
#pragma unroll
  for (int k = 0; k < LOADS; ++k)
#pragma unroll
    for (int j = 0; j < TC / 32; ++j) {
      const int r = r0 - (S - 1) + ty + BY * k, c = c0 + tx + 32 * j;
      const int row = r - r0 + shLoad[j];
      if (row >= 0 && row < TR && r >= 0 && r < R && c < C)
        tile[row][tx + 32 * j] = in[(long long)r * C + c];
    }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < TC / BY; ++k) {
    const int c = c0 + ty + BY * k;
    const int sh = int(((long long)c * R + r0) % S);
#pragma unroll
    for (int j = 0; j < TR / 32; ++j) {
      const int r = r0 - sh + tx + 32 * j;
      if (c < C && r >= 0 && r < R)
        out[(long long)c * R + r] = tile[tx + 32 * j][ty + BY * k];
    }
  }
}

template <typename T, int TR, int TC, int BY>
void runSkewed(const char *type, const char *name, Bufs<T> &B, int R, int C, float copyMs, unsigned long long *dcount) {
  constexpr int S = 32 / sizeof(T);
  const dim3 grid((R + S - 1 + TR - 1) / TR, (C + TC - 1) / TC), block(32, BY);
  measure(type, name, B, R, C, copyMs, dcount, [&] { skewed<T, TR, TC, BY><<<grid, block>>>(B.in, B.out, R, C); });
}

template <typename T>
void shape(const char *type, int R, int C) {
  Bufs<T> B;
  B.n = (long long)R * C;
  CK(cudaMalloc(&B.in, B.n * sizeof(T)));
  CK(cudaMalloc(&B.out, B.n * sizeof(T)));
  CK(cudaMalloc(&B.ref, B.n * sizeof(T)));
  {
    std::vector<unsigned char> h(B.n * sizeof(T));
    unsigned x = 12345;
    for (auto &c : h) {
      x = x * 1664525u + 1013904223u;
      c = x >> 24;
    }
    CK(cudaMemcpy(B.in, h.data(), h.size(), cudaMemcpyHostToDevice));
  }
  naive<T><<<(B.n + 255) / 256, 256>>>(B.in, B.ref, R, C);
  CK(cudaDeviceSynchronize());
  unsigned long long *dcount;
  CK(cudaMalloc(&dcount, 8));
  const float copyMs = timeIt([&] { CK(cudaMemcpyAsync(B.out, B.in, B.n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  if constexpr (sizeof(T) == 4) {
    run<T, 32, 32, 8, 1>(type, "32x32 b32x8", B, R, C, copyMs, dcount);
    run<T, 64, 64, 32, 1, true>(type, "64x64 b32x32 swap", B, R, C, copyMs, dcount);
    run<T, 128, 32, 8, 1, true>(type, "128x32 b32x8 swap", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 64, 32>(type, "64x64 b32x32 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 64, 16>(type, "64x64 b32x16 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 64, 8>(type, "64x64 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 128, 32, 8>(type, "128x32 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 32, 8>(type, "64x32 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 32, 64, 8>(type, "32x64 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 32, 32, 8>(type, "32x32 b32x8 skewed", B, R, C, copyMs, dcount);
  } else {
    run<T, 32, 32, 8, 1>(type, "32x32 b32x8", B, R, C, copyMs, dcount);
    run<T, 64, 64, 16, 1, true>(type, "64x64 b32x16 swap", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 64, 16>(type, "64x64 b32x16 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 64, 32, 8>(type, "64x32 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 32, 32, 8>(type, "32x32 b32x8 skewed", B, R, C, copyMs, dcount);
    runSkewed<T, 32, 64, 8>(type, "32x64 b32x8 skewed", B, R, C, copyMs, dcount);
  }
  CK(cudaFree(B.in));
  CK(cudaFree(B.out));
  CK(cudaFree(B.ref));
  CK(cudaFree(dcount));
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s\n\n| type | R x C | variant | correct | ms | copy ms | of copy |\n|---|---|---|---|---:|---:|---:|\n",
              p.name);
  const int shapes[][2] = {{8192, 8192}, {16384, 16384}, {8191, 12289}, {4095, 6145}, {12289, 8191}, {8192, 12288}};
  for (auto &s : shapes)
    shape<float>("f32", s[0], s[1]);
  for (auto &s : shapes)
    shape<double>("f64", s[0], s[1]);
  return 0;
}
