// libFuzzer target: the .bw lexer, parser and semantic checks on any bytes.
// Any input must give a program or diagnostics: never a crash, a hang, a
// sanitizer report or an exception.
#include "dsl/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  bankwise::DiagnosticEngine Diags;
  const std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  (void)bankwise::dsl::parseProgram(Text, "fuzz.bw", Diags);
  return 0;
}
