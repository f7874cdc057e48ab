#include "analysis/checks/UnwrittenOutputCheck.h"

#include "ir/Walk.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace bankwise {

namespace {

/// Names of the global arrays K reads (in values, indices or conditions).
void readArrays(const ir::Program &Prog, const ir::Kernel &K, std::set<std::string> &Out) {
  ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) {
    ir::forEachSubexpr(Root, [&](const ir::Expr &E) {
      if (const auto *R = E.as<ir::ArrayRead>())
        if (const ir::Array *A = Prog.findArray(K, R->Array); A && A->Space == ir::MemSpace::Global)
          Out.insert(R->Array);
    });
  });
}

} // namespace

std::vector<LintFinding> checkUnwrittenOutputs(const CheckedProgram &P) {
  std::vector<LintFinding> Out;
  const ir::Program &Prog = *P.Prog;
  // Units: a launch's kernels together, or a kernel alone.
  std::vector<std::pair<std::string, std::vector<const ir::Kernel *>>> Units;
  for (const ir::Launch &L : Prog.Launches) {
    std::vector<const ir::Kernel *> Ks;
    for (const std::string &Name : L.Kernels)
      if (const ir::Kernel *K = Prog.findKernel(Name))
        Ks.push_back(K);
    Units.push_back({"launch '" + L.Name + "'", Ks});
  }
  for (const ir::Kernel &K : Prog.Kernels)
    if (!Prog.launchOf(K.Name))
      Units.push_back({"kernel '" + K.Name + "'", {&K}});
  for (const auto &[What, Kernels] : Units) {
    std::set<std::string> Read;
    bool Traced = !Kernels.empty();
    for (const ir::Kernel *K : Kernels) {
      readArrays(Prog, *K, Read);
      const KernelTrace *T = P.traceOf(K->Name);
      Traced = Traced && T && T->CoverageTraced && !T->DataControl;
    }
    if (!Traced)
      continue;
    // Each written array's elements, over the unit's kernels.
    std::vector<std::pair<const ArrayCoverage *, std::vector<bool>>> Written;
    std::set<std::string> Unknown;
    for (const ir::Kernel *K : Kernels)
      for (const ArrayCoverage &C : P.traceOf(K->Name)->Coverage) {
        if (C.DataDependentWrite)
          Unknown.insert(C.Arr->Name);
        auto It = std::find_if(Written.begin(), Written.end(),
                               [&](const auto &W) { return W.first->Arr->Name == C.Arr->Name; });
        if (It == Written.end()) {
          Written.push_back({&C, C.Written});
        } else if (It->second.size() == C.Written.size()) {
          for (std::size_t I = 0; I < C.Written.size(); ++I)
            if (C.Written[I])
              It->second[I] = true;
        }
      }
    for (const auto &[C, Bits] : Written) {
      const ir::Array &A = *C->Arr;
      if (Read.count(A.Name) || Unknown.count(A.Name))
        continue;
      std::int64_t Missing = 0, First = -1;
      for (std::size_t I = 0; I < Bits.size(); ++I)
        if (!Bits[I]) {
          ++Missing;
          if (First < 0)
            First = static_cast<std::int64_t>(I);
        }
      if (Missing == 0)
        continue;
      // The first kernel that writes it, for the grid note.
      const ir::Kernel *Writer = Kernels.front();
      for (auto K = Kernels.rbegin(); K != Kernels.rend(); ++K)
        for (const ArrayCoverage &X : P.traceOf((*K)->Name)->Coverage)
          if (X.Arr->Name == A.Name)
            Writer = *K;
      LintFinding F;
      F.Check = "bankwise-unwritten-output";
      F.Sev = Severity::Warning;
      F.Loc = A.Loc;
      F.Message = fmt::format("{} of the {} elements of output '{}' {} never written by {}; the first is {}", Missing,
                              Bits.size(), A.Name, Missing == 1 ? "is" : "are", What, elementText(A, First));
      const ir::Geometry &G = Writer->Geo;
      F.Notes.push_back({G.Loc, fmt::format("kernel '{}' runs {} block{} of {} thread{}: {} threads", Writer->Name,
                                            G.GridDim[0] * G.GridDim[1] * G.GridDim[2],
                                            G.GridDim[0] * G.GridDim[1] * G.GridDim[2] == 1 ? "" : "s",
                                            G.threadsPerBlock(), G.threadsPerBlock() == 1 ? "" : "s",
                                            G.GridDim[0] * G.GridDim[1] * G.GridDim[2] * G.threadsPerBlock())});
      F.Notes.push_back({G.Loc, "if every element is an output, round the grid up ('(N + 31) / 32' blocks of 32) "
                                "and guard the accesses ('if i < N')"});
      Out.push_back(std::move(F));
    }
  }
  return Out;
}

} // namespace bankwise
