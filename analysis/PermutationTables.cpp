#include "analysis/PermutationTables.h"

#include "analysis/schedule/ConflictFree.h"
#include "support/Diagnostic.h"

#include <filesystem>
#include <fmt/format.h>

namespace bankwise {

const Permutation &PermutationTables::get(const std::string &Name, bool Inverse) {
  const std::string Key = (Inverse ? "~" : "") + Name;
  if (auto It = Cache.find(Key); It != Cache.end())
    return *It->second;
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P)
    throw UserError(fmt::format("unknown permutation '{}'", Name));
  const SourceLoc Loc = P->Loc;
  Permutation Table;
  if (Inverse) {
    Table = inverse(get(Name, false));
  } else if (P->Kind == ir::PermKind::Random) {
    Table = randomPermutation(static_cast<std::uint64_t>(P->ArgValues.at(0)),
                              static_cast<std::uint64_t>(P->ArgValues.at(1)));
  } else if (P->Kind == ir::PermKind::File) {
    std::filesystem::path Path(P->Path);
    if (Path.is_relative() && !Loc.File.empty())
      Path = std::filesystem::path(Loc.File).parent_path() / Path;
    Table = loadPermutationFile(Path.string());
  } else if (P->Kind == ir::PermKind::ScheduleSrc || P->Kind == ir::PermKind::ScheduleDst) {
    // Seed 003: S(i*w + j) = c(i, j), D(i*w + j) = P(c(i, j)).
    const DmmSchedule Sched =
        scheduleConflictFree(get(P->Base, false), static_cast<std::uint32_t>(P->ArgValues.at(0)));
    Table = Permutation(P->Kind == ir::PermKind::ScheduleSrc ? Sched.S : Sched.D);
  } else {
    const std::int64_t N = P->Size.value_or(0);
    if (N <= 0 || static_cast<std::uint64_t>(N) > MaxPermutationSize)
      throw UserError(Loc, fmt::format("permutation '{}' has size {}", Name, N));
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

} // namespace bankwise
