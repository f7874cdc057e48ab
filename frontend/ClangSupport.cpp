// One run of Clang over a CUDA file, and Clang's locations and diagnostics
// in bankwise's terms (frontend/ClangSupport.h).
#include "frontend/ClangSupport.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/ADT/SmallString.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

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

/// Where one of Clang's diagnostics came from, beside its bankwise form in
/// the output vector: what nvccDialect() needs to tell nvcc's dialect from
/// broken code.
struct Origin {
  std::size_t Index; ///< into the diagnostics
  unsigned Id;
  clang::SourceLocation Loc;
  clang::DeclarationName Callee; ///< for an overload error, the function called
};

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
    Origin O{Out.size(), Info.getID(), Info.getLocation(), {}};
    if (Info.getNumArgs() > 0 && Info.getArgKind(0) == clang::DiagnosticsEngine::ak_declarationname)
      O.Callee = clang::DeclarationName::getFromOpaqueInteger(Info.getRawArg(0));
    Origins.push_back(O);
    AnyError |= D.Sev == Severity::Error;
    Out.push_back(std::move(D));
  }

  std::vector<Origin> Origins;
  bool AnyError = false; ///< before nvccDialect() made some notes

private:
  std::vector<Diagnostic> &Out;
};

/// L's file is included, directly or not, by the main file: the main file's
/// #include that leads to it (a diagnostic belongs in the user's file); L
/// itself when it is in the main file or reached otherwise.
clang::SourceLocation inMainFile(const clang::SourceManager &SM, clang::SourceLocation L) {
  clang::SourceLocation Where = SM.getExpansionLoc(L);
  while (Where.isValid() && !SM.isWrittenInMainFile(Where) && SM.getIncludeLoc(SM.getFileID(Where)).isValid())
    Where = SM.getIncludeLoc(SM.getFileID(Where));
  return Where.isValid() && SM.isWrittenInMainFile(Where) ? Where : L;
}

/// Diagnostic D at L, moved to the main file's #include that reads L's
/// header, with the header's name and line added to its message.
void locateInMainFile(const clang::SourceManager &SM, clang::SourceLocation L, Diagnostic &D) {
  const clang::SourceLocation Where = inMainFile(SM, L);
  if (Where == L || SM.isWrittenInMainFile(SM.getExpansionLoc(L)))
    return;
  D.Message += fmt::format(" (in {}:{}, included here)", std::filesystem::path(D.Loc.File).filename().string(),
                           D.Loc.Line);
  D.Loc = toSourceLoc(SM, Where);
  D.SourceLine = lineAt(SM, Where);
}

/// An #include of a header that is not on the machine.
struct MissingHeader {
  std::string Name;
  SourceLoc Loc;
  std::string Line;
  std::string Where; ///< " (in header.h:N, included here)" for a header's #include
};

/// Skips headers that are not on the machine (Clang's error is fatal and
/// would stop the file there), recording each where it is included:
/// runClangOnCudaFile decides afterwards whether the file needed it.
class SkipMissingHeaders : public clang::PPCallbacks {
public:
  SkipMissingHeaders(const clang::SourceManager &SM, std::vector<MissingHeader> &Out) : SM(SM), Out(Out) {}
  bool FileNotFound(llvm::StringRef) override { return true; }
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef FileName, bool,
                          clang::CharSourceRange FilenameRange, clang::OptionalFileEntryRef File,
                          llvm::StringRef, llvm::StringRef, const clang::Module *, bool,
                          clang::SrcMgr::CharacteristicKind) override {
    if (!File) {
      Diagnostic D{Severity::Note, toSourceLoc(SM, FilenameRange.getBegin()), "", lineAt(SM, FilenameRange.getBegin())};
      locateInMainFile(SM, FilenameRange.getBegin(), D);
      Out.push_back({FileName.str(), D.Loc, D.SourceLine, D.Message});
    }
  }

private:
  const clang::SourceManager &SM;
  std::vector<MissingHeader> &Out;
};

/// Whether some declaration of Name is in a system header (the CUDA
/// toolkit's, Clang's wrappers, the C++ library).
bool declaredInSystemHeader(clang::ASTContext &Ctx, clang::DeclarationName Name) {
  if (Name.isEmpty())
    return false;
  const clang::SourceManager &SM = Ctx.getSourceManager();
  for (const clang::NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(Name))
    if (SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
  return false;
}

/// Source text nvcc reads and Clang does not, respelled the way Clang reads
/// it (the file on disk is not changed). Each rewrite keeps every line's
/// length and the columns of what follows on the line, so diagnostics
/// point where the user's file has them:
/// - a launch whose chevrons an editor spaced apart (`k << <grid, block >>
///   > (args)`, what Visual Studio's formatter writes), closed up to
///   `<<<`/`>>>` with the blanks moved after them (`<< <` is never valid
///   C++ otherwise);
/// - `__shared__ alignas(A)` (and `__device__`, `__constant__`): nvcc
///   takes the GNU attribute before the C++11 one, Clang only after; the
///   two trade places;
/// - in inline asm, a PTX register named with one `%` (`%globaltimer`;
///   Clang wants `%%`) and an operand list missing a comma (`"r"(a)
///   "l"(p)`): nvcc takes both; the only rewrites that add a byte (one per
///   register or comma, on the asm's lines).
/// Returns nothing when the text needs none of them.
std::optional<std::string> nvccSpelling(const std::string &Text) {
  std::string Out = Text;
  bool Changed = false;
  const auto Blank = [&Out](std::size_t I) { return I < Out.size() && (Out[I] == ' ' || Out[I] == '\t'); };
  for (std::size_t Open = Out.find("<<"); Open != std::string::npos; Open = Out.find("<<", Open + 2)) {
    std::size_t Lt = Open + 2;
    while (Blank(Lt))
      ++Lt;
    if (Lt == Open + 2 || Lt >= Out.size() || Out[Lt] != '<')
      continue;
    // the closing `>> >` on the same line
    const std::size_t Eol = std::min(Out.find('\n', Lt), Out.size());
    const std::size_t Close = Out.find(">>", Lt);
    if (Close == std::string::npos || Close > Eol)
      continue;
    std::size_t Gt = Close + 2;
    while (Gt < Eol && Blank(Gt))
      ++Gt;
    if (Gt == Close + 2 || Gt >= Eol || Out[Gt] != '>')
      continue;
    const auto Close3 = [&Out](std::size_t Chevrons, std::size_t Third, char C) {
      // "<<  <" -> "<<<  ": the third chevron moves left, the blanks right
      Out.replace(Chevrons + 2, Third - Chevrons - 1, std::string(1, C) + std::string(Third - Chevrons - 2, ' '));
    };
    Close3(Close, Gt, '>');
    Close3(Open, Lt, '<');
    Changed = true;
  }
  for (const std::string Space : {"__shared__", "__device__", "__constant__"}) {
    for (std::size_t At = Out.find(Space); At != std::string::npos; At = Out.find(Space, At + 1)) {
      std::size_t A = At + Space.size();
      while (Blank(A))
        ++A;
      if (A == At + Space.size() || Out.compare(A, 8, "alignas(") != 0)
        continue;
      int Depth = 0;
      std::size_t End = A + 7;
      for (; End < Out.size() && Out[End] != '\n'; ++End)
        if (Out[End] == '(')
          ++Depth;
        else if (Out[End] == ')' && --Depth == 0)
          break;
      if (End >= Out.size() || Out[End] != ')')
        continue;
      // "__shared__ alignas(16)" -> "alignas(16) __shared__"
      const std::string Blanks = Out.substr(At + Space.size(), A - At - Space.size());
      Out.replace(At, End + 1 - At, Out.substr(A, End + 1 - A) + Blanks + Space);
      Changed = true;
    }
  }
  for (std::size_t Asm = Out.find("asm"); Asm != std::string::npos; Asm = Out.find("asm", Asm + 3)) {
    if (Asm > 0 && (std::isalnum(static_cast<unsigned char>(Out[Asm - 1])) || Out[Asm - 1] == '_'))
      continue;
    // `asm (`, `asm volatile (`: a statement, not a word in a comment
    std::size_t Paren = Asm + 3;
    while (Blank(Paren))
      ++Paren;
    if (Out.compare(Paren, 8, "volatile") == 0)
      Paren += 8;
    while (Blank(Paren))
      ++Paren;
    if (Paren >= Out.size() || Out[Paren] != '(')
      continue;
    // the asm statement's string literals, up to its ';'
    bool InString = false;
    for (std::size_t I = Asm + 3; I < Out.size() && (InString || Out[I] != ';'); ++I) {
      if (Out[I] == '"' && Out[I - 1] != '\\')
        InString = !InString;
      else if (InString && Out[I] == '%' && Out[I - 1] != '%' && I + 2 < Out.size() &&
               (std::isalpha(static_cast<unsigned char>(Out[I + 1])) || Out[I + 1] == '_') &&
               (std::isalpha(static_cast<unsigned char>(Out[I + 2])) || Out[I + 2] == '_')) {
        Out.insert(I, 1, '%');
        ++I;
        Changed = true;
      } else if (!InString && Out[I] == ')') {
        // `"r"(a) "l"(p)`: an operand list without its comma
        std::size_t Next = I + 1;
        while (Blank(Next))
          ++Next;
        if (Next < Out.size() && Out[Next] == '"') {
          Out.insert(I + 1, 1, ',');
          Changed = true;
        }
      }
    }
  }
  if (!Changed)
    return std::nullopt;
  return Out;
}

/// Clang's errors on valid CUDA that nvcc accepts, made notes (none of them
/// changes device code): in host-only functions, calls to functions of the
/// system headers that Clang's CUDA headers overload otherwise than nvcc's
/// (`isfinite`; host `min` and `max` are declared as nvcc's in
/// cuda-compat/bankwise_device_compat.h), and, where a
/// header was not found (Missing, skipped), any error, one note per host
/// function; and a `__shared__` object's default construction (nvcc does
/// not run it and warns; Clang refuses it).
void nvccDialect(clang::ASTContext &Ctx, std::vector<Diagnostic> &Diags, const std::vector<Origin> &Origins,
                 const std::vector<MissingHeader> &Missing) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  const auto IsOverload = [](unsigned Id) {
    return Id == clang::diag::err_ovl_no_viable_function_in_call || Id == clang::diag::err_ovl_ambiguous_call;
  };
  // Host code GCC (nvcc's host compiler) accepts as an extension and Clang
  // refuses: an initialized variable-length array (`T a[n] = {0};`).
  const auto GccExtension = [](unsigned Id) { return Id == clang::diag::err_variable_object_no_init; };
  // A kernel launched from device code (dynamic parallelism): nvcc compiles
  // it with -rdc=true; Clang has no device-side launch.
  // Clang reads `k<<<g, b, shared, stream>>>(...)` there as a call of the
  // host's cudaConfigureCall and of k, which it finds no overload for.
  const auto IsKernel = [&Ctx](clang::DeclarationName Name) {
    if (Name.isEmpty())
      return false;
    for (const clang::NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(Name)) {
      const clang::NamedDecl *F = D;
      if (const auto *T = llvm::dyn_cast<clang::FunctionTemplateDecl>(D))
        F = T->getTemplatedDecl();
      if (F->hasAttr<clang::CUDAGlobalAttr>())
        return true;
    }
    return false;
  };
  const auto DeviceLaunch = [&Diags, &IsKernel, &IsOverload](const Origin &O) {
    const std::string &M = Diags[O.Index].Message;
    return (O.Id == clang::diag::err_ref_bad_target && (M.rfind("reference to __global__ function", 0) == 0 ||
                                                        M.rfind("reference to __host__ function "
                                                                "'cudaConfigureCall' in __global__",
                                                                0) == 0)) ||
           (IsOverload(O.Id) && IsKernel(O.Callee));
  };
  bool Relevant = false;
  for (const Origin &O : Origins)
    Relevant |= Diags[O.Index].Sev == Severity::Error &&
                (IsOverload(O.Id) || O.Id == clang::diag::err_shared_var_init || DeviceLaunch(O) ||
                 GccExtension(O.Id) || !Missing.empty());
  if (!Relevant)
    return;
  struct Bodies : clang::RecursiveASTVisitor<Bodies> {
    std::vector<const clang::FunctionDecl *> Fns;
    std::vector<const clang::VarDecl *> Shared;
    bool shouldVisitLambdaBody() const { return true; }
    bool VisitFunctionDecl(clang::FunctionDecl *F) {
      if (F->doesThisDeclarationHaveABody() && F->getBody())
        Fns.push_back(F);
      return true;
    }
    bool VisitVarDecl(clang::VarDecl *V) {
      if (V->hasAttr<clang::CUDASharedAttr>())
        Shared.push_back(V);
      return true;
    }
  } B;
  B.TraverseDecl(Ctx.getTranslationUnitDecl());
  /// The innermost function whose body holds L.
  const auto Enclosing = [&](clang::SourceLocation L) {
    const clang::FunctionDecl *In = nullptr;
    clang::SourceLocation InBegin;
    for (const clang::FunctionDecl *F : B.Fns) {
      const clang::SourceLocation Begin = SM.getExpansionLoc(F->getBody()->getBeginLoc()),
                                  End = SM.getExpansionLoc(F->getBody()->getEndLoc());
      if (SM.isPointWithin(L, Begin, End) && (!In || SM.isBeforeInTranslationUnit(InBegin, Begin))) {
        In = F;
        InBegin = Begin;
      }
    }
    return In;
  };
  std::vector<bool> Drop(Diags.size(), false);
  std::vector<const clang::FunctionDecl *> Noted;
  for (const Origin &O : Origins) {
    if (Diags[O.Index].Sev != Severity::Error || O.Loc.isInvalid())
      continue;
    Diagnostic &D = Diags[O.Index];
    const clang::SourceLocation L = SM.getExpansionLoc(O.Loc);
    if (O.Id == clang::diag::err_shared_var_init) {
      for (const clang::VarDecl *V : B.Shared) {
        const auto *Init = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(V->getInit());
        if (SM.getExpansionLoc(V->getLocation()) != L || !Init || Init->getNumArgs() != 0)
          continue;
        D.Sev = Severity::Note;
        D.Message = fmt::format("'{}' is a __shared__ object whose constructor nvcc does not run (it warns; Clang "
                                "refuses it): the lint goes on as nvcc does",
                                V->getName().str());
      }
      continue;
    }
    if (const clang::FunctionDecl *In = DeviceLaunch(O) ? Enclosing(L) : nullptr;
        In && (In->hasAttr<clang::CUDADeviceAttr>() || In->hasAttr<clang::CUDAGlobalAttr>())) {
      D.Sev = Severity::Note;
      D.Message = fmt::format("a launch from device code (dynamic parallelism, which nvcc compiles with "
                              "-rdc=true and Clang does not read) is not analyzed: {}",
                              D.Message);
      locateInMainFile(SM, O.Loc, D);
      continue;
    }
    const bool Overload = IsOverload(O.Id) && declaredInSystemHeader(Ctx, O.Callee);
    const bool Extension = GccExtension(O.Id);
    if (!Overload && !Extension && Missing.empty())
      continue;
    const clang::FunctionDecl *In = Enclosing(L);
    if (!In || In->hasAttr<clang::CUDADeviceAttr>() || In->hasAttr<clang::CUDAGlobalAttr>())
      continue;
    if (std::find(Noted.begin(), Noted.end(), In) != Noted.end()) {
      Drop[O.Index] = true;
      continue;
    }
    Noted.push_back(In);
    D.Sev = Severity::Note;
    D.Message = fmt::format("host code not checked: {} in '{}' ({}; the kernels do not depend on host code)",
                            D.Message, In->getNameAsString(),
                            Overload    ? fmt::format("Clang's CUDA headers declare '{}' otherwise than nvcc's",
                                                      O.Callee.getAsString())
                            : Extension ? std::string("GCC, nvcc's host compiler, accepts it as an extension")
                                        : fmt::format("header '{}' was not found", Missing.front().Name));
    locateInMainFile(SM, O.Loc, D); // in a header: at the main file's #include that reads it
  }
  for (std::size_t I = Diags.size(); I-- > 0;)
    if (Drop[I])
      Diags.erase(Diags.begin() + static_cast<std::ptrdiff_t>(I));
}

class AstConsumer : public clang::ASTConsumer {
public:
  AstConsumer(const std::function<void(clang::ASTContext &)> &OnAst, const clang::SourceManager &SM)
      : OnAst(OnAst), SM(SM) {}
  void HandleTranslationUnit(clang::ASTContext &Ctx) override { OnAst(Ctx); }
  // The bodies of host-only functions in system headers (the C++ library,
  // thrust, cub, CUDA's own host API) are skipped: the lint reads device code
  // and the user's host code (launches, dim3s, arguments), never a library's
  // host code, and instantiating thrust's host templates was most of the
  // time of a file that uses thrust. Clang itself never skips a constexpr
  // function or one whose return type is deduced (Sema::canSkipFunctionBody).
  bool shouldSkipFunctionBody(clang::Decl *D) override {
    const clang::FunctionDecl *F = D->getAsFunction();
    if (!F || F->hasAttr<clang::CUDADeviceAttr>() || F->hasAttr<clang::CUDAGlobalAttr>())
      return false;
    return SM.isInSystemHeader(SM.getExpansionLoc(F->getLocation()));
  }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
  const clang::SourceManager &SM;
};

class AstAction : public clang::ASTFrontendAction {
public:
  AstAction(const std::function<void(clang::ASTContext &)> &OnAst, std::vector<MissingHeader> &Missing)
      : OnAst(OnAst), Missing(Missing) {}
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override {
    CI.getPreprocessor().addPPCallbacks(std::make_unique<SkipMissingHeaders>(CI.getSourceManager(), Missing));
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        llvm::StringRef) override {
    CI.getFrontendOpts().SkipFunctionBodies = true; // only where AstConsumer says so
    return std::make_unique<AstConsumer>(OnAst, CI.getSourceManager());
  }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
  std::vector<MissingHeader> &Missing;
};

class AstActionFactory : public clang::tooling::FrontendActionFactory {
public:
  AstActionFactory(const std::function<void(clang::ASTContext &)> &OnAst, std::vector<MissingHeader> &Missing)
      : OnAst(OnAst), Missing(Missing) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<AstAction>(OnAst, Missing);
  }

private:
  const std::function<void(clang::ASTContext &)> &OnAst;
  std::vector<MissingHeader> &Missing;
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
      "-include",
      "bankwise_device_compat.h",
      // Every error, not the first 20: host code Clang rejects (see
      // nvccDialect) must not stop the parse before the kernels.
      "-ferror-limit=0",
  };
  Args.insert(Args.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  clang::tooling::FixedCompilationDatabase Db(".", Args);
  clang::tooling::ClangTool Tool(Db, {Path});
  std::optional<std::string> Respelled; // outlives the run: the tool keeps a reference
  {
    std::ifstream In(Path, std::ios::binary);
    std::stringstream Text;
    Text << In.rdbuf();
    if ((Respelled = nvccSpelling(Text.str())))
      Tool.mapVirtualFile(Path, *Respelled); // the file on disk is not changed
  }
  Collector Consumer(Diags);
  std::vector<MissingHeader> Missing;
  Tool.setDiagnosticConsumer(&Consumer);
  Tool.setPrintErrorMessage(false);
  const std::function<void(clang::ASTContext &)> Reclassified = [&](clang::ASTContext &Ctx) {
    nvccDialect(Ctx, Diags, Consumer.Origins, Missing);
    OnAst(Ctx);
  };
  AstActionFactory Factory(Reclassified, Missing);
  const int Rc = Tool.run(&Factory);
  const auto IsError = [](const Diagnostic &D) { return D.Sev == Severity::Error; };
  const bool AnyError = std::any_of(Diags.begin(), Diags.end(), IsError);
  // A header not on the machine was skipped: Clang's error where the file
  // then has errors (the header was needed), else a note.
  for (const MissingHeader &H : Missing)
    Diags.push_back(
        AnyError ? Diagnostic{Severity::Error, H.Loc, fmt::format("'{}' file not found{}", H.Name, H.Where), H.Line}
                 : Diagnostic{Severity::Note, H.Loc,
                              fmt::format("header '{}' not found: skipped; device code parses without it (host "
                                          "code that needs it is not checked){}",
                                          H.Name, H.Where),
                              H.Line});
  if (Rc != 0 && !AnyError && !Consumer.AnyError)
    Diags.push_back(
        {Severity::Error, {Path, 0, 0}, "clang could not process the file", {}});
  return true;
}

} // namespace bankwise::frontend
