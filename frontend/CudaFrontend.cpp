#include "frontend/CudaFrontend.h"
#include "frontend/ClangSupport.h"

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace bankwise::frontend {

namespace {

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
  runClangOnCudaFile(Path, Opts, Result.Diags, [&](clang::ASTContext &Ctx) {
    KernelVisitor(Ctx.getSourceManager(), Result.Kernels)
        .TraverseDecl(Ctx.getTranslationUnitDecl());
  });
  return Result;
}

} // namespace bankwise::frontend
