// bankwise/torch_checks.cuh: what the ops of a PyTorch extension (`bankwise
// compile --torch`) check before they launch a kernel: every tensor defined,
// on the CUDA device of the op's first tensor, of the kernel's dtype, rank
// and shape, contiguous and not empty; a size read from a dimension that must
// be a power of two or a multiple; and the launch's status. A failure is a
// c10::Error (RuntimeError in Python) naming the op and the tensor. Needs the
// PyTorch headers: only the extension's bindings include it.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace bankwise::torch_checks {

// Every number in a message is made text here (std::to_string), never
// streamed into TORCH_CHECK: on the GPU machine, PyTorch 2.11 (CUDA 13,
// GCC 13), any extension whose TORCH_CHECK streamed an integer segfaulted,
// built by g++ or nvcc alike, while strings were fine (docs/torch.md).

/// "[64, 48]": a shape for messages.
inline std::string shapeText(c10::IntArrayRef Shape) {
  std::string S = "[";
  for (std::size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  return S + "]";
}

/// T is a defined CUDA tensor on First's device (First: the op's first
/// tensor), of type Dtype (DtypeName: "torch.float32") and rank Rank,
/// contiguous, no dimension 0. Decl is the array as the kernel declares it
/// ("global f32[R][C]").
inline void checkTensor(const char *Op, const char *Name, const char *Decl, const at::Tensor &T,
                        const at::Tensor &First, c10::ScalarType Dtype, const char *DtypeName, std::int64_t Rank) {
  TORCH_CHECK(T.defined(), Op, ": '", Name, "' is an undefined tensor");
  TORCH_CHECK(T.is_cuda(), Op, ": '", Name, "' must be a CUDA tensor, got one on ", T.device());
  TORCH_CHECK(T.device() == First.device(), Op, ": '", Name, "' is on ", T.device(), ", the op's first tensor on ",
              First.device());
  TORCH_CHECK(T.scalar_type() == Dtype, Op, ": '", Name, "' must be ", DtypeName, " (", Decl, "), got ",
              T.scalar_type());
  if (T.dim() != Rank) {
    const std::string Got = shapeText(T.sizes());
    const std::string Want = std::to_string(Rank);
    TORCH_CHECK(false, Op, ": '", Name, "' must have ", Want, Rank == 1 ? " dimension (" : " dimensions (", Decl,
                "), got shape ", Got);
  }
  TORCH_CHECK(T.is_contiguous(), Op, ": '", Name, "' must be contiguous (row-major ", Decl,
              "); call .contiguous() first");
  for (std::int64_t D = 0; D < Rank; ++D)
    if (T.size(D) < 1) {
      const std::string Got = shapeText(T.sizes());
      TORCH_CHECK(false, Op, ": '", Name, "' is empty (shape ", Got, "): the kernel needs every dimension >= 1");
    }
}

/// "R = 100, C = 64": the op's sizes, for messages.
inline std::string sizesText(std::initializer_list<const char *> Names, std::initializer_list<std::int64_t> Values) {
  std::string S;
  auto V = Values.begin();
  for (const char *N : Names) {
    S += (V == Values.begin() ? "" : ", ") + std::string(N) + " = " + std::to_string(*V);
    ++V;
  }
  return S;
}

/// T's shape is Want, the shape Decl has at the sizes Names = Values the op
/// derived from its tensors.
inline void checkShape(const char *Op, const char *Name, const char *Decl, const at::Tensor &T,
                       std::initializer_list<std::int64_t> Want, std::initializer_list<const char *> Names,
                       std::initializer_list<std::int64_t> Values) {
  if (T.sizes().equals(Want))
    return;
  const std::string Got = shapeText(T.sizes()), Need = shapeText(Want), At = sizesText(Names, Values);
  TORCH_CHECK(false, Op, ": '", Name, "' has shape ", Got, "; the kernel needs ", Need, " (", Decl, " at ", At, ")");
}

/// log2 of V, a dimension (What: "a.size(0)") that must be a power of two.
inline std::int64_t log2OfDim(const char *Op, const char *What, std::int64_t V) {
  if (V <= 0 || (V & (V - 1)) != 0) {
    const std::string Got = std::to_string(V);
    TORCH_CHECK(false, Op, ": ", What, " = ", Got, " must be a power of two");
  }
  std::int64_t L = 0;
  while ((std::int64_t(1) << L) < V)
    ++L;
  return L;
}

/// V / C, V a dimension (What) that must be a multiple of C > 0.
inline std::int64_t divideDim(const char *Op, const char *What, std::int64_t V, std::int64_t C) {
  if (V % C != 0) {
    const std::string Got = std::to_string(V), Of = std::to_string(C);
    TORCH_CHECK(false, Op, ": ", What, " = ", Got, " must be a multiple of ", Of);
  }
  return V / C;
}

/// The status of a launch function.
inline void checkLaunch(const char *Op, cudaError_t Err) {
  TORCH_CHECK(Err == cudaSuccess, Op, ": the launch failed: ", cudaGetErrorString(Err),
              Err == cudaErrorInvalidValue ? " (sizes the launch function rejects: a grid beyond CUDA's limits)" : "");
}

} // namespace bankwise::torch_checks
