// Reading CUDA with Clang. The interface speaks only bankwise's own types, so
// callers never include a Clang header; only frontend/*.cpp do.
#pragma once

#include "support/Diagnostic.h"

#include <string>
#include <vector>

namespace bankwise::frontend {

struct CudaOptions {
  /// The CUDA toolkit root; empty means defaultCudaPath().
  std::string CudaPath;
  std::string GpuArch = "sm_90";
  /// More compiler arguments (-I, -D, ...).
  std::vector<std::string> ExtraArgs;
};

/// A __global__ function defined in the file.
struct KernelDecl {
  std::string Name;
  SourceLoc Loc;
  int NumParams = 0;
  bool operator==(const KernelDecl &) const = default;
};

struct CudaParseResult {
  std::vector<KernelDecl> Kernels;
  std::vector<Diagnostic> Diags; ///< Clang's errors and warnings, located
  bool hasErrors() const;
};

/// Parses the device side of the CUDA file at Path for sm_90 with the
/// workarounds Clang 19 needs for CUDA 13 (../shared/HARDWARE.md); never
/// throws for bad CUDA: Clang's errors come back as diagnostics.
CudaParseResult parseCudaFile(const std::string &Path,
                              const CudaOptions &Opts = {});

/// The CUDA toolkit root parseCudaFile uses when CudaOptions::CudaPath is
/// empty: the first directory with include/cuda.h among $CUDA_PATH,
/// $CUDA_HOME, $CUDA_ROOT, the toolkit of the first nvcc on PATH (through
/// symbolic links and `exec .../bin/nvcc` wrapper scripts), /usr/local/cuda
/// and the newest /usr/local/cuda-X.Y; empty when there is none.
std::string defaultCudaPath();

} // namespace bankwise::frontend
