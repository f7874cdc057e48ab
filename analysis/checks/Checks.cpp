#include "analysis/checks/Checks.h"

#include "analysis/checks/BankConflictCheck.h"
#include "analysis/checks/DivergentShuffleCheck.h"
#include "analysis/checks/DivergentSyncCheck.h"
#include "analysis/checks/SharedRaceCheck.h"
#include "analysis/checks/UncoalescedCheck.h"
#include "analysis/checks/UninitializedSharedReadCheck.h"
#include "analysis/checks/UnwrittenOutputCheck.h"
#include "ir/Bind.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace bankwise {

const std::vector<CheckInfo> &allChecks() {
  static const std::vector<CheckInfo> Checks = {
      {"bankwise-bank-conflict", "shared accesses that take more wavefronts than their bytes need",
       checkBankConflicts},
      {"bankwise-uncoalesced", "global accesses that touch more sectors than their bytes need",
       checkUncoalesced},
      {"bankwise-divergent-sync", "'sync' under a condition or in a loop that differs between threads of a block",
       nullptr, checkDivergentSync},
      {"bankwise-divergent-shuffle", "a warp shuffle that not every lane of its warp runs", nullptr,
       checkDivergentShuffles},
      {"bankwise-shared-race", "two threads access one shared element between the same barriers, one writing",
       nullptr, checkSharedRaces},
      {"bankwise-uninitialized-shared-read", "reads of shared elements no thread of the block wrote before",
       nullptr, checkUninitializedSharedReads},
      {"bankwise-unwritten-output", "output arrays with elements no thread writes", nullptr,
       checkUnwrittenOutputs},
  };
  return Checks;
}

std::string sizeCondition(const LintSite &S, const SizeRange &R) {
  // A sampled worst is the worst of the sizes tried: a lower bound of the
  // worst, which a fifth hand check read as the figure at every size its
  // condition names (attention_backward.cu's 6 sectors "when d % 32 in
  // {1, ...}": d = 33 moves 7, d = 1 moves 32).
  const char *Tried = R.Sampled ? " (at the sizes tried, sampled; other sizes may cost more)" : "";
  if (R.Min == R.Max)
    return Tried;
  // A condition the worst needs but that some size inside it does not
  // reach (NV12toBGRandResize's store, worst by H * W % 32, printed as
  // "height % 32 != 0 and width % 32 != 0"): only some of its sizes.
  if (!R.MaxWhen.empty())
    return fmt::format(" {} {}{}", R.MaxWhenPartial ? "at some sizes where" : "when", R.MaxWhen, Tried);
  // Some size class's worst warp is cheaper: the worst needs some sizes.
  bool Varies = false;
  if (!S.Domain.empty())
    for (const auto &[Cost, Classes] : S.Costs.Bars)
      Varies = Varies || (Classes > 0 && Cost < R.Max);
  return fmt::format("{}{}", Varies ? " at some sizes" : "", Tried);
}

const KernelTrace *CheckedProgram::traceOf(const std::string &Name) const {
  for (const CheckedKernel &C : Kernels)
    if (C.K->Name == Name && C.Trace)
      return &*C.Trace;
  return nullptr;
}

namespace {

/// The kernels Opts selects: all, or the one named (with its launch's), or
/// a launch's.
std::set<std::string> selectedKernels(const ir::Program &Prog, const std::string &Only) {
  std::set<std::string> Out;
  for (const ir::Kernel &K : Prog.Kernels) {
    const ir::Launch *L = Prog.launchOf(K.Name);
    if (Only.empty() || K.Name == Only || (L && L->Name == Only)) {
      Out.insert(K.Name);
      if (L)
        Out.insert(L->Kernels.begin(), L->Kernels.end());
    }
  }
  return Out;
}

std::vector<LintFinding> checkAt(const ir::Program &Prog, const CorrectnessOptions &Opts, std::string SizesNote) {
  CheckedProgram CP;
  CP.Prog = &Prog;
  CP.SizesNote = std::move(SizesNote);
  CP.BarrierName = Opts.BarrierName;
  CP.WrittenSomewhere = Opts.WrittenSomewhere;
  CP.Aliases = Opts.Aliases;
  TraceOptions TO = Opts.Trace;
  TO.Data = Opts.Data;
  const std::set<std::string> Selected = selectedKernels(Prog, Opts.OnlyKernel);
  for (const ir::Kernel &K : Prog.Kernels) {
    CheckedKernel C;
    C.K = &K;
    if (Selected.count(K.Name))
      C.Trace = traceKernel(Prog, K, TO);
    CP.Kernels.push_back(std::move(C));
  }
  std::vector<LintFinding> Out;
  for (const CheckInfo &C : allChecks())
    if (C.RunProgram && !Opts.Skip.count(C.Name))
      for (LintFinding &F : C.RunProgram(CP)) {
        if (!CP.SizesNote.empty())
          F.Notes.push_back({F.Loc, CP.SizesNote});
        Out.push_back(std::move(F));
      }
  return Out;
}

} // namespace

std::vector<LintFinding> runCorrectnessChecks(const ir::Program &Prog, const CorrectnessOptions &Opts) {
  const std::vector<std::string> Runtime = Prog.runtimeParams();
  if (Runtime.empty())
    return checkAt(Prog, Opts, "");
  // The representative sizes, then each free size one above them: a grid
  // of N / 32 blocks covers N = 64 and leaves N = 65's last element.
  std::vector<ir::Bindings> Sizes{ir::representativeSizes(Prog, {})};
  ir::Bindings Above;
  for (const ir::Param &P : Prog.Params)
    if (P.Runtime && !P.Init)
      Above[P.Name] = Sizes.front().at(P.Name) + 1;
  try {
    Sizes.push_back(ir::representativeSizes(Prog, Above));
  } catch (const UserError &) {
    // a `where` rules the sizes above out: the representative ones alone
  }
  std::vector<LintFinding> Out;
  for (const ir::Bindings &B : Sizes) {
    std::vector<std::string> At;
    for (const auto &[Name, Value] : B)
      At.push_back(fmt::format("{} = {}", Name, Value));
    const std::string Note = fmt::format("checked at {} (runtime sizes: give others with -D)", fmt::join(At, ", "));
    for (LintFinding &F : checkAt(ir::bindParams(Prog, B), Opts, Note))
      if (std::none_of(Out.begin(), Out.end(),
                       [&](const LintFinding &G) { return G.Check == F.Check && G.Loc == F.Loc; }))
        Out.push_back(std::move(F));
  }
  return Out;
}

std::vector<Diagnostic> findingDiagnostics(const LintFinding &F) {
  std::vector<Diagnostic> Out;
  Out.push_back({F.Sev, F.Loc, fmt::format("{} [{}]", F.Message, F.Check), {}});
  for (const LintFinding::Note &N : F.Notes)
    Out.push_back({Severity::Note, N.Loc, N.Message, {}});
  return Out;
}

} // namespace bankwise
