// The tables of a program's permutations: closed forms, random(n, seed:),
// file(...), and the edge-coloring schedules schedule_src / schedule_dst
// (seed 003), materialized once and cached. Analysis and code generation
// both read permutations through this, so they agree entry by entry. Tables
// defined by their values alone (closed forms, random) are also shared
// between the PermutationTables of one process, keyed by that definition.
#pragma once

#include "analysis/models/Permutation.h"
#include "ir/Program.h"

#include <map>
#include <memory>
#include <string>

namespace bankwise {

class PermutationTables {
public:
  explicit PermutationTables(const ir::Program &Prog) : Prog(Prog) {}

  /// P, or P^-1 when Inverse. A relative file() path is taken from the .bw
  /// file's directory. Throws UserError (located at the declaration) for an
  /// unknown name, a bad size, or a bad file.
  const Permutation &get(const std::string &Name, bool Inverse = false);
  /// The same table, shared: it outlives this PermutationTables.
  std::shared_ptr<const Permutation> share(const std::string &Name, bool Inverse = false);

private:
  Permutation build(const ir::Permutation &P, bool Inverse);

  const ir::Program &Prog;
  std::map<std::string, std::shared_ptr<const Permutation>, std::less<>> Cache;
};

} // namespace bankwise
