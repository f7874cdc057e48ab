// What frontend/'s Clang-facing files share: Clang locations and diagnostics
// in bankwise's terms, and one run of Clang over a CUDA file with the
// CUDA 13 workarounds. Internal to frontend/ (it includes Clang).
#pragma once

#include "frontend/CudaFrontend.h"
#include "support/Diagnostic.h"

#include <clang/AST/ASTContext.h>
#include <clang/Basic/SourceManager.h>

#include <functional>
#include <string>
#include <vector>

namespace bankwise::frontend {

/// The expansion location of L (a macro's use, not its definition) as
/// file:line:col; empty when L is invalid.
SourceLoc toSourceLoc(const clang::SourceManager &SM, clang::SourceLocation L);

/// The text of the line holding L's expansion location, without newline.
std::string lineAt(const clang::SourceManager &SM, clang::SourceLocation L);

/// Parses the device side of the CUDA file Path with Opts (the recipe of
/// ../shared/HARDWARE.md), appends Clang's warnings and errors to Diags and
/// calls OnAst with the translation unit, even when host code had errors.
/// Returns false, with an error in Diags, when the file cannot be read or no
/// toolkit is found (OnAst is then not called).
bool runClangOnCudaFile(const std::string &Path, const CudaOptions &Opts,
                        std::vector<Diagnostic> &Diags,
                        const std::function<void(clang::ASTContext &)> &OnAst);

} // namespace bankwise::frontend
