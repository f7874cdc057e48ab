// libFuzzer target: the readers of files users hand bankwise, a
// permutation file (`file("p.bin")`, 4- or 8-byte indices) and a --data
// file (values of an element type). The first byte picks the reader and
// its format; the rest is the file. A bad file must give a UserError
// naming its first bad entry; never a crash or another exception.
#include "analysis/models/Permutation.h"
#include "analysis/passes/KernelAnalysis.h"
#include "support/Diagnostic.h"

#include "FuzzCommon.h"

#include <array>

using namespace bankwise;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  if (Size == 0)
    return 0;
  const std::uint8_t Pick = Data[0];
  const std::string Path = fuzz::writeInput(Data + 1, Size - 1, ".bin");
  try {
    if (Pick < 64) {
      (void)loadPermutationFile(Path, Pick % 2 ? 8 : 4);
    } else {
      static constexpr std::array<const char *, 8> Types{"i8", "u16", "i32", "u32", "i64", "f16", "f32", "f64"};
      const ir::ElemType T = *ir::parseElemType(Types[Pick % Types.size()]);
      // Expected counts: the file's own length in elements, or one off.
      const std::int64_t Elems = static_cast<std::int64_t>((Size - 1) / static_cast<std::size_t>(ir::byteSize(T)));
      (void)loadDataFile(Path, T, Elems + (Pick / 8 % 3) - 1);
    }
  } catch (const UserError &) {
  }
  return 0;
}
