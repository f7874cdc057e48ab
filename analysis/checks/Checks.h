// The checks, clang-tidy's way: one name per check, used for its unit
// (analysis/checks/NameCheck.{h,cpp}), its tests (tests/lint/name/ on CUDA,
// tests/checks/name/ on .bw), its docs entry and its line in allChecks().
// Two kinds: the lint's cost checks read access-site figures (LintSite);
// the correctness checks read the program and each kernel's thread-by-thread
// trace (CheckedProgram) and run on `analyze`, `compile` and `lint` alike.
#pragma once

#include "analysis/checks/LintSites.h"
#include "analysis/passes/ThreadTrace.h"
#include "support/Diagnostic.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace bankwise {

/// One diagnostic of a check: an error, a warning (or a note where the
/// figures are worst cases the lint cannot confirm), with its notes.
struct LintFinding {
  std::string Check; ///< "bankwise-bank-conflict"
  Severity Sev = Severity::Warning;
  SourceLoc Loc;
  std::string Message;
  struct Note {
    SourceLoc Loc;
    std::string Message;
  };
  std::vector<Note> Notes;
};

using CheckFn = std::vector<LintFinding> (*)(const std::vector<LintSite> &);

/// A kernel of a CheckedProgram and its trace (absent when the kernel was
/// not selected).
struct CheckedKernel {
  const ir::Kernel *K = nullptr;
  std::optional<KernelTrace> Trace;
};

/// What the correctness checks read: a program whose sizes are all bound,
/// its kernels' traces, and the sizes the binding chose (a note for every
/// finding; empty when every size was a constant).
struct CheckedProgram {
  const ir::Program *Prog = nullptr;
  std::vector<CheckedKernel> Kernels;
  std::string SizesNote;
  /// How the input spells a block barrier: "sync", or "__syncthreads()".
  std::string BarrierName = "sync";
  /// Arrays written where the program does not say
  /// (CorrectnessOptions::WrittenSomewhere).
  std::set<std::string, std::less<>> WrittenSomewhere;
  /// Arrays that alias each other (CorrectnessOptions::Aliases).
  std::map<std::string, std::string, std::less<>> Aliases;
  /// The trace of the kernel named Name; nullptr when it has none.
  const KernelTrace *traceOf(const std::string &Name) const;
};

using ProgramCheckFn = std::vector<LintFinding> (*)(const CheckedProgram &);

/// A check reads either the lint's sites (Run) or a traced program
/// (RunProgram); the other is null.
struct CheckInfo {
  const char *Name;
  const char *Summary;
  CheckFn Run = nullptr;
  ProgramCheckFn RunProgram = nullptr;
};

/// Every check, in the order their diagnostics are listed.
const std::vector<CheckInfo> &allChecks();

struct CorrectnessOptions {
  /// analyze --data: contents of arrays indices read.
  const std::map<std::string, std::vector<std::int64_t>, std::less<>> *Data = nullptr;
  /// Check only this kernel (and the other kernels of its launch), or the
  /// kernels of this launch; empty: every kernel.
  std::string OnlyKernel;
  TraceOptions Trace;
  /// How the input spells a block barrier (CheckedProgram::BarrierName).
  std::string BarrierName = "sync";
  /// Checks not run (their names): the lint's shared-race and
  /// uninitialized-shared-read checks on a kernel whose block it assumed,
  /// since which thread wrote an element first depends on the block.
  std::set<std::string, std::less<>> Skip;
  /// Arrays written where the program does not say (the lint's
  /// `memcpy_async` destinations, LoweredKernel::AsyncCopied).
  std::set<std::string, std::less<>> WrittenSomewhere;
  /// Arrays that are one memory seen with other element types (the lint's
  /// `((uint *)s_Hist)[i]` of a byte array), each to a name of its group;
  /// arrays alone in their group are not listed.
  std::map<std::string, std::string, std::less<>> Aliases;
};

/// The findings of every correctness check on Prog, at its sizes; a
/// program with runtime sizes is checked at the representative sizes
/// (ir::representativeSizes) and again with each free runtime param one
/// above (where its `where` allows: a grid that does not divide shows there),
/// each finding noting the sizes. Throws UserError where the program fails
/// at run time (an index outside its array, say), located.
std::vector<LintFinding> runCorrectnessChecks(const ir::Program &Prog, const CorrectnessOptions &Opts = {});

/// The findings as Clang-style diagnostics, "... [bankwise-NAME]" then its
/// notes, in order.
std::vector<Diagnostic> findingDiagnostics(const LintFinding &F);

/// "{N}-way" phrase helpers shared by the checks: "load from", "store to"
/// or "atomic on".
inline const char *accessPhrase(const LintSite &S) {
  return S.IsAtomic ? "atomic on" : S.IsWrite ? "store to" : "load from";
}

/// " when n % 8 != 0" for a figure whose worst case is reached only at
/// some sizes (with " (at the sizes tried, sampled; other sizes may cost
/// more)" where the all-sizes analysis sampled them); " at some sizes" where the worst differs
/// between size classes (S.Costs over all sizes) but no condition on one
/// size's residues says where (texture_3d.cu's 6 sectors need pitch or
/// pitchSlice unaligned: 4 at its own); the sampled text alone for a
/// sampled worst case met at every size tried; empty when the
/// worst case holds at every size.
std::string sizeCondition(const LintSite &S, const SizeRange &R);

} // namespace bankwise
