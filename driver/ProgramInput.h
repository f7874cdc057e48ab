// Reading a .bw program the way every subcommand does: -D overrides parsed,
// the file parsed and checked, diagnostics printed.
#pragma once

#include "analysis/passes/KernelAnalysis.h"
#include "ir/Bind.h"
#include "dsl/Parser.h"
#include "pipeline/Pipeline.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace bankwise::driver {

/// The "NAME=VALUE" arguments of option Flag ("-D", "--size") as a map;
/// throws UserError, naming Flag, for a malformed one.
template <class Map> Map parseNameValues(const std::vector<std::string> &Args, const char *Flag) {
  Map Out;
  for (const std::string &A : Args) {
    std::string Err;
    auto KV = dsl::parseOverride(A, Err);
    if (!KV)
      throw UserError(fmt::format("{} {}: {}", Flag, A, Err));
    Out[KV->first] = KV->second;
  }
  return Out;
}

/// Parses File with the "NAME=VALUE" Defines. Prints every diagnostic to
/// stderr and returns nothing when there was an error (the caller exits 2);
/// throws UserError for a malformed -D.
inline std::optional<ir::Program> readProgram(const std::string &File,
                                              const std::vector<std::string> &Defines) {
  const auto Overrides = parseNameValues<dsl::ParamOverrides>(Defines, "-D");
  DiagnosticEngine Diags;
  ir::Program Prog = dsl::parseFile(File, Diags, Overrides);
  Diags.print(std::cerr);
  if (Diags.hasErrors())
    return std::nullopt;
  return Prog;
}

/// The array of Prog named Name, a program-level one or a kernel's.
inline const ir::Array *findAnyArray(const ir::Program &P, const std::string &Name) {
  if (const ir::Array *A = P.findArray(Name))
    return A;
  for (const ir::Kernel &K : P.Kernels)
    if (const ir::Array *A = P.findArray(K, Name))
      return A;
  return nullptr;
}

/// --data NAME=FILE (repeatable): the contents of arrays whose values
/// indices read, into AO.Data, so such sites get exact figures. Throws
/// UserError for a malformed argument, an unknown array or a bad file.
inline void loadDataOptions(const std::vector<std::string> &Data, const ir::Program &Prog,
                            AnalysisOptions &AO) {
  for (const std::string &D : Data) {
    const std::size_t Eq = D.find('=');
    if (Eq == std::string::npos || Eq == 0)
      throw UserError(fmt::format("--data '{}': expected NAME=FILE", D));
    const std::string Name = D.substr(0, Eq), Path = D.substr(Eq + 1);
    const ir::Array *A = findAnyArray(Prog, Name);
    if (!A)
      throw UserError(fmt::format("--data: no array named '{}'", Name));
    AO.Data[Name] = loadDataFile(Path, A->Elem, A->numElements());
  }
}

/// Registers --memory-limit and --time-limit on Cmd (the pipeline checks
/// them: PipelineOptions::Limits).
template <class App> void addLimitOptions(App *Cmd, WorkLimits &O) {
  Cmd->add_option("--memory-limit", O.MemoryGB,
                  "GB of memory the sizes may need (estimated before the work starts; default 80% of this "
                  "machine's memory; 0: no limit)");
  Cmd->add_option("--time-limit", O.Seconds,
                  "seconds of work the sizes may need (estimated before the work starts; default 900; 0: no "
                  "limit)");
}

} // namespace bankwise::driver
