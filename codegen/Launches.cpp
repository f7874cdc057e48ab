// `launch NAME = K1, K2, ...`: the host function that runs a sequence of
// kernels on one stream (seed 001's three passes of a global schedule
// colored copy are one).

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

//===-- Launches -----------------------------------------------------------------===//

std::string KernelEmitter::launchSequence(const ir::Launch &L, const std::vector<const KernelEmitter *> &Stages,
                                          bool Declaration) {
  const KernelEmitter &First = *Stages.front();
  // The arrays the caller passes: every stage's, each once, in order of
  // first appearance; written when some stage writes it.
  std::vector<std::pair<const ArrayPlan *, bool>> Arrays;
  for (const KernelEmitter *E : Stages)
    for (const ArrayPlan &A : E->F.Arrays) {
      if (!A.isApiParam())
        continue;
      auto It = std::find_if(Arrays.begin(), Arrays.end(), [&](const auto &P) { return P.first->Name == A.Name; });
      if (It == Arrays.end())
        Arrays.push_back({&A, A.Written});
      else
        It->second = It->second || A.Written;
    }
  std::vector<std::string> Params;
  for (const auto &[A, Written] : Arrays)
    Params.push_back(fmt::format("{}{} *{}, std::size_t {}_count", Written ? "" : "const ", devType(A->Decl->Elem),
                                 A->Name, A->Name));
  const std::vector<const ir::Param *> Sizes = sizeArgsOf(Stages);
  for (const ir::Param *P : Sizes)
    Params.push_back("long long " + cName(P->Name));
  Params.push_back(Declaration ? "cudaStream_t stream = 0" : "cudaStream_t stream");
  std::vector<std::string> Names;
  for (const KernelEmitter *E : Stages)
    Names.push_back(E->launchName());
  std::string S;
  if (Declaration) {
    S += fmt::format("/// Launch '{}' ({}:{}): {} on `stream`, each after the one before it.\n", L.Name,
                     First.Opts.SourceName, L.Loc.Line, fmt::join(Names, ", then "));
    for (const auto &[A, Written] : Arrays)
      S += fmt::format("///   {}: {} {}, {}.\n", A->Decl->Name, ir::spelling(A->Decl->Space),
                       ir::printArrayType(*A->Decl), Written ? "written" : "read");
    S += "/// Returns the first error of a stage (cudaErrorInvalidValue, launching nothing, for a count that\n"
         "/// differs from the one above).\n";
    return S + fmt::format("cudaError_t launch_{}({});\n", L.Name, fmt::join(Params, ", "));
  }
  for (const ColoredScheduleReport &C : First.Mod.Pipe.Colored)
    if (C.Hmm && C.Kernel == L.Name) {
      const HmmShape &Sh = C.Hmm->Shape;
      S += fmt::format("// Launch '{0}': kernel '{0}' ({1}:{2}:{3}) was `schedule colored` on the copy {4}[f(t)] = {5}[g(t)] of {6}\n"
                       "// elements: it runs as seed 001's scheduled offline permutation {4}[P(i)] = {5}[i], P(g(t)) = f(t),\n"
                       "// over a {7} x {8} row-major matrix: pass 0 by rows, pass 1 by strips of {9} columns, pass 2 by\n"
                       "// rows, each pass coalesced in global memory and conflict-free in shared memory (its s and d planes).\n",
                       L.Name, First.Opts.SourceName, C.Loc.Line, C.Loc.Col, C.Dst, C.Src, C.N, Sh.Rows, Sh.Cols,
                       Sh.StripCols);
    }
  S += fmt::format("cudaError_t launch_{}({}) {{\n", L.Name, fmt::join(Params, ", "));
  std::vector<std::string> Checks;
  for (const auto &[A, Written] : Arrays)
    if (!Stages.front()->F.runtimeShape(*A->Decl))
      Checks.push_back(fmt::format("{}_count != {}", A->Name, A->footprint()));
  if (!Checks.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Checks, " || "));
  for (const KernelEmitter *E : Stages) {
    std::vector<std::string> Args;
    for (const ArrayPlan &A : E->F.Arrays)
      if (A.isApiParam())
        Args.push_back(fmt::format("{}, {}_count", A.Name, A.Name));
    for (const ir::Param *P : E->sizeArgs())
      Args.push_back(cName(P->Name));
    Args.push_back("stream");
    S += fmt::format("  if (const cudaError_t Err = {}({}); Err != cudaSuccess)\n    return Err;\n", E->launchName(),
                     fmt::join(Args, ", "));
  }
  return S + "  return cudaSuccess;\n}\n";
}

} // namespace bankwise::codegen::detail
