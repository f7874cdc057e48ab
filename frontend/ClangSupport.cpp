// One run of Clang over a CUDA file, and Clang's locations and diagnostics
// in bankwise's terms (frontend/ClangSupport.h).
#include "frontend/ClangSupport.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>

#include <algorithm>
#include <filesystem>
#include <memory>

namespace bankwise::frontend {

SourceLoc toSourceLoc(const clang::SourceManager &SM, clang::SourceLocation L) {
  if (L.isInvalid())
    return {};
  const clang::PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return {};
  return {P.getFilename(), static_cast<int>(P.getLine()),
          static_cast<int>(P.getColumn())};
}

std::string lineAt(const clang::SourceManager &SM, clang::SourceLocation L) {
  if (L.isInvalid())
    return {};
  L = SM.getExpansionLoc(L);
  bool Invalid = false;
  const char *Data = SM.getCharacterData(L, &Invalid);
  if (Invalid || !Data)
    return {};
  const unsigned Col = SM.getExpansionColumnNumber(L);
  const char *Begin = Data - (Col - 1);
  const char *End = Data;
  while (*End && *End != '\n' && *End != '\r')
    ++End;
  return std::string(Begin, End);
}

namespace {

/// Turns Clang's diagnostics into bankwise's.
class Collector : public clang::DiagnosticConsumer {
public:
  explicit Collector(std::vector<Diagnostic> &Out) : Out(Out) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < clang::DiagnosticsEngine::Warning)
      return;
    llvm::SmallString<256> Msg;
    Info.FormatDiagnostic(Msg);
    Diagnostic D;
    D.Sev = Level >= clang::DiagnosticsEngine::Error ? Severity::Error
                                                     : Severity::Warning;
    D.Message = std::string(Msg.str());
    if (Info.hasSourceManager()) {
      D.Loc = toSourceLoc(Info.getSourceManager(), Info.getLocation());
      D.SourceLine = lineAt(Info.getSourceManager(), Info.getLocation());
    }
    Out.push_back(std::move(D));
  }

private:
  std::vector<Diagnostic> &Out;
};

class AstConsumer : public clang::ASTConsumer {
public:
  explicit AstConsumer(const std::function<void(clang::ASTContext &)> &OnAst) : OnAst(OnAst) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override { OnAst(Ctx); }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
};

class AstAction : public clang::ASTFrontendAction {
public:
  explicit AstAction(const std::function<void(clang::ASTContext &)> &OnAst) : OnAst(OnAst) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &,
                                                        llvm::StringRef) override {
    return std::make_unique<AstConsumer>(OnAst);
  }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
};

class AstActionFactory : public clang::tooling::FrontendActionFactory {
public:
  explicit AstActionFactory(const std::function<void(clang::ASTContext &)> &OnAst) : OnAst(OnAst) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<AstAction>(OnAst);
  }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
};

} // namespace

bool runClangOnCudaFile(const std::string &Path, const CudaOptions &Opts,
                        std::vector<Diagnostic> &Diags,
                        const std::function<void(clang::ASTContext &)> &OnAst) {
  std::error_code EC;
  if (!std::filesystem::is_regular_file(Path, EC)) {
    Diags.push_back(
        {Severity::Error, {Path, 0, 0}, "cannot open CUDA file", {}});
    return false;
  }
  const std::string Cuda = Opts.CudaPath.empty() ? defaultCudaPath() : Opts.CudaPath;
  if (Cuda.empty() || !std::filesystem::is_regular_file(std::filesystem::path(Cuda) / "include" / "cuda.h", EC)) {
    Diags.push_back(
        {Severity::Error,
         {Path, 0, 0},
         Cuda.empty() ? std::string("no CUDA toolkit found (looked at $CUDA_PATH, "
                                    "$CUDA_HOME, the nvcc on PATH, /usr/local/cuda "
                                    "and /usr/local/cuda-*); set CUDA_PATH")
                      : "'" + Cuda + "' is not a CUDA toolkit (no include/cuda.h)",
         {}});
    return false;
  }
  std::vector<std::string> Args = {
      "-xcuda",
      "--cuda-device-only",
      "--cuda-gpu-arch=" + Opts.GpuArch,
      "--cuda-path=" + Cuda,
      "-nocudalib",
      "-std=c++17",
      "-Wno-unknown-cuda-version",
      // Diagnostics are printed by bankwise; this also keeps Clang's own
      // "N errors generated" line off stderr.
      "-fno-caret-diagnostics",
      "-resource-dir=" BANKWISE_CLANG_RESOURCE_DIR,
      "-I" BANKWISE_FRONTEND_COMPAT_DIR,
      "-I" + Cuda + "/include/cccl",
      "-include",
      "bankwise_launch.h",
  };
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  clang::tooling::FixedCompilationDatabase Db(".", Args);
  clang::tooling::ClangTool Tool(Db, {Path});
  Collector Consumer(Diags);
  Tool.setDiagnosticConsumer(&Consumer);
  Tool.setPrintErrorMessage(false);
  AstActionFactory Factory(OnAst);
  const int Rc = Tool.run(&Factory);
  const bool AnyError = std::any_of(Diags.begin(), Diags.end(), [](const Diagnostic &D) {
    return D.Sev == Severity::Error;
  });
  if (Rc != 0 && !AnyError)
    Diags.push_back(
        {Severity::Error, {Path, 0, 0}, "clang could not process the file", {}});
  return true;
}

} // namespace bankwise::frontend
