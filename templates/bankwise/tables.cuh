// bankwise/tables.cuh: offline tables (permutations, schedules S and D) of a
// generated module. Codegen stores each table at its narrowest width (8, 16,
// 32 or 64 bits) either as a constant array in the source or in a binary side
// file: the magic "BWTABLE1", then the tables' bytes back to back, little
// endian; each table is checked against its FNV-1a hash when read.
#pragma once

#include <cstdint>
#include <cstdio>
#include <sys/types.h>
#include <string>
#include <vector>

namespace bankwise {

/// FNV-1a, 64 bits, of N bytes.
inline std::uint64_t fnv1a(const void *Data, std::size_t N) {
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  std::uint64_t H = 0xcbf29ce484222325ULL;
  for (std::size_t I = 0; I < N; ++I)
    H = (H ^ P[I]) * 0x100000001b3ULL;
  return H;
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
  bool Ok = std::fread(Magic, 1, 8, F) == 8 && std::string(Magic, 8) == "BWTABLE1" &&
            fseeko(F, static_cast<off_t>(8 + Offset), SEEK_SET) == 0 &&
            std::fread(Buf.data(), sizeof(Narrow), Count, F) == Count;
  std::fclose(F);
  if (!Ok || fnv1a(Buf.data(), Count * sizeof(Narrow)) != Hash)
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
