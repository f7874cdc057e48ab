// CUDA -> IR (frontend/CudaLowering.h). One KernelLowering per kernel (per
// template instantiation) walks its body once, emitting IR statements; each
// expression is lowered to an LVal: its exact IR value when the lowering
// understands it, else the memory reads it contains (so a data-dependent
// index stays data-dependent for the analysis) and why it is not exact.
#include "frontend/CudaLowering.h"
#include "frontend/ClangSupport.h"

#include "ir/Eval.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
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
#include <set>

namespace bankwise::frontend {

namespace {

using ir::BinaryOp;
using ir::Expr;

//===-- Small IR builders ---------------------------------------------------===//

Expr node(Expr::Kind K, const SourceLoc &L) { return Expr{std::move(K), ir::NodeLoc(L)}; }

bool isInt(const Expr &E, std::int64_t V) {
  const auto *I = E.as<ir::IntLit>();
  return I && I->Value == V;
}

/// A op B, folding the identities x + 0, x * 1, 0 + x, 1 * x.
Expr binary(BinaryOp Op, Expr A, Expr B, const SourceLoc &L = {}) {
  if ((Op == BinaryOp::Add || Op == BinaryOp::Sub) && isInt(B, 0))
    return A;
  if (Op == BinaryOp::Add && isInt(A, 0))
    return B;
  if ((Op == BinaryOp::Mul || Op == BinaryOp::Div) && isInt(B, 1))
    return A;
  if (Op == BinaryOp::Mul && isInt(A, 1))
    return B;
  const auto *IA = A.as<ir::IntLit>();
  const auto *IB = B.as<ir::IntLit>();
  if (IA && IB) {
    const ir::EvalResult R = ir::applyBinary(Op, IA->Value, IB->Value);
    if (R.ok())
      return ir::makeInt(R.Value, L);
  }
  return ir::makeBinary(Op, std::move(A), std::move(B), L);
}

/// The sum of Terms; 0 when there are none.
Expr sumOf(const std::vector<Expr> &Terms, const SourceLoc &L) {
  if (Terms.empty())
    return ir::makeInt(0, L);
  Expr S = Terms.front();
  for (std::size_t I = 1; I < Terms.size(); ++I)
    S = ir::makeBinary(BinaryOp::Add, S, Terms[I], L);
  return S;
}

constexpr std::array<std::string_view, 29> Reserved{
    "target", "machine", "param", "permutation", "kernel", "let",  "for",  "if",
    "else",   "sync",    "global", "shared",     "local",  "layout", "holds", "inverse",
    "tid",    "lane",    "warp",  "tx",          "ty",     "tz",   "bx",   "by",
    "bz",     "min",     "max",   "log2",        "bitrev"};

/// Name as a DSL identifier: other characters become '_', reserved words
/// get a '_' appended.
std::string identifier(std::string_view Name) {
  std::string S;
  for (char C : Name)
    S += (std::isalnum(static_cast<unsigned char>(C)) || C == '_') ? C : '_';
  while (!S.empty() && S.back() == '_' && S.size() > 1 && Name.back() != '_')
    S.pop_back();
  if (S.empty() || std::isdigit(static_cast<unsigned char>(S[0])))
    S = "_" + S;
  if (std::find(Reserved.begin(), Reserved.end(), S) != Reserved.end())
    S += "_";
  return S;
}

/// A fresh name from Base, not in Used; recorded there.
std::string freshName(std::string_view Base, std::set<std::string> &Used) {
  const std::string B = identifier(Base);
  std::string N = B;
  for (int I = 1; Used.count(N); ++I)
    N = fmt::format("{}_{}", B, I);
  Used.insert(N);
  return N;
}

//===-- Types ---------------------------------------------------------------===//

/// The IR element type of a C++ type: scalars of 1..8 bytes and CUDA's
/// vector types of 2 or 4 of them; nullopt for anything else.
std::optional<ir::ElemType> elemTypeOf(const clang::ASTContext &Ctx, clang::QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *E = T->getAs<clang::EnumType>())
    T = E->getDecl()->getIntegerType().getCanonicalType();
  using ir::ScalarType;
  if (const auto *B = T->getAs<clang::BuiltinType>()) {
    switch (B->getKind()) {
    case clang::BuiltinType::Bool:
    case clang::BuiltinType::UChar:
    case clang::BuiltinType::Char_U:
      return ir::ElemType{ScalarType::U8};
    case clang::BuiltinType::Char_S:
    case clang::BuiltinType::SChar:
      return ir::ElemType{ScalarType::I8};
    case clang::BuiltinType::Short:
      return ir::ElemType{ScalarType::I16};
    case clang::BuiltinType::UShort:
      return ir::ElemType{ScalarType::U16};
    case clang::BuiltinType::Int:
      return ir::ElemType{ScalarType::I32};
    case clang::BuiltinType::UInt:
      return ir::ElemType{ScalarType::U32};
    case clang::BuiltinType::Long:
    case clang::BuiltinType::LongLong:
      return ir::ElemType{ScalarType::I64};
    case clang::BuiltinType::ULong:
    case clang::BuiltinType::ULongLong:
      return ir::ElemType{ScalarType::U64};
    case clang::BuiltinType::Float:
      return ir::ElemType{ScalarType::F32};
    case clang::BuiltinType::Double:
      return ir::ElemType{ScalarType::F64};
    case clang::BuiltinType::Half:
    case clang::BuiltinType::Float16:
      return ir::ElemType{ScalarType::F16};
    case clang::BuiltinType::BFloat16:
      return ir::ElemType{ScalarType::BF16};
    default:
      return std::nullopt;
    }
  }
  const clang::RecordDecl *R = T->getAsRecordDecl();
  if (!R || !R->getIdentifier())
    return std::nullopt;
  const std::string Name = R->getName().str();
  if (Name == "__half")
    return ir::ElemType{ScalarType::F16};
  if (Name == "__nv_bfloat16")
    return ir::ElemType{ScalarType::BF16};
  if (Name == "__half2")
    return ir::ElemType{ScalarType::F16, 2};
  if (Name == "__nv_bfloat162")
    return ir::ElemType{ScalarType::BF16, 2};
  // CUDA's vector types: float4, int2, uchar4, double2, longlong2, ...
  static const std::map<std::string, ScalarType, std::less<>> Bases = {
      {"char", ScalarType::I8},       {"uchar", ScalarType::U8},
      {"short", ScalarType::I16},     {"ushort", ScalarType::U16},
      {"int", ScalarType::I32},       {"uint", ScalarType::U32},
      {"long", ScalarType::I64},      {"ulong", ScalarType::U64},
      {"longlong", ScalarType::I64},  {"ulonglong", ScalarType::U64},
      {"float", ScalarType::F32},     {"double", ScalarType::F64}};
  if (Name.size() < 2)
    return std::nullopt;
  const char Last = Name.back();
  const auto It = Bases.find(std::string_view(Name).substr(0, Name.size() - 1));
  if (It == Bases.end() || (Last != '1' && Last != '2' && Last != '4'))
    return std::nullopt;
  const ir::ElemType E{It->second, Last - '0'};
  // Check the layout is CUDA's (a user type of the same name might not be).
  if (Ctx.getTypeSizeInChars(T).getQuantity() != ir::byteSize(E))
    return std::nullopt;
  return E;
}

bool isIntegral(clang::QualType T) {
  T = T.getCanonicalType();
  return T->isIntegralOrEnumerationType() || T->isBooleanType();
}

std::optional<std::int64_t> evalInt(const clang::ASTContext &Ctx, const clang::Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent() || !isIntegral(E->getType()))
    return std::nullopt;
  clang::Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx, clang::Expr::SE_NoSideEffects))
    return std::nullopt;
  return R.Val.getInt().tryExtValue();
}

const clang::Expr *strip(const clang::Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *C = llvm::dyn_cast<clang::ImplicitCastExpr>(E);
        C && (C->getCastKind() == clang::CK_NoOp || C->getCastKind() == clang::CK_IntegralCast ||
              C->getCastKind() == clang::CK_LValueToRValue))
      E = C->getSubExpr();
    else if (const auto *M = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *W = llvm::dyn_cast<clang::ExprWithCleanups>(E))
      E = W->getSubExpr();
    else if (const auto *B = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *K = llvm::dyn_cast<clang::ConstantExpr>(E))
      E = K->getSubExpr();
    else
      return E;
  }
}

/// The CUDA built-in variable and component of `threadIdx.x` and its kin:
/// ("threadIdx", 0); nullopt for anything else.
std::optional<std::pair<std::string, int>> builtinMember(const clang::Expr *E) {
  E = E->IgnoreParenImpCasts();
  const auto *P = llvm::dyn_cast<clang::PseudoObjectExpr>(E);
  if (!P)
    return std::nullopt;
  const auto *M = llvm::dyn_cast<clang::MSPropertyRefExpr>(P->getSyntacticForm()->IgnoreParens());
  if (!M)
    return std::nullopt;
  const clang::Expr *BaseExpr = M->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *O = llvm::dyn_cast<clang::OpaqueValueExpr>(BaseExpr); O && O->getSourceExpr())
    BaseExpr = O->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = llvm::dyn_cast<clang::DeclRefExpr>(BaseExpr);
  if (!Base)
    return std::nullopt;
  const std::string Var = Base->getDecl()->getName().str();
  const std::string Member = M->getPropertyDecl()->getName().str();
  if (Member.size() != 1 || Member[0] < 'x' || Member[0] > 'z')
    return std::nullopt;
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" && Var != "gridDim")
    return std::nullopt;
  return std::make_pair(Var, Member[0] - 'x');
}

//===-- Launch sites ----------------------------------------------------------===//

struct LaunchSite {
  std::optional<Dim3> Block;
  /// The grid's components as IR expressions over the kernel's integer
  /// parameters (host variables passed to them), when they are.
  std::optional<std::array<Expr, 3>> Grid;
  std::optional<std::int64_t> SharedBytes;
  SourceLoc Loc;
};

/// Components of a dim3 (or integer) launch argument, each an IR expression
/// over the kernel parameters Args maps host variables to.
class Dim3Reader {
public:
  Dim3Reader(const clang::ASTContext &Ctx,
             const std::map<const clang::ValueDecl *, std::string> &Args)
      : Ctx(Ctx), Args(Args) {}

  std::optional<std::array<Expr, 3>> read(const clang::Expr *E, int Depth = 0) {
    if (!E || Depth > 8)
      return std::nullopt;
    E = strip(E);
    if (isIntegral(E->getType())) {
      std::optional<Expr> X = scalar(E);
      if (!X)
        return std::nullopt;
      return std::array<Expr, 3>{*X, ir::makeInt(1), ir::makeInt(1)};
    }
    if (const auto *C = llvm::dyn_cast<clang::CXXConstructExpr>(E)) {
      if (C->getNumArgs() == 1 && !isIntegral(C->getArg(0)->getType()))
        return read(C->getArg(0), Depth + 1); // copy or move
      std::array<Expr, 3> Out{ir::makeInt(1), ir::makeInt(1), ir::makeInt(1)};
      for (unsigned I = 0; I < C->getNumArgs() && I < 3; ++I) {
        if (llvm::isa<clang::CXXDefaultArgExpr>(C->getArg(I)))
          continue;
        std::optional<Expr> X = scalar(C->getArg(I));
        if (!X)
          return std::nullopt;
        Out[I] = *X;
      }
      return Out;
    }
    if (const auto *F = llvm::dyn_cast<clang::CastExpr>(E))
      return read(F->getSubExpr(), Depth + 1);
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E))
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl()); V && V->getInit())
        return read(V->getInit(), Depth + 1);
    return std::nullopt;
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
  const clang::ASTContext &Ctx;
  const std::map<const clang::ValueDecl *, std::string> &Args;
};

//===-- Lowered values --------------------------------------------------------===//

/// An expression lowered: its exact value, or (not Exact) the reads and
/// read-derived locals it contains and why it is not exact.
struct LVal {
  Expr E;
  bool Exact = true;
  std::vector<Expr> Data;
  std::string Why;
  SourceLoc WhyLoc;

  /// The IR expression standing for the value: itself when exact, else
  /// the sum of the memory it depends on (a data-dependent stand-in) or 0.
  Expr materialize() const { return Exact ? E : sumOf(Data, E.Loc); }
};

LVal exact(Expr E) { return LVal{std::move(E), true, {}, {}, {}}; }

LVal inexact(std::string Why, SourceLoc Loc, std::vector<Expr> Data = {}) {
  LVal V;
  V.E = ir::makeInt(0, Loc);
  V.Exact = false;
  V.Data = std::move(Data);
  V.Why = std::move(Why);
  V.WhyLoc = std::move(Loc);
  return V;
}

/// The data and the first reason of every part, and exactness of all.
void absorb(LVal &Into, const LVal &Part) {
  Into.Data.insert(Into.Data.end(), Part.Data.begin(), Part.Data.end());
  if (!Part.Exact && Into.Exact) {
    Into.Exact = false;
    Into.Why = Part.Why;
    Into.WhyLoc = Part.WhyLoc;
  }
}

/// A pointer the lowering follows: into Array, at Idx (one index per
/// dimension walked so far; arithmetic moves the last).
struct PtrVal {
  std::string Array;
  std::vector<Expr> Idx;
  /// Reached by subscripts of the array itself (no pointer variable, cast
  /// or arithmetic): what `--fix` can pad safely.
  bool Direct = true;
};

struct LocalInfo {
  std::string IrName;
  ir::VarKind Kind = ir::VarKind::Let;
  bool Exact = true;
  bool FromReads = false;
  std::string Why;
  SourceLoc WhyLoc;
};

struct ArrayInfo {
  std::string Source;
  ir::ElemType Elem;
  std::vector<std::int64_t> Shape;
  ir::MemSpace Space = ir::MemSpace::Global;
  int SharedIndex = -1; ///< into LoweredKernel::Shared, static shared arrays
};

//===-- Kernel lowering ----------------------------------------------------===//

class KernelLowering {
public:
  KernelLowering(clang::ASTContext &Ctx, ir::Program &Prog, LoweredKernel &Info,
                 const std::map<const clang::ParmVarDecl *, std::string> &ScalarParams,
                 std::set<std::string> ProgramNames)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Prog(Prog), Info(Info),
        ScalarParams(ScalarParams), Used(std::move(ProgramNames)) {}

  /// Lowers F into K (whose Geo is set); notes go to Info.
  void lower(const clang::FunctionDecl *F, ir::Kernel &K, const Dim3 &Block,
             const std::array<Expr, 3> &GridExprs, std::int64_t DynamicSharedBytes) {
    Kern = &K;
    BlockDim = Block;
    Grid = GridExprs;
    DynShared = DynamicSharedBytes;
    for (const clang::ParmVarDecl *P : F->parameters())
      declareParam(P);
    ir::Block Body;
    if (const auto *CS = llvm::dyn_cast_or_null<clang::CompoundStmt>(F->getBody()))
      lowerStmts({CS->body_begin(), CS->body_end()}, Body);
    // Shared arrays first, wherever the source declares them.
    for (ir::Stmt &S : SharedDecls)
      K.Body.push_back(std::move(S));
    for (ir::Stmt &S : Body)
      K.Body.push_back(std::move(S));
  }

private:
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  ir::Program &Prog;
  LoweredKernel &Info;
  const std::map<const clang::ParmVarDecl *, std::string> &ScalarParams;
  std::set<std::string> Used;
  ir::Kernel *Kern = nullptr;
  Dim3 BlockDim{1, 1, 1};
  std::array<Expr, 3> Grid;
  std::int64_t DynShared = 0;

  std::map<const clang::ValueDecl *, LocalInfo> Locals;
  std::map<const clang::ValueDecl *, PtrVal> Ptrs;
  std::map<const clang::ValueDecl *, std::string> BadPtrs; ///< why unknown
  std::map<const clang::ValueDecl *, std::string> ArrayOf;  ///< shared var -> IR array
  std::map<std::string, ArrayInfo> Arrays;
  std::map<std::string, std::string> Views; ///< "array/elem" -> view array
  ir::Block SharedDecls;
  int InlineDepth = 0;
  std::vector<const clang::FunctionDecl *> InlineStack;
  int Uncertain = 0;     ///< inside a condition the lint cannot evaluate
  bool AfterReturn = false; ///< a lane may have returned early
  int TempCount = 0;

  SourceLoc loc(clang::SourceLocation L) const { return toSourceLoc(SM, L); }
  SourceLoc loc(const clang::Stmt *S) const { return loc(S->getBeginLoc()); }

  void note(const SourceLoc &L, std::string Msg, clang::SourceLocation CL = {}) {
    for (const Diagnostic &D : Info.Notes)
      if (D.Loc == L && D.Message == Msg)
        return;
    Info.Notes.push_back({Severity::Note, L, std::move(Msg), lineAt(SM, CL)});
  }

  void markUnderstood(const std::string &Array, bool Ok) {
    const auto It = Arrays.find(Array);
    if (!Ok && It != Arrays.end() && It->second.SharedIndex >= 0)
      Info.Shared[static_cast<std::size_t>(It->second.SharedIndex)].AllUnderstood = false;
  }

  std::string sourceName(const std::string &Array) const {
    const auto It = Arrays.find(Array);
    return It == Arrays.end() ? Array : It->second.Source;
  }

  //===-- Declarations -------------------------------------------------===//

  void addArray(const std::string &IrName, const std::string &Source, ir::ElemType Elem,
                std::vector<std::int64_t> Shape, ir::MemSpace Space, const SourceLoc &L,
                int SharedIndex = -1) {
    ir::Array A;
    A.Name = IrName;
    A.Space = Space;
    A.Elem = Elem;
    A.Shape = Shape;
    for (std::int64_t D : Shape)
      A.Dims.push_back(ir::makeInt(D, L));
    A.Lay.Kind = ir::LayoutKind::Raw;
    A.Loc = L;
    Arrays[IrName] = {Source, Elem, Shape, Space, SharedIndex};
    Info.SourceNames[IrName] = Source;
    if (Space == ir::MemSpace::Global)
      Kern->Params.push_back(std::move(A));
    else
      SharedDecls.push_back({ir::ArrayDecl{std::move(A)}, ir::NodeLoc(L)});
  }

  void declareParam(const clang::ParmVarDecl *P) {
    const clang::QualType T = P->getType().getCanonicalType();
    const std::string Name = P->getName().str();
    if (T->isPointerType()) {
      std::optional<ir::ElemType> E = elemTypeOf(Ctx, T->getPointeeType());
      if (!E) {
        BadPtrs[P] = fmt::format("'{}' points to '{}', which the lint does not model", Name,
                                 T->getPointeeType().getAsString());
        return;
      }
      const std::string IrName = freshName(Name.empty() ? "ptr" : Name, Used);
      addArray(IrName, Name, *E, {PointerExtent}, ir::MemSpace::Global, loc(P->getLocation()));
      Ptrs[P] = {IrName, {ir::makeInt(0)}, true};
      return;
    }
    const auto It = ScalarParams.find(P);
    if (It != ScalarParams.end()) {
      if (isAssigned(P)) { // a parameter the kernel changes: a local copy
        const std::string IrName = freshName(Name, Used);
        SharedDecls.push_back(
            {ir::Let{IrName, ir::makeVar(It->second, ir::VarKind::Param)}, ir::NodeLoc(loc(P->getLocation()))});
        Locals[P] = {IrName, ir::VarKind::Let, true, false, {}, {}};
      } else {
        Locals[P] = {It->second, ir::VarKind::Param, true, false, {}, {}};
      }
      return;
    }
    Locals[P] = {identifier(Name), ir::VarKind::Let, false, false,
                 fmt::format("'{}' is not an integer", Name), loc(P->getLocation())};
  }

  /// Whether the function body assigns D (=, op=, ++, --, or takes its address).
  bool isAssigned(const clang::ValueDecl *D) const {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      const clang::ValueDecl *D;
      bool Found = false;
      bool refersTo(const clang::Expr *E) const {
        const auto *R = llvm::dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
        return R && R->getDecl() == D;
      }
      bool VisitBinaryOperator(clang::BinaryOperator *B) {
        if (B->isAssignmentOp() && refersTo(B->getLHS()))
          Found = true;
        return true;
      }
      bool VisitUnaryOperator(clang::UnaryOperator *U) {
        if ((U->isIncrementDecrementOp() || U->getOpcode() == clang::UO_AddrOf) &&
            refersTo(U->getSubExpr()))
          Found = true;
        return true;
      }
    } F;
    F.D = D;
    if (const auto *P = llvm::dyn_cast<clang::ParmVarDecl>(D))
      if (const auto *Fn = llvm::dyn_cast<clang::FunctionDecl>(P->getDeclContext()))
        F.TraverseStmt(Fn->getBody());
    return F.Found;
  }

  /// The IR array of a shared variable, declared on first sight.
  std::optional<std::string> sharedArray(const clang::VarDecl *V) {
    if (const auto It = ArrayOf.find(V); It != ArrayOf.end())
      return It->second;
    const std::string Name = V->getName().str();
    clang::QualType T = V->getType();
    std::vector<std::int64_t> Shape;
    bool Dynamic = false;
    if (const auto *IA = Ctx.getAsIncompleteArrayType(T)) {
      Dynamic = true;
      T = IA->getElementType();
      Shape.push_back(0);
    }
    while (const auto *CA = Ctx.getAsConstantArrayType(T)) {
      Shape.push_back(static_cast<std::int64_t>(CA->getSize().getZExtValue()));
      T = CA->getElementType();
    }
    std::optional<ir::ElemType> E = elemTypeOf(Ctx, T);
    if (E && Shape.empty()) { // a shared scalar: every lane reads one word, a broadcast
      ArrayOf[V] = "";
      return std::nullopt;
    }
    if (!E) {
      note(loc(V->getLocation()),
           fmt::format("shared variable '{}' of type '{}' is not modelled; its accesses are not analyzed",
                       Name, V->getType().getAsString()),
           V->getLocation());
      ArrayOf[V] = "";
      return std::nullopt;
    }
    if (Dynamic) {
      // extern __shared__: the bytes the launch gives, else 48 KiB.
      std::int64_t Bytes = DynShared > 0 ? DynShared : 49152;
      std::int64_t Inner = 1;
      for (std::size_t I = 1; I < Shape.size(); ++I)
        Inner *= Shape[I];
      Shape[0] = std::max<std::int64_t>(1, Bytes / (ir::byteSize(*E) * Inner));
      if (DynShared <= 0)
        note(loc(V->getLocation()),
             fmt::format("dynamic shared array '{}' sized {} bytes (no launch gives its size)", Name,
                         Shape[0] * Inner * ir::byteSize(*E)),
             V->getLocation());
    }
    const std::string IrName = freshName(Name, Used);
    int SharedIndex = -1;
    if (!Dynamic) {
      SharedArraySource S;
      S.IrName = IrName;
      S.SourceName = Name;
      S.InnerDim = Shape.back();
      innerDimRange(V, S);
      Info.Shared.push_back(S);
      SharedIndex = static_cast<int>(Info.Shared.size()) - 1;
    }
    addArray(IrName, Name, *E, Shape, ir::MemSpace::Shared, loc(V->getLocation()), SharedIndex);
    ArrayOf[V] = IrName;
    return IrName;
  }

  /// Where the innermost `[N]` of V's declaration is, for --fix.
  void innerDimRange(const clang::VarDecl *V, SharedArraySource &S) const {
    const clang::TypeSourceInfo *TSI = V->getTypeSourceInfo();
    if (!TSI)
      return;
    clang::TypeLoc TL = TSI->getTypeLoc();
    const clang::Expr *Size = nullptr;
    while (auto AL = TL.getAs<clang::ArrayTypeLoc>()) {
      Size = AL.getSizeExpr();
      TL = AL.getElementLoc();
    }
    if (!Size)
      return;
    const clang::SourceLocation B = Size->getBeginLoc(), E = Size->getEndLoc();
    if (B.isMacroID() || E.isMacroID() || !SM.isWrittenInMainFile(B))
      return; // a macro: padding it would change every use
    const clang::SourceLocation End =
        clang::Lexer::getLocForEndOfToken(E, 0, SM, Ctx.getLangOpts());
    S.InnerDimLoc = loc(B);
    S.InnerDimOffset = SM.getFileOffset(B);
    S.InnerDimLength = SM.getFileOffset(End) - S.InnerDimOffset;
  }

  //===-- Statements ------------------------------------------------------===//

  void lowerStmts(llvm::ArrayRef<clang::Stmt *> Stmts, ir::Block &Out) {
    for (std::size_t I = 0; I < Stmts.size(); ++I) {
      const clang::Stmt *S = Stmts[I];
      // if (c) return;  ->  if !c { rest }
      if (const auto *If = llvm::dyn_cast<clang::IfStmt>(S); If && !If->getElse() && !If->getInit() &&
                                                               !If->getConditionVariable() &&
                                                               isReturn(If->getThen())) {
        LVal C = lowerValue(If->getCond(), Out);
        ir::Block Rest;
        if (C.Exact) {
          lowerStmts(Stmts.drop_front(I + 1), Rest);
          Expr Not = node(ir::Unary{ir::UnaryOp::Not, C.E}, loc(If->getCond()));
          Out.push_back({ir::If{std::move(Not), std::move(Rest), {}}, ir::NodeLoc(loc(If))});
        } else {
          note(loc(If), fmt::format("early return under a condition the lint cannot evaluate ({}): "
                                    "the accesses after it assume every lane goes on",
                                    C.Why),
               If->getBeginLoc());
          ++Uncertain;
          lowerStmts(Stmts.drop_front(I + 1), Out);
          --Uncertain;
        }
        return;
      }
      if (llvm::isa<clang::ReturnStmt>(S) && InlineDepth == 0)
        return; // the rest is unreachable
      lowerStmt(S, Out);
    }
  }

  static bool isReturn(const clang::Stmt *S) {
    if (const auto *C = llvm::dyn_cast<clang::CompoundStmt>(S))
      return C->size() == 1 && isReturn(*C->body_begin());
    const auto *R = llvm::dyn_cast<clang::ReturnStmt>(S);
    return R && !R->getRetValue();
  }

  void lowerStmt(const clang::Stmt *S, ir::Block &Out) {
    if (!S)
      return;
    if (const auto *C = llvm::dyn_cast<clang::CompoundStmt>(S))
      return lowerStmts({C->body_begin(), C->body_end()}, Out);
    if (const auto *A = llvm::dyn_cast<clang::AttributedStmt>(S))
      return lowerStmt(A->getSubStmt(), Out);
    if (const auto *D = llvm::dyn_cast<clang::DeclStmt>(S)) {
      for (const clang::Decl *Dc : D->decls())
        if (const auto *V = llvm::dyn_cast<clang::VarDecl>(Dc))
          declareLocal(V, Out);
      return;
    }
    if (const auto *E = llvm::dyn_cast<clang::Expr>(S))
      return lowerEffect(E, Out);
    if (const auto *If = llvm::dyn_cast<clang::IfStmt>(S))
      return lowerIf(If, Out);
    if (const auto *F = llvm::dyn_cast<clang::ForStmt>(S))
      return lowerFor(F, Out);
    if (const auto *W = llvm::dyn_cast<clang::WhileStmt>(S))
      return lowerOpaqueLoop(S, W->getCond(), W->getBody(), "a while loop", Out);
    if (const auto *Do = llvm::dyn_cast<clang::DoStmt>(S))
      return lowerOpaqueLoop(S, Do->getCond(), Do->getBody(), "a do loop", Out);
    if (llvm::isa<clang::NullStmt>(S))
      return;
    if (const auto *R = llvm::dyn_cast<clang::ReturnStmt>(S)) {
      if (InlineDepth == 0) {
        note(loc(R), "return inside a branch or loop: the accesses after it assume every lane goes on",
             R->getBeginLoc());
        AfterReturn = true;
      }
      return;
    }
    if (llvm::isa<clang::BreakStmt>(S) || llvm::isa<clang::ContinueStmt>(S))
      return; // handled by the loop (opaque)
    note(loc(S), fmt::format("'{}' statement not understood; its accesses are not analyzed",
                             S->getStmtClassName()),
         S->getBeginLoc());
  }

  void declareLocal(const clang::VarDecl *V, ir::Block &Out) {
    if (V->hasAttr<clang::CUDASharedAttr>()) {
      sharedArray(V);
      return;
    }
    const clang::QualType T = V->getType().getCanonicalType();
    const SourceLoc L = loc(V->getLocation());
    if (V->isStaticLocal() || (T.isConstQualified() && evalInt(Ctx, V->getInit())))
      return; // a constant: Clang evaluates its uses
    if (T->isReferenceType()) {
      BadPtrs[V] = fmt::format("'{}' is a reference", V->getName().str());
      if (V->getInit())
        lowerEffect(V->getInit(), Out);
      return;
    }
    if (T->isPointerType()) {
      std::string Why;
      std::optional<PtrVal> P = V->getInit() ? lowerPointer(V->getInit(), Out, Why) : std::nullopt;
      if (!P) {
        BadPtrs[V] = V->getInit() ? Why : fmt::format("'{}' has no initial value", V->getName().str());
        return;
      }
      Ptrs[V] = pointerLocal(V->getName().str(), *P, L, Out);
      return;
    }
    if (T->isArrayType()) // registers
      return;
    LVal Init = V->getInit() ? lowerValue(V->getInit(), Out) : exact(ir::makeInt(0, L));
    if (!isIntegral(T) && Init.Exact)
      Init = inexact(fmt::format("'{}' is not an integer", V->getName().str()), L, Init.Data);
    const std::string IrName = freshName(V->getName().str(), Used);
    Out.push_back({ir::Let{IrName, Init.materialize()}, ir::NodeLoc(L)});
    LocalInfo LI{IrName, ir::VarKind::Let, Init.Exact, !Init.Data.empty(), Init.Why, Init.WhyLoc};
    Locals[V] = LI;
  }

  /// A pointer variable: its indices kept in locals of their own, so later
  /// changes of what they were computed from do not move it.
  PtrVal pointerLocal(const std::string &Name, PtrVal P, const SourceLoc &L, ir::Block &Out) {
    P.Direct = false;
    for (std::size_t I = 0; I < P.Idx.size(); ++I) {
      if (P.Idx[I].is<ir::IntLit>() && I + 1 < P.Idx.size())
        continue;
      const std::string IrName = freshName(fmt::format("{}_i{}", Name, I), Used);
      Out.push_back({ir::Let{IrName, P.Idx[I]}, ir::NodeLoc(L)});
      P.Idx[I] = ir::makeVar(IrName, ir::VarKind::Let, L);
    }
    return P;
  }

  void lowerIf(const clang::IfStmt *If, ir::Block &Out) {
    if (If->getInit())
      lowerStmt(If->getInit(), Out);
    if (const clang::VarDecl *CV = If->getConditionVariable())
      declareLocal(CV, Out);
    if (If->isConstexpr()) { // only the taken branch was instantiated
      std::optional<std::int64_t> C = evalInt(Ctx, If->getCond());
      lowerStmt(C && *C ? If->getThen() : If->getElse(), Out);
      return;
    }
    LVal C = lowerValue(If->getCond(), Out);
    if (!C.Exact) {
      note(loc(If->getCond()),
           fmt::format("condition not understood ({}): accesses under it are figured as if every lane "
                       "took each branch, so they give notes, not warnings",
                       C.Why),
           If->getBeginLoc());
      ++Uncertain;
      lowerStmt(If->getThen(), Out);
      lowerStmt(If->getElse(), Out);
      --Uncertain;
      return;
    }
    ir::Block Then, Else;
    lowerStmt(If->getThen(), Then);
    lowerStmt(If->getElse(), Else);
    if (Then.empty() && Else.empty())
      return;
    Out.push_back({ir::If{C.E, std::move(Then), std::move(Else)}, ir::NodeLoc(loc(If))});
  }

  /// Whether S contains break, continue or return (not in nested loops for
  /// the first two).
  static bool hasJump(const clang::Stmt *S, bool InLoop = false) {
    if (!S)
      return false;
    if (llvm::isa<clang::ReturnStmt>(S))
      return true;
    if (!InLoop && (llvm::isa<clang::BreakStmt>(S) || llvm::isa<clang::ContinueStmt>(S)))
      return true;
    const bool Loop = llvm::isa<clang::ForStmt>(S) || llvm::isa<clang::WhileStmt>(S) ||
                      llvm::isa<clang::DoStmt>(S);
    for (const clang::Stmt *C : S->children())
      if (hasJump(C, InLoop || Loop))
        return true;
    return false;
  }

  /// The declaration an expression names directly, ignoring casts.
  static const clang::ValueDecl *namedDecl(const clang::Expr *E) {
    if (!E)
      return nullptr;
    const auto *R = llvm::dyn_cast<clang::DeclRefExpr>(E->IgnoreParenImpCasts());
    return R ? R->getDecl() : nullptr;
  }

  /// Every local the statement assigns.
  static std::set<const clang::ValueDecl *> assignedIn(const clang::Stmt *S) {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      std::set<const clang::ValueDecl *> Out;
      bool VisitBinaryOperator(clang::BinaryOperator *B) {
        if (B->isAssignmentOp())
          if (const clang::ValueDecl *D = namedDecl(B->getLHS()))
            Out.insert(D);
        return true;
      }
      bool VisitUnaryOperator(clang::UnaryOperator *U) {
        if (U->isIncrementDecrementOp() || U->getOpcode() == clang::UO_AddrOf)
          if (const clang::ValueDecl *D = namedDecl(U->getSubExpr()))
            Out.insert(D);
        return true;
      }
    } F;
    F.TraverseStmt(const_cast<clang::Stmt *>(S));
    return F.Out;
  }

  /// A loop the lowering cannot express: its body once, with every local it
  /// changes unknown from the start.
  void lowerOpaqueLoop(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                       const std::string &What, ir::Block &Out) {
    const std::set<const clang::ValueDecl *> Changed = assignedIn(Loop);
    for (const clang::ValueDecl *D : Changed) {
      const std::string Why = fmt::format("'{}' changes in {} the lint cannot follow", D->getName().str(), What);
      if (auto It = Locals.find(D); It != Locals.end()) {
        It->second.Exact = false;
        It->second.Why = Why;
        It->second.WhyLoc = loc(Loop);
      }
      if (Ptrs.erase(D))
        BadPtrs[D] = Why;
    }
    const bool Jumps = hasJump(Body);
    note(loc(Loop), fmt::format("{} not analyzable as a counted loop: its body is analyzed for one "
                                "iteration{}",
                                What, Jumps ? ", as if every lane ran it (it may exit early)" : ""),
         Loop->getBeginLoc());
    if (Cond) {
      LVal C = lowerValue(Cond, Out);
      (void)C;
    }
    if (Jumps)
      ++Uncertain;
    lowerStmt(Body, Out);
    if (Jumps)
      --Uncertain;
  }

  void lowerFor(const clang::ForStmt *F, ir::Block &Out) {
    const clang::ValueDecl *Var = nullptr;
    const clang::Expr *Begin = nullptr;
    if (const auto *DS = llvm::dyn_cast_or_null<clang::DeclStmt>(F->getInit());
        DS && DS->isSingleDecl()) {
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(DS->getSingleDecl());
          V && V->getInit() && isIntegral(V->getType())) {
        Var = V;
        Begin = V->getInit();
      }
    } else if (const auto *A = llvm::dyn_cast_or_null<clang::BinaryOperator>(F->getInit());
               A && A->getOpcode() == clang::BO_Assign && namedDecl(A->getLHS()) &&
               Locals.count(namedDecl(A->getLHS()))) {
      Var = namedDecl(A->getLHS());
      Begin = A->getRHS();
    }
    std::optional<std::int64_t> Step;
    if (const auto *U = llvm::dyn_cast_or_null<clang::UnaryOperator>(F->getInc());
        U && U->isIncrementDecrementOp() && namedDecl(U->getSubExpr()) == Var)
      Step = U->isIncrementOp() ? 1 : -1;
    else if (const auto *C = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(F->getInc());
             C && namedDecl(C->getLHS()) == Var &&
             (C->getOpcode() == clang::BO_AddAssign || C->getOpcode() == clang::BO_SubAssign)) {
      if (std::optional<std::int64_t> S = evalInt(Ctx, C->getRHS()); S && *S != 0)
        Step = C->getOpcode() == clang::BO_AddAssign ? *S : -*S;
    }
    const auto *Cmp = llvm::dyn_cast_or_null<clang::BinaryOperator>(
        F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
    const std::set<const clang::ValueDecl *> Changed = assignedIn(F->getBody());
    const bool Simple = Var && Begin && Cmp && Cmp->isComparisonOp() && !hasJump(F->getBody()) &&
                        !Changed.count(Var);
    if (Simple && Step && namedDecl(Cmp->getLHS()) == Var) {
      const clang::BinaryOperatorKind Op = Cmp->getOpcode();
      const bool Up = *Step > 0;
      const bool Fits = (Up && (Op == clang::BO_LT || Op == clang::BO_LE || (Op == clang::BO_NE && *Step == 1))) ||
                        (!Up && (Op == clang::BO_GT || Op == clang::BO_GE || (Op == clang::BO_NE && *Step == -1)));
      LVal B = lowerValue(Begin, Out);
      LVal E = Fits ? lowerValue(Cmp->getRHS(), Out) : inexact("", {});
      if (Fits && B.Exact && E.Exact) {
        Expr End = E.E;
        if (Op == clang::BO_LE)
          End = binary(BinaryOp::Add, End, ir::makeInt(1), loc(Cmp));
        else if (Op == clang::BO_GE)
          End = binary(BinaryOp::Sub, End, ir::makeInt(1), loc(Cmp));
        const std::string IrName = freshName(Var->getName().str(), Used);
        const std::optional<LocalInfo> Saved =
            Locals.count(Var) ? std::optional<LocalInfo>(Locals[Var]) : std::nullopt;
        Locals[Var] = {IrName, ir::VarKind::Loop, true, false, {}, {}};
        ir::Block Body;
        lowerStmt(F->getBody(), Body);
        ir::For For;
        For.Var = IrName;
        For.Begin = B.E;
        For.End = End;
        if (*Step != 1)
          For.Step = ir::makeInt(*Step, loc(F->getInc()));
        For.Body = std::move(Body);
        Out.push_back({std::move(For), ir::NodeLoc(loc(F))});
        if (Saved) { // an outer variable: its value after the loop is not followed
          Locals[Var] = *Saved;
          Locals[Var].Exact = false;
          Locals[Var].Why = fmt::format("'{}' after the loop at line {}", Var->getName().str(), loc(F).Line);
        }
        return;
      }
    }
    if (Simple && tryUnroll(F, Var, Begin, Out))
      return;
    if (F->getInit())
      lowerStmt(F->getInit(), Out);
    lowerOpaqueLoop(F, F->getCond(), F->getBody(), "a for loop", Out);
    if (F->getInc()) {
      ir::Block Dropped; // the increment's value is unknown anyway
      lowerEffect(F->getInc(), Dropped);
    }
  }

  /// A loop whose trip values the lint can compute (`for (h = 128; h > 0;
  /// h >>= 1)`), at most 64 trips: unrolled.
  bool tryUnroll(const clang::ForStmt *F, const clang::ValueDecl *Var, const clang::Expr *Begin,
                 ir::Block &Out) {
    std::optional<std::int64_t> V = evalInt(Ctx, Begin);
    if (!V) { // blockDim.x / 2: constant once the launch is known
      ir::Block Scratch;
      LVal B = lowerValue(Begin, Scratch);
      if (const auto *I = B.Exact && Scratch.empty() ? B.E.as<ir::IntLit>() : nullptr)
        V = I->Value;
    }
    if (!V || !F->getInc())
      return false;
    // Evaluate the condition and increment with Var bound, through the IR.
    const std::string Probe = "__probe";
    const std::optional<LocalInfo> Saved =
        Locals.count(Var) ? std::optional<LocalInfo>(Locals[Var]) : std::nullopt;
    Locals[Var] = {Probe, ir::VarKind::Let, true, false, {}, {}};
    ir::Block Scratch;
    LVal Cond = lowerValue(F->getCond(), Scratch);
    std::optional<Expr> Next;
    const clang::Expr *Inc = F->getInc()->IgnoreParens();
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Inc); U && U->isIncrementDecrementOp())
      Next = binary(U->isIncrementOp() ? BinaryOp::Add : BinaryOp::Sub, ir::makeVar(Probe, ir::VarKind::Let),
                    ir::makeInt(1));
    else if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(Inc); B && B->isAssignmentOp() &&
                                                                        namedDecl(B->getLHS()) == Var) {
      LVal R = lowerValue(B->getRHS(), Scratch);
      if (R.Exact) {
        if (B->getOpcode() == clang::BO_Assign)
          Next = R.E;
        else if (std::optional<BinaryOp> Op = binaryOp(clang::BinaryOperator::getOpForCompoundAssignment(B->getOpcode())))
          Next = binary(*Op, ir::makeVar(Probe, ir::VarKind::Let), R.E);
      }
    }
    if (Saved)
      Locals[Var] = *Saved;
    else
      Locals.erase(Var);
    if (!Cond.Exact || !Next || !Scratch.empty())
      return false;
    std::vector<std::int64_t> Values;
    std::int64_t Cur = *V;
    ir::EvalHooks H;
    H.Var = [&](const ir::VarRef &R) -> std::optional<std::int64_t> {
      if (R.Name == Probe)
        return Cur;
      return std::nullopt;
    };
    for (int Trip = 0;; ++Trip) {
      const ir::EvalResult C = ir::evaluate(Cond.E, H);
      if (!C.ok() || Trip > 64)
        return false;
      if (!C.Value)
        break;
      Values.push_back(Cur);
      const ir::EvalResult N = ir::evaluate(*Next, H);
      if (!N.ok())
        return false;
      Cur = N.Value;
    }
    const std::string IrName = freshName(Var->getName().str(), Used);
    Out.push_back({ir::Let{IrName, ir::makeInt(Values.empty() ? Cur : Values.front())}, ir::NodeLoc(loc(F))});
    Locals[Var] = {IrName, ir::VarKind::Let, true, false, {}, {}};
    for (std::size_t I = 0; I < Values.size(); ++I) {
      if (I > 0)
        Out.push_back({ir::Assign{ir::VarRef{IrName, ir::VarKind::Let}, ir::makeInt(Values[I])},
                       ir::NodeLoc(loc(F->getInc()))});
      lowerStmt(F->getBody(), Out);
    }
    if (Saved) {
      Locals[Var] = *Saved;
      Locals[Var].Exact = false;
      Locals[Var].Why = fmt::format("'{}' after the loop at line {}", Var->getName().str(), loc(F).Line);
    }
    return true;
  }

  //===-- Effects ---------------------------------------------------------===//

  /// An expression evaluated for its effects: assignments, atomics, calls,
  /// barriers; loads it makes are kept as sites.
  void lowerEffect(const clang::Expr *E, ir::Block &Out) {
    E = strip(E);
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E)) {
      if (B->isAssignmentOp())
        return lowerAssign(B, Out);
      if (B->getOpcode() == clang::BO_Comma) {
        lowerEffect(B->getLHS(), Out);
        return lowerEffect(B->getRHS(), Out);
      }
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E); U && U->isIncrementDecrementOp())
      return lowerIncDec(U, Out);
    if (const auto *Op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(E); Op && lowerOperatorAssign(Op, Out))
      return;
    if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E)) {
      LVal V = lowerCall(C, Out);
      keepReads(V, loc(C), Out);
      return;
    }
    LVal V = lowerValue(E, Out);
    keepReads(V, loc(E), Out);
  }

  /// Reads of a value nobody stores still happen: a local holds them.
  void keepReads(const LVal &V, const SourceLoc &L, ir::Block &Out) {
    bool AnyRead = false;
    for (const Expr &D : V.Data)
      AnyRead |= D.is<ir::ArrayRead>();
    if (!AnyRead)
      return;
    const std::string Name = freshName(fmt::format("v{}", TempCount++), Used);
    Out.push_back({ir::Let{Name, V.materialize()}, ir::NodeLoc(L)});
  }

  void lowerAssign(const clang::BinaryOperator *B, ir::Block &Out) {
    lowerAssign(B->getLHS(), B->getRHS(), B->getOpcode(), B, Out);
  }

  /// `a = b` and `a op= b` of a class type (float4 and kin), which Clang
  /// writes as operator calls.
  bool lowerOperatorAssign(const clang::CXXOperatorCallExpr *C, ir::Block &Out) {
    static const std::map<clang::OverloadedOperatorKind, clang::BinaryOperatorKind> Ops = {
        {clang::OO_Equal, clang::BO_Assign},       {clang::OO_PlusEqual, clang::BO_AddAssign},
        {clang::OO_MinusEqual, clang::BO_SubAssign}, {clang::OO_StarEqual, clang::BO_MulAssign},
        {clang::OO_SlashEqual, clang::BO_DivAssign}};
    const auto It = Ops.find(C->getOperator());
    if (It == Ops.end() || C->getNumArgs() != 2)
      return false;
    lowerAssign(C->getArg(0), C->getArg(1), It->second, C, Out);
    return true;
  }

  void lowerAssign(const clang::Expr *LhsExpr, const clang::Expr *RhsExpr, clang::BinaryOperatorKind Opcode,
                   const clang::Expr *B, ir::Block &Out) {
    const clang::Expr *Lhs = LhsExpr->IgnoreParens();
    LVal Rhs = lowerValue(RhsExpr, Out);
    std::optional<BinaryOp> Op;
    if (Opcode != clang::BO_Assign)
      Op = binaryOp(clang::BinaryOperator::getOpForCompoundAssignment(Opcode));
    const bool Compound = Opcode != clang::BO_Assign;
    if (const clang::ValueDecl *D = namedDecl(Lhs)) {
      if (const auto *BO = llvm::dyn_cast<clang::BinaryOperator>(B);
          BO && (Ptrs.count(D) || BadPtrs.count(D) || D->getType()->isPointerType()))
        return assignPointer(D, BO, Out);
      if (auto It = Locals.find(D); It != Locals.end()) {
        LVal New = Rhs;
        if (Compound) {
          New = local(It->second, loc(Lhs));
          combineInto(New, Rhs, Op, isIntegral(D->getType()), loc(B));
        }
        if (!isIntegral(D->getType()) && New.Exact)
          New = inexact(fmt::format("'{}' is not an integer", D->getName().str()), loc(Lhs), New.Data);
        setLocal(It->second, New, loc(B), Out);
        return;
      }
    }
    std::optional<Expr> Target = access(Lhs, Out, true);
    if (!Target) {
      keepReads(Rhs, loc(B), Out);
      return;
    }
    LVal New = Rhs;
    if (Compound) {
      New = exact(*Target); // the read of the old value
      New.Data.push_back(*Target);
      if (!isIntegral(Lhs->getType()))
        New = inexact("a floating-point element", loc(Lhs), New.Data);
      combineInto(New, Rhs, Op, isIntegral(Lhs->getType()), loc(B));
    }
    Out.push_back({ir::Assign{*Target->as<ir::ArrayRead>(), New.materialize()}, ir::NodeLoc(loc(B))});
  }

  void setLocal(LocalInfo &LI, const LVal &V, const SourceLoc &L, ir::Block &Out) {
    if (LI.Kind != ir::VarKind::Let) { // a loop variable or parameter written
      LI.Exact = false;
      LI.Why = "a loop variable changed in its body";
      return;
    }
    Out.push_back({ir::Assign{ir::VarRef{LI.IrName, ir::VarKind::Let}, V.materialize()}, ir::NodeLoc(L)});
    if (!V.Exact && LI.Exact) {
      LI.Why = V.Why;
      LI.WhyLoc = V.WhyLoc;
    }
    LI.Exact = LI.Exact && V.Exact;
    LI.FromReads = LI.FromReads || !V.Data.empty();
  }

  void combineInto(LVal &Acc, const LVal &Rhs, std::optional<BinaryOp> Op, bool Integral,
                   const SourceLoc &L) {
    if (Acc.Exact && Rhs.Exact && Op && Integral) {
      Acc.E = binary(*Op, Acc.E, Rhs.E, L);
      Acc.Data.insert(Acc.Data.end(), Rhs.Data.begin(), Rhs.Data.end());
      return;
    }
    absorb(Acc, Rhs);
    if (Acc.Exact)
      Acc = inexact(Op ? "a floating-point value" : "an operator the lint does not model", L, Acc.Data);
  }

  void lowerIncDec(const clang::UnaryOperator *U, ir::Block &Out) {
    const clang::Expr *Sub = U->getSubExpr()->IgnoreParens();
    const BinaryOp Op = U->isIncrementOp() ? BinaryOp::Add : BinaryOp::Sub;
    if (const clang::ValueDecl *D = namedDecl(Sub)) {
      if (Ptrs.count(D)) {
        PtrVal P = Ptrs[D];
        P.Idx.back() = binary(Op, P.Idx.back(), ir::makeInt(1));
        return updatePointer(D, P, loc(U), Out);
      }
      if (auto It = Locals.find(D); It != Locals.end()) {
        LVal New = local(It->second, loc(Sub));
        combineInto(New, exact(ir::makeInt(1)), Op, isIntegral(D->getType()), loc(U));
        setLocal(It->second, New, loc(U), Out);
        return;
      }
    }
    if (std::optional<Expr> T = access(Sub, Out, true)) {
      LVal Old = exact(*T);
      Old.Data.push_back(*T);
      combineInto(Old, exact(ir::makeInt(1)), Op, isIntegral(Sub->getType()), loc(U));
      Out.push_back({ir::Assign{*T->as<ir::ArrayRead>(), Old.materialize()}, ir::NodeLoc(loc(U))});
    }
  }

  void assignPointer(const clang::ValueDecl *D, const clang::BinaryOperator *B, ir::Block &Out) {
    std::string Why;
    std::optional<PtrVal> P;
    if (B->getOpcode() == clang::BO_Assign) {
      P = lowerPointer(B->getRHS(), Out, Why);
    } else if (Ptrs.count(D) &&
               (B->getOpcode() == clang::BO_AddAssign || B->getOpcode() == clang::BO_SubAssign)) {
      LVal R = lowerValue(B->getRHS(), Out);
      if (R.Exact) {
        P = Ptrs[D];
        P->Idx.back() = binary(B->getOpcode() == clang::BO_AddAssign ? BinaryOp::Add : BinaryOp::Sub,
                               P->Idx.back(), R.E, loc(B));
        P->Direct = false;
      } else {
        Why = R.Why;
      }
    }
    if (!P) {
      Ptrs.erase(D);
      BadPtrs[D] = Why.empty() ? fmt::format("'{}' is reassigned in a way the lint cannot follow",
                                             D->getName().str())
                               : Why;
      return;
    }
    updatePointer(D, *P, loc(B), Out);
  }

  void updatePointer(const clang::ValueDecl *D, PtrVal P, const SourceLoc &L, ir::Block &Out) {
    auto It = Ptrs.find(D);
    if (It == Ptrs.end() || It->second.Array != P.Array || It->second.Idx.size() != P.Idx.size()) {
      BadPtrs.erase(D);
      Ptrs[D] = pointerLocal(D->getName().str(), P, L, Out);
      return;
    }
    for (std::size_t I = 0; I < P.Idx.size(); ++I) {
      const auto *V = It->second.Idx[I].as<ir::VarRef>();
      if (V)
        Out.push_back({ir::Assign{*V, P.Idx[I]}, ir::NodeLoc(L)});
      else if (!(It->second.Idx[I] == P.Idx[I])) { // a constant index that moved
        Ptrs[D] = pointerLocal(D->getName().str(), P, L, Out);
        return;
      }
    }
    It->second.Direct = false;
  }

  //===-- Values ----------------------------------------------------------===//

  static std::optional<BinaryOp> binaryOp(clang::BinaryOperatorKind K) {
    switch (K) {
    case clang::BO_Add: return BinaryOp::Add;
    case clang::BO_Sub: return BinaryOp::Sub;
    case clang::BO_Mul: return BinaryOp::Mul;
    case clang::BO_Div: return BinaryOp::Div;
    case clang::BO_Rem: return BinaryOp::Mod;
    case clang::BO_Shl: return BinaryOp::Shl;
    case clang::BO_Shr: return BinaryOp::Shr;
    case clang::BO_And: return BinaryOp::BitAnd;
    case clang::BO_Or: return BinaryOp::BitOr;
    case clang::BO_Xor: return BinaryOp::BitXor;
    case clang::BO_LT: return BinaryOp::Lt;
    case clang::BO_LE: return BinaryOp::Le;
    case clang::BO_GT: return BinaryOp::Gt;
    case clang::BO_GE: return BinaryOp::Ge;
    case clang::BO_EQ: return BinaryOp::Eq;
    case clang::BO_NE: return BinaryOp::Ne;
    case clang::BO_LAnd: return BinaryOp::LogAnd;
    case clang::BO_LOr: return BinaryOp::LogOr;
    default: return std::nullopt;
    }
  }

  LVal local(const LocalInfo &LI, const SourceLoc &L) {
    Expr V = ir::makeVar(LI.IrName, LI.Kind, L);
    if (LI.Exact) {
      LVal R = exact(V);
      if (LI.FromReads)
        R.Data.push_back(V);
      return R;
    }
    return inexact(LI.Why, LI.WhyLoc, LI.FromReads ? std::vector<Expr>{V} : std::vector<Expr>{});
  }

  LVal lowerValue(const clang::Expr *E, ir::Block &Out) {
    if (!E)
      return inexact("a missing expression", {});
    const SourceLoc L = loc(E);
    if (std::optional<std::int64_t> V = evalInt(Ctx, E))
      return exact(ir::makeInt(*V, L));
    E = E->IgnoreParens();
    if (const auto B = builtinMember(E))
      return builtinValue(B->first, B->second, L);
    if (const auto *C = llvm::dyn_cast<clang::CastExpr>(E))
      return lowerCast(C, Out);
    if (llvm::isa<clang::MaterializeTemporaryExpr, clang::ExprWithCleanups, clang::CXXBindTemporaryExpr,
                  clang::ConstantExpr>(E))
      return lowerValue(strip(E), Out);
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      if (auto It = Locals.find(D->getDecl()); It != Locals.end())
        return local(It->second, L);
      return inexact(fmt::format("'{}' is not a value the lint follows", D->getDecl()->getName().str()), L);
    }
    if (llvm::isa<clang::ArraySubscriptExpr>(E) ||
        (llvm::isa<clang::UnaryOperator>(E) &&
         llvm::cast<clang::UnaryOperator>(E)->getOpcode() == clang::UO_Deref))
      return load(E, Out);
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
      // A component of a vector element (a[i].x) loads the element; of a
      // local, is that local's value.
      if (isMemoryLValue(M->getBase()))
        return load(M->getBase(), Out, /*Component=*/true);
      LVal V = M->isArrow() ? inexact("a member through a pointer", L) : lowerValue(M->getBase(), Out);
      if (V.Exact || V.Why.empty())
        V = inexact(fmt::format("member '{}'", M->getMemberDecl()->getName().str()), L, V.Data);
      return V;
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E))
      return lowerUnary(U, Out);
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E))
      return lowerBinary(B, Out);
    if (const auto *C = llvm::dyn_cast<clang::ConditionalOperator>(E))
      return lowerConditional(C, Out);
    if (const auto *Op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(E); Op && lowerOperatorAssign(Op, Out))
      return lowerValue(Op->getArg(0), Out);
    if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E))
      return lowerCall(C, Out);
    if (llvm::isa<clang::FloatingLiteral>(E))
      return inexact("a floating-point value", L);
    if (llvm::isa<clang::RecoveryExpr>(E))
      return inexact("code Clang could not parse", L);
    // Constructors, initializer lists and the like: their parts' reads.
    LVal V = inexact(fmt::format("a '{}' expression", E->getStmtClassName()), L);
    for (const clang::Stmt *Child : E->children())
      if (const auto *CE = llvm::dyn_cast_or_null<clang::Expr>(Child))
        absorb(V, lowerValue(CE, Out));
    return V;
  }

  LVal builtinValue(const std::string &Var, int Dim, const SourceLoc &L) {
    static const ir::Builtin Thread[] = {ir::Builtin::Tx, ir::Builtin::Ty, ir::Builtin::Tz};
    static const ir::Builtin Block[] = {ir::Builtin::Bx, ir::Builtin::By, ir::Builtin::Bz};
    if (Var == "threadIdx")
      return exact(node(ir::BuiltinRef{Thread[Dim]}, L));
    if (Var == "blockIdx")
      return exact(node(ir::BuiltinRef{Block[Dim]}, L));
    if (Var == "blockDim")
      return exact(ir::makeInt(BlockDim[static_cast<std::size_t>(Dim)], L));
    Expr G = Grid[static_cast<std::size_t>(Dim)];
    G.Loc = ir::NodeLoc(L);
    return exact(G);
  }

  LVal lowerCast(const clang::CastExpr *C, ir::Block &Out) {
    const clang::Expr *Sub = C->getSubExpr();
    if (C->getCastKind() == clang::CK_LValueToRValue) {
      if (isMemoryLValue(Sub))
        return load(Sub, Out);
      return lowerValue(Sub, Out);
    }
    if (C->getType()->isPointerType() || Sub->getType()->isPointerType()) {
      // An array escaping (to a call, say): padding it is no longer safe.
      std::string Why;
      ir::Block Scratch;
      if (std::optional<PtrVal> P = lowerPointer(C, Scratch, Why))
        markUnderstood(P->Array, false);
      return inexact("a pointer used as a value", loc(C));
    }
    LVal V = lowerValue(Sub, Out);
    const bool FromInt = isIntegral(Sub->getType()), ToInt = isIntegral(C->getType());
    if (FromInt && ToInt) {
      if (C->getCastKind() == clang::CK_IntegralToBoolean && V.Exact)
        V.E = binary(BinaryOp::Ne, V.E, ir::makeInt(0), loc(C));
      return V;
    }
    if (V.Exact || V.Why.empty())
      return inexact(ToInt ? "a value converted from floating point" : "a floating-point value", loc(C), V.Data);
    return V;
  }

  LVal lowerUnary(const clang::UnaryOperator *U, ir::Block &Out) {
    const SourceLoc L = loc(U);
    switch (U->getOpcode()) {
    case clang::UO_Plus:
      return lowerValue(U->getSubExpr(), Out);
    case clang::UO_Minus:
    case clang::UO_Not:
    case clang::UO_LNot: {
      LVal V = lowerValue(U->getSubExpr(), Out);
      if (!V.Exact || !isIntegral(U->getType()) || !isIntegral(U->getSubExpr()->getType()))
        return V.Exact ? inexact("a floating-point value", L, V.Data) : V;
      const ir::UnaryOp Op = U->getOpcode() == clang::UO_Minus ? ir::UnaryOp::Neg
                             : U->getOpcode() == clang::UO_Not ? ir::UnaryOp::BitNot
                                                               : ir::UnaryOp::Not;
      V.E = node(ir::Unary{Op, V.E}, L);
      return V;
    }
    case clang::UO_PreInc:
    case clang::UO_PreDec:
      lowerIncDec(U, Out);
      return lowerValue(U->getSubExpr(), Out);
    case clang::UO_PostInc:
    case clang::UO_PostDec: {
      LVal Old = lowerValue(U->getSubExpr(), Out);
      const std::string Name = freshName(fmt::format("v{}", TempCount++), Used);
      Out.push_back({ir::Let{Name, Old.materialize()}, ir::NodeLoc(L)});
      lowerIncDec(U, Out);
      LocalInfo LI{Name, ir::VarKind::Let, Old.Exact, !Old.Data.empty(), Old.Why, Old.WhyLoc};
      return local(LI, L);
    }
    default:
      return inexact(fmt::format("operator '{}'", clang::UnaryOperator::getOpcodeStr(U->getOpcode()).str()), L);
    }
  }

  LVal lowerBinary(const clang::BinaryOperator *B, ir::Block &Out) {
    const SourceLoc L = loc(B->getOperatorLoc());
    if (B->isAssignmentOp()) {
      lowerAssign(B, Out);
      return lowerValue(B->getLHS(), Out);
    }
    if (B->getOpcode() == clang::BO_Comma) {
      lowerEffect(B->getLHS(), Out);
      return lowerValue(B->getRHS(), Out);
    }
    if (B->getLHS()->getType()->isPointerType() || B->getRHS()->getType()->isPointerType())
      return inexact("pointer arithmetic used as a value", L);
    LVal A = lowerValue(B->getLHS(), Out);
    LVal R = lowerValue(B->getRHS(), Out);
    std::optional<BinaryOp> Op = binaryOp(B->getOpcode());
    const bool Integral = isIntegral(B->getLHS()->getType()) && isIntegral(B->getRHS()->getType());
    combineInto(A, R, Op, Integral, L);
    return A;
  }

  /// c ? a : b through a local set in each branch, so that each side's
  /// reads happen only for the lanes that take it.
  LVal lowerConditional(const clang::ConditionalOperator *C, ir::Block &Out) {
    const SourceLoc L = loc(C);
    LVal Cond = lowerValue(C->getCond(), Out);
    ir::Block Then, Else;
    LVal A = lowerValue(C->getTrueExpr(), Then);
    LVal B = lowerValue(C->getFalseExpr(), Else);
    if (!Cond.Exact) {
      ++Uncertain; // reads on both sides, each for every lane
      LVal V = inexact(Cond.Why, Cond.WhyLoc, Cond.Data);
      absorb(V, A);
      absorb(V, B);
      --Uncertain;
      for (ir::Stmt &S : Then)
        Out.push_back(std::move(S));
      for (ir::Stmt &S : Else)
        Out.push_back(std::move(S));
      keepReads(V, L, Out);
      return V;
    }
    const std::string Name = freshName(fmt::format("v{}", TempCount++), Used);
    Out.push_back({ir::Let{Name, ir::makeInt(0, L)}, ir::NodeLoc(L)});
    Then.push_back({ir::Assign{ir::VarRef{Name, ir::VarKind::Let}, A.materialize()}, ir::NodeLoc(L)});
    Else.push_back({ir::Assign{ir::VarRef{Name, ir::VarKind::Let}, B.materialize()}, ir::NodeLoc(L)});
    Out.push_back({ir::If{Cond.E, std::move(Then), std::move(Else)}, ir::NodeLoc(L)});
    LVal R = A;
    absorb(R, B);
    LocalInfo LI{Name, ir::VarKind::Let, R.Exact && isIntegral(C->getType()), !R.Data.empty(),
                 R.Exact ? "a floating-point value" : R.Why, R.Exact ? L : R.WhyLoc};
    return local(LI, L);
  }

  //===-- Calls -------------------------------------------------------------===//

  LVal lowerCall(const clang::CallExpr *C, ir::Block &Out) {
    const SourceLoc L = loc(C);
    const clang::FunctionDecl *F = C->getDirectCallee();
    const std::string Name = F && F->getIdentifier() ? F->getName().str() : "";
    if (Name == "__syncthreads" || Name == "__syncthreads_count" || Name == "__syncthreads_and" ||
        Name == "__syncthreads_or" || Name == "__barrier_sync") {
      LVal V = inexact(fmt::format("the value of '{}'", Name), L);
      for (const clang::Expr *A : C->arguments())
        absorb(V, lowerValue(A, Out));
      Out.push_back({ir::Sync{}, ir::NodeLoc(L)});
      return V;
    }
    if ((Name == "min" || Name == "max" || Name == "umin" || Name == "umax" || Name == "llmin" ||
         Name == "llmax" || Name == "__mul24" || Name == "__umul24") &&
        C->getNumArgs() == 2 && isIntegral(C->getType())) {
      LVal A = lowerValue(C->getArg(0), Out), B = lowerValue(C->getArg(1), Out);
      if (A.Exact && B.Exact) {
        LVal R = A;
        R.Data.insert(R.Data.end(), B.Data.begin(), B.Data.end());
        if (Name.find("mul24") != std::string::npos)
          R.E = binary(BinaryOp::Mul, A.E, B.E, L);
        else
          R.E = node(ir::Call{Name.find("min") != std::string::npos ? ir::Function::Min : ir::Function::Max,
                              {A.E, B.E}},
                     L);
        return R;
      }
    }
    if (Name.rfind("__ld", 0) == 0 && C->getNumArgs() == 1) // __ldg(&a[i]) and kin
      return loadThrough(C->getArg(0), L, Out);
    if (Name.rfind("atomic", 0) == 0 && C->getNumArgs() >= 1) {
      LVal V = inexact(fmt::format("the value of '{}'", Name), L);
      for (unsigned I = 1; I < C->getNumArgs(); ++I)
        absorb(V, lowerValue(C->getArg(I), Out));
      std::string Why;
      if (std::optional<PtrVal> P = lowerPointer(C->getArg(0), Out, Why)) {
        if (std::optional<Expr> T = accessAt(*P, L, C->getBeginLoc()))
          Out.push_back({ir::Assign{*T->as<ir::ArrayRead>(), V.materialize()}, ir::NodeLoc(L)});
      } else {
        unknownAccess(L, Why, C->getBeginLoc());
      }
      return inexact(V.Why, L); // the old value: data we do not know
    }
    if (F) {
      const clang::FunctionDecl *Def = nullptr;
      if (F->hasBody(Def) && Def && (Def->hasAttr<clang::CUDADeviceAttr>() || Def->isConstexpr()) &&
          !Def->isVariadic())
        return inlineCall(C, Def, Out);
    }
    LVal V = inexact(Name.empty() ? std::string("an indirect call") : fmt::format("a call to '{}'", Name), L);
    for (const clang::Expr *A : C->arguments())
      absorb(V, lowerValue(A, Out));
    return V;
  }

  /// A __device__ function inlined: parameters bound to locals (pointers to
  /// what the arguments point to), the body lowered in place, the value of
  /// its one final `return` returned.
  LVal inlineCall(const clang::CallExpr *C, const clang::FunctionDecl *Def, ir::Block &Out) {
    const SourceLoc L = loc(C);
    if (InlineDepth >= 16 ||
        std::find(InlineStack.begin(), InlineStack.end(), Def) != InlineStack.end())
      return inexact(fmt::format("a recursive call to '{}'", Def->getName().str()), L);
    const auto *Body = llvm::dyn_cast_or_null<clang::CompoundStmt>(Def->getBody());
    if (!Body)
      return inexact("a call without a body", L);
    std::vector<std::pair<const clang::ValueDecl *, std::optional<LocalInfo>>> SavedLocals;
    for (unsigned I = 0; I < Def->getNumParams() && I < C->getNumArgs(); ++I) {
      const clang::ParmVarDecl *P = Def->getParamDecl(I);
      const clang::QualType T = P->getType().getCanonicalType();
      SavedLocals.push_back({P, Locals.count(P) ? std::optional<LocalInfo>(Locals[P]) : std::nullopt});
      if (T->isPointerType()) {
        std::string Why;
        if (std::optional<PtrVal> Pv = lowerPointer(C->getArg(I), Out, Why)) {
          Ptrs[P] = *Pv;
          BadPtrs.erase(P);
        } else {
          Ptrs.erase(P);
          BadPtrs[P] = Why;
        }
        continue;
      }
      if (T->isReferenceType()) {
        BadPtrs[P] = fmt::format("'{}' is a reference parameter", P->getName().str());
        continue;
      }
      LVal A = lowerValue(C->getArg(I), Out);
      if (!isIntegral(T) && A.Exact)
        A = inexact(fmt::format("'{}' is not an integer", P->getName().str()), loc(C->getArg(I)), A.Data);
      const std::string IrName = freshName(P->getName().str(), Used);
      Out.push_back({ir::Let{IrName, A.materialize()}, ir::NodeLoc(loc(C->getArg(I)))});
      Locals[P] = {IrName, ir::VarKind::Let, A.Exact, !A.Data.empty(), A.Why, A.WhyLoc};
    }
    ++InlineDepth;
    InlineStack.push_back(Def);
    LVal Result = inexact(fmt::format("the value of '{}'", Def->getName().str()), L);
    const auto Stmts = llvm::ArrayRef<clang::Stmt *>(Body->body_begin(), Body->body_end());
    std::size_t N = Stmts.size();
    const clang::ReturnStmt *Last = N ? llvm::dyn_cast<clang::ReturnStmt>(Stmts[N - 1]) : nullptr;
    if (Last)
      --N;
    bool OtherReturn = false;
    for (std::size_t I = 0; I < N; ++I)
      OtherReturn |= hasJump(Stmts[I], true);
    if (OtherReturn) {
      note(L, fmt::format("'{}' returns from more than one place: its accesses are figured as if every "
                          "lane ran all of it",
                          Def->getName().str()),
           C->getBeginLoc());
      ++Uncertain;
    }
    lowerStmts(Stmts.take_front(N), Out);
    if (OtherReturn)
      --Uncertain;
    if (Last && Last->getRetValue() && !OtherReturn)
      Result = lowerValue(Last->getRetValue(), Out);
    InlineStack.pop_back();
    --InlineDepth;
    for (auto &[P, Saved] : SavedLocals)
      if (Saved)
        Locals[P] = *Saved;
    return Result;
  }

  //===-- Memory ------------------------------------------------------------===//

  /// Whether E designates an element of shared or global memory (not a
  /// local's register).
  bool isMemoryLValue(const clang::Expr *E) {
    E = E->IgnoreParens();
    if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
      return !isRegisterArray(A->getBase());
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E))
      return U->getOpcode() == clang::UO_Deref;
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E))
      return M->isArrow() || isMemoryLValue(M->getBase());
    return false;
  }

  /// Whether Base (of a subscript) is a local array in registers.
  bool isRegisterArray(const clang::Expr *Base) {
    const clang::Expr *E = Base->IgnoreParenImpCasts();
    while (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
      E = A->getBase()->IgnoreParenImpCasts();
    const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E);
    if (!D)
      return false;
    const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
    return V && V->getType()->isArrayType() && !V->hasAttr<clang::CUDASharedAttr>() &&
           !V->hasAttr<clang::CUDADeviceAttr>() && !V->hasAttr<clang::CUDAConstantAttr>() &&
           V->hasLocalStorage();
  }

  LVal load(const clang::Expr *E, ir::Block &Out, bool Component = false) {
    const SourceLoc L = loc(E);
    if (!isMemoryLValue(E))
      return inexact("an element of a local array", L);
    std::optional<Expr> R = access(E, Out, false);
    if (!R)
      return inexact("memory the lint does not model", L);
    const bool Integral = !Component && isIntegral(E->getType());
    LVal V = Integral ? exact(*R) : inexact("a floating-point element", L);
    V.Data.push_back(*R);
    return V;
  }

  LVal loadThrough(const clang::Expr *Ptr, const SourceLoc &L, ir::Block &Out) {
    std::string Why;
    std::optional<PtrVal> P = lowerPointer(Ptr, Out, Why);
    if (!P) {
      unknownAccess(L, Why, Ptr->getBeginLoc());
      return inexact("memory the lint does not model", L);
    }
    std::optional<Expr> R = accessAt(*P, L, Ptr->getBeginLoc());
    if (!R)
      return inexact("memory the lint does not model", L);
    LVal V = isIntegral(Ptr->getType()->getPointeeType()) ? exact(*R) : inexact("a floating-point element", L);
    V.Data.push_back(*R);
    return V;
  }

  void unknownAccess(const SourceLoc &L, const std::string &Why, clang::SourceLocation CL) {
    note(L, fmt::format("access not analyzed: {}", Why), CL);
  }

  /// The ArrayRead an lvalue designates (a load, or with IsStore a store
  /// target); nullopt, with a note, when it cannot be followed.
  std::optional<Expr> access(const clang::Expr *E, ir::Block &Out, bool IsStore) {
    E = E->IgnoreParens();
    const SourceLoc L = loc(E);
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
      if (M->isArrow()) {
        std::string Why;
        std::optional<PtrVal> P = lowerPointer(M->getBase(), Out, Why);
        if (!P) {
          unknownAccess(L, Why, E->getBeginLoc());
          return std::nullopt;
        }
        return accessAt(*P, L, E->getBeginLoc());
      }
      return access(M->getBase(), Out, IsStore); // a[i].x: the element
    }
    if (!isMemoryLValue(E))
      return std::nullopt; // registers
    std::string Why;
    std::optional<PtrVal> P;
    if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E)) {
      P = lowerPointer(A->getBase(), Out, Why);
      if (P) {
        LVal I = lowerValue(A->getIdx(), Out);
        if (!I.Exact && I.Data.empty()) {
          markUnderstood(P->Array, false);
          unknownAccess(L, fmt::format("the index of '{}' is not understood ({})", sourceName(P->Array), I.Why),
                        E->getBeginLoc());
          return std::nullopt;
        }
        P->Idx.back() = binary(BinaryOp::Add, P->Idx.back(), I.materialize(), L);
      }
    } else if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) {
      P = lowerPointer(U->getSubExpr(), Out, Why);
      if (P)
        P->Direct = false;
    }
    if (!P) {
      unknownAccess(L, Why, E->getBeginLoc());
      return std::nullopt;
    }
    return accessAt(*P, L, E->getBeginLoc());
  }

  /// The element P points to, as an IR read located at L.
  std::optional<Expr> accessAt(const PtrVal &P, const SourceLoc &L, clang::SourceLocation CL) {
    const ArrayInfo &A = Arrays.at(P.Array);
    if (P.Idx.size() != A.Shape.size()) {
      markUnderstood(P.Array, false);
      unknownAccess(L,
                    fmt::format("a pointer into '{}' that is not at an element of its innermost dimension",
                                A.Source),
                    CL);
      return std::nullopt;
    }
    if (!P.Direct)
      markUnderstood(P.Array, false);
    if (Uncertain > 0 || AfterReturn)
      Info.UncertainMask.push_back(L);
    return node(ir::ArrayRead{P.Array, P.Idx}, L);
  }

  /// Where a pointer expression points; nullopt with Why when unknown.
  std::optional<PtrVal> lowerPointer(const clang::Expr *E, ir::Block &Out, std::string &Why) {
    E = E->IgnoreParens();
    const SourceLoc L = loc(E);
    if (const auto *C = llvm::dyn_cast<clang::CastExpr>(E)) {
      const clang::Expr *Sub = C->getSubExpr();
      if (C->getCastKind() == clang::CK_ArrayToPointerDecay) {
        std::optional<PtrVal> P = arrayLValue(Sub, Out, Why);
        if (P)
          P->Idx.push_back(ir::makeInt(0, L));
        return P;
      }
      if (C->getCastKind() == clang::CK_LValueToRValue || !Sub->getType()->isPointerType())
        return C->getCastKind() == clang::CK_LValueToRValue ? lowerPointer(Sub, Out, Why) : failPtr(Why, "an integer cast to a pointer");
      std::optional<PtrVal> P = lowerPointer(Sub, Out, Why);
      if (!P)
        return P;
      return viewAs(*P, C->getType()->getPointeeType(), L, Why);
    }
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      if (auto It = Ptrs.find(D->getDecl()); It != Ptrs.end())
        return It->second;
      if (auto It = BadPtrs.find(D->getDecl()); It != BadPtrs.end())
        return failPtr(Why, It->second);
      return failPtr(Why, fmt::format("'{}' is a pointer the lint does not follow", D->getDecl()->getName().str()));
    }
    if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E);
        B && (B->getOpcode() == clang::BO_Add || B->getOpcode() == clang::BO_Sub)) {
      const bool LhsPtr = B->getLHS()->getType()->isPointerType();
      if (!LhsPtr && B->getOpcode() == clang::BO_Sub)
        return failPtr(Why, "pointer difference");
      std::optional<PtrVal> P = lowerPointer(LhsPtr ? B->getLHS() : B->getRHS(), Out, Why);
      if (!P)
        return P;
      LVal I = lowerValue(LhsPtr ? B->getRHS() : B->getLHS(), Out);
      if (!I.Exact && I.Data.empty())
        return failPtr(Why, fmt::format("an offset not understood ({})", I.Why));
      P->Idx.back() = binary(B->getOpcode() == clang::BO_Add ? BinaryOp::Add : BinaryOp::Sub, P->Idx.back(),
                             I.materialize(), L);
      P->Direct = false;
      return P;
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E); U && U->getOpcode() == clang::UO_AddrOf) {
      const clang::Expr *Sub = U->getSubExpr()->IgnoreParens();
      if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(Sub)) {
        std::optional<PtrVal> P = lowerPointer(A->getBase(), Out, Why);
        if (!P)
          return P;
        LVal I = lowerValue(A->getIdx(), Out);
        if (!I.Exact && I.Data.empty())
          return failPtr(Why, fmt::format("an index not understood ({})", I.Why));
        P->Idx.back() = binary(BinaryOp::Add, P->Idx.back(), I.materialize(), L);
        return P;
      }
      if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(Sub))
        if (const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl()); V && V->hasAttr<clang::CUDASharedAttr>())
          if (std::optional<std::string> A = sharedArray(V); A && !Arrays.at(*A).Shape.empty()) {
            PtrVal P{*A, {}, true};
            for (std::size_t I = 0; I < Arrays.at(*A).Shape.size(); ++I)
              P.Idx.push_back(ir::makeInt(0, L));
            return P;
          }
      return failPtr(Why, "the address of something the lint does not model");
    }
    if (llvm::isa<clang::RecoveryExpr>(E))
      return failPtr(Why, "code Clang could not parse");
    return failPtr(Why, fmt::format("a pointer from a '{}' expression", E->getStmtClassName()));
  }

  static std::optional<PtrVal> failPtr(std::string &Why, std::string Reason) {
    Why = std::move(Reason);
    return std::nullopt;
  }

  /// An array-typed lvalue: a shared array or a sub-array of one.
  std::optional<PtrVal> arrayLValue(const clang::Expr *E, ir::Block &Out, std::string &Why) {
    E = E->IgnoreParens();
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
      if (V && V->hasAttr<clang::CUDASharedAttr>()) {
        std::optional<std::string> A = sharedArray(V);
        if (!A)
          return failPtr(Why, fmt::format("shared variable '{}' is not modelled", V->getName().str()));
        return PtrVal{*A, {}, true};
      }
      if (V && V->hasLocalStorage())
        return failPtr(Why, "a local array (registers)");
      return failPtr(Why, fmt::format("'{}' is memory the lint does not model (constant or device globals)",
                                      D->getDecl()->getName().str()));
    }
    if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E)) {
      std::optional<PtrVal> P = lowerPointer(A->getBase(), Out, Why);
      if (!P)
        return P;
      LVal I = lowerValue(A->getIdx(), Out);
      if (!I.Exact && I.Data.empty()) {
        markUnderstood(P->Array, false);
        return failPtr(Why, fmt::format("an index not understood ({})", I.Why));
      }
      P->Idx.back() = binary(BinaryOp::Add, P->Idx.back(), I.materialize(), loc(E));
      return P;
    }
    return failPtr(Why, fmt::format("an array from a '{}' expression", E->getStmtClassName()));
  }

  /// P seen as a pointer to To: itself when the element sizes agree, else a
  /// view of the same memory with To's elements (reinterpret_cast<float4*>).
  std::optional<PtrVal> viewAs(PtrVal P, clang::QualType To, const SourceLoc &L, std::string &Why) {
    const ArrayInfo &A = Arrays.at(P.Array);
    if (To->isVoidType() || To->isCharType())
      return P; // a byte pointer on its way somewhere; sizes checked there
    std::optional<ir::ElemType> E = elemTypeOf(Ctx, To);
    if (!E)
      return failPtr(Why, fmt::format("a cast to '{}'", To.getAsString()));
    if (ir::byteSize(*E) == ir::byteSize(A.Elem))
      return P;
    // Flatten to a byte offset, then index the view.
    Expr Flat = ir::makeInt(0, L);
    std::int64_t Stride = 1;
    for (std::size_t I = P.Idx.size(); I-- > 0;) {
      if (I + 1 < P.Idx.size())
        Stride *= A.Shape[I + 1];
      Flat = binary(BinaryOp::Add, binary(BinaryOp::Mul, P.Idx[I], ir::makeInt(Stride), L), Flat, L);
    }
    if (P.Idx.size() != A.Shape.size())
      for (std::size_t I = P.Idx.size(); I < A.Shape.size(); ++I)
        Flat = binary(BinaryOp::Mul, Flat, ir::makeInt(A.Shape[I]), L);
    const std::int64_t From = ir::byteSize(A.Elem), ToBytes = ir::byteSize(*E);
    Expr Index = binary(BinaryOp::Div, binary(BinaryOp::Mul, Flat, ir::makeInt(From), L), ir::makeInt(ToBytes), L);
    const std::string Key = P.Array + "/" + ir::spelling(*E);
    std::string View;
    if (auto It = Views.find(Key); It != Views.end()) {
      View = It->second;
    } else {
      std::int64_t Total = From;
      for (std::int64_t D : A.Shape)
        Total *= D;
      View = freshName(fmt::format("{}_{}", P.Array, ir::spelling(*E)), Used);
      const std::int64_t Elems = A.Space == ir::MemSpace::Global ? PointerExtent : std::max<std::int64_t>(1, Total / ToBytes);
      addArray(View, A.Source, *E, {Elems}, A.Space, L);
      Views[Key] = View;
    }
    markUnderstood(P.Array, false);
    return PtrVal{View, {Index}, false};
  }
};

//===-- The translation unit ---------------------------------------------------===//

/// Every kernel definition of the main file (template instantiations in
/// place of their template) and every launch in it.
class KernelFinder : public clang::RecursiveASTVisitor<KernelFinder> {
public:
  explicit KernelFinder(const clang::SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(clang::FunctionDecl *F) {
    if (!F->hasAttr<clang::CUDAGlobalAttr>() || !F->doesThisDeclarationHaveABody() ||
        !SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      return true;
    if (F->isDependentContext() || F->getDescribedFunctionTemplate()) {
      Templates.push_back(F);
      return true;
    }
    if (std::find(Kernels.begin(), Kernels.end(), F) == Kernels.end())
      Kernels.push_back(F);
    return true;
  }

  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr *C) {
    if (SM.isInMainFile(SM.getExpansionLoc(C->getBeginLoc())))
      Launches.push_back(C);
    return true;
  }

  const clang::SourceManager &SM;
  std::vector<const clang::FunctionDecl *> Kernels;
  std::vector<const clang::FunctionDecl *> Templates;
  std::vector<const clang::CUDAKernelCallExpr *> Launches;
};

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

void lowerUnit(clang::ASTContext &Ctx, const LowerOptions &Opts, LoweredFile &Out) {
  const clang::SourceManager &SM = Ctx.getSourceManager();
  KernelFinder Finder(SM);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());

  // Every kernel to lower: plain ones and every instantiation of templates.
  std::vector<const clang::FunctionDecl *> Kernels = Finder.Kernels;
  for (const clang::FunctionDecl *T : Finder.Templates) {
    const clang::FunctionTemplateDecl *FT = T->getDescribedFunctionTemplate();
    bool Any = false;
    if (FT)
      for (const clang::FunctionDecl *S : FT->specializations())
        Any |= std::find(Kernels.begin(), Kernels.end(), S) != Kernels.end();
    if (!Any) {
      LoweredKernel K;
      K.Name = T->getName().str();
      K.Display = K.Name;
      K.Loc = toSourceLoc(SM, T->getLocation());
      K.Lowered = false;
      K.Notes.push_back({Severity::Note, K.Loc,
                         fmt::format("template kernel '{}' is never instantiated in this file: nothing to "
                                     "analyze",
                                     K.Name),
                         lineAt(SM, T->getLocation())});
      Out.Kernels.push_back(std::move(K));
    }
  }
  std::sort(Kernels.begin(), Kernels.end(), [&](const clang::FunctionDecl *A, const clang::FunctionDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });

  // Program params: integer kernel parameters, one per name.
  std::set<std::string> ProgramNames;
  std::map<const clang::ParmVarDecl *, std::string> ScalarParams;
  for (const clang::FunctionDecl *F : Kernels)
    for (const clang::ParmVarDecl *P : F->parameters()) {
      if (!isIntegral(P->getType()) || P->getName().empty())
        continue;
      const std::string Name = identifier(P->getName());
      ScalarParams[P] = Name;
      if (!ProgramNames.insert(Name).second)
        continue;
      ir::Param Pm;
      Pm.Name = Name;
      Pm.Loc = toSourceLoc(SM, P->getLocation());
      if (auto It = Opts.Defines.find(P->getName().str()); It != Opts.Defines.end()) {
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
    // The launch: --block/--grid, a launch site, __launch_bounds__, or a
    // shape the indices imply.
    std::optional<LaunchSite> Site;
    for (const clang::CUDAKernelCallExpr *C : Finder.Launches) {
      if (C->getDirectCallee() != F)
        continue;
      std::map<const clang::ValueDecl *, std::string> ArgMap;
      for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
        if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(strip(C->getArg(I))))
          if (auto It = ScalarParams.find(F->getParamDecl(I)); It != ScalarParams.end())
            ArgMap[D->getDecl()] = It->second;
      Dim3Reader R(Ctx, ArgMap);
      const clang::CallExpr *Cfg = C->getConfig();
      LaunchSite S;
      S.Loc = toSourceLoc(SM, C->getBeginLoc());
      if (Cfg && Cfg->getNumArgs() >= 2) {
        S.Grid = R.read(Cfg->getArg(0));
        if (auto B = R.read(Cfg->getArg(1))) {
          Dim3 D;
          bool Const = true;
          for (int I = 0; I < 3; ++I) {
            const auto *V = (*B)[static_cast<std::size_t>(I)].as<ir::IntLit>();
            Const &= V && V->Value > 0;
            D[static_cast<std::size_t>(I)] = V ? V->Value : 0;
          }
          if (Const)
            S.Block = D;
        }
        if (Cfg->getNumArgs() >= 3 && !llvm::isa<clang::CXXDefaultArgExpr>(Cfg->getArg(2)))
          S.SharedBytes = evalInt(Ctx, Cfg->getArg(2));
      }
      if (S.Block) {
        Site = S;
        break;
      }
      if (!Site)
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
    } else if (const auto *LB = F->getAttr<clang::CUDALaunchBoundsAttr>();
               LB && !Dims[1] && !Dims[2] && evalInt(Ctx, LB->getMaxThreads())) {
      Block = {*evalInt(Ctx, LB->getMaxThreads()), 1, 1};
      Info.Launch = LaunchSource::LaunchBounds;
      Info.LaunchNote = fmt::format("block {} from __launch_bounds__", dimText(Block));
    } else {
      Block = {Dims[1] || Dims[2] ? 32 : 256, Dims[1] ? 8 : 1, Dims[2] ? 4 : 1};
      Info.Launch = LaunchSource::Implied;
      Info.LaunchNote = fmt::format("assumed block {}: no launch of this kernel gives one (the kernel uses "
                                    "threadIdx.{}); give --block for its real shape",
                                    dimText(Block), Dims[2] ? "x, y and z" : Dims[1] ? "x and y" : "x");
    }
    std::array<Expr, 3> GridExprs{ir::makeInt(32), ir::makeInt(Dims[1] ? 32 : 1), ir::makeInt(1)};
    if (Opts.Grid)
      GridExprs = {ir::makeInt((*Opts.Grid)[0]), ir::makeInt((*Opts.Grid)[1]), ir::makeInt((*Opts.Grid)[2])};
    else if (Site && Site->Grid)
      GridExprs = *Site->Grid;
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
    Lowering.lower(F, K, Block, GridExprs, Site && Site->SharedBytes ? *Site->SharedBytes : 0);
    Out.Program.Kernels.push_back(std::move(K));
    Out.Kernels.push_back(std::move(Info));
  }
  // Keep the kernels in source order, those not lowered included.
  std::stable_sort(Out.Kernels.begin(), Out.Kernels.end(), [](const LoweredKernel &A, const LoweredKernel &B) {
    return std::tie(A.Loc.Line, A.Loc.Col) < std::tie(B.Loc.Line, B.Loc.Col);
  });
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
  Out.Readable = runClangOnCudaFile(Path, O.Cuda, Out.ClangDiags,
                                    [&](clang::ASTContext &Ctx) { lowerUnit(Ctx, O, Out); });
  return Out;
}

} // namespace bankwise::frontend
