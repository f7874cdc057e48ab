#include "analysis/passes/PermutationTables.h"

#include "support/Progress.h"

#include "analysis/schedule/ConflictFree.h"
#include "support/Diagnostic.h"

#include <chrono>
#include <filesystem>
#include <list>
#include <mutex>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise {

namespace {

/// The definition of a table that depends on nothing but its declaration's
/// values (a closed form or random(n, seed:)); empty for the others.
std::string definitionKey(const ir::Permutation &P) {
  switch (P.Kind) {
  case ir::PermKind::Identity:
  case ir::PermKind::Shuffle:
  case ir::PermKind::Bitreverse:
  case ir::PermKind::Transpose:
  case ir::PermKind::Stride:
  case ir::PermKind::Random:
    return fmt::format("{}:{}:{}", ir::spelling(P.Kind), P.Size.value_or(-1),
                       fmt::join(P.ArgValues, ","));
  default:
    return {};
  }
}

/// Tables by definition, shared by every PermutationTables of the process:
/// layout choice, the colored schedule, analysis and codegen each read a
/// program's tables, and a random permutation of 2^26 entries takes a
/// second to draw. The most recently used tables are kept, up to 1 GiB.
class SharedTables {
public:
  std::shared_ptr<const Permutation> find(const std::string &Key) {
    std::lock_guard<std::mutex> Lock(M);
    for (auto It = Entries.begin(); It != Entries.end(); ++It)
      if (It->first == Key) {
        Entries.splice(Entries.begin(), Entries, It);
        return It->second;
      }
    return nullptr;
  }
  void add(const std::string &Key, std::shared_ptr<const Permutation> T) {
    std::lock_guard<std::mutex> Lock(M);
    Entries.emplace_front(Key, std::move(T));
    std::uint64_t Bytes = 0;
    for (auto It = Entries.begin(); It != Entries.end();) {
      Bytes += It->second->size() * sizeof(std::uint32_t);
      It = It != Entries.begin() && Bytes > MaxBytes ? Entries.erase(It) : std::next(It);
    }
  }

private:
  static constexpr std::uint64_t MaxBytes = std::uint64_t(1) << 30;
  std::mutex M;
  std::list<std::pair<std::string, std::shared_ptr<const Permutation>>> Entries;
};

SharedTables &sharedTables() {
  static SharedTables S;
  return S;
}

} // namespace

namespace {
/// A table's key: its name, or "~" and its name for its inverse.
std::string tableKey(const std::string &Name, bool Inverse) { return (Inverse ? "~" : "") + Name; }
} // namespace

const Permutation &PermutationTables::get(const std::string &Name, bool Inverse) {
  const std::string Key = tableKey(Name, Inverse);
  if (auto It = Cache.find(Key); It != Cache.end())
    return *It->second;
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P)
    throw UserError(fmt::format("unknown permutation '{}'", Name));
  if (ir::isBlockLocalTable(P->Kind))
    throw UserError(P->Loc, fmt::format("'{}' is a table of block-local indices, not a permutation: "
                                        "read it through an array that holds it",
                                        Name));
  const std::string Def = definitionKey(*P);
  // Identity and bit reversal are their own inverses: one table for both
  // (a global copy's schedule reads Q^-1 where its analysis reads Q).
  const bool SelfInverse = P->Kind == ir::PermKind::Identity || P->Kind == ir::PermKind::Bitreverse;
  const std::string SharedKey = Def.empty() ? std::string() : tableKey(Def, Inverse && !SelfInverse);
  std::shared_ptr<const Permutation> Table = SharedKey.empty() ? nullptr : sharedTables().find(SharedKey);
  if (!Table) {
    Table = std::make_shared<const Permutation>(build(*P, Inverse));
    if (!SharedKey.empty())
      sharedTables().add(SharedKey, Table);
  }
  auto &Slot = Cache[Key];
  Slot = std::move(Table);
  return *Slot;
}

std::shared_ptr<const Permutation> PermutationTables::share(const std::string &Name, bool Inverse) {
  get(Name, Inverse);
  return Cache.find(tableKey(Name, Inverse))->second;
}

std::shared_ptr<const HmmSchedule> SchedulePlan::get(std::shared_ptr<const Permutation> P, int ElemBytes) {
  const HmmShape Shape = chooseSm90Shape(P->size(), ElemBytes);
  {
    std::lock_guard<std::mutex> Lock(M);
    for (const Entry &E : Entries)
      if (E.S->shape() == Shape && (E.P == P || *E.P == *P))
        return E.S;
  }
  const auto Start = std::chrono::steady_clock::now();
  const Progress Shown(fmt::format("scheduling a permutation of {} elements", P->size()));
  auto S = std::make_shared<const HmmSchedule>(scheduleHmmPermutation(*P, Shape));
  const double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  std::lock_guard<std::mutex> Lock(M);
  // Another thread may have computed it meanwhile: the first one stays.
  for (const Entry &E : Entries)
    if (E.S->shape() == Shape && (E.P == P || *E.P == *P))
      return E.S;
  Entries.push_back({std::move(P), S, Seconds});
  return S;
}

double SchedulePlan::seconds(const HmmSchedule &S) const {
  std::lock_guard<std::mutex> Lock(M);
  for (const Entry &E : Entries)
    if (E.S.get() == &S)
      return E.Seconds;
  return 0;
}

std::size_t SchedulePlan::size() const {
  std::lock_guard<std::mutex> Lock(M);
  return Entries.size();
}

std::shared_ptr<const HmmSchedule> PermutationTables::hmmSchedule(const std::string &Name) {
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P || !ir::isBlockLocalTable(P->Kind))
    throw UserError(fmt::format("'{}' is not an hmm_src or hmm_dst table", Name));
  const int Bytes = static_cast<int>(ir::hmmElemBytes(*P));
  auto &Slot = Schedules[P->Base + (P->BaseInverse ? "~" : "") + (Bytes != 4 ? fmt::format("/{}", Bytes) : "")];
  if (!Slot) {
    try {
      if (!Plan) {
        OwnPlan = std::make_shared<SchedulePlan>();
        Plan = OwnPlan.get();
      }
      Slot = Plan->get(share(P->Base, P->BaseInverse), Bytes);
    } catch (const UserError &E) {
      throw UserError(P->Loc, fmt::format("{}: {}", Name, E.diagnostic().Message));
    }
  }
  return Slot;
}

TableView PermutationTables::table(const std::string &Name, bool Inverse) {
  const ir::Permutation *P = Prog.findPerm(Name);
  if (!P || !ir::isBlockLocalTable(P->Kind))
    return TableView(get(Name, Inverse));
  if (Inverse)
    throw UserError(P->Loc, fmt::format("'{}' is a table of block-local indices: it has no inverse", Name));
  const std::shared_ptr<const HmmSchedule> S = hmmSchedule(Name);
  const int Pass = static_cast<int>(P->ArgValues.at(0));
  return TableView(P->Kind == ir::PermKind::HmmSrc ? S->s(Pass) : S->d(Pass), S->blockWords(Pass));
}

Permutation PermutationTables::build(const ir::Permutation &P, bool Inverse) {
  const SourceLoc Loc = P.Loc;
  Permutation Table;
  if (Inverse) {
    // Closed forms whose inverses are closed forms are built directly: a
    // bit reversal is its own inverse, and transpose(R, C)^-1 is
    // transpose(C, R) (stride(n, s) is transpose(n / s, s)).
    const auto Arg = [&](std::size_t I) { return static_cast<std::uint64_t>(P.ArgValues.at(I)); };
    const auto U = static_cast<std::uint64_t>(P.Size.value_or(0));
    if (P.Kind == ir::PermKind::Identity || P.Kind == ir::PermKind::Bitreverse)
      return build(P, false);
    if (P.Kind == ir::PermKind::Transpose)
      return transposePermutation(Arg(1), Arg(0));
    if (P.Kind == ir::PermKind::Stride)
      return transposePermutation(Arg(1), U / Arg(1));
    Table = inverse(get(P.Name, false));
  } else if (P.Kind == ir::PermKind::Random) {
    Table = randomPermutation(static_cast<std::uint64_t>(P.ArgValues.at(0)),
                              static_cast<std::uint64_t>(P.ArgValues.at(1)));
  } else if (P.Kind == ir::PermKind::File) {
    std::filesystem::path Path(P.Path);
    if (Path.is_relative() && !Loc.File.empty())
      Path = std::filesystem::path(Loc.File).parent_path() / Path;
    Table = loadPermutationFile(Path.string());
  } else if (P.Kind == ir::PermKind::ScheduleSrc || P.Kind == ir::PermKind::ScheduleDst) {
    // Seed 003: S(i*w + j) = c(i, j), D(i*w + j) = P(c(i, j)).
    const DmmSchedule Sched =
        scheduleConflictFree(get(P.Base, false), static_cast<std::uint32_t>(P.ArgValues.at(0)));
    Table = Permutation(P.Kind == ir::PermKind::ScheduleSrc ? Sched.S : Sched.D);
  } else {
    const std::int64_t N = P.Size.value_or(0);
    if (N <= 0 || static_cast<std::uint64_t>(N) > MaxPermutationSize)
      throw UserError(Loc, fmt::format("permutation '{}' has size {}", P.Name, N));
    const auto U = static_cast<std::uint64_t>(N);
    switch (P.Kind) {
    case ir::PermKind::Identity:
      Table = identityPermutation(U);
      break;
    case ir::PermKind::Bitreverse:
      Table = bitReversalPermutation(U);
      break;
    case ir::PermKind::Transpose:
      Table = transposePermutation(static_cast<std::uint64_t>(P.ArgValues.at(0)),
                                   static_cast<std::uint64_t>(P.ArgValues.at(1)));
      break;
    case ir::PermKind::Stride:
      Table = stridePermutation(U, static_cast<std::uint64_t>(P.ArgValues.at(1)));
      break;
    default: {
      std::vector<std::uint32_t> Map(static_cast<std::size_t>(N));
      for (std::int64_t I = 0; I < N; ++I)
        Map[static_cast<std::size_t>(I)] =
            static_cast<std::uint32_t>(ir::applyClosedForm(P, I).value());
      Table = Permutation(std::move(Map));
    }
    }
  }
  return Table;
}

} // namespace bankwise
