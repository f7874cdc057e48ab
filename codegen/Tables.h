// Offline data of a generated module: the permutation tables that `holds`
// arrays and table-driven `P(i)` applications need (random, file, list and
// seed 003 schedule permutations), each stored at its narrowest integer
// width, in the source or in a binary side file.
#pragma once

#include "analysis/passes/PermutationTables.h"

#include "analysis/models/Permutation.h"
#include "ir/Program.h"
#include "support/Hash.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <ostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bankwise::codegen {

/// Permutation values come from analysis' PermutationTables, so generated
/// tables and the analysis agree entry by entry.
using PermutationCache = PermutationTables;

/// Bytes of the narrowest unsigned integer that holds every value below
/// Bound: 1, 2, 4 or 8. narrowestWidth(256) == 1, narrowestWidth(257) == 2.
int narrowestWidth(std::uint64_t Bound);

/// C++ spelling of the unsigned integer of Bytes bytes: "std::uint16_t".
std::string unsignedTypeName(int Bytes);

using bankwise::fnv1a; // support/Hash.h (template texts, in goldens)

/// One table of a module.
struct TablePlan {
  std::string Perm;      ///< permutation name
  bool Inverse = false;  ///< inverse(Perm)
  std::string Describe;  ///< "schedule_src(P, w: 32)"
  std::string DeviceType;///< element type on the device: the holds array's,
                         ///< or the narrow type for a P(i) table
  /// Null for a closed form or raw words; shared with the PermutationTables
  /// that built it, so a side file can be written after codegen returns.
  std::shared_ptr<const Permutation> Values;
  /// Raw 16-bit entries instead of a permutation (seed 001's s and d planes
  /// of an HmmSchedule: 6n entries), kept alive by RawOwner; empty otherwise.
  std::span<const std::uint16_t> Raw16;
  std::shared_ptr<const void> RawOwner;
  /// Something is stored (in the source or the side file).
  bool stored() const { return Values || !Raw16.empty(); }
  std::uint64_t Size = 0;               ///< entries
  /// For identity, shuffle, bitreverse, transpose and stride: the C++ value
  /// of entry I (nothing is stored; the host API computes it).
  std::string ClosedForm;
  int Width = 4;         ///< bytes per stored entry
  bool InSource = true;  ///< else in the side file
  std::uint64_t Offset = 0; ///< byte offset in the side file after the magic
  std::uint64_t Hash = 0;   ///< tableHash of the stored bytes
  /// Little-endian stored bytes (empty for a closed form).
  std::vector<unsigned char> bytes() const;
  /// The same bytes in chunks of at most 1 MiB, to Fn(const unsigned char *,
  /// std::size_t): a table of 2^26 entries is never copied whole.
  template <class F> void forEachChunk(F &&Fn) const;
  /// tableHash (templates/bankwise/tables.cuh) of the stored bytes, the
  /// check the side file's reader makes.
  std::uint64_t hash() const;
};

/// The side file: "BWTABLE2" then the stored bytes of every side-file table,
/// written straight from the tables (which it shares), not built in memory.
struct SideFile {
  std::vector<TablePlan> Tables; ///< the tables it stores, in order
  bool empty() const { return Tables.empty(); }
  /// Bytes of the file, magic included.
  std::uint64_t size() const;
  /// Writes the file to Out; false when a write failed.
  bool write(std::ostream &Out) const;
  /// The file's bytes in order, magic first, to Fn(const unsigned char *,
  /// std::size_t) in chunks of at most 1 MiB, straight from the tables.
  template <class F> void forEachChunk(F &&Fn) const;
  /// The whole file in memory (for tests and small files).
  std::vector<unsigned char> bytes() const;
};

template <class F> void TablePlan::forEachChunk(F &&Fn) const {
  constexpr std::size_t ChunkBytes = std::size_t(1) << 20;
  std::vector<unsigned char> Buf;
  Buf.reserve(ChunkBytes + 8);
  auto Flush = [&] {
    if (!Buf.empty())
      Fn(static_cast<const unsigned char *>(Buf.data()), Buf.size());
    Buf.clear();
  };
  // On a little-endian host 16-bit planes and 32-bit tables are stored as
  // they are in memory: handed over in slices, not copied.
  auto Slices = [&](const void *Data, std::size_t Bytes) {
    const auto *P = static_cast<const unsigned char *>(Data);
    for (std::size_t I = 0; I < Bytes; I += ChunkBytes)
      Fn(P + I, std::min(ChunkBytes, Bytes - I));
  };
  if constexpr (std::endian::native == std::endian::little) {
    if (!Raw16.empty()) {
      Slices(Raw16.data(), Raw16.size() * 2);
      return;
    }
    if (Values && Width == 4) {
      Slices(Values->map().data(), Values->map().size() * 4);
      return;
    }
  }
  if (!Raw16.empty()) {
    for (std::uint16_t V : Raw16) {
      Buf.push_back(static_cast<unsigned char>(V));
      Buf.push_back(static_cast<unsigned char>(V >> 8));
      if (Buf.size() >= ChunkBytes)
        Flush();
    }
  } else if (Values) {
    for (std::uint32_t V : Values->map()) {
      for (int B = 0; B < Width; ++B)
        Buf.push_back(B < 4 ? static_cast<unsigned char>(V >> (8 * B)) : 0);
      if (Buf.size() >= ChunkBytes)
        Flush();
    }
  }
  Flush();
}

/// "BWTABLE2": the side file's first eight bytes.
inline constexpr unsigned char SideFileMagic[8] = {'B', 'W', 'T', 'A', 'B', 'L', 'E', '2'};

template <class F> void SideFile::forEachChunk(F &&Fn) const {
  Fn(SideFileMagic, sizeof(SideFileMagic));
  for (const TablePlan &T : Tables)
    T.forEachChunk(Fn);
}

} // namespace bankwise::codegen
