// CUDA -> IR (frontend/CudaLowering.h). One KernelLowering per kernel (per
// template instantiation) walks its body once, emitting IR statements; each
// expression is lowered to an LVal: its exact IR value when the lowering
// understands it, else the memory reads it contains (so a data-dependent
// index stays data-dependent for the analysis) and why it is not exact.
//
// The lowering is split by responsibility: this file finds the kernels and
// their launches and drives the lowering; LowerStmt.cpp and LowerExpr.cpp
// hold KernelLowering (frontend/detail/Lowering.h).
#include "frontend/CudaLowering.h"
#include "frontend/ClangSupport.h"
#include "frontend/detail/Lowering.h"

#include "ir/Eval.h"
#include "ir/Sites.h"

#include <chrono>
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

namespace bankwise::frontend {

namespace {

using namespace detail;

//===-- Launch sites ----------------------------------------------------------===//

struct LaunchSite {
  std::optional<Dim3> Block;
  /// Where the block is not constant: its constant components (0 for the
  /// others), when it has some.
  std::optional<Dim3> PartBlock;
  /// The grid's components as IR expressions over the kernel's integer
  /// parameters (host variables passed to them), when they are.
  std::optional<std::array<Expr, 3>> Grid;
  std::optional<std::int64_t> SharedBytes;
  SourceLoc Loc;
  /// The function pointer the launch goes through (`k<<<g, b>>>`), if any.
  std::string Through;
};

/// The variables Body may change: assigned (`v = ...`, `v.x = ...`, `v +=
/// ...`, a class's operator=), incremented, their address taken, or passed
/// to a non-const reference parameter.
std::set<const clang::ValueDecl *> changedIn(const clang::Stmt *Body) {
  struct Writes : clang::RecursiveASTVisitor<Writes> {
    std::set<const clang::ValueDecl *> Changed;
    void mark(const clang::Expr *E) {
      for (;;) { // `v.x`, `v[i]`: v changes
        E = E->IgnoreParenImpCasts();
        if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E); M && !M->isArrow())
          E = M->getBase();
        else if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
          E = A->getBase();
        else
          break;
      }
      if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E))
        Changed.insert(D->getDecl());
    }
    bool VisitBinaryOperator(clang::BinaryOperator *B) {
      if (B->isAssignmentOp())
        mark(B->getLHS());
      return true;
    }
    bool VisitUnaryOperator(clang::UnaryOperator *U) {
      if (U->isIncrementDecrementOp() || U->getOpcode() == clang::UO_AddrOf)
        mark(U->getSubExpr());
      return true;
    }
    bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *C) {
      if (C->isAssignmentOp() && C->getNumArgs() > 0)
        mark(C->getArg(0));
      return true;
    }
    bool VisitCallExpr(clang::CallExpr *C) {
      if (const clang::FunctionDecl *F = C->getDirectCallee())
        for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I) {
          const clang::QualType T = F->getParamDecl(I)->getType();
          if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified())
            mark(C->getArg(I));
        }
      return true;
    }
  } W;
  W.TraverseStmt(const_cast<clang::Stmt *>(Body));
  return W.Changed;
}

/// Host variables whose value the `if`s around a launch fix: `if (bs == 16)
/// k<16><<<g, dim3(bs, bs)>>>(...)` (then branch), the else branch of `bs !=
/// 16`, and conjunctions of those. Only variables that no statement of the
/// enclosing function assigns, increments or takes the address of, so the
/// value tested is the value at the launch.
std::map<const clang::ValueDecl *, std::int64_t> launchGuards(clang::ASTContext &Ctx, const clang::Expr *Launch) {
  std::map<const clang::ValueDecl *, std::int64_t> Out;
  std::function<void(const clang::Expr *, bool)> Collect = [&](const clang::Expr *E, bool Holds) {
    const auto *B = llvm::dyn_cast<clang::BinaryOperator>(strip(E));
    if (!B)
      return;
    if ((B->getOpcode() == clang::BO_LAnd && Holds) || (B->getOpcode() == clang::BO_LOr && !Holds)) {
      Collect(B->getLHS(), Holds);
      Collect(B->getRHS(), Holds);
      return;
    }
    if (!((B->getOpcode() == clang::BO_EQ && Holds) || (B->getOpcode() == clang::BO_NE && !Holds)))
      return;
    for (const auto &[Var, Val] : {std::pair{B->getLHS(), B->getRHS()}, std::pair{B->getRHS(), B->getLHS()}})
      if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(strip(Var)))
        if (const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl()); V && isIntegral(V->getType()))
          if (std::optional<std::int64_t> C = evalInt(Ctx, Val))
            Out[V] = *C;
  };
  const clang::FunctionDecl *Host = nullptr;
  clang::DynTypedNode Node = clang::DynTypedNode::create(*static_cast<const clang::Stmt *>(Launch));
  for (int Depth = 0; Depth < 256; ++Depth) {
    const auto Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    const clang::DynTypedNode &P = Parents[0];
    if (const auto *If = P.get<clang::IfStmt>(); If && If->getCond() && !If->isConsteval()) {
      if (If->getThen() == Node.get<clang::Stmt>())
        Collect(If->getCond(), true);
      else if (If->getElse() == Node.get<clang::Stmt>())
        Collect(If->getCond(), false);
    }
    if ((Host = P.get<clang::FunctionDecl>()))
      break;
    Node = P;
  }
  if (!Host || !Host->getBody())
    return {};
  // Drop the variables the function changes anywhere.
  const std::set<const clang::ValueDecl *> Changed = changedIn(Host->getBody());
  for (auto It = Out.begin(); It != Out.end();)
    It = Changed.count(It->first) ? Out.erase(It) : std::next(It);
  return Out;
}

/// Components of a dim3 (or integer) launch argument, each an IR expression
/// over the kernel parameters Args maps host variables to, or constants:
/// a host variable given with -D, or fixed by an `if` around the launch
/// (Guards, launchGuards).
class Dim3Reader {
public:
  Dim3Reader(const clang::ASTContext &Ctx,
             const std::map<const clang::ValueDecl *, std::string> &Args,
             const std::map<std::string, std::int64_t> &Defines,
             const std::map<const clang::ValueDecl *, std::int64_t> &Guards)
      : Ctx(Ctx), Args(Args), Defines(Defines), Guards(Guards) {}

  std::optional<std::array<Expr, 3>> read(const clang::Expr *E) {
    const std::optional<Parts> P = readParts(E);
    if (!P || !(*P)[0] || !(*P)[1] || !(*P)[2])
      return std::nullopt;
    return std::array<Expr, 3>{*(*P)[0], *(*P)[1], *(*P)[2]};
  }

  /// The components read one by one: a dim3 whose z is a host variable
  /// (`dim3 block = {4, 8, block_size / 32}`) still gives its x and y.
  using Parts = std::array<std::optional<Expr>, 3>;
  std::optional<Parts> readParts(const clang::Expr *E, int Depth = 0) {
    if (!E || Depth > 8 || E->containsErrors())
      return std::nullopt;
    E = strip(E);
    if (isIntegral(E->getType()))
      return Parts{scalar(E), ir::makeInt(1), ir::makeInt(1)};
    if (const auto *C = llvm::dyn_cast<clang::CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 1 && !isIntegral(C->getArg(0)->getType()))
        return readParts(C->getArg(0), Depth + 1); // copy or move
      Parts Out{ir::makeInt(1), ir::makeInt(1), ir::makeInt(1)};
      for (unsigned I = 0; I < C->getNumArgs() && I < 3; ++I)
        if (!llvm::isa<clang::CXXDefaultArgExpr>(C->getArg(I)))
          Out[I] = scalar(C->getArg(I));
      return Out;
    }
    if (const auto *F = llvm::dyn_cast<clang::CastExpr>(E))
      return readParts(F->getSubExpr(), Depth + 1);
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E))
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl()); V && V->getInit() && unchanged(V))
        return readParts(V->getInit(), Depth + 1);
    return std::nullopt;
  }

  /// Whether V keeps its initializer's value: no statement of its function
  /// changes it (`dim3 block(1); ... block.x = 512;` does), or it is a
  /// const global.
  bool unchanged(const clang::VarDecl *V) {
    const auto *F = llvm::dyn_cast_or_null<clang::FunctionDecl>(V->getParentFunctionOrMethod());
    if (!F || !F->getBody())
      return V->getType().isConstQualified();
    auto It = ChangedIn.find(F);
    if (It == ChangedIn.end())
      It = ChangedIn.emplace(F, changedIn(F->getBody())).first;
    return !It->second.count(V);
  }

  /// An integer host expression: a constant, a host variable passed to the
  /// kernel, or + - * / % of those.
  std::optional<Expr> scalar(const clang::Expr *E) {
    if (std::optional<std::int64_t> V = evalInt(Ctx, E))
      return ir::makeInt(*V);
    E = strip(E);
    if (const auto *C = llvm::dyn_cast<clang::CastExpr>(E); C && isIntegral(C->getSubExpr()->getType()))
      return scalar(C->getSubExpr());
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      const auto It = Args.find(D->getDecl());
      if (It != Args.end())
        return ir::makeVar(It->second, ir::VarKind::Param);
      // A host variable not passed to the kernel, given a value with -D.
      if (const auto Def = Defines.find(D->getDecl()->getName().str()); Def != Defines.end())
        return ir::makeInt(Def->second);
      if (const auto G = Guards.find(D->getDecl()); G != Guards.end())
        return ir::makeInt(G->second);
      return std::nullopt;
    }
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E)) {
      static const std::map<clang::BinaryOperatorKind, BinaryOp> Ops = {
          {clang::BO_Add, BinaryOp::Add}, {clang::BO_Sub, BinaryOp::Sub},
          {clang::BO_Mul, BinaryOp::Mul}, {clang::BO_Div, BinaryOp::Div},
          {clang::BO_Rem, BinaryOp::Mod}, {clang::BO_Shl, BinaryOp::Shl},
          {clang::BO_Shr, BinaryOp::Shr}};
      const auto It = Ops.find(B->getOpcode());
      std::optional<Expr> L = scalar(B->getLHS()), R = scalar(B->getRHS());
      if (It == Ops.end() || !L || !R)
        return std::nullopt;
      return binary(It->second, *L, *R);
    }
    return std::nullopt;
  }

private:
  std::map<const clang::FunctionDecl *, std::set<const clang::ValueDecl *>> ChangedIn;
  const clang::ASTContext &Ctx;
  const std::map<const clang::ValueDecl *, std::string> &Args;
  const std::map<std::string, std::int64_t> &Defines;
  const std::map<const clang::ValueDecl *, std::int64_t> &Guards;
};


//===-- The translation unit ---------------------------------------------------===//

/// Every kernel definition of the main file and of the headers it includes
/// that are not system headers (template instantiations in place of their
/// template), and every launch in the main file.
class KernelFinder : public clang::RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(const clang::SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  // Declarations of system headers (CUDA's, the C++ library's, thrust's and
  // cub's) are not walked: every visit below ignores what lies there, and
  // walking them (and their instantiations) was a tenth of a thrust file's
  // time. A user template instantiated from library code is still reached
  // through its own declaration, which is in the user's file.
  bool TraverseDecl(clang::Decl *D) {
    if (D && !llvm::isa<clang::TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true;
    return clang::RecursiveASTVisitor<KernelFinder>::TraverseDecl(D);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *F) {
    if (!F->hasAttr<clang::CUDAGlobalAttr>() || !F->doesThisDeclarationHaveABody())
      return true;
    const clang::SourceLocation L = SM.getExpansionLoc(F->getLocation());
    if (SM.isInSystemHeader(L)) // CUDA's own and the libraries' kernels
      return true;
    if (!SM.isInMainFile(L))
      InHeader.insert(F);
    if (F->isDependentContext() || F->getDescribedFunctionTemplate()) {
      Templates.push_back(F);
      return true;
    }
    if (std::find(Kernels.begin(), Kernels.end(), F) == Kernels.end())
      Kernels.push_back(F);
    return true;
  }

  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr *C) {
    const clang::SourceLocation L = SM.getExpansionLoc(C->getBeginLoc());
    if (SM.isInMainFile(L))
      Launches.push_back(C);
    else if (!SM.isInSystemHeader(L))
      HeaderLaunches.push_back(C);
    return true;
  }

  // What an indirect launch's pointer may hold: the values stored to
  // variables of the user's code (`k = padded ? t1 : t2`, `table[0] = t`),
  // and the calls that pass a pointer parameter its value.
  bool VisitBinaryOperator(clang::BinaryOperator *B) {
    if (B->getOpcode() == clang::BO_Assign && !SM.isInSystemHeader(SM.getExpansionLoc(B->getBeginLoc())))
      if (const clang::VarDecl *V = storedVar(B->getLHS()))
        Stores[V].push_back(B->getRHS());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *C) {
    if (!llvm::isa<clang::CUDAKernelCallExpr>(C) && C->getDirectCallee() &&
        !SM.isInSystemHeader(SM.getExpansionLoc(C->getBeginLoc())))
      Calls.push_back(C);
    return true;
  }
  /// The variable an assignment's left side names: `k`, `table[i]`, `*p`.
  static const clang::VarDecl *storedVar(const clang::Expr *E) {
    for (;;) {
      E = E->IgnoreParenImpCasts();
      if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
        E = A->getBase();
      else if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E); U && U->getOpcode() == clang::UO_Deref)
        E = U->getSubExpr();
      else
        break;
    }
    const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E);
    return D ? llvm::dyn_cast<clang::VarDecl>(D->getDecl()) : nullptr;
  }

  const clang::SourceManager &SM;
  std::vector<const clang::FunctionDecl *> Kernels;
  std::vector<const clang::FunctionDecl *> Templates;
  std::vector<const clang::CUDAKernelCallExpr *> Launches;
  /// Launches in the user's headers: a kernel analyzed here takes its block
  /// from one when the main file has none (llm.c's matmul.cuh launches its
  /// kernels from host functions that train_gpt2.cu calls); one counts as
  /// this file's launch only where this file uses its function.
  std::vector<const clang::CUDAKernelCallExpr *> HeaderLaunches;
  /// Kernels (and templates) defined in an included header.
  std::set<const clang::FunctionDecl *> InHeader;
  std::map<const clang::VarDecl *, std::vector<const clang::Expr *>> Stores;
  std::vector<const clang::CallExpr *> Calls;
};

/// The kernels a launch may start. A direct launch names its kernel. A
/// launch through a function pointer (`k<<<g, b>>>(...)` with `k` a
/// variable, an element of an array of kernels, or a parameter of the
/// launching function) starts whatever the pointer holds: the kernels found
/// in its initializer and in every value stored to it, and for a parameter
/// in the arguments its function's calls pass, followed through the
/// variables those name (a range-for over a table of kernels included).
/// Through: the pointer's name, for the note; empty for a direct launch.
struct LaunchTargets {
  std::vector<const clang::FunctionDecl *> Kernels;
  std::string Through;
};

LaunchTargets launchTargets(const clang::CUDAKernelCallExpr *C, const KernelFinder &Finder) {
  LaunchTargets T;
  if (const clang::FunctionDecl *F = C->getDirectCallee()) {
    T.Kernels.push_back(F);
    return T;
  }
  std::set<const clang::Decl *> Seen;
  std::function<void(const clang::Expr *, int)> Collect;
  auto CollectVar = [&](const clang::VarDecl *V, int Depth) {
    if (!V || Depth > 6 || !Seen.insert(V).second)
      return;
    if (V->getInit())
      Collect(V->getInit(), Depth + 1);
    if (const auto It = Finder.Stores.find(V); It != Finder.Stores.end())
      for (const clang::Expr *E : It->second)
        Collect(E, Depth + 1);
    const auto *P = llvm::dyn_cast<clang::ParmVarDecl>(V);
    const auto *Fn = P ? llvm::dyn_cast<clang::FunctionDecl>(P->getDeclContext()) : nullptr;
    if (!Fn)
      return;
    const unsigned Index = P->getFunctionScopeIndex();
    for (const clang::CallExpr *Call : Finder.Calls) {
      const clang::FunctionDecl *Callee = Call->getDirectCallee();
      const clang::FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern();
      if ((Callee == Fn || Pattern == Fn || Callee->getCanonicalDecl() == Fn->getCanonicalDecl()) &&
          Index < Call->getNumArgs())
        Collect(Call->getArg(Index), Depth + 1);
    }
  };
  Collect = [&](const clang::Expr *E, int Depth) {
    if (!E)
      return;
    struct Refs : clang::RecursiveASTVisitor<Refs> {
      std::vector<const clang::DeclRefExpr *> Found;
      bool VisitDeclRefExpr(clang::DeclRefExpr *D) {
        Found.push_back(D);
        return true;
      }
    } R;
    R.TraverseStmt(const_cast<clang::Expr *>(E));
    for (const clang::DeclRefExpr *D : R.Found) {
      if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D->getDecl())) {
        if (F->hasAttr<clang::CUDAGlobalAttr>() && Seen.insert(F).second)
          T.Kernels.push_back(F);
      } else {
        CollectVar(llvm::dyn_cast<clang::VarDecl>(D->getDecl()), Depth);
      }
    }
  };
  const clang::VarDecl *V = KernelFinder::storedVar(C->getCallee());
  if (!V)
    return T;
  T.Through = V->getName().str();
  CollectVar(V, 0);
  return T;
}

/// Which threadIdx components a kernel (and what it calls) reads.
std::array<bool, 3> threadDimsUsed(const clang::FunctionDecl *F) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    std::array<bool, 3> Used{true, false, false};
    std::set<const clang::FunctionDecl *> Seen;
    bool VisitPseudoObjectExpr(clang::PseudoObjectExpr *P) {
      if (auto B = builtinMember(P); B && (B->first == "threadIdx" || B->first == "blockDim"))
        Used[static_cast<std::size_t>(B->second)] = true;
      return true;
    }
    bool VisitCallExpr(clang::CallExpr *C) {
      const clang::FunctionDecl *Def = nullptr;
      if (const clang::FunctionDecl *Callee = C->getDirectCallee();
          Callee && Callee->hasBody(Def) && Def && Seen.insert(Def).second && Seen.size() < 64)
        TraverseStmt(Def->getBody());
      return true;
    }
  } Fi;
  Fi.TraverseStmt(F->getBody());
  return Fi.Used;
}

std::string displayName(const clang::FunctionDecl *F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  F->getNameForDiagnostic(OS, F->getASTContext().getPrintingPolicy(), false);
  return OS.str();
}

std::string dimText(const Dim3 &D) { return fmt::format("({}, {}, {})", D[0], D[1], D[2]); }

/// The first of Clang's errors inside F's body (for an instantiation, its
/// template's body: which instantiation an error belongs to is not known),
/// or null. What Clang made of such a body is its guess at a program that
/// does not exist, so its figures would be too.
const Diagnostic *errorInBody(const clang::SourceManager &SM, const clang::FunctionDecl *F,
                              const std::vector<Diagnostic> &Diags) {
  const clang::FunctionDecl *Pattern = F->getTemplateInstantiationPattern();
  const clang::Stmt *Body = (Pattern ? Pattern : F)->getBody();
  if (!Body)
    return nullptr;
  const SourceLoc B = toSourceLoc(SM, Body->getBeginLoc()), E = toSourceLoc(SM, Body->getEndLoc());
  for (const Diagnostic &D : Diags)
    if (D.Sev == Severity::Error && D.Loc.File == B.File && D.Loc.Line > 0 &&
        std::tie(B.Line, B.Col) <= std::tie(D.Loc.Line, D.Loc.Col) &&
        std::tie(D.Loc.Line, D.Loc.Col) <= std::tie(E.Line, E.Col))
      return &D;
  return nullptr;
}

void lowerUnit(clang::ASTContext &Ctx, const LowerOptions &Opts, LoweredFile &Out) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  KernelFinder Finder(SM);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  // The parents the lowering asks for (the ifs around a launch, a header
  // launch's function) are in the user's code: the parent map covers the
  // declarations outside system headers only. Built over the whole unit it
  // was most of the lowering's time in a file that includes thrust.
  std::vector<clang::Decl *> UserDecls;
  for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (D->getLocation().isInvalid() || !SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      UserDecls.push_back(D);
  Ctx.setTraversalScope(UserDecls);

  // Every kernel to lower: plain ones and every instantiation of templates.
  // A header's kernel is this file's when the file launches it or
  // instantiates it; the others belong to the files that launch them, and
  // a note says so.
  std::vector<const clang::FunctionDecl *> Kernels;
  // A kernel this file does not lower, with the note that says why ({} is
  // its name).
  auto NotLowered = [&](const clang::FunctionDecl *F, const std::string &Name, const char *Why) {
    LoweredKernel K;
    K.Name = Name;
    K.Display = Name;
    K.Loc = toSourceLoc(SM, F->getLocation());
    K.Lowered = false;
    K.Notes.push_back({Severity::Note, K.Loc, fmt::format(fmt::runtime(Why), Name), lineAt(SM, F->getLocation())});
    Out.Kernels.push_back(std::move(K));
  };
  std::map<const clang::CUDAKernelCallExpr *, LaunchTargets> Targets;
  for (const auto *List : {&Finder.Launches, &Finder.HeaderLaunches})
    for (const clang::CUDAKernelCallExpr *C : *List)
      Targets[C] = launchTargets(C, Finder);
  auto Starts = [&](const clang::CUDAKernelCallExpr *C, const clang::FunctionDecl *F) {
    const std::vector<const clang::FunctionDecl *> &Ks = Targets.at(C).Kernels;
    return std::find(Ks.begin(), Ks.end(), F) != Ks.end();
  };
  // A header's launch counts where this file uses the function that makes
  // it (llm.c's train_gpt2.cu calls matmul_backward, which launches
  // reduce_add_sum_kernel in llmc/matmul.cuh): otherwise no file analyzed
  // that kernel. A header that is only included launches nothing here.
  auto UsedHere = [&](const clang::CUDAKernelCallExpr *C) {
    clang::DynTypedNode Node = clang::DynTypedNode::create(*static_cast<const clang::Stmt *>(C));
    for (int Depth = 0; Depth < 256; ++Depth) {
      const auto Parents = Ctx.getParents(Node);
      if (Parents.empty())
        return false;
      if (const auto *Fn = Parents[0].get<clang::FunctionDecl>())
        return Fn->isReferenced() || Fn->isMain();
      Node = Parents[0];
    }
    return false;
  };
  for (const clang::FunctionDecl *F : Finder.Kernels) {
    const bool Launched = std::any_of(Finder.Launches.begin(), Finder.Launches.end(),
                                      [&](const clang::CUDAKernelCallExpr *C) { return Starts(C, F); }) ||
                          std::any_of(Finder.HeaderLaunches.begin(), Finder.HeaderLaunches.end(),
                                      [&](const clang::CUDAKernelCallExpr *C) { return Starts(C, F) && UsedHere(C); });
    if (!Finder.InHeader.count(F) || Launched || F->getTemplateInstantiationPattern()) {
      Kernels.push_back(F);
      continue;
    }
    NotLowered(F, displayName(F),
               "kernel '{}' of an included header is not launched from this file: not analyzed here (lint the "
               "file that launches it)");
  }
  for (const clang::FunctionDecl *T : Finder.Templates) {
    const clang::FunctionTemplateDecl *FT = T->getDescribedFunctionTemplate();
    bool Any = false;
    if (FT)
      for (const clang::FunctionDecl *S : FT->specializations())
        Any |= std::find(Kernels.begin(), Kernels.end(), S) != Kernels.end();
    if (!Any)
      NotLowered(T, T->getName().str(), "template kernel '{}' is never instantiated in this file: nothing to analyze");
  }
  std::sort(Kernels.begin(), Kernels.end(), [&](const clang::FunctionDecl *A, const clang::FunctionDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });

  // Each kernel's launch: the first whose block is constant, else the
  // first (the arguments it passes come from the same one); a direct launch
  // before one through a pointer.
  const std::map<const clang::ValueDecl *, std::string> NoArgs;
  std::map<const clang::FunctionDecl *, const clang::CUDAKernelCallExpr *> LaunchOf;
  std::vector<const clang::CUDAKernelCallExpr *> Ordered = Finder.Launches;
  std::stable_partition(Ordered.begin(), Ordered.end(),
                        [](const clang::CUDAKernelCallExpr *C) { return C->getDirectCallee() != nullptr; });
  Ordered.insert(Ordered.end(), Finder.HeaderLaunches.begin(), Finder.HeaderLaunches.end());
  for (const clang::FunctionDecl *F : Kernels)
    for (const clang::CUDAKernelCallExpr *C : Ordered) {
      if (!Starts(C, F))
        continue;
      const std::map<const clang::ValueDecl *, std::int64_t> Guards = launchGuards(Ctx, C);
      Dim3Reader R(Ctx, NoArgs, Opts.Defines, Guards);
      const clang::CallExpr *Cfg = C->getConfig();
      const bool ConstBlock = Cfg && Cfg->getNumArgs() >= 2 && [&] {
        const auto B = R.read(Cfg->getArg(1));
        return B && std::all_of(B->begin(), B->end(), [](const Expr &X) {
                 const auto *V = X.as<ir::IntLit>();
                 return V && V->Value > 0;
               });
      }();
      if (!LaunchOf.count(F) || ConstBlock)
        LaunchOf[F] = C;
      if (ConstBlock)
        break;
    }
  // Integer parameters the launch passes a constant (`k<<<g, b>>>(p, 4)`):
  // bound as -D would bind them, each to its own program param (another
  // kernel's parameter of the same name may take other values). -D wins.
  std::map<const clang::ParmVarDecl *, std::int64_t> ConstArgs;
  for (const auto &[F, C] : LaunchOf) {
    const std::map<const clang::ValueDecl *, std::int64_t> Guards = launchGuards(Ctx, C);
    Dim3Reader R(Ctx, NoArgs, Opts.Defines, Guards);
    for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I) {
      const clang::ParmVarDecl *P = F->getParamDecl(I);
      if (!isIntegral(P->getType()) || P->getName().empty() || Opts.Defines.count(P->getName().str()) ||
          llvm::isa<clang::CXXDefaultArgExpr>(C->getArg(I)))
        continue;
      if (std::optional<Expr> X = R.scalar(C->getArg(I)))
        if (const auto *V = X->as<ir::IntLit>())
          ConstArgs[P] = V->Value;
    }
  }

  // Program params: integer kernel parameters, one per name, those bound
  // by a launch's constant after them, one each.
  std::set<std::string> ProgramNames;
  std::map<const clang::ParmVarDecl *, std::string> ScalarParams;
  for (const bool Bound : {false, true})
    for (const clang::FunctionDecl *F : Kernels)
      for (const clang::ParmVarDecl *P : F->parameters()) {
        if (!isIntegral(P->getType()) || P->getName().empty() || ConstArgs.count(P) != static_cast<unsigned>(Bound))
          continue;
        const std::string Name = Bound ? freshName(P->getName(), ProgramNames) : identifier(P->getName());
        ScalarParams[P] = Name;
        if (!Bound && !ProgramNames.insert(Name).second)
          continue;
        ir::Param Pm;
        Pm.Name = Name;
        Pm.Loc = toSourceLoc(SM, P->getLocation());
        if (Bound) {
          Pm.Init = ir::makeInt(ConstArgs.at(P));
          Pm.Value = ConstArgs.at(P);
        } else if (auto It = Opts.Defines.find(P->getName().str()); It != Opts.Defines.end()) {
          Pm.Init = ir::makeInt(It->second);
          Pm.Value = It->second;
        } else {
          Pm.Runtime = true;
        }
        Out.Program.Params.push_back(std::move(Pm));
      }

  for (const clang::FunctionDecl *F : Kernels) {
    LoweredKernel Info;
    Info.Display = displayName(F);
    Info.Name = freshName(Info.Display, ProgramNames);
    Info.Loc = toSourceLoc(SM, F->getLocation());
    if (F->isInvalidDecl() || !F->getBody()) {
      Info.Lowered = false;
      Info.Notes.push_back({Severity::Note, Info.Loc, "kernel has errors Clang could not recover from; not analyzed",
                            lineAt(SM, F->getLocation())});
      Out.Kernels.push_back(std::move(Info));
      continue;
    }
    if (const Diagnostic *E = errorInBody(SM, F, Out.ClangDiags)) {
      Info.Lowered = false;
      Info.Notes.push_back({Severity::Note, Info.Loc,
                            fmt::format("kernel '{}' not analyzed: {} has errors (the first at line {})",
                                        Info.Display,
                                        F->getTemplateInstantiationPattern() ? "its template's body" : "its body",
                                        E->Loc.Line),
                            lineAt(SM, F->getLocation())});
      Out.Kernels.push_back(std::move(Info));
      continue;
    }
    // The launch: --block/--grid, a launch site, __launch_bounds__, or a
    // shape the indices imply.
    std::optional<LaunchSite> Site;
    if (const auto L = LaunchOf.find(F); L != LaunchOf.end()) {
      const clang::CUDAKernelCallExpr *C = L->second;
      std::map<const clang::ValueDecl *, std::string> ArgMap;
      for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
        if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(strip(C->getArg(I))))
          if (auto It = ScalarParams.find(F->getParamDecl(I)); It != ScalarParams.end())
            ArgMap[D->getDecl()] = It->second;
      const std::map<const clang::ValueDecl *, std::int64_t> Guards = launchGuards(Ctx, C);
      Dim3Reader R(Ctx, ArgMap, Opts.Defines, Guards);
      const clang::CallExpr *Cfg = C->getConfig();
      LaunchSite S;
      S.Loc = toSourceLoc(SM, C->getBeginLoc());
      S.Through = Targets.at(C).Through;
      if (Cfg && Cfg->getNumArgs() >= 2) {
        S.Grid = R.read(Cfg->getArg(0));
        if (auto B = R.readParts(Cfg->getArg(1))) {
          Dim3 D;
          bool Const = true, Some = false;
          for (std::size_t I = 0; I < 3; ++I) {
            const auto *V = (*B)[I] ? (*B)[I]->as<ir::IntLit>() : nullptr;
            const bool Known = V && V->Value > 0;
            Const &= Known;
            Some |= Known;
            D[I] = Known ? V->Value : 0;
          }
          if (Const)
            S.Block = D;
          else if (Some)
            S.PartBlock = D;
        }
        if (Cfg->getNumArgs() >= 3 && !llvm::isa<clang::CXXDefaultArgExpr>(Cfg->getArg(2)))
          S.SharedBytes = evalInt(Ctx, Cfg->getArg(2));
      }
      Site = S;
    }
    const std::array<bool, 3> Dims = threadDimsUsed(F);
    Dim3 Block;
    if (Opts.Block) {
      Block = *Opts.Block;
      Info.Launch = LaunchSource::CommandLine;
      Info.LaunchNote = fmt::format("block {} from --block", dimText(Block));
    } else if (Site && Site->Block) {
      Block = *Site->Block;
      Info.Launch = LaunchSource::LaunchSite;
      Info.LaunchNote = fmt::format("block {} from the launch at {}:{}:{}", dimText(Block), Site->Loc.File,
                                    Site->Loc.Line, Site->Loc.Col);
      if (!Site->Through.empty())
        Info.LaunchNote += fmt::format(" through the function pointer '{}'", Site->Through);
    } else if (const auto *LB = F->getAttr<clang::CUDALaunchBoundsAttr>();
               LB && !Dims[1] && !Dims[2] && evalInt(Ctx, LB->getMaxThreads())) {
      Block = {*evalInt(Ctx, LB->getMaxThreads()), 1, 1};
      Info.Launch = LaunchSource::LaunchBounds;
      Info.LaunchNote = fmt::format("block {} from __launch_bounds__", dimText(Block));
    } else if (Site && Site->PartBlock) {
      // The launch's constant components, the others assumed: a warp's
      // lanes are right wherever the known x (and y) hold 32 threads
      // (llm.c's `dim3 block_dim = {4, 8, block_size / 32}`).
      const Dim3 Assumed = {Dims[1] || Dims[2] ? 32 : 256, Dims[1] ? 8 : 1, Dims[2] ? 4 : 1};
      std::vector<std::string> Known, Guessed;
      for (std::size_t I = 0; I < 3; ++I) {
        Block[I] = (*Site->PartBlock)[I] ? (*Site->PartBlock)[I] : Assumed[I];
        ((*Site->PartBlock)[I] ? Known : Guessed).push_back(std::string(1, "xyz"[I]));
      }
      Info.Launch = LaunchSource::Implied;
      Info.LaunchNote = fmt::format("block {}: {} from the launch at {}:{}:{}, {} assumed (not constant there); "
                                    "give --block for its real shape",
                                    dimText(Block), fmt::join(Known, " and "), Site->Loc.File, Site->Loc.Line,
                                    Site->Loc.Col, fmt::join(Guessed, " and "));
    } else {
      Block = {Dims[1] || Dims[2] ? 32 : 256, Dims[1] ? 8 : 1, Dims[2] ? 4 : 1};
      Info.Launch = LaunchSource::Implied;
      Info.LaunchNote = fmt::format("assumed block {}: no launch of this kernel gives one (the kernel uses "
                                    "threadIdx.{}); give --block for its real shape",
                                    dimText(Block), Dims[2] ? "x, y and z" : Dims[1] ? "x and y" : "x");
    }
    const std::int64_t AssumedX = 32, AssumedY = Dims[1] ? 32 : 1;
    std::array<Expr, 3> GridExprs{ir::makeInt(AssumedX), ir::makeInt(AssumedY), ir::makeInt(1)};
    if (Opts.Grid)
      GridExprs = {ir::makeInt((*Opts.Grid)[0]), ir::makeInt((*Opts.Grid)[1]), ir::makeInt((*Opts.Grid)[2])};
    else if (Site && Site->Grid)
      GridExprs = *Site->Grid;
    else {
      // The figures per request do not depend on the grid; the launch's
      // totals do: say what was assumed.
      Info.GridAssumed = true;
      Info.LaunchNote += fmt::format("; grid assumed ({}, {}, 1): {}; give --grid or -D for its real size",
                                     AssumedX, AssumedY,
                                     Site ? "the launch's grid is neither constant nor built from the kernel's "
                                            "arguments"
                                          : "no launch gives one");
    }
    std::vector<std::string> Bound;
    for (const clang::ParmVarDecl *P : F->parameters())
      if (const auto It = ConstArgs.find(P); It != ConstArgs.end())
        Bound.push_back(fmt::format("{} = {}", P->getName().str(), It->second));
    if (!Bound.empty())
      Info.LaunchNote += Info.Launch == LaunchSource::LaunchSite
                             ? fmt::format("; {} from its arguments", fmt::join(Bound, ", "))
                             : fmt::format("; {} from the arguments of the launch at {}:{}:{}", fmt::join(Bound, ", "),
                                           Site->Loc.File, Site->Loc.Line, Site->Loc.Col);
    ir::Kernel K;
    K.Name = Info.Name;
    K.Loc = Info.Loc;
    K.Geo.Loc = Info.Loc;
    const ir::ConstEnv Env = [&] {
      ir::ConstEnv E;
      for (const ir::Param &P : Out.Program.Params)
        if (!P.Runtime)
          E[P.Name] = P.Value;
      return E;
    }();
    for (std::size_t I = 0; I < 3; ++I) {
      K.Geo.Block.push_back(ir::makeInt(Block[I]));
      K.Geo.BlockDim[I] = Block[I];
      K.Geo.Grid.push_back(GridExprs[I]);
      DiagnosticEngine Ignored;
      std::optional<std::int64_t> G = ir::evalConstant(GridExprs[I], Env, Ignored);
      K.Geo.GridDim[I] = G && *G > 0 ? *G : 1;
    }
    KernelLowering Lowering(Ctx, Out.Program, Info, ScalarParams, ProgramNames);
    Lowering.MergeVectors = !Opts.AsWritten;
    Lowering.lower(F, K, Block, GridExprs, Site && Site->SharedBytes ? *Site->SharedBytes : 0);
    Out.Program.Kernels.push_back(std::move(K));
    Out.Kernels.push_back(std::move(Info));
  }
  // Keep the kernels in source order, those not lowered included, and the
  // IR's kernels in the same order as the lowered ones (LoweredFile's
  // promise: the lint pairs them by position). Kernels of included headers
  // and template instantiations are lowered in another order; sorting only
  // the list once gave one kernel's figures under another's name.
  std::stable_sort(Out.Kernels.begin(), Out.Kernels.end(), [](const LoweredKernel &A, const LoweredKernel &B) {
    return std::tie(A.Loc.Line, A.Loc.Col) < std::tie(B.Loc.Line, B.Loc.Col);
  });
  std::map<std::string, ir::Kernel> ByName;
  for (ir::Kernel &K : Out.Program.Kernels)
    ByName.emplace(K.Name, std::move(K));
  Out.Program.Kernels.clear();
  for (const LoweredKernel &Info : Out.Kernels)
    if (Info.Lowered)
      Out.Program.Kernels.push_back(std::move(ByName.at(Info.Name)));
}

} // namespace

namespace {

/// The arguments of Path's compile command in BuildDir's database that
/// Clang's CUDA mode understands whatever compiler wrote them (nvcc's own
/// flags are dropped); nullopt, with Error set, when there is no database
/// or no entry for Path.
std::optional<std::vector<std::string>> databaseArgs(const std::string &BuildDir, const std::string &Path,
                                                     std::string &Error) {
  std::unique_ptr<clang::tooling::CompilationDatabase> Db =
      clang::tooling::CompilationDatabase::loadFromDirectory(BuildDir, Error);
  if (!Db)
    return std::nullopt;
  std::error_code EC;
  const std::string Abs = std::filesystem::absolute(Path, EC).lexically_normal().string();
  std::vector<clang::tooling::CompileCommand> Cmds = Db->getCompileCommands(Abs);
  if (Cmds.empty()) {
    Error = fmt::format("no entry for '{}' in {}/compile_commands.json", Path, BuildDir);
    return std::nullopt;
  }
  std::vector<std::string> Out;
  const std::vector<std::string> &A = Cmds.front().CommandLine;
  const std::string Dir = Cmds.front().Directory;
  for (std::size_t I = 0; I < A.size(); ++I) {
    const std::string &X = A[I];
    const bool TakesNext = X == "-I" || X == "-D" || X == "-U" || X == "-isystem" || X == "-include";
    if (TakesNext && I + 1 < A.size()) {
      std::string V = A[++I];
      if ((X == "-I" || X == "-isystem") && !V.empty() && V[0] != '/')
        V = Dir + "/" + V;
      Out.push_back(X);
      Out.push_back(V);
    } else if (X.rfind("-I", 0) == 0 && X.size() > 2) {
      std::string V = X.substr(2);
      Out.push_back("-I" + (V[0] == '/' ? V : Dir + "/" + V));
    } else if (X.rfind("-D", 0) == 0 || X.rfind("-U", 0) == 0 || X.rfind("-std=", 0) == 0) {
      Out.push_back(X);
    }
  }
  return Out;
}

} // namespace

std::string accessNoteKey(const SourceLoc &L, const std::string &Message) {
  return fmt::format("{}:{}:{}\n{}", L.File, L.Line, L.Col, Message);
}

LoweredFile lowerCudaFile(const std::string &Path, const LowerOptions &Opts) {
  LoweredFile Out;
  LowerOptions O = Opts;
  if (!Opts.BuildDir.empty()) {
    std::string Error;
    std::optional<std::vector<std::string>> Args = databaseArgs(Opts.BuildDir, Path, Error);
    if (!Args) {
      Out.ClangDiags.push_back({Severity::Error, {Path, 0, 0}, fmt::format("-p {}: {}", Opts.BuildDir, Error), {}});
      Out.Readable = false;
      return Out;
    }
    O.Cuda.ExtraArgs.insert(O.Cuda.ExtraArgs.begin(), Args->begin(), Args->end());
  }
  Out.Program.Mach = ir::Machine{};
  Out.Program.Mach->Kind = ir::MachineKind::Target;
  Out.Program.Mach->Target = Opts.Cuda.GpuArch;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point Start = Clock::now();
  Out.Readable = runClangOnCudaFile(Path, O.Cuda, Out.ClangDiags, [&](clang::ASTContext &Ctx) {
    const Clock::time_point Lower = Clock::now();
    lowerUnit(Ctx, O, Out);
    ir::numberSites(Out.Program);
    Out.LowerSeconds = std::chrono::duration<double>(Clock::now() - Lower).count();
  });
  Out.ClangSeconds = std::chrono::duration<double>(Clock::now() - Start).count() - Out.LowerSeconds;
  return Out;
}

} // namespace bankwise::frontend
