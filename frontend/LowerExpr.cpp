// CUDA -> IR, expressions (frontend/detail/Lowering.h): the small IR
// builders and Clang type helpers the lowering shares, the lowered values, and
// KernelLowering's values and calls (__device__ functions inlined); memory
// accesses are in LowerAccess.cpp.
#include "frontend/detail/Lowering.h"

#include "dsl/Sema.h"
#include "ir/Eval.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace bankwise::frontend::detail {

//===-- Small IR builders ---------------------------------------------------===//

Expr node(Expr::Kind K, const SourceLoc &L) { return Expr{std::move(K), ir::NodeLoc(L)}; }

namespace {

bool isInt(const Expr &E, std::int64_t V) {
  const auto *I = E.as<ir::IntLit>();
  return I && I->Value == V;
}

} // namespace

Expr binary(BinaryOp Op, Expr A, Expr B, const SourceLoc &L) {
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

Expr sumOf(const std::vector<Expr> &Terms, const SourceLoc &L) {
  if (Terms.empty())
    return ir::makeInt(0, L);
  Expr S = Terms.front();
  for (std::size_t I = 1; I < Terms.size(); ++I)
    S = ir::makeBinary(BinaryOp::Add, S, Terms[I], L);
  return S;
}

std::string identifier(std::string_view Name) {
  std::string S;
  for (char C : Name)
    S += (std::isalnum(static_cast<unsigned char>(C)) || C == '_') ? C : '_';
  while (!S.empty() && S.back() == '_' && S.size() > 1 && Name.back() != '_')
    S.pop_back();
  if (S.empty() || std::isdigit(static_cast<unsigned char>(S[0])))
    S = "_" + S;
  if (dsl::isReserved(S)) // the .bw's reserved words (--emit-bw reads back)
    S += "_";
  return S;
}

std::string freshName(std::string_view Base, std::set<std::string> &Used) {
  const std::string B = identifier(Base);
  std::string N = B;
  for (int I = 1; Used.count(N); ++I)
    N = fmt::format("{}_{}", B, I);
  Used.insert(N);
  return N;
}

//===-- Types ---------------------------------------------------------------===//

namespace {

/// A user struct nvcc moves as one vector (`struct alignas(16) x128 {
/// float v[4]; }`, `struct alignas(8) pair { int a, b; }`, llm.c's
/// `Packed128<__nv_bfloat16>`): fields of one scalar type (or arrays of
/// it), no padding, 4, 8 or 16 bytes, aligned to its size. Without the
/// alignment nvcc moves its scalars one by one.
std::optional<ir::ElemType> packedRecord(const clang::ASTContext &Ctx, const clang::RecordDecl *R, clang::QualType T) {
  if (R->isUnion() || !R->isCompleteDefinition() || T->isDependentType())
    return std::nullopt;
  if (const auto *C = llvm::dyn_cast<clang::CXXRecordDecl>(R); C && (C->getNumBases() > 0 || C->isPolymorphic()))
    return std::nullopt;
  const std::int64_t Size = Ctx.getTypeSizeInChars(T).getQuantity();
  if ((Size != 4 && Size != 8 && Size != 16) || Ctx.getTypeAlignInChars(T).getQuantity() != Size)
    return std::nullopt;
  std::optional<ir::ScalarType> Scalar;
  std::int64_t FieldBytes = 0; // no padding: every byte a scalar
  for (const clang::FieldDecl *F : R->fields()) {
    FieldBytes += Ctx.getTypeSizeInChars(F->getType()).getQuantity();
    clang::QualType FT = F->getType().getCanonicalType();
    while (const clang::ConstantArrayType *A = Ctx.getAsConstantArrayType(FT))
      FT = A->getElementType().getCanonicalType();
    std::optional<ir::ElemType> E = elemTypeOf(Ctx, FT); // a scalar, __half or __nv_bfloat16
    if (F->isBitField() || !E || E->Lanes != 1 || (Scalar && *Scalar != E->Scalar))
      return std::nullopt;
    Scalar = E->Scalar;
  }
  if (!Scalar || FieldBytes != Size)
    return std::nullopt;
  const std::int64_t Lanes = Size / ir::byteSize(ir::ElemType{*Scalar});
  if (Lanes <= 4)
    return ir::ElemType{*Scalar, static_cast<int>(Lanes)};
  // More lanes than the IR's vectors have (8 bf16 of llm.c's Packed128):
  // the same bytes as 32-bit words, which is what the access costs.
  return ir::ElemType{ir::ScalarType::U32, static_cast<int>(Size / 4)};
}

} // namespace

std::optional<ir::ElemType> elemTypeOf(const clang::ASTContext &Ctx, clang::QualType T) {
  if (T.isNull())
    return std::nullopt;
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
  if (std::optional<ir::ElemType> P = packedRecord(Ctx, R, T))
    return P;
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
  if (T.isNull()) // an expression Clang could not type (after an error)
    return false;
  T = T.getNonReferenceType().getCanonicalType(); // a reference parameter's local: its referee's
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


//===-- Lowered values --------------------------------------------------------===//

LVal exact(Expr E) { return LVal{std::move(E), true, {}, {}, {}}; }

LVal inexact(std::string Why, SourceLoc Loc, std::vector<Expr> Data) {
  LVal V;
  V.E = ir::makeInt(0, Loc);
  V.Exact = false;
  V.Data = std::move(Data);
  V.Why = std::move(Why);
  V.WhyLoc = std::move(Loc);
  return V;
}

void absorb(LVal &Into, const LVal &Part) {
  Into.Data.insert(Into.Data.end(), Part.Data.begin(), Part.Data.end());
  if (!Part.Exact && Into.Exact) {
    Into.Exact = false;
    Into.Why = Part.Why;
    Into.WhyLoc = Part.WhyLoc;
  }
}

//===-- Kernel lowering: values, calls, memory ------------------------------===//

//===-- Values ----------------------------------------------------------===//

std::optional<BinaryOp> KernelLowering::binaryOp(clang::BinaryOperatorKind K) {
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

LVal KernelLowering::local(const LocalInfo &LI, const SourceLoc &L) {
  Expr V = ir::makeVar(LI.IrName, LI.Kind, L);
  if (LI.Exact) {
    LVal R = exact(V);
    if (LI.FromReads)
      R.Data.push_back(V);
    return R;
  }
  return inexact(LI.Why, LI.WhyLoc, LI.FromReads ? std::vector<Expr>{V} : std::vector<Expr>{});
}

LVal KernelLowering::lowerValue(const clang::Expr *E, ir::Block &Out) {
  if (!E)
    return inexact("a missing expression", {});
  const SourceLoc L = loc(E);
  if (E->getType().isNull()) // a ParenListExpr of an invalid declaration
    return inexact("code Clang could not parse", L);
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
    if (sharedScalar(D)) // a load of its one element: data, as any shared element read
      return load(D, Out);
    return inexact(fmt::format("'{}' is not a value the lint follows", D->getDecl()->getName().str()), L);
  }
  if (llvm::isa<clang::ArraySubscriptExpr>(E) ||
      (llvm::isa<clang::UnaryOperator>(E) &&
       llvm::cast<clang::UnaryOperator>(E)->getOpcode() == clang::UO_Deref))
    return load(E, Out);
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
    if (std::optional<LVal> V = cooperativeComponent(M)) // block.thread_index().x
      return *V;
    // A component of a vector element (a[i].x) loads the element; of a
    // local, is that local's value.
    const bool ThisInMemory = M->isArrow() && llvm::isa<clang::CXXThisExpr>(M->getBase()->IgnoreParenImpCasts()) &&
                              !ThisStack.empty() && ThisStack.back().Ptr;
    if (isMemoryLValue(M->getBase()) || ThisInMemory) // this->x of an array element: a load of it
      return load(M, Out, /*Component=*/true);
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

LVal KernelLowering::builtinValue(const std::string &Var, int Dim, const SourceLoc &L) {
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

LVal KernelLowering::lowerCast(const clang::CastExpr *C, ir::Block &Out) {
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
    if (std::optional<PtrVal> P = lowerPointer(C->getType()->isPointerType() ? C : Sub, Scratch, Why))
      markUnderstood(P->Array, false);
    return inexact(C->getCastKind() == clang::CK_PointerToBoolean ? "a pointer tested against null"
                                                                  : "a pointer used as a value",
                   loc(C));
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

LVal KernelLowering::lowerUnary(const clang::UnaryOperator *U, ir::Block &Out) {
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

LVal KernelLowering::lowerBinary(const clang::BinaryOperator *B, ir::Block &Out) {
  const SourceLoc L = loc(B->getOperatorLoc());
  if (B->isAssignmentOp()) {
    lowerAssign(B, Out);
    // The value of `p[i] = v` (a chained `p[0] = p[1] = v`) is the value
    // stored, which nvcc does not load again: a local is read back, memory
    // is not (its value is not figured).
    const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
    const auto *V = D ? llvm::dyn_cast<clang::VarDecl>(D->getDecl()) : nullptr;
    if (V && V->hasLocalStorage() && !V->getType()->isReferenceType() && !V->hasAttr<clang::CUDASharedAttr>())
      return lowerValue(B->getLHS(), Out);
    return inexact("the value of an assignment to memory", L);
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

LVal KernelLowering::lowerConditional(const clang::ConditionalOperator *C, ir::Block &Out) {
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

namespace {

/// The IR's atomic for CUDA's atomicAdd ... atomicCAS (also their _block
/// and _system forms); nullopt for other names.
std::optional<ir::AtomicOp> cudaAtomic(std::string Name) {
  for (const char *Scope : {"_block", "_system"}) // the scope moves no other memory
    if (Name.size() > std::strlen(Scope) && Name.ends_with(Scope))
      Name.resize(Name.size() - std::strlen(Scope));
  for (ir::AtomicOp Op : {ir::AtomicOp::Add, ir::AtomicOp::Sub, ir::AtomicOp::Min, ir::AtomicOp::Max,
                          ir::AtomicOp::And, ir::AtomicOp::Or, ir::AtomicOp::Xor, ir::AtomicOp::Exch,
                          ir::AtomicOp::Inc, ir::AtomicOp::Dec, ir::AtomicOp::Cas})
    if (Name == ir::cudaSpelling(Op))
      return Op;
  return std::nullopt;
}

/// Whether F is one of CUDA's texture or surface functions: tex1Dfetch,
/// tex2D<T>, tex3DLod, surf2Dread, ... of a texture or surface object.
bool isTextureCall(const clang::FunctionDecl *F) {
  if (!F || !F->getIdentifier())
    return false;
  const llvm::StringRef Name = F->getName();
  if (!(Name.starts_with("tex") || (Name.starts_with("surf") && Name.contains("read"))))
    return false;
  for (const clang::ParmVarDecl *P : F->parameters()) {
    const std::string T = P->getType().getCanonicalType().getAsString();
    const std::string Sugared = P->getType().getAsString();
    if (Sugared.find("cudaTextureObject_t") != std::string::npos ||
        Sugared.find("cudaSurfaceObject_t") != std::string::npos || T.find("texture<") != std::string::npos)
      return true;
  }
  return false;
}

} // namespace

LVal KernelLowering::lowerCall(const clang::CallExpr *C, ir::Block &Out) {
  const SourceLoc L = loc(C);
  const clang::FunctionDecl *F = C->getDirectCallee();
  const std::string Name = F && F->getIdentifier() ? F->getName().str() : "";
  if (Name == "memcpy_async" || Name == "__pipeline_memcpy_async") {
    // cuda::memcpy_async(dst, src, size, pipe), cooperative_groups::
    // memcpy_async(group, dst, src, size), __pipeline_memcpy_async(dst,
    // src, size): an asynchronous copy (into shared memory). Which thread
    // copies which bytes is not figured; the destination counts as written
    // (anywhere) for the checks, so no later read of it is taken for a read
    // of an element no thread wrote.
    std::vector<const clang::Expr *> Ptrs;
    for (const clang::Expr *A : C->arguments())
      if (A->getType()->isPointerType()) {
        // The pointer as the caller typed it, not the void * it becomes.
        const clang::Expr *P = A->IgnoreParens();
        while (const auto *IC = llvm::dyn_cast<clang::ImplicitCastExpr>(P))
          if (IC->getType()->isVoidPointerType())
            P = IC->getSubExpr()->IgnoreParens();
          else
            break;
        Ptrs.push_back(P);
      }
    LVal V = inexact(fmt::format("the value of '{}'", Name), L);
    std::string Why;
    std::optional<PtrVal> Dst = Ptrs.empty() ? std::nullopt : lowerPointer(Ptrs.front(), Out, Why);
    if (Dst) {
      Info.AsyncCopied.insert(Dst->Array);
      markUnderstood(Dst->Array, false);
      note(L,
           fmt::format("'{}' into '{}' not figured (an asynchronous copy); '{}' counts as written for the checks",
                          Name, sourceName(Dst->Array), sourceName(Dst->Array)),
           C->getBeginLoc());
    } else {
      unknownAccess(L, Why.empty() ? fmt::format("the destination of '{}'", Name) : Why, C->getBeginLoc(),
                    Ptrs.empty() ? AccessSpace::Unknown : spaceOf(Ptrs.front()));
    }
    return V;
  }
  if (std::optional<LVal> V = lowerCooperative(C, Out))
    return *V;
  // cuda::barrier's arrive_and_wait is taken as the block's barrier (the
  // count `init(&bar, blockDim.x)` gives); on a __shared__ barrier, whose
  // declaration Clang refuses (see nvccDialect), the call is left dependent.
  const auto *Method = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(F);
  const auto *Recovered = llvm::dyn_cast<clang::CXXDependentScopeMemberExpr>(C->getCallee()->IgnoreParens());
  const bool BarrierWait =
      (Method && Name == "arrive_and_wait" && Method->getParent()->getName().contains("barrier")) ||
      (Recovered && Recovered->getMember().getAsString() == "arrive_and_wait");
  if (Name == "__syncthreads" || Name == "__syncthreads_count" || Name == "__syncthreads_and" ||
      Name == "__syncthreads_or" || Name == "__barrier_sync" || BarrierWait) {
    LVal V = inexact(fmt::format("the value of '{}'", Name), L);
    for (const clang::Expr *A : C->arguments())
      absorb(V, lowerValue(A, Out));
    Out.push_back({ir::Sync{}, ir::NodeLoc(L)});
    return V;
  }
  // A texture fetch or surface access (tex2D<float>(t, x, y), surf2Dread):
  // memory through the texture path, neither a shared nor a plain global
  // access, so not priced. Counted apart in the summary (the note's
  // prefix, LintCommand's coverage), not as an access left unanalyzed.
  if (isTextureCall(F)) {
    LVal V = inexact(fmt::format("the value of '{}'", Name), L);
    for (const clang::Expr *A : C->arguments())
      absorb(V, lowerValue(A, Out));
    note(L, fmt::format("texture fetch, not priced: '{}' reads a texture or surface, not shared or global memory", Name),
         C->getBeginLoc());
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
  if ((Name == "__stcs" || Name == "__stcg" || Name == "__stwb" || Name == "__stwt") && C->getNumArgs() == 2) {
    // __stcs(&a[i], v) and kin: a store through the pointer, a cache hint aside
    const LVal V = lowerValue(C->getArg(1), Out);
    std::string Why;
    if (std::optional<PtrVal> P = lowerPointer(C->getArg(0), Out, Why)) {
      if (std::optional<Expr> T = accessAt(*P, L, C->getBeginLoc()))
        Out.push_back({ir::Assign{*T->as<ir::ArrayRead>(), V.materialize()}, ir::NodeLoc(L)});
    } else {
      unknownAccess(L, Why, C->getBeginLoc(), spaceOf(C->getArg(0)));
    }
    return inexact(fmt::format("the value of '{}'", Name), L);
  }
  if (const std::optional<ir::AtomicOp> Op = cudaAtomic(Name);
      Op && C->getNumArgs() == static_cast<unsigned>(ir::arity(*Op)) + 1) {
    // atomicAdd(&a[i], v) and kin: the IR's atomic, one read-modify-write
    // of the element (threads that meet there do not race).
    ir::Atomic A;
    A.Op = *Op;
    A.OldValueUsed = C != DiscardedCall;
    for (unsigned I = 1; I < C->getNumArgs(); ++I)
      A.Args.push_back(lowerValue(C->getArg(I), Out).materialize());
    std::string Why;
    if (std::optional<PtrVal> P = lowerPointer(C->getArg(0), Out, Why)) {
      if (std::optional<Expr> T = accessAt(*P, L, C->getBeginLoc())) {
        A.Target = *T->as<ir::ArrayRead>();
        Out.push_back({ir::ExprStmt{node(std::move(A), L)}, ir::NodeLoc(L)});
      }
    } else {
      unknownAccess(L, Why, C->getBeginLoc(), spaceOf(C->getArg(0)));
    }
    return inexact(fmt::format("the value of '{}'", Name), L); // the old value: data we do not know
  }
  if (const clang::FunctionDecl *Def = inlinable(C))
    return inlineCall(C, Def, Out);
  LVal V = inexact(Name.empty() ? std::string("an indirect call") : fmt::format("a call to '{}'", Name), L);
  for (const clang::Expr *A : C->arguments())
    absorb(V, lowerValue(A, Out));
  return V;
}

const clang::FunctionDecl *KernelLowering::inlinable(const clang::CallExpr *C) {
  const clang::FunctionDecl *F = C->getDirectCallee();
  const clang::FunctionDecl *Def = nullptr;
  if (F && F->hasBody(Def) && Def && (Def->hasAttr<clang::CUDADeviceAttr>() || Def->isConstexpr()) &&
      !Def->isVariadic())
    return Def;
  return nullptr;
}

LVal KernelLowering::inlineCall(const clang::CallExpr *C, const clang::FunctionDecl *Def, ir::Block &Out,
                                std::optional<PtrVal> *PtrOut, std::string *PtrWhy) {
  const SourceLoc L = loc(C);
  if (PtrOut)
    *PtrOut = failPtr(*PtrWhy, fmt::format("the pointer '{}' returns", Def->getName().str()));
  if (InlineDepth >= 16 ||
      std::find(InlineStack.begin(), InlineStack.end(), Def) != InlineStack.end()) {
    // Not inlined again; its arguments are still read here, by the caller.
    LVal V = inexact(fmt::format("a recursive call to '{}'", Def->getName().str()), L);
    for (const clang::Expr *A : C->arguments())
      absorb(V, lowerValue(A, Out));
    return V;
  }
  const auto *Body = llvm::dyn_cast_or_null<clang::CompoundStmt>(Def->getBody());
  if (!Body)
    return inexact("a call without a body", L);
  // An operator that is a member (`a += b` of a class) passes its object as
  // argument 0; the parameters start after it.
  const unsigned First =
      llvm::isa<clang::CXXOperatorCallExpr>(C) && llvm::isa<clang::CXXMethodDecl>(Def) ? 1 : 0;
  // A member function's object: what `this` is in its body.
  const auto *Method = llvm::dyn_cast<clang::CXXMethodDecl>(Def);
  const bool BindsThis = Method && Method->isInstance();
  if (BindsThis)
    ThisStack.push_back(thisObject(C, Def, Out));
  std::vector<std::pair<const clang::ValueDecl *, std::optional<LocalInfo>>> SavedLocals;
  // Reference parameters bound to a caller's local: the callee's name for
  // it (`udivmod(i, d, x)` writing `rem = ...; dividend >>= ...`), copied
  // back when the body is done.
  std::vector<std::pair<const clang::ValueDecl *, const clang::ValueDecl *>> RefLocals;
  for (unsigned I = 0; I < Def->getNumParams() && I + First < C->getNumArgs(); ++I) {
    const clang::ParmVarDecl *P = Def->getParamDecl(I);
    const clang::Expr *Arg = C->getArg(I + First);
    const clang::QualType T = P->getType().getCanonicalType();
    SavedLocals.push_back({P, Locals.count(P) ? std::optional<LocalInfo>(Locals[P]) : std::nullopt});
    if (isGroupType(T)) { // a cooperative group, by value or reference
      bindGroup(P, Arg);
      continue;
    }
    if (T->isPointerType()) {
      std::string Why;
      if (std::optional<PtrVal> Pv = lowerPointer(Arg, Out, Why)) {
        Ptrs[P] = *Pv;
        BadPtrs.erase(P);
      } else {
        Ptrs.erase(P);
        BadPtrs[P] = Why;
      }
      continue;
    }
    if (T->isReferenceType()) {
      const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(Arg->IgnoreParenImpCasts());
      if (const auto It = Ref ? Locals.find(Ref->getDecl()) : Locals.end();
          It != Locals.end() && !T->getPointeeType()->isPointerType()) {
        Ptrs.erase(P);
        BadPtrs.erase(P);
        Locals[P] = It->second;
        RefLocals.push_back({P, Ref->getDecl()});
        continue;
      }
      // A const reference to anything else reads a value: bound as one.
      if (!T->getPointeeType().isConstQualified() || T->getPointeeType()->isPointerType()) {
        BadPtrs[P] = fmt::format("'{}' is a reference parameter", P->getName().str());
        continue;
      }
    }
    LVal A = lowerValue(Arg, Out);
    if (!isIntegral(T) && A.Exact)
      A = inexact(fmt::format("'{}' is not an integer", P->getName().str()), loc(Arg), A.Data);
    const std::string IrName = freshName(P->getName().str(), Used);
    Out.push_back({ir::Let{IrName, A.materialize()}, ir::NodeLoc(loc(Arg))});
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
  if (Last && Last->getRetValue() && !OtherReturn) {
    if (PtrOut)
      *PtrOut = lowerPointer(Last->getRetValue(), Out, *PtrWhy);
    else
      Result = lowerValue(Last->getRetValue(), Out);
  }
  InlineStack.pop_back();
  --InlineDepth;
  if (BindsThis)
    ThisStack.pop_back();
  for (const auto &[P, D] : RefLocals)
    Locals[D] = Locals[P]; // what the callee left in the caller's local
  for (auto &[P, Saved] : SavedLocals)
    if (Saved)
      Locals[P] = *Saved;
  return Result;
}

KernelLowering::ThisObject KernelLowering::thisObject(const clang::CallExpr *C, const clang::FunctionDecl *Def,
                                                      ir::Block &Out) {
  ThisObject T;
  T.Why = fmt::format("the object of '{}', which the lint does not follow", Def->getNameAsString());
  const clang::Expr *Obj = nullptr;
  bool Arrow = false;
  if (const auto *MC = llvm::dyn_cast<clang::CXXMemberCallExpr>(C)) {
    Obj = MC->getImplicitObjectArgument();
    if (const auto *ME = llvm::dyn_cast<clang::MemberExpr>(MC->getCallee()->IgnoreParens()))
      Arrow = ME->isArrow();
  } else if (llvm::isa<clang::CXXOperatorCallExpr>(C) && C->getNumArgs() > 0) {
    Obj = C->getArg(0);
  }
  if (!Obj)
    return T;
  // A temporary (`__float2bfloat16(f).operator float()`) is registers.
  if (llvm::isa<clang::MaterializeTemporaryExpr>(Obj->IgnoreParenImpCasts()) ||
      (!Arrow && Obj->IgnoreParenImpCasts()->isPRValue())) {
    T.Local = true;
    return T;
  }
  Obj = strip(Obj)->IgnoreParenImpCasts();
  const auto IsThis = [](const clang::Expr *E) { return llvm::isa<clang::CXXThisExpr>(E->IgnoreParenImpCasts()); };
  std::string Why;
  if (Arrow) { // p->f(): p's pointee
    if (IsThis(Obj))
      return ThisStack.empty() ? T : ThisStack.back();
    if ((T.Ptr = lowerPointer(Obj, Out, Why)))
      return T;
    T.Why = Why;
    return T;
  }
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Obj); U && U->getOpcode() == clang::UO_Deref) {
    if (IsThis(U->getSubExpr()))
      return ThisStack.empty() ? T : ThisStack.back();
    if ((T.Ptr = lowerPointer(U->getSubExpr(), Out, Why))) {
      T.Ptr->Direct = false;
      return T;
    }
    T.Why = Why;
    return T;
  }
  if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(Obj)) {
    if (isRegisterArray(A->getBase())) {
      T.Local = true;
      return T;
    }
    T.Ptr = lowerPointer(A->getBase(), Out, Why);
    if (!T.Ptr) {
      T.Why = Why;
      return T;
    }
    LVal I = lowerValue(A->getIdx(), Out);
    if (!I.Exact && I.Data.empty()) {
      T.Ptr.reset();
      T.Why = fmt::format("an index not understood ({})", I.Why);
      return T;
    }
    T.Ptr->Idx.back() = binary(BinaryOp::Add, T.Ptr->Idx.back(), I.materialize(), loc(A));
    return T;
  }
  if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(Obj)) {
    const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
    if (V && V->hasLocalStorage() && !V->getType()->isReferenceType() && !V->hasAttr<clang::CUDASharedAttr>()) {
      T.Local = true;
      return T;
    }
    if (V)
      T.Why = V->getType()->isReferenceType()
                  ? fmt::format("'{}' is a reference", V->getName().str())
                  : fmt::format("'{}' is memory the lint does not model (constant, device or shared scalars)",
                                V->getName().str());
    return T;
  }
  if (const auto *OC = llvm::dyn_cast<clang::CallExpr>(Obj); OC && Obj->isGLValue()) {
    // packed[k] of a local Packed128 (its operator[] returns a reference
    // to an element of its array member): a reference a member function
    // of a local object returns is into that object.
    const auto *MD = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(OC->getDirectCallee());
    if (MD && MD->isInstance() && (llvm::isa<clang::CXXMemberCallExpr>(OC) || llvm::isa<clang::CXXOperatorCallExpr>(OC))) {
      ir::Block Scratch; // nothing of it is kept (IR, notes): only whether the object is local
      const std::size_t Notes = Info.Notes.size(), Masks = Info.UncertainMask.size();
      const bool Local = thisObject(OC, MD, Scratch).Local;
      Info.Notes.resize(Notes);
      Info.UncertainMask.resize(Masks);
      if (Local) {
        T.Local = true;
        return T;
      }
    }
  }
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(Obj)) { // s.h, a[i].h: a member object
    if (!isMemoryLValue(M) && !M->isArrow()) {
      T.Local = true;
      return T;
    }
    T.Why = fmt::format("member '{}' of an object in memory", M->getMemberDecl()->getNameAsString());
  }
  return T;
}

bool KernelLowering::isLocalThisMember(const clang::Expr *E) const {
  if (ThisStack.empty() || !ThisStack.back().Local)
    return false;
  E = E->IgnoreParens();
  const auto IsThis = [](const clang::Expr *X) { return llvm::isa<clang::CXXThisExpr>(X->IgnoreParenImpCasts()); };
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E); U && U->getOpcode() == clang::UO_Deref)
    return IsThis(U->getSubExpr());
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E))
    return M->isArrow() ? IsThis(M->getBase()) : isLocalThisMember(M->getBase());
  return false;
}

} // namespace bankwise::frontend::detail
