// The tables of a program's permutations: closed forms, random(n, seed:),
// file(...), the edge-coloring schedules schedule_src / schedule_dst
// (seed 003) and the planes hmm_src / hmm_dst of seed 001's schedule,
// materialized once and cached. Analysis and code generation
// both read permutations through this, so they agree entry by entry. Tables
// defined by their values alone (closed forms, random) are also shared
// between the PermutationTables of one process, keyed by that definition;
// seed 001's schedules belong to a SchedulePlan, which a pipeline run owns.
#pragma once

#include "analysis/models/Permutation.h"
#include "analysis/schedule/HmmSchedule.h"
#include "ir/Program.h"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

namespace bankwise {

/// The entries of a table an array holds, without a copy: a permutation's
/// (32-bit, values 0..n-1) or a plane of seed 001's schedule (hmm_src /
/// hmm_dst: 16-bit block-local indices, values 0..m-1 for m words a block).
/// It points into storage its PermutationTables keeps alive.
class TableView {
public:
  TableView() = default;
  explicit TableView(const Permutation &P)
      : U32(P.map().data()), N(P.size()), Bound(P.size()) {}
  TableView(std::span<const std::uint16_t> Plane, std::uint64_t Bound)
      : U16(Plane.data()), N(Plane.size()), Bound(Bound) {}

  std::uint64_t size() const { return N; }
  /// Every entry is below this: n for a permutation, m for a plane.
  std::uint64_t bound() const { return Bound; }
  std::uint64_t operator()(std::uint64_t I) const { return U16 ? U16[I] : U32[I]; }

private:
  const std::uint32_t *U32 = nullptr;
  const std::uint16_t *U16 = nullptr;
  std::uint64_t N = 0, Bound = 0;
};

/// Seed 001's schedules of a program's tables, each computed once: the
/// schedule-colored pass makes them, and the analyses of the kernels it
/// makes, the check pass and codegen's side file read the same ones through
/// PermutationTables. A pipeline run owns one (PipelineResult::Schedules)
/// and hands it to every stage; nothing is kept for the process.
/// Thread-safe.
class SchedulePlan {
public:
  /// The schedule of P on sm_90's shape for elements of ElemBytes
  /// (chooseSm90Shape(n, ElemBytes)), computed the first time; an equal
  /// table built again (a list the pass declared, read back by the
  /// analysis) finds it by its contents. Throws UserError when no shape
  /// fits n.
  std::shared_ptr<const HmmSchedule> get(std::shared_ptr<const Permutation> P, int ElemBytes = 4);
  /// The wall-clock seconds get took to compute S (0 for a schedule this
  /// plan did not compute).
  double seconds(const HmmSchedule &S) const;
  /// How many schedules the plan holds.
  std::size_t size() const;

private:
  mutable std::mutex M;
  struct Entry {
    std::shared_ptr<const Permutation> P;
    std::shared_ptr<const HmmSchedule> S;
    double Seconds = 0; ///< wall time of scheduleHmmPermutation
  };
  std::list<Entry> Entries;
};

class PermutationTables {
public:
  /// Plan: where seed 001's schedules come from and go (the pipeline's);
  /// without one, this PermutationTables computes its own.
  explicit PermutationTables(const ir::Program &Prog, SchedulePlan *Plan = nullptr)
      : Prog(Prog), Plan(Plan) {}

  /// P, or P^-1 when Inverse. A relative file() path is taken from the .bw
  /// file's directory. Throws UserError (located at the declaration) for an
  /// unknown name, a bad size, or a bad file.
  const Permutation &get(const std::string &Name, bool Inverse = false);
  /// The same table, shared: it outlives this PermutationTables.
  std::shared_ptr<const Permutation> share(const std::string &Name, bool Inverse = false);
  /// The entries an array holding Name (or its inverse) holds: get(Name,
  /// Inverse)'s, or for hmm_src(P, pass: k) / hmm_dst the plane of P's
  /// seed 001 schedule. Throws UserError as get does, and for the inverse of
  /// a plane (block-local indices have none).
  TableView table(const std::string &Name, bool Inverse = false);
  /// The schedule behind hmm_src / hmm_dst table Name.
  std::shared_ptr<const HmmSchedule> hmmSchedule(const std::string &Name);

private:
  Permutation build(const ir::Permutation &P, bool Inverse);

  const ir::Program &Prog;
  SchedulePlan *Plan;
  std::shared_ptr<SchedulePlan> OwnPlan; ///< Plan's stand-in when none was given
  std::map<std::string, std::shared_ptr<const Permutation>, std::less<>> Cache;
  std::map<std::string, std::shared_ptr<const HmmSchedule>, std::less<>> Schedules;
};

} // namespace bankwise
