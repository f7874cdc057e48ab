// libFuzzer target: the lint's extraction (frontend/, Clang libTooling) on
// small CUDA snippets: the file is parsed for sm_90 and every __global__
// function lowered to the IR, which is then printed as .bw (what
// `lint --emit-bw` writes). Broken CUDA must give diagnostics; never a
// crash, a hang or an exception.
#include "frontend/CudaLowering.h"
#include "ir/Printer.h"

#include "FuzzCommon.h"

using namespace bankwise;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data, std::size_t Size) {
  if (Size > 4096) // small snippets: each run is a Clang invocation
    return 0;
  const std::string Path = fuzz::writeInput(Data, Size, ".cu");
  frontend::LoweredFile F = frontend::lowerCudaFile(Path);
  (void)ir::print(F.Program);
  return 0;
}
