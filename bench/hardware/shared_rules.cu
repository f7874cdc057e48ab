// One warp, one shared-memory instruction per launch, at lane addresses read
// from a pattern file: the probe behind bench/gpu-shared-rules.sh, which
// profiles each launch with Nsight Compute and tells which rule the sm_90
// shared-memory pipeline follows for 1-, 2-, 4-, 8- and 16-byte accesses.
//
//   shared_rules PATTERNS     # lines: NAME<TAB>BYTES ld|st E0 ... E31 (element
//                             # indices, -1 for an idle lane)
//
// The access is inline PTX (ld.shared.u8 ... ld.shared.v4.u32, and the st
// forms), so the instruction width is the pattern's, whatever nvcc would
// have chosen. Every launch prints "launch K NAME BYTES OP" in launch order;
// Nsight Compute's rows come back in the same order.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

constexpr int SharedBytes = 16384;

template <int Bytes> __device__ void loadShared(unsigned Addr, unsigned *R) {
  if constexpr (Bytes == 1) {
    unsigned short V;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(V) : "r"(Addr));
    R[0] = V;
  } else if constexpr (Bytes == 2) {
    unsigned short V;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(V) : "r"(Addr));
    R[0] = V;
  } else if constexpr (Bytes == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(R[0]) : "r"(Addr));
  } else if constexpr (Bytes == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(R[0]), "=r"(R[1]) : "r"(Addr));
  } else {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
                 : "r"(Addr));
  }
}

template <int Bytes> __device__ void storeShared(unsigned Addr, unsigned V) {
  if constexpr (Bytes == 1) {
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(Addr), "h"((unsigned short)V));
  } else if constexpr (Bytes == 2) {
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(Addr), "h"((unsigned short)V));
  } else if constexpr (Bytes == 4) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(Addr), "r"(V));
  } else if constexpr (Bytes == 8) {
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(Addr), "r"(V), "r"(V + 1));
  } else {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(Addr), "r"(V), "r"(V + 1), "r"(V + 2),
                 "r"(V + 3));
  }
}

// Fills the buffer with 4-byte stores, then one load of Bytes per active lane.
template <int Bytes> __global__ void probeLoad(const int *Index, unsigned *Out) {
  __shared__ __align__(16) unsigned Buf[SharedBytes / 4];
  const int L = threadIdx.x;
  for (int I = L; I < SharedBytes / 4; I += 32)
    Buf[I] = 2654435761u * I;
  __syncwarp();
  const int E = Index[L];
  unsigned R[4] = {0, 0, 0, 0};
  if (E >= 0)
    loadShared<Bytes>(static_cast<unsigned>(__cvta_generic_to_shared(Buf)) + E * Bytes, R);
  Out[L] = R[0] ^ R[1] ^ R[2] ^ R[3];
}

// One store of Bytes per active lane, then the stored word read back with
// a 4-byte load (the profile reads only the store counters).
template <int Bytes> __global__ void probeStore(const int *Index, unsigned *Out) {
  __shared__ __align__(16) unsigned Buf[SharedBytes / 4];
  const int L = threadIdx.x;
  const int E = Index[L];
  const unsigned Base = static_cast<unsigned>(__cvta_generic_to_shared(Buf));
  if (E >= 0)
    storeShared<Bytes>(Base + E * Bytes, 0x9e3779b9u * (L + 1));
  __syncwarp();
  unsigned R[4] = {0, 0, 0, 0};
  if (E >= 0)
    loadShared<4>(Base + (E * Bytes) / 4 * 4, R);
  Out[L] = R[0];
}

template <int Bytes> void launch(bool Store, const int *Index, unsigned *Out) {
  if (Store)
    probeStore<Bytes><<<1, 32>>>(Index, Out);
  else
    probeLoad<Bytes><<<1, 32>>>(Index, Out);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATTERNS\n", argv[0]);
    return 2;
  }
  std::ifstream In(argv[1]);
  if (!In) {
    std::fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 2;
  }
  int *Index = nullptr;
  unsigned *Out = nullptr;
  cudaMalloc(&Index, 32 * sizeof(int));
  cudaMalloc(&Out, 32 * sizeof(unsigned));
  std::string Line;
  int K = 0, LineNo = 0;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty() || Line[0] == '#')
      continue;
    const std::size_t Tab = Line.find('\t');
    if (Tab == std::string::npos) {
      std::fprintf(stderr, "%s:%d: error: expected NAME, a tab, then BYTES ld|st and 32 indices\n", argv[1], LineNo);
      return 2;
    }
    const std::string Name = Line.substr(0, Tab);
    std::istringstream S(Line.substr(Tab + 1));
    std::string Op;
    int Bytes = 0;
    std::vector<int> E(32);
    S >> Bytes >> Op;
    for (int &V : E)
      S >> V;
    if (!S || (Op != "ld" && Op != "st") || !(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16)) {
      std::fprintf(stderr, "%s:%d: error: expected NAME BYTES ld|st and 32 indices\n", argv[1], LineNo);
      return 2;
    }
    for (int V : E)
      if (V >= 0 && (V + 1) * Bytes > SharedBytes) {
        std::fprintf(stderr, "%s:%d: error: index %d is past the %d-byte buffer\n", argv[1], LineNo, V, SharedBytes);
        return 2;
      }
    cudaMemcpy(Index, E.data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
    const bool Store = Op == "st";
    switch (Bytes) {
    case 1: launch<1>(Store, Index, Out); break;
    case 2: launch<2>(Store, Index, Out); break;
    case 4: launch<4>(Store, Index, Out); break;
    case 8: launch<8>(Store, Index, Out); break;
    default: launch<16>(Store, Index, Out); break;
    }
    const cudaError_t Err = cudaDeviceSynchronize();
    if (Err != cudaSuccess) {
      std::fprintf(stderr, "%s:%d: error: %s\n", argv[1], LineNo, cudaGetErrorString(Err));
      return 1;
    }
    std::printf("launch %d %s %d %s\n", K++, Name.c_str(), Bytes, Op.c_str());
  }
  return 0;
}
