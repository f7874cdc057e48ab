// Offline data of a generated module: the permutation tables that `holds`
// arrays and table-driven `P(i)` applications need (random, file, list and
// seed 003 schedule permutations), each stored at its narrowest integer
// width, in the source or in a binary side file.
#pragma once

#include "analysis/PermutationTables.h"

#include "analysis/Permutation.h"
#include "ir/Program.h"

#include <cstdint>
#include <map>
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

/// FNV-1a, 64 bits: the hash the side file's reader checks.
std::uint64_t fnv1a(const unsigned char *Data, std::size_t N);

/// One table of a module.
struct TablePlan {
  std::string Perm;      ///< permutation name
  bool Inverse = false;  ///< inverse(Perm)
  std::string Describe;  ///< "schedule_src(P, w: 32)"
  std::string DeviceType;///< element type on the device: the holds array's,
                         ///< or the narrow type for a P(i) table
  const Permutation *Values = nullptr; ///< null for a closed form or raw words
  /// Raw 16-bit entries instead of a permutation (seed 001's s and d planes
  /// of an HmmSchedule: 6n entries); empty otherwise.
  std::span<const std::uint16_t> Raw16;
  /// Something is stored (in the source or the side file).
  bool stored() const { return Values || !Raw16.empty(); }
  std::uint64_t Size = 0;               ///< entries
  /// For identity, shuffle, bitreverse, transpose and stride: the C++ value
  /// of entry I (nothing is stored; the host API computes it).
  std::string ClosedForm;
  int Width = 4;         ///< bytes per stored entry
  bool InSource = true;  ///< else in the side file
  std::uint64_t Offset = 0; ///< byte offset in the side file after the magic
  std::uint64_t Hash = 0;   ///< FNV-1a of the stored bytes
  /// Little-endian stored bytes (empty for a closed form).
  std::vector<unsigned char> bytes() const;
};

/// The side file: "BWTABLE1" then the stored bytes of every side-file table.
std::vector<unsigned char> sideFileBytes(const std::vector<TablePlan> &Tables);

} // namespace bankwise::codegen
