// bankwise/tables.cuh: offline tables (permutations, schedules S and D) of a
// generated module. Codegen stores each table at its narrowest width (8, 16,
// 32 or 64 bits) either as a constant array in the source or in a binary side
// file: the magic "BWTABLE2", then the tables' bytes back to back, little
// endian; each table is checked against its tableHash when read.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/types.h>
#include <string>
#include <vector>

namespace bankwise {

/// The side file's check of a table: FNV-1a over little-endian 64-bit
/// words in four interleaved chains (word 4k + j to chain j), the last
/// partial word zero-padded, then the chains and the byte count folded.
/// Eight times fewer multiplications than byte-wise FNV-1a, in four
/// independent chains: a 2 GB side file hashes in a fraction of a second.
/// Bytes may come in pieces; every piece but the last a multiple of 32.
class TableHash {
public:
  void update(const void *Data, std::size_t N) {
    const unsigned char *P = static_cast<const unsigned char *>(Data);
    Bytes += N;
    std::size_t I = 0;
    for (; I + 32 <= N; I += 32)
      for (int J = 0; J < 4; ++J)
        Chain[J] = (Chain[J] ^ word(P + I + 8 * J, 8)) * Prime;
    for (int J = 0; I < N; ++J, I += 8)
      Chain[J] = (Chain[J] ^ word(P + I, N - I < 8 ? N - I : 8)) * Prime;
  }
  std::uint64_t finish() const {
    std::uint64_t H = Basis ^ Bytes;
    for (std::uint64_t C : Chain)
      H = (H ^ C) * Prime;
    return H ^ (H >> 32);
  }

private:
  static constexpr std::uint64_t Basis = 0xcbf29ce484222325ULL, Prime = 0x100000001b3ULL;
  std::uint64_t Chain[4] = {Basis, Basis + 1, Basis + 2, Basis + 3};
  std::uint64_t Bytes = 0;
  static std::uint64_t word(const unsigned char *P, std::size_t N) {
    std::uint64_t W = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (N == 8) { // one load where memory is little endian already
      std::memcpy(&W, P, 8);
      return W;
    }
#endif
    for (std::size_t I = 0; I < N; ++I)
      W |= static_cast<std::uint64_t>(P[I]) << (8 * I);
    return W;
  }
};

/// tableHash of N bytes at once.
inline std::uint64_t tableHash(const void *Data, std::size_t N) {
  TableHash H;
  H.update(Data, N);
  return H.finish();
}

/// Reads Count entries of Narrow at byte Offset of the side file Path and
/// widens them to Wide. False (and Out untouched) when the file is missing,
/// short or fails the hash.
template <class Narrow, class Wide>
bool readTable(const char *Path, std::uint64_t Offset, std::size_t Count, std::uint64_t Hash,
               std::vector<Wide> &Out) {
  std::FILE *F = std::fopen(Path, "rb");
  if (!F)
    return false;
  std::vector<Narrow> Buf(Count);
  char Magic[8] = {};
  bool Ok = std::fread(Magic, 1, 8, F) == 8 && std::string(Magic, 8) == "BWTABLE2" &&
            fseeko(F, static_cast<off_t>(8 + Offset), SEEK_SET) == 0 &&
            std::fread(Buf.data(), sizeof(Narrow), Count, F) == Count;
  std::fclose(F);
  if (!Ok || tableHash(Buf.data(), Count * sizeof(Narrow)) != Hash)
    return false;
  Out.assign(Buf.begin(), Buf.end());
  return true;
}

/// Widens an in-source table.
template <class Narrow, class Wide>
void widenTable(const Narrow *Data, std::size_t Count, std::vector<Wide> &Out) {
  Out.assign(Data, Data + Count);
}

} // namespace bankwise
