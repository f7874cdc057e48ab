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
#include <algorithm>
#include <filesystem>
#include <fstream>
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

namespace {

namespace fs = std::filesystem;

/// A CUDA toolkit root: it has include/cuda.h, which Clang's CUDA wrapper
/// headers include.
bool isCudaRoot(const fs::path &Dir) {
  std::error_code EC;
  return !Dir.empty() && fs::is_regular_file(Dir / "include" / "cuda.h", EC);
}

/// The toolkit an nvcc on PATH belongs to: the directory above its bin/,
/// after symbolic links; or, for a wrapper script such as
/// `exec /usr/local/cuda-13.0/bin/nvcc "$@"`, the toolkit of the nvcc the
/// script runs.
fs::path rootOfNvcc(const fs::path &Nvcc) {
  std::error_code EC;
  const fs::path Real = fs::weakly_canonical(Nvcc, EC);
  if (!EC && isCudaRoot(Real.parent_path().parent_path()))
    return Real.parent_path().parent_path();
  if (fs::file_size(Real, EC) > 4096 || EC)
    return {};
  std::ifstream In(Real);
  std::string Word;
  while (In >> Word) {
    if (Word.size() < 5 || Word.front() != '/' ||
        fs::path(Word).filename() != "nvcc" || fs::path(Word) == Real)
      continue;
    const fs::path Root = fs::path(Word).parent_path().parent_path();
    if (isCudaRoot(Root))
      return Root;
  }
  return {};
}

} // namespace

std::string defaultCudaPath() {
  for (const char *Var : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"})
    if (const char *Dir = std::getenv(Var); Dir && isCudaRoot(Dir))
      return Dir;
  if (const char *Path = std::getenv("PATH")) {
    std::stringstream SS(Path);
    std::string Dir;
    while (std::getline(SS, Dir, ':')) {
      std::error_code EC;
      const fs::path Nvcc = fs::path(Dir) / "nvcc";
      if (Dir.empty() || !fs::exists(Nvcc, EC))
        continue;
      if (fs::path Root = rootOfNvcc(Nvcc); !Root.empty())
        return Root.string();
    }
  }
  if (isCudaRoot("/usr/local/cuda"))
    return "/usr/local/cuda";
  // The newest versioned toolkit: /usr/local/cuda-13.0 before cuda-12.8.
  std::vector<fs::path> Versioned;
  std::error_code EC;
  for (const fs::directory_entry &E : fs::directory_iterator("/usr/local", EC))
    if (E.path().filename().string().rfind("cuda-", 0) == 0 && isCudaRoot(E.path()))
      Versioned.push_back(E.path());
  if (!Versioned.empty()) {
    const auto Key = [](const fs::path &P) {
      std::vector<int> V;
      std::stringstream SS(P.filename().string().substr(5));
      std::string Part;
      while (std::getline(SS, Part, '.'))
        V.push_back(std::atoi(Part.c_str()));
      return V;
    };
    return std::max_element(Versioned.begin(), Versioned.end(),
                            [&](const fs::path &A, const fs::path &B) {
                              return Key(A) < Key(B);
                            })
        ->string();
  }
  return {};
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
  if (Cuda.empty() || !isCudaRoot(Cuda)) {
    Result.Diags.push_back(
        {Severity::Error,
         {Path, 0, 0},
         Cuda.empty() ? std::string("no CUDA toolkit found (looked at $CUDA_PATH, "
                                    "$CUDA_HOME, the nvcc on PATH, /usr/local/cuda "
                                    "and /usr/local/cuda-*); set CUDA_PATH")
                      : "'" + Cuda + "' is not a CUDA toolkit (no include/cuda.h)",
         {}});
    return Result;
  }
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
