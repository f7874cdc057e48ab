// The .bw front end: source text -> checked IR. See docs/language.md for the
// language and dsl/README.md for the contract.
#pragma once

#include "ir/Program.h"
#include "support/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace bankwise::dsl {

/// Values given on the command line for `param`s (`-D N=4096`).
using ParamOverrides = std::map<std::string, std::int64_t>;

/// Lexes, parses and checks a .bw program. Every problem is reported to
/// Diags ("file:line:col: error: ..."), several per run where recovery is
/// sound. When Diags.hasErrors() afterwards, the result is partial and must
/// not be analyzed. Never throws, crashes or recurses deeper than a fixed
/// limit, whatever the bytes of Source.
ir::Program parseProgram(std::string_view Source, const std::string &FileName,
                         DiagnosticEngine &Diags,
                         const ParamOverrides &Overrides = {});

/// Reads Path and parses it as parseProgram does; an unreadable file is an
/// error diagnostic "cannot open 'p.bw': reason".
ir::Program parseFile(const std::string &Path, DiagnosticEngine &Diags,
                      const ParamOverrides &Overrides = {});

/// Parses one `-D` value "NAME=INT" (INT decimal, 0x hex or 0b binary, with
/// an optional '-'); nullopt with Error set when malformed.
/// A machine spec as the command line writes it: "sm_90", "dmm(w: 32, l:
/// 1)", "umm(w: 32, l: 400)", "hmm(d: 132, w: 32, L: 400)", read as the
/// .bw declaration `target sm_90` or `machine dmm(...)` by the same parser
/// and checks, so a spec is accepted on the command line exactly when it
/// is in a file. nullopt and Error (the first diagnostic) otherwise.
std::optional<ir::Machine> parseMachineSpec(std::string_view Spec, std::string &Error);

std::optional<std::pair<std::string, std::int64_t>>
parseOverride(std::string_view Text, std::string &Error);

} // namespace bankwise::dsl
