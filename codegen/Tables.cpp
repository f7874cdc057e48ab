#include "codegen/Tables.h"

#include "analysis/schedule/ConflictFree.h"
#include "support/Diagnostic.h"

#include <filesystem>
#include <fmt/format.h>

namespace bankwise::codegen {

const Permutation &PermutationCache::get(const std::string &Name, bool Inverse) {
  const std::string Key = (Inverse ? "~" : "") + Name;
  if (auto It = Cache.find(Key); It != Cache.end())
    return *It->second;
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P)
    throw UserError(fmt::format("unknown permutation '{}'", Name));
  Permutation Table;
  if (Inverse) {
    Table = inverse(get(Name, false));
  } else if (P->Kind == ir::PermKind::Random) {
    Table = randomPermutation(static_cast<std::uint64_t>(P->ArgValues.at(0)),
                              static_cast<std::uint64_t>(P->ArgValues.at(1)));
  } else if (P->Kind == ir::PermKind::File) {
    std::filesystem::path Path(P->Path);
    if (Path.is_relative() && !P->Loc.File.empty())
      Path = std::filesystem::path(P->Loc.File).parent_path() / Path;
    Table = loadPermutationFile(Path.string());
  } else if (P->Kind == ir::PermKind::ScheduleSrc || P->Kind == ir::PermKind::ScheduleDst) {
    // Seed 003: S(i*w + j) = c(i, j), D(i*w + j) = P(c(i, j)).
    const DmmSchedule Sched = scheduleConflictFree(
        get(P->Base, false), static_cast<std::uint32_t>(P->ArgValues.at(0)));
    Table = Permutation(P->Kind == ir::PermKind::ScheduleSrc ? Sched.S : Sched.D);
  } else {
    const std::int64_t N = P->Size.value_or(0);
    if (N <= 0 || static_cast<std::uint64_t>(N) > MaxPermutationSize)
      throw UserError(P->Loc, fmt::format("permutation '{}' has size {}", Name, N));
    std::vector<std::uint32_t> Map(static_cast<std::size_t>(N));
    for (std::int64_t I = 0; I < N; ++I)
      Map[static_cast<std::size_t>(I)] =
          static_cast<std::uint32_t>(ir::applyClosedForm(*P, I).value());
    Table = Permutation(std::move(Map));
  }
  auto &Slot = Cache[Key];
  Slot = std::make_unique<Permutation>(std::move(Table));
  return *Slot;
}

int narrowestWidth(std::uint64_t Bound) {
  if (Bound <= (std::uint64_t(1) << 8))
    return 1;
  if (Bound <= (std::uint64_t(1) << 16))
    return 2;
  if (Bound <= (std::uint64_t(1) << 32))
    return 4;
  return 8;
}

std::string unsignedTypeName(int Bytes) {
  return fmt::format("std::uint{}_t", Bytes * 8);
}

std::uint64_t fnv1a(const unsigned char *Data, std::size_t N) {
  std::uint64_t H = 0xcbf29ce484222325ULL;
  for (std::size_t I = 0; I < N; ++I)
    H = (H ^ Data[I]) * 0x100000001b3ULL;
  return H;
}

std::vector<unsigned char> TablePlan::bytes() const {
  std::vector<unsigned char> Out;
  if (!Values)
    return Out;
  Out.reserve(Values->size() * static_cast<std::size_t>(Width));
  for (std::uint32_t V : Values->map())
    for (int B = 0; B < Width; ++B)
      Out.push_back(B < 4 ? static_cast<unsigned char>(V >> (8 * B)) : 0);
  return Out;
}

std::vector<unsigned char> sideFileBytes(const std::vector<TablePlan> &Tables) {
  std::vector<unsigned char> Out = {'B', 'W', 'T', 'A', 'B', 'L', 'E', '1'};
  for (const TablePlan &T : Tables)
    if (!T.InSource && T.Values) {
      const auto B = T.bytes();
      Out.insert(Out.end(), B.begin(), B.end());
    }
  return Out;
}

} // namespace bankwise::codegen
