// Runs generated CUDA on the CPU, for tests where no GPU is: the subset of
// CUDA that bankwise emits, emulated in host C++. Each block runs as one
// std::thread per CUDA thread with a std::barrier for __syncthreads, blocks
// one after another, so `static` stands in for __shared__; device memory is
// host memory. Force-included (-include) before a generated .cu whose
// launches `k<<<grid, block, smem, stream>>>(args)` were rewritten to
// `bw_emulate(k, grid, block, args)` (tests/codegen/Emulate.cmake). A
// harness built this way checks the generated kernels, layouts and tables
// against the generated CPU reference.
#pragma once
#include <cuda_runtime.h>
#include <atomic>
#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
#undef __global__
#define __global__
#undef __shared__
#define __shared__ static
#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __device__
#define __device__
namespace bw_emu {
inline thread_local uint3 ThreadIdx, BlockIdx;
inline thread_local dim3 GridDim;
inline std::barrier<> *Barrier = nullptr;
/// A warp's exchange for shuffles: each lane posts its value, all wait,
/// each reads its source lane's, all wait again.
struct Warp {
  std::unique_ptr<std::barrier<>> Bar;
  unsigned long long Slot[32] = {};
};
inline thread_local Warp *MyWarp = nullptr;
inline thread_local int Lane = 0;
template <class T> T shuffleFrom(T V, long long Src) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffles move scalars");
  if (Src < 0 || Src > 31)
    Src = Lane;
  unsigned long long Bits = 0;
  std::memcpy(&Bits, &V, sizeof V);
  MyWarp->Slot[Lane] = Bits;
  MyWarp->Bar->arrive_and_wait();
  Bits = MyWarp->Slot[Src];
  MyWarp->Bar->arrive_and_wait();
  T R;
  std::memcpy(&R, &Bits, sizeof R);
  return R;
}
}
// CUDA's warp shuffles (the full mask, width 32), by their source-lane rules.
template <class T> T __shfl_sync(unsigned, T V, int Src, int = 32) { return bw_emu::shuffleFrom(V, ((Src % 32) + 32) % 32); }
template <class T> T __shfl_xor_sync(unsigned, T V, int M, int = 32) {
  return bw_emu::shuffleFrom(V, M >= 0 && (bw_emu::Lane ^ M) < 32 ? bw_emu::Lane ^ M : bw_emu::Lane);
}
template <class T> T __shfl_up_sync(unsigned, T V, unsigned D, int = 32) {
  return bw_emu::shuffleFrom(V, static_cast<long long>(bw_emu::Lane) - static_cast<long long>(D));
}
template <class T> T __shfl_down_sync(unsigned, T V, unsigned D, int = 32) {
  return bw_emu::shuffleFrom(V, static_cast<long long>(bw_emu::Lane) + static_cast<long long>(D));
}
#define threadIdx (::bw_emu::ThreadIdx)
#define blockIdx (::bw_emu::BlockIdx)
#define gridDim (::bw_emu::GridDim)
inline void __syncthreads() { bw_emu::Barrier->arrive_and_wait(); }
// CUDA's atomics on host memory (std::atomic_ref), for the types bankwise
// emits them on: each returns the old value.
namespace bw_emu {
template <class T, class F> T rmw(T *P, F New) {
  std::atomic_ref<T> R(*P);
  T Old = R.load();
  while (!R.compare_exchange_weak(Old, New(Old))) {
  }
  return Old;
}
} // namespace bw_emu
// Exactly CUDA's overloads, so that a call CUDA lacks fails here too.
#define BW_EMU_ATOMIC(Name, T, Expr) \
  inline T Name(T *P, T V) { return bw_emu::rmw(P, [&](T E) { return static_cast<T>(Expr); }); }
#define BW_EMU_CAS(T) \
  inline T atomicCAS(T *P, T C, T V) { return bw_emu::rmw(P, [&](T E) { return E == C ? V : E; }); }
#define BW_EMU_BITS(T) BW_EMU_ATOMIC(atomicAnd, T, E & V) BW_EMU_ATOMIC(atomicOr, T, E | V) BW_EMU_ATOMIC(atomicXor, T, E ^ V)
#define BW_EMU_MINMAX(T) BW_EMU_ATOMIC(atomicMin, T, V < E ? V : E) BW_EMU_ATOMIC(atomicMax, T, E < V ? V : E)
BW_EMU_ATOMIC(atomicAdd, int, E + V)
BW_EMU_ATOMIC(atomicAdd, unsigned, E + V)
BW_EMU_ATOMIC(atomicAdd, unsigned long long, E + V)
BW_EMU_ATOMIC(atomicAdd, float, E + V)
BW_EMU_ATOMIC(atomicAdd, double, E + V)
BW_EMU_ATOMIC(atomicSub, int, E - V)
BW_EMU_ATOMIC(atomicSub, unsigned, E - V)
BW_EMU_ATOMIC(atomicExch, int, V)
BW_EMU_ATOMIC(atomicExch, unsigned, V)
BW_EMU_ATOMIC(atomicExch, unsigned long long, V)
BW_EMU_ATOMIC(atomicExch, float, V)
BW_EMU_MINMAX(int)
BW_EMU_MINMAX(unsigned)
BW_EMU_MINMAX(long long)
BW_EMU_MINMAX(unsigned long long)
BW_EMU_BITS(int)
BW_EMU_BITS(unsigned)
BW_EMU_BITS(unsigned long long)
BW_EMU_CAS(int)
BW_EMU_CAS(unsigned)
BW_EMU_CAS(unsigned long long)
BW_EMU_ATOMIC(atomicInc, unsigned, E >= V ? 0u : E + 1)
BW_EMU_ATOMIC(atomicDec, unsigned, (E == 0 || E > V) ? V : E - 1)
namespace bankwise { template <class T> void keep(const T &) {} }
template <class K, class... A> void bw_emulate(K Kernel, dim3 G, dim3 B, A... Args) {
  const unsigned NT = B.x * B.y * B.z;
  for (unsigned Z = 0; Z < G.z; ++Z)
    for (unsigned Y = 0; Y < G.y; ++Y)
      for (unsigned X = 0; X < G.x; ++X) {
        std::barrier<> Bar(NT);
        bw_emu::Barrier = &Bar;
        std::vector<bw_emu::Warp> Warps((NT + 31) / 32);
        for (unsigned W = 0; W < Warps.size(); ++W)
          Warps[W].Bar = std::make_unique<std::barrier<>>(std::min(32u, NT - 32 * W));
        std::vector<std::thread> Ts;
        for (unsigned T = 0; T < NT; ++T)
          Ts.emplace_back([&, T] {
            bw_emu::MyWarp = &Warps[T / 32];
            bw_emu::Lane = static_cast<int>(T % 32);
            bw_emu::ThreadIdx = {T % B.x, T / B.x % B.y, T / (B.x * B.y)};
            bw_emu::BlockIdx = {X, Y, Z};
            bw_emu::GridDim = G;
            Kernel(Args...);
          });
        for (auto &Th : Ts)
          Th.join();
      }
}
extern "C" {
cudaError_t cudaMalloc(void **P, size_t N) { *P = std::malloc(N ? N : 1); return cudaSuccess; }
cudaError_t cudaFree(void *P) { std::free(P); return cudaSuccess; }
cudaError_t cudaMemcpy(void *D, const void *S, size_t N, cudaMemcpyKind) { std::memcpy(D, S, N); return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaGetDevice(int *D) { *D = 0; return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *P, int) { std::memset(P, 0, sizeof *P); std::strcpy(P->name, "host emulation"); return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t) { return "emulated"; }
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t, cudaEvent_t) { *Ms = 0; return cudaSuccess; }
}
