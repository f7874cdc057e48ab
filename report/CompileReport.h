// What `bankwise compile` reports besides the CUDA: the check pass's
// findings and the schedules' notes on stderr, and --report's JSON of
// every access site's predicted cost (the pipeline's analyses) with what
// codegen decided for each kernel (its index type, shared memory, the
// staging copies it adds).
#pragma once

#include "codegen/Codegen.h"
#include "pipeline/Pipeline.h"

#include <ostream>
#include <string>

namespace bankwise::report {

/// The check pass's findings in source order, with their source lines, and
/// then (when none is an error) each `schedule auto`'s choice and each
/// offline schedule's wall time against the runs that repay it; true when
/// a finding is an error.
bool printCompileChecks(std::ostream &OS, const PipelineResult &P);

struct CompileReportOptions {
  std::string SourceName; ///< the .bw file, as sites are located
  std::string Arch;
};

/// --report's JSON (one object, indented by one space, a newline after):
/// the program, the architecture, the module's namespace, the runtime
/// params and the sizes the predictions hold at, and per kernel its
/// geometry, index type, shared memory, model time and sites (the
/// analysis's, then the staging copies codegen added).
std::string compileReportJson(const PipelineResult &P, const codegen::CompileResult &C,
                              const CompileReportOptions &O);

} // namespace bankwise::report
