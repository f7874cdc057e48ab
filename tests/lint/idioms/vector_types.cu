// Vector types and packed structs as the training and GEMM codebases write
// them: float4 loads through reinterpret_cast of a float pointer, __half2
// arithmetic, int4 through __ldg, a user `struct alignas(16) x128`, bf16
// conversions, __restrict__ pointers and a `const __grid_constant__` struct
// of arguments. Each access is priced at its width: a 16-byte load of lanes
// 32 bytes apart touches 32 sectors where 16 would do.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

struct alignas(16) x128 {
  float v[4];
};

struct Args {
  const float *src;
  float *dst;
  int n;
};

// Every other float4 of the row: lanes 32 bytes apart.
__global__ void gather_f4(const float *__restrict__ in, float *__restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: warning: uncoalesced global load from 'in': 32 sectors per request, 16 at best (8 128-byte lines; lanes stride 8 words) [bankwise-uncoalesced]
  const float4 v = reinterpret_cast<const float4 *>(in)[2 * i];
  reinterpret_cast<float4 *>(out)[i] = v;
}

__global__ void add_half2(const __half2 *a, const __half2 *b, __half2 *c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: note: '__hadd2' returns from more than one place: its accesses are figured as if every lane ran all of it [bankwise-unanalyzed]
  c[i] = __hadd2(a[i], b[i]);
}

// A column of an int4 table through the read-only path: lanes 64 bytes apart.
__global__ void column_ldg(const int *__restrict__ table, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: warning: uncoalesced global load from 'table': 32 sectors per request, 16 at best (16 128-byte lines; lanes stride 16 words) [bankwise-uncoalesced]
  const int4 v = __ldg(reinterpret_cast<const int4 *>(table) + 4 * i);
  out[i] = v.x + v.y + v.z + v.w;
}

// The packed struct moves 16 bytes at a time, as float4 does; its array
// member is registers.
__global__ void scale_x128(const float *in, float *out, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const x128 p = *reinterpret_cast<const x128 *>(in + 4 * i);
  x128 q;
  for (int k = 0; k < 4; ++k)
    q.v[k] = p.v[k] * s;
  *reinterpret_cast<x128 *>(out + 4 * i) = q;
}

// Arguments in a struct passed by value: its pointers are global arrays.
__global__ void copy_args(const __grid_constant__ Args args) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: warning: uncoalesced global load from 'args.src': 32 sectors per request, 4 at best (32 128-byte lines; lanes stride 32 words) [bankwise-uncoalesced]
  args.dst[i] = args.src[32 * i];
}

// bf16 through its conversions (operator float, __float2bfloat16), and a
// shared bf16 row read two elements apart.
__global__ void scale_bf16(const __nv_bfloat16 *in, __nv_bfloat16 *out, float s) {
  __shared__ __nv_bfloat16 row[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __float2bfloat16((float)in[i] * s);
  row[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = row[(2 * threadIdx.x) % 256];
}

// llm.c's way: a template packed struct of eight bf16 with operator[],
// loaded and stored 16 bytes at a time; its elements are registers. Every
// other 16-byte chunk of the input: lanes 32 bytes apart.
template <class T>
struct alignas(16) Packed {
  static constexpr int size = 16 / sizeof(T);
  T payload[size];
  __device__ T &operator[](int k) { return payload[k]; }
  __device__ const T &operator[](int k) const { return payload[k]; }
};
using bf16x8 = Packed<__nv_bfloat16>;

__global__ void halve_bf16x8(const __nv_bfloat16 *in, __nv_bfloat16 *out) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * bf16x8::size;
  // CHECK: warning: uncoalesced global load from 'in': 32 sectors per request, 16 at best (8 128-byte lines; lanes stride 8 words) [bankwise-uncoalesced]
  const bf16x8 x = *reinterpret_cast<const bf16x8 *>(in + 2 * i);
  bf16x8 y;
  for (int k = 0; k < bf16x8::size; ++k)
    y[k] = __float2bfloat16(0.5f * (float)x[k]);
  *reinterpret_cast<bf16x8 *>(out + i) = y;
}

void launch(float *f, __half2 *h, int *n, __nv_bfloat16 *b, float *g) {
  const Args args{g, g + (1 << 22), 1024};
  gather_f4<<<64, 256>>>(f, f);
  add_half2<<<64, 256>>>(h, h, h);
  column_ldg<<<64, 256>>>(n, n);
  scale_x128<<<64, 256>>>(f, f, 2.0f);
  copy_args<<<64, 256>>>(args);
  scale_bf16<<<64, 256>>>(b, b, 2.0f);
  halve_bf16x8<<<64, 256>>>(b, b);
}
