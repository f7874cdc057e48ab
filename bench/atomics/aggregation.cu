// Probe kernels for bench/gpu-atomic-aggregation.sh: which atomics does
// nvcc (ptxas) aggregate across a warp on sm_90, and what do they cost in
// shared-memory wavefronts and instructions? Each kernel runs one atomic
// statement (marked ATOM) once per thread; blocks of 256 threads. Written
// for bankwise (not copied from elsewhere).
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 256

// A shared scalar or array zeroed, the probe, then the result kept so
// nothing is removed.
#define SHARED_SCALAR(T, name, stmt)                                          \
  __global__ void name(T *out, const int *in, int p) {                        \
    __shared__ T s;                                                           \
    __shared__ T h[32];                                                       \
    __shared__ T big[1024];                                                   \
    if (threadIdx.x == 0) s = 0;                                              \
    if (threadIdx.x < 32) h[threadIdx.x] = 0;                                 \
    for (int k = threadIdx.x; k < 1024; k += BLOCK) big[k] = 0;               \
    __syncthreads();                                                          \
    int v = in[blockIdx.x * BLOCK + threadIdx.x];                             \
    int lane = threadIdx.x % 32;                                              \
    (void)v; (void)p; (void)lane;                                             \
    stmt; /* ATOM */                                                          \
    __syncthreads();                                                          \
    if (threadIdx.x == 0) out[blockIdx.x] = s;                                \
    if (threadIdx.x < 32) out[gridDim.x + blockIdx.x * 32 + threadIdx.x] = h[threadIdx.x]; \
    for (int k = threadIdx.x; k < 1024; k += BLOCK) out[gridDim.x * 33 + blockIdx.x * 1024 + k] = big[k]; \
  }

SHARED_SCALAR(int, s_const1, atomicAdd(&s, 1))
SHARED_SCALAR(unsigned, s_const1u, atomicAdd(&s, 1u))
SHARED_SCALAR(int, s_const3, atomicAdd(&s, 3))
SHARED_SCALAR(int, s_sub1, atomicSub(&s, 1))
SHARED_SCALAR(int, s_param, atomicAdd(&s, p))
SHARED_SCALAR(int, s_data, atomicAdd(&s, v))
SHARED_SCALAR(int, s_tid, atomicAdd(&s, (int)threadIdx.x))
SHARED_SCALAR(float, s_float1, atomicAdd(&s, 1.0f))
SHARED_SCALAR(int, s_max, atomicMax(&s, 5))
SHARED_SCALAR(int, s_maxdata, atomicMax(&s, v))
SHARED_SCALAR(int, s_or, atomicOr(&s, 4))
SHARED_SCALAR(int, s_exch, atomicExch(&s, 7))
SHARED_SCALAR(int, s_cond1, if (v & 1) atomicAdd(&s, 1))
SHARED_SCALAR(int, s_used1, out[gridDim.x * 1100 + blockIdx.x * BLOCK + threadIdx.x] = atomicAdd(&s, 1))
SHARED_SCALAR(int, s_elem0, atomicAdd(&h[0], 1))
SHARED_SCALAR(int, s_bid, atomicAdd(&h[blockIdx.x & 31], 1))
SHARED_SCALAR(int, s_pidx, atomicAdd(&h[p & 31], 1))
SHARED_SCALAR(int, s_warp, atomicAdd(&h[threadIdx.x / 32], 1))
SHARED_SCALAR(int, s_warpdata, atomicAdd(&h[threadIdx.x / 32], v))
SHARED_SCALAR(int, s_lane, atomicAdd(&h[threadIdx.x % 32], 1))
SHARED_SCALAR(int, s_dataidx, atomicAdd(&h[v & 31], 1))
SHARED_SCALAR(int, s_loop4, for (int k = 0; k < 4; ++k) atomicAdd(&s, 1))
SHARED_SCALAR(int, s_bank1, atomicAdd(&big[lane * 32], 1))
SHARED_SCALAR(int, s_pair1, atomicAdd(&big[lane / 2], 1))
SHARED_SCALAR(int, s_twobank1, atomicAdd(&big[lane % 2 * 32], 1))
SHARED_SCALAR(int, s_dataconf1, atomicAdd(&big[(v & 31) * 32], 1))
SHARED_SCALAR(int, s_warpused1, out[gridDim.x * 1100 + blockIdx.x * BLOCK + threadIdx.x] = atomicAdd(&h[threadIdx.x / 32], 1))
SHARED_SCALAR(int, s_warpsub1, atomicSub(&h[threadIdx.x / 32], 1))
SHARED_SCALAR(int, s_warpneg1, atomicAdd(&h[threadIdx.x / 32], -1))
SHARED_SCALAR(int, s_warpconst3, atomicAdd(&h[threadIdx.x / 32], 3))
SHARED_SCALAR(int, s_warpmax, atomicMax(&h[threadIdx.x / 32], 5))
SHARED_SCALAR(int, s_warpor, atomicOr(&h[threadIdx.x / 32], 4))
SHARED_SCALAR(unsigned, s_inc, atomicInc(&s, 100u))
SHARED_SCALAR(unsigned, s_warpinc, atomicInc(&h[threadIdx.x / 32], 100u))
SHARED_SCALAR(unsigned long long, s_u64, atomicAdd(&s, 1ull))
SHARED_SCALAR(unsigned long long, s_u64warp, atomicAdd(&h[threadIdx.x / 32], 1ull))
SHARED_SCALAR(unsigned long long, s_u64data, atomicAdd(&s, (unsigned long long)v))
SHARED_SCALAR(float, s_flane, atomicAdd(&h[lane], 1.0f))
SHARED_SCALAR(float, s_fbank, atomicAdd(&big[lane * 32], 1.0f))
SHARED_SCALAR(float, s_fwarp, atomicAdd(&h[threadIdx.x / 32], 1.0f))

#define GLOBAL_PROBE(name, stmt)                                              \
  __global__ void name(int *out, const int *in, int p) {                      \
    int v = in[blockIdx.x * BLOCK + threadIdx.x];                             \
    (void)v; (void)p;                                                         \
    stmt; /* ATOM */                                                          \
  }

GLOBAL_PROBE(g_const1, atomicAdd(&out[0], 1))
GLOBAL_PROBE(g_data, atomicAdd(&out[0], v))
GLOBAL_PROBE(g_bid, atomicAdd(&out[blockIdx.x], 1))
GLOBAL_PROBE(g_cond1, if (v & 1) atomicAdd(&out[0], 1))
GLOBAL_PROBE(g_used1, out[64 + blockIdx.x * BLOCK + threadIdx.x] = atomicAdd(&out[0], 1))
GLOBAL_PROBE(g_pair1, atomicAdd(&out[(threadIdx.x % 32) / 2], 1))
GLOBAL_PROBE(g_warp1, atomicAdd(&out[threadIdx.x / 32], 1))
GLOBAL_PROBE(g_warpdata, atomicAdd(&out[threadIdx.x / 32], v))
GLOBAL_PROBE(g_float1, atomicAdd((float *)&out[0], 1.0f))

typedef void (*Probe)(void *, const int *, int);
struct Entry { const char *name; Probe fn; };
#define E(n) {#n, (Probe)n}
static const Entry probes[] = {
  E(s_const1), E(s_const1u), E(s_const3), E(s_sub1), E(s_param), E(s_data), E(s_tid),
  E(s_float1), E(s_max), E(s_maxdata), E(s_or), E(s_exch), E(s_cond1), E(s_used1),
  E(s_elem0), E(s_bid), E(s_pidx), E(s_warp), E(s_warpdata), E(s_lane), E(s_dataidx), E(s_loop4),
  E(s_bank1), E(s_pair1), E(s_twobank1), E(s_dataconf1), E(s_warpused1), E(s_warpsub1), E(s_warpneg1),
  E(s_warpconst3), E(s_warpmax), E(s_warpor), E(s_inc), E(s_warpinc), E(s_u64), E(s_u64warp), E(s_u64data),
  E(s_flane), E(s_fbank), E(s_fwarp),
  E(g_const1), E(g_data), E(g_bid), E(g_cond1), E(g_used1), E(g_pair1), E(g_warp1), E(g_warpdata), E(g_float1),
};

int main() {
  const int grid = 64, n = grid * BLOCK;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, (size_t)n * 80 * sizeof(long long));
  int *h = new int[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7 + 3) % 29; // odd for some lanes, even for others
  cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  for (const Entry &e : probes) {
    cudaMemset(out, 0, (size_t)n * 80 * sizeof(long long));
    void *args[] = {&out, &in, nullptr};
    int p = 5;
    args[2] = &p;
    cudaLaunchKernel((const void *)e.fn, dim3(grid), dim3(BLOCK), args, 0, 0);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) { std::printf("%s: %s\n", e.name, cudaGetErrorString(err)); return 1; }
  }
  std::puts("ok");
  return 0;
}
