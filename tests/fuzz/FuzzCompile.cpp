// libFuzzer target: a .bw program through everything `bankwise compile`
// does without nvcc: parse, the correctness checks, the analysis over
// every size for runtime params, the passes (sizes, schedules, layout
// auto) and codegen. Errors of the program (UserError) are expected; any
// other exception, crash, hang or sanitizer report is a finding.
//
// Programs whose declared work is out of proportion to a fuzzing
// iteration are skipped (more than 2^16 threads in a kernel's grid or
// 2^22 elements in one array): the work estimate of issue [10] item 3 is
// what will refuse them in the tool itself.
#include "codegen/Codegen.h"
#include "dsl/Parser.h"
#include "ir/Bind.h"
#include "pipeline/Pipeline.h"
#include "support/Diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace bankwise;

namespace {

bool tooLarge(const ir::Program &P) {
  constexpr std::int64_t MaxThreads = std::int64_t{1} << 16, MaxElems = std::int64_t{1} << 22;
  for (const ir::Array &A : P.Arrays)
    if (A.numElements() > MaxElems)
      return true;
  for (const ir::Kernel &K : P.Kernels) {
    const auto &G = K.Geo.GridDim;
    if (G[0] * G[1] * G[2] > MaxThreads / K.Geo.threadsPerBlock())
      return true;
    for (const ir::Array *A : K.arrays())
      if (A->numElements() > MaxElems)
        return true;
  }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  DiagnosticEngine Diags;
  const std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  ir::Program Prog = dsl::parseProgram(Text, "fuzz.bw", Diags);
  if (Diags.hasErrors())
    return 0;
  try {
    // Sizes as analyze and compile take them: runtime params at their
    // representative values.
    const ir::Bindings Sizes = ir::representativeSizes(Prog, {});
    const ir::Program Bound = ir::bindParams(Prog, Sizes);
    if (tooLarge(Bound))
      return 0;
    // As `analyze` runs it with runtime params: every kernel over every
    // size.
    if (!Prog.runtimeParams().empty()) {
      PipelineOptions Every;
      Every.Analyze.EverySize = true;
      (void)runPipeline(Prog, Every);
    }
    // As `compile` runs it: the analyses at the representative sizes, which
    // codegen reads.
    const PipelineResult R = runPipeline(Prog, PipelineOptions{});
    codegen::CodegenOptions CO;
    CO.Harness = true;
    (void)codegen::compileToCuda(R, CO);
  } catch (const UserError &) {
  }
  return 0;
}
