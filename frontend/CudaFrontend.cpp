#include "frontend/CudaFrontend.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

namespace bankwise::frontend {

namespace {

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

class KernelVisitor : public clang::RecursiveASTVisitor<KernelVisitor> {
public:
  KernelVisitor(const clang::SourceManager &SM, std::vector<KernelDecl> &Out)
      : SM(SM), Out(Out) {}
  bool VisitFunctionDecl(clang::FunctionDecl *F) {
    if (F->isThisDeclarationADefinition() && F->hasAttr<clang::CUDAGlobalAttr>() &&
        SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      Out.push_back({F->getNameAsString(), toSourceLoc(SM, F->getLocation()),
                     static_cast<int>(F->getNumParams())});
    return true;
  }

private:
  const clang::SourceManager &SM;
  std::vector<KernelDecl> &Out;
};

class KernelConsumer : public clang::ASTConsumer {
public:
  explicit KernelConsumer(std::vector<KernelDecl> &Out) : Out(Out) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override {
    KernelVisitor(Ctx.getSourceManager(), Out).TraverseDecl(Ctx.getTranslationUnitDecl());
  }

private:
  std::vector<KernelDecl> &Out;
};

class KernelAction : public clang::ASTFrontendAction {
public:
  explicit KernelAction(std::vector<KernelDecl> &Out) : Out(Out) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    return std::make_unique<KernelConsumer>(Out);
  }

private:
  std::vector<KernelDecl> &Out;
};

class KernelActionFactory : public clang::tooling::FrontendActionFactory {
public:
  explicit KernelActionFactory(std::vector<KernelDecl> &Out) : Out(Out) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<KernelAction>(Out);
  }

private:
  std::vector<KernelDecl> &Out;
};

} // namespace

bool CudaParseResult::hasErrors() const {
  for (const Diagnostic &D : Diags)
    if (D.Sev == Severity::Error)
      return true;
  return false;
}

std::string defaultCudaPath() {
  if (const char *Path = std::getenv("PATH")) {
    std::stringstream SS(Path);
    std::string Dir;
    while (std::getline(SS, Dir, ':')) {
      std::error_code EC;
      const std::filesystem::path Nvcc = std::filesystem::path(Dir) / "nvcc";
      if (!Dir.empty() && std::filesystem::exists(Nvcc, EC))
        return std::filesystem::weakly_canonical(Nvcc, EC)
            .parent_path()
            .parent_path()
            .string();
    }
  }
  return "/usr/local/cuda";
}

CudaParseResult parseCudaFile(const std::string &Path, const CudaOptions &Opts) {
  CudaParseResult Result;
  std::error_code EC;
  if (!std::filesystem::is_regular_file(Path, EC)) {
    Result.Diags.push_back(
        {Severity::Error, {Path, 0, 0}, "cannot open CUDA file", {}});
    return Result;
  }
  const std::string Cuda = Opts.CudaPath.empty() ? defaultCudaPath() : Opts.CudaPath;
  std::vector<std::string> Args = {
      "-xcuda",
      "--cuda-device-only",
      "--cuda-gpu-arch=" + Opts.GpuArch,
      "--cuda-path=" + Cuda,
      "-nocudalib",
      "-std=c++17",
      "-Wno-unknown-cuda-version",
      "-resource-dir=" BANKWISE_CLANG_RESOURCE_DIR,
      "-I" BANKWISE_FRONTEND_COMPAT_DIR,
      "-I" + Cuda + "/include/cccl",
  };
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  clang::tooling::FixedCompilationDatabase Db(".", Args);
  clang::tooling::ClangTool Tool(Db, {Path});
  Collector Diags(Result.Diags);
  Tool.setDiagnosticConsumer(&Diags);
  Tool.setPrintErrorMessage(false);
  KernelActionFactory Factory(Result.Kernels);
  const int Rc = Tool.run(&Factory);
  if (Rc != 0 && !Result.hasErrors())
    Result.Diags.push_back(
        {Severity::Error, {Path, 0, 0}, "clang could not process the file", {}});
  return Result;
}

} // namespace bankwise::frontend
