// CUDA -> IR, memory (frontend/detail/Lowering.h): which lvalues are memory
// and which are registers, the ArrayRead an access designates, the space
// of an access left out, and pointers followed into shared and global arrays
// (split from LowerExpr.cpp, which keeps values and calls).

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
#include <filesystem>
#include <set>

namespace bankwise::frontend::detail {

//===-- Memory ------------------------------------------------------------===//

bool KernelLowering::isMemoryLValue(const clang::Expr *E) {
  E = E->IgnoreParens();
  if (isLocalThisMember(E)) // a local object's members are registers
    return false;
  if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
    return !isRegisterArray(A->getBase());
  if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) // *(unsigned *)&h of a local h: registers
    return U->getOpcode() == clang::UO_Deref && !isLocalAddress(U->getSubExpr());
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E))
    return M->isArrow() ? !isLocalAddress(M->getBase()) : isMemoryLValue(M->getBase());
  return sharedScalar(E) != nullptr; // its one element
}

bool KernelLowering::isLocalObject(const clang::Expr *E) {
  E = E->IgnoreParens();
  if (isLocalThisMember(E))
    return true;
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E))
    return !M->isArrow() && isLocalObject(M->getBase());
  if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E))
    return isRegisterArray(A->getBase());
  const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E);
  const auto *V = D ? llvm::dyn_cast<clang::VarDecl>(D->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !V->getType()->isReferenceType() && !V->hasAttr<clang::CUDASharedAttr>() &&
         !V->getType()->isPointerType();
}

bool KernelLowering::isLocalAddress(const clang::Expr *E) {
  const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E->IgnoreParenCasts());
  return U && U->getOpcode() == clang::UO_AddrOf && isLocalObject(U->getSubExpr());
}

bool KernelLowering::isRegisterArray(const clang::Expr *Base) {
  const clang::Expr *E = Base->IgnoreParenImpCasts();
  while (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E)) {
    if (E->getType()->isPointerType()) // rows[r][c] of a local array of pointers: memory
      return false;
    E = A->getBase()->IgnoreParenImpCasts();
  }
  // q.v[k] of a local struct; ((float *)&v)[k] of a local
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E); M && M->getType()->isArrayType() && isLocalObject(M))
    return true;
  if (isLocalAddress(E))
    return true;
  const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E);
  if (!D)
    return false;
  const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
  return V && V->getType()->isArrayType() && !V->hasAttr<clang::CUDASharedAttr>() &&
         !V->hasAttr<clang::CUDADeviceAttr>() && !V->hasAttr<clang::CUDAConstantAttr>() &&
         V->hasLocalStorage();
}

LVal KernelLowering::load(const clang::Expr *E, ir::Block &Out, bool Component) {
  const SourceLoc L = loc(E);
  if (!isMemoryLValue(E))
    return inexact(isLocalThisMember(E) ? "a member of a local object" : "an element of a local array", L);
  std::optional<Expr> R = access(E, Out, false);
  if (!R)
    return inexact("memory the lint does not model", L);
  const bool Integral = !Component && isIntegral(E->getType());
  LVal V = Integral ? exact(*R) : inexact("a floating-point element", L);
  V.Data.push_back(*R);
  return V;
}

LVal KernelLowering::loadThrough(const clang::Expr *Ptr, const SourceLoc &L, ir::Block &Out) {
  std::string Why;
  std::optional<PtrVal> P = lowerPointer(Ptr, Out, Why);
  if (!P) {
    unknownAccess(L, Why, Ptr->getBeginLoc(), spaceOf(Ptr));
    return inexact("memory the lint does not model", L);
  }
  std::optional<Expr> R = accessAt(*P, L, Ptr->getBeginLoc());
  if (!R)
    return inexact("memory the lint does not model", L);
  LVal V = isIntegral(Ptr->getType()->getPointeeType()) ? exact(*R) : inexact("a floating-point element", L);
  V.Data.push_back(*R);
  return V;
}

const clang::VarDecl *KernelLowering::sharedScalar(const clang::Expr *E) {
  const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E->IgnoreParens());
  const auto *V = D ? llvm::dyn_cast<clang::VarDecl>(D->getDecl()) : nullptr;
  // Of a type an element of a shared array may have: a builtin arithmetic
  // type, __half, a vector type; never a class such as cuda::barrier.
  return V && V->hasAttr<clang::CUDASharedAttr>() && !V->getType()->isArrayType() &&
                 !V->getType()->isReferenceType() && elemTypeOf(Ctx, V->getType())
             ? V
             : nullptr;
}

void KernelLowering::unknownAccess(const SourceLoc &L, const std::string &Why, clang::SourceLocation CL,
                                   AccessSpace Space) {
  const Diagnostic &D = Info.Notes[note(L, fmt::format("access not analyzed: {}", Why), CL)];
  Info.AccessNoteSpaces[accessNoteKey(D.Loc, D.Message)] = Space;
}

AccessSpace KernelLowering::spaceOf(const std::string &Array) const {
  const auto It = Arrays.find(Array);
  if (It == Arrays.end())
    return AccessSpace::Unknown;
  switch (It->second.Space) {
  case ir::MemSpace::Shared: return AccessSpace::Shared;
  case ir::MemSpace::Global: return AccessSpace::Global;
  default: return AccessSpace::Other;
  }
}

AccessSpace KernelLowering::spaceOf(const clang::Expr *E) const {
  // Down to the declaration the address starts at: through subscripts,
  // members, casts, address-of and dereference, and pointer arithmetic.
  for (int Depth = 0; E && Depth < 64; ++Depth) {
    E = E->IgnoreParenCasts();
    if (const auto *A = llvm::dyn_cast<clang::ArraySubscriptExpr>(E)) {
      // through a pointer read from an array or a member (rows[r][c] of a
      // local array of pointers): memory whose origin is not followed
      const clang::Expr *B = A->getBase()->IgnoreParenImpCasts();
      if (B->getType()->isPointerType() && llvm::isa<clang::ArraySubscriptExpr, clang::MemberExpr>(B))
        return AccessSpace::Unknown;
      E = A->getBase();
    } else if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
      E = M->getBase();
    } else if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E)) {
      E = U->getSubExpr();
    } else if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(E)) {
      if (!B->isAdditiveOp() && !B->isAssignmentOp())
        return AccessSpace::Unknown;
      E = B->getRHS()->getType()->isPointerType() && !B->isAssignmentOp() ? B->getRHS() : B->getLHS();
    } else if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
      if (!V)
        return AccessSpace::Unknown;
      if (V->hasAttr<clang::CUDASharedAttr>())
        return AccessSpace::Shared;
      if (V->hasAttr<clang::CUDAConstantAttr>())
        return AccessSpace::Other;
      if (V->hasAttr<clang::CUDADeviceAttr>() && !V->hasLocalStorage())
        return AccessSpace::Global;
      const bool Pointer = V->getType()->isPointerType() || V->getType()->isReferenceType();
      if (const auto *P = llvm::dyn_cast<clang::ParmVarDecl>(V)) {
        // a kernel's pointer parameter points to global memory; a
        // function's may point anywhere
        const auto *F = llvm::dyn_cast_or_null<clang::FunctionDecl>(P->getDeclContext());
        if (Pointer && F && F->hasAttr<clang::CUDAGlobalAttr>())
          return AccessSpace::Global;
        return Pointer ? AccessSpace::Unknown : AccessSpace::Other;
      }
      if (V->hasLocalStorage() && !Pointer)
        return AccessSpace::Other; // a local variable or array: registers or local memory
      return AccessSpace::Unknown;
    } else {
      return AccessSpace::Unknown;
    }
  }
  return AccessSpace::Unknown;
}

std::optional<Expr> KernelLowering::access(const clang::Expr *E, ir::Block &Out, bool IsStore, int Component) {
  E = E->IgnoreParens();
  const SourceLoc L = loc(E);
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
    // a[i].x: the element (of a split element, its field's scalar)
    const auto *Field = llvm::dyn_cast<clang::FieldDecl>(M->getMemberDecl());
    const int FieldIndex = Field ? static_cast<int>(Field->getFieldIndex()) : -1;
    if (M->isArrow()) {
      std::string Why;
      std::optional<PtrVal> P = lowerPointer(M->getBase(), Out, Why);
      if (!P) {
        unknownAccess(L, Why, E->getBeginLoc(), spaceOf(M->getBase()));
        return std::nullopt;
      }
      return accessAt(*P, L, E->getBeginLoc(), FieldIndex);
    }
    return access(M->getBase(), Out, IsStore, FieldIndex);
  }
  if (const clang::VarDecl *V = sharedScalar(E)) { // its one element
    const std::optional<std::string> A = sharedArray(V);
    if (!A)
      return std::nullopt;
    return accessAt(PtrVal{*A, {ir::makeInt(0, L)}, true}, L, E->getBeginLoc(), Component);
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
                      E->getBeginLoc(), spaceOf(P->Array));
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
    unknownAccess(L, Why, E->getBeginLoc(), spaceOf(E));
    return std::nullopt;
  }
  std::optional<Expr> R = accessAt(*P, L, E->getBeginLoc(), Component);
  if (R && Component < 0)
    otherScalars(*P, L, IsStore, Out);
  return R;
}

void KernelLowering::otherScalars(const PtrVal &P, const SourceLoc &L, bool IsStore, ir::Block &Out) {
  const auto It = Arrays.find(P.Array);
  for (int C = 1; It != Arrays.end() && C < It->second.Split; ++C) {
    std::optional<Expr> R = accessAt(P, L, {}, C);
    if (!R)
      return;
    if (IsStore) // the value of a split element's scalar is data the lint does not follow
      Out.push_back({ir::Assign{*R->as<ir::ArrayRead>(), ir::makeInt(0, L)}, ir::NodeLoc(L)});
    else
      Out.push_back({ir::Let{freshName(fmt::format("v{}", TempCount++), Used), *R}, ir::NodeLoc(L)});
  }
}

std::optional<Expr> KernelLowering::accessAt(const PtrVal &P, const SourceLoc &L, clang::SourceLocation CL,
                                             int Component) {
  const auto Found = Arrays.find(P.Array);
  if (Found == Arrays.end()) { // every PtrVal names a declared array; never a crash if not
    unknownAccess(L, fmt::format("a pointer into '{}', which the lint did not declare", P.Array), CL,
                  spaceOf(P.Array));
    return std::nullopt;
  }
  const ArrayInfo &A = Found->second;
  if (P.Idx.size() != A.Shape.size()) {
    markUnderstood(P.Array, false);
    unknownAccess(L,
                  fmt::format("a pointer into '{}' that is not at an element of its innermost dimension",
                              A.Source),
                  CL, spaceOf(P.Array));
    return std::nullopt;
  }
  if (!P.Direct)
    markUnderstood(P.Array, false);
  if (Uncertain > 0 || AfterReturn)
    Info.UncertainMask.push_back(L);
  if (A.Split > 1) { // source element i, scalar c: IR element i * Split + c
    std::vector<Expr> Idx = P.Idx;
    Idx.back() = binary(BinaryOp::Add, binary(BinaryOp::Mul, Idx.back(), ir::makeInt(A.Split), L),
                        ir::makeInt(std::clamp(Component, 0, A.Split - 1), L), L);
    return node(ir::ArrayRead{P.Array, std::move(Idx)}, L);
  }
  return node(ir::ArrayRead{P.Array, P.Idx}, L);
}

std::optional<PtrVal> KernelLowering::lowerPointer(const clang::Expr *E, ir::Block &Out, std::string &Why) {
  if (!E || E->getType().isNull() || E->containsErrors())
    return failPtr(Why, "code Clang could not parse");
  E = strip(E);
  const SourceLoc L = loc(E);
  // A pointer a __device__ function returns (`T *s = shared_buffer<T>()`),
  // also through a conversion operator (`T *s = SharedMemory<T>()`, whose
  // `operator T *()` returns an extern __shared__ array): the function
  // inlined, its final `return` followed.
  if (const auto *C = llvm::dyn_cast<clang::CastExpr>(E); C && C->getCastKind() == clang::CK_UserDefinedConversion)
    return lowerPointer(C->getSubExpr(), Out, Why);
  if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E); C && E->getType()->isPointerType()) {
    if (const clang::FunctionDecl *Def = inlinable(C)) {
      std::optional<PtrVal> P;
      inlineCall(C, Def, Out, &P, &Why);
      if (P)
        P->Direct = false;
      return P;
    }
  }
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
    if (!C->getType()->isPointerType()) // a pointer tested, or made an integer
      return failPtr(Why, fmt::format("a pointer converted to '{}'", C->getType().getAsString()));
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
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(Sub)) {
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl()); V && V->hasAttr<clang::CUDASharedAttr>()) {
        if (std::optional<std::string> A = sharedArray(V); A && !Arrays.at(*A).Shape.empty()) {
          PtrVal P{*A, {}, true};
          for (std::size_t I = 0; I < Arrays.at(*A).Shape.size(); ++I)
            P.Idx.push_back(ir::makeInt(0, L));
          return P;
        }
      }
    }
    return failPtr(Why, "the address of something the lint does not model");
  }
  if (llvm::isa<clang::RecoveryExpr>(E))
    return failPtr(Why, "code Clang could not parse");
  if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E); M && !M->isArrow()) {
    // p.in of a struct passed by value (`const __grid_constant__ Params p`)
    const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(M->getBase()->IgnoreParenImpCasts());
    if (const auto It = D ? FieldPtrs.find({D->getDecl(), M->getMemberDecl()}) : FieldPtrs.end();
        It != FieldPtrs.end())
      return It->second;
  }
  if (llvm::isa<clang::CXXThisExpr>(E)) { // the object of the member function inlined (thisObject)
    if (ThisStack.empty())
      return failPtr(Why, "'this' outside a member function the lint inlined");
    if (ThisStack.back().Ptr)
      return ThisStack.back().Ptr;
    return failPtr(Why, ThisStack.back().Local ? "the address of a local object" : ThisStack.back().Why);
  }
  return failPtr(Why, fmt::format("a pointer from a '{}' expression", E->getStmtClassName()));
}

std::optional<PtrVal> KernelLowering::failPtr(std::string &Why, std::string Reason) {
  Why = std::move(Reason);
  return std::nullopt;
}

std::optional<PtrVal> KernelLowering::arrayLValue(const clang::Expr *E, ir::Block &Out, std::string &Why) {
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

std::optional<PtrVal> KernelLowering::viewAs(PtrVal P, clang::QualType To, const SourceLoc &L, std::string &Why) {
  const auto Found = Arrays.find(P.Array);
  if (To.isNull() || Found == Arrays.end())
    return failPtr(Why, "a cast the lint does not follow");
  if (Found->second.Split > 1)
    return failPtr(Why, fmt::format("a cast of '{}', whose elements the lint splits into scalars",
                                    Found->second.Source));
  const ArrayInfo &A = Found->second;
  if ((To->isVoidType() || To->isCharType()) && ir::byteSize(A.Elem) == 1)
    return P; // bytes as bytes; a wider array becomes a byte view (offsets in bytes)
  std::optional<ir::ElemType> E = elemTypeOf(Ctx, To->isVoidType() ? Ctx.UnsignedCharTy : To);
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
  // A wider element must be aligned to its width: where the offset is not
  // at some sizes, the program faults there (LowerAlignment.cpp).
  if (ToBytes > From && ToBytes % From == 0) {
    const SourceLoc &At = L.File != KernelStmt.File && KernelStmt.Line > 0 ? KernelStmt : L;
    AlignUses.push_back({Flat, ToBytes / From,
                         fmt::format("the {}-byte '{}' access at {}:{} is aligned only there", ToBytes,
                                     To.getUnqualifiedType().getAsString(),
                                     std::filesystem::path(At.File).filename().string(), At.Line)});
  }
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
    // A shared array of scalars seen as vectors of its scalar (float s[1024]
    // as float4) is the IR's view of it: the correctness checks then see one
    // memory, and a float4 store initializes the floats read after it. Other
    // casts (bytes, another scalar, several dimensions) stay arrays of their
    // own, priced alike but unknown to the checks.
    const bool AsView = A.Space == ir::MemSpace::Shared && A.Shape.size() == 1 && A.Elem.Lanes == 1 &&
                        E->Scalar == A.Elem.Scalar && E->Lanes > 1 && A.Shape[0] % E->Lanes == 0;
    addArray(View, A.Source, *E, {Elems}, A.Space, L, -1,
             AsView ? std::optional<std::string>(P.Array) : std::nullopt);
    Views[Key] = View;
  }
  markUnderstood(P.Array, false);
  return PtrVal{View, {Index}, false};
}

} // namespace bankwise::frontend::detail
