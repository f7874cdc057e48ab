// CUDA -> IR, statements (frontend/detail/Lowering.h): KernelLowering's entry
// point, its declarations (parameters, shared arrays and the source ranges
// `--fix` pads), statements (if; loops are in LowerLoops.cpp) and effects
// (assignments, pointer updates, atomics, barriers).
#include "frontend/detail/Lowering.h"

#include "ir/Eval.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtCXX.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/ScopeExit.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

namespace bankwise::frontend::detail {

namespace {

/// Whether inline asm touches only registers: no memory operand or
/// clobber, and every instruction of its text one of PTX's arithmetic,
/// conversion and move instructions (`cvt.f32.bf16 %0, %1;` of the bf16
/// and half headers). Anything else (loads, stores, barriers, fences,
/// shuffles, tensor-core instructions) is not.
bool registerOnlyAsm(const clang::GCCAsmStmt *A) {
  for (unsigned I = 0; I < A->getNumOutputs(); ++I)
    if (A->getOutputConstraint(I).contains('m'))
      return false;
  for (unsigned I = 0; I < A->getNumInputs(); ++I)
    if (A->getInputConstraint(I).contains('m'))
      return false;
  for (unsigned I = 0; I < A->getNumClobbers(); ++I)
    if (A->getClobber(I) == "memory")
      return false;
  static const std::set<std::string, std::less<>> Registers = {
      "mov", "cvt", "cvta.to", "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max",
      "and", "or", "xor", "not", "shl", "shr", "shf", "prmt", "bfe", "bfi", "brev", "popc", "clz", "lop3",
      "selp", "set", "setp", "slct", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign",
      "testp", "cnot", "mul24", "mad24", "sad", "dp4a", "dp2a"};
  const std::string Text = A->getAsmString()->getString().str();
  std::string Instr;
  const auto Check = [&](std::string I) {
    // "@p add.f32 %0, ..." -> "add"; labels and declarations (.reg) pass.
    std::size_t B = I.find_first_not_of(" \t\r\n");
    if (B == std::string::npos)
      return true;
    I = I.substr(B);
    if (I[0] == '@') {
      const std::size_t Sp = I.find_first_of(" \t");
      if (Sp == std::string::npos)
        return false;
      I = I.substr(I.find_first_not_of(" \t", Sp));
    }
    if (I[0] == '.') // a declaration: registers only
      return I.rfind(".reg", 0) == 0;
    if (const std::size_t Colon = I.find(':'); Colon != std::string::npos && Colon < I.find_first_of(" \t,"))
      return true; // a label
    const std::string Op = I.substr(0, I.find_first_of(". \t"));
    return Registers.count(Op) > 0;
  };
  for (char C : Text) {
    if (C == ';' || C == '{' || C == '}' || C == '\n') {
      if (!Check(Instr))
        return false;
      Instr.clear();
    } else {
      Instr += C;
    }
  }
  return Check(Instr);
}

} // namespace

void KernelLowering::lower(const clang::FunctionDecl *F, ir::Kernel &K, const Dim3 &Block,
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
  if (MergeVectors)
    mergeUnrolledAccesses(Body); // its views join SharedDecls
  // Shared arrays first, wherever the source declares them.
  for (ir::Stmt &S : SharedDecls)
    K.Body.push_back(std::move(S));
  for (ir::Stmt &S : Body)
    K.Body.push_back(std::move(S));
  K.Requires = alignmentMultiples(Prog, K, AlignUses);
}

std::size_t KernelLowering::note(const SourceLoc &Where, std::string Msg, clang::SourceLocation CL) {
  // A note inside a header (a library's __device__ function inlined into
  // the kernel) goes to the kernel's statement that reached it, which the
  // user can change; the header is named by its file name alone, so the
  // note does not depend on where the toolkit is installed.
  SourceLoc L = Where;
  if (L.Line > 0 && KernelStmt.Line > 0 && L.File != KernelStmt.File) {
    Msg += fmt::format(" (in {}:{}, reached from here)", std::filesystem::path(L.File).filename().string(), L.Line);
    L = KernelStmt;
    CL = {};
  }
  for (std::size_t I = 0; I < Info.Notes.size(); ++I)
    if (Info.Notes[I].Loc == L && Info.Notes[I].Message == Msg)
      return I;
  Info.Notes.push_back({Severity::Note, L, std::move(Msg), lineAt(SM, CL)});
  return Info.Notes.size() - 1;
}

void KernelLowering::markUnderstood(const std::string &Array, bool Ok) {
  const auto It = Arrays.find(Array);
  if (!Ok && It != Arrays.end() && It->second.SharedIndex >= 0)
    Info.Shared[static_cast<std::size_t>(It->second.SharedIndex)].AllUnderstood = false;
}

std::string KernelLowering::sourceName(const std::string &Array) const {
  const auto It = Arrays.find(Array);
  return It == Arrays.end() ? Array : It->second.Source;
}

//===-- Declarations -------------------------------------------------===//

void KernelLowering::addArray(const std::string &IrName, const std::string &Source, ir::ElemType Elem,
                              std::vector<std::int64_t> Shape, ir::MemSpace Space, const SourceLoc &L,
                              int SharedIndex, std::optional<std::string> ViewOf) {
  ir::Array A;
  A.Name = IrName;
  A.ViewOf = std::move(ViewOf);
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

void KernelLowering::declareParam(const clang::ParmVarDecl *P) {
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
  if (const clang::RecordDecl *R = T->getAsRecordDecl(); R && !T->isDependentType() && !isGroupType(T) && !isAssigned(P)) {
    // A struct of arguments passed by value (`const __grid_constant__
    // Params p`): each pointer field points to global memory of its own.
    for (const clang::FieldDecl *F : R->fields()) {
      const clang::QualType FT = F->getType().getCanonicalType();
      if (!FT->isPointerType())
        continue;
      const std::optional<ir::ElemType> E = elemTypeOf(Ctx, FT->getPointeeType());
      if (!E)
        continue;
      const std::string Source = fmt::format("{}.{}", Name, F->getName().str());
      const std::string IrName = freshName(fmt::format("{}_{}", Name.empty() ? "arg" : Name, F->getName().str()), Used);
      addArray(IrName, Source, *E, {PointerExtent}, ir::MemSpace::Global, loc(P->getLocation()));
      FieldPtrs[{P, F}] = {IrName, {ir::makeInt(0)}, true};
    }
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

bool KernelLowering::isAssigned(const clang::ValueDecl *D) const {
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

namespace {

/// How many scalars of one size T is made of, with no padding (float3: 3;
/// struct { float a; int b; }: 2), the first one's type in E (banks and
/// sectors see sizes); 1 when it is not so.
int scalarsOf(const clang::ASTContext &Ctx, clang::QualType T, std::optional<ir::ElemType> &E) {
  const clang::RecordDecl *R = T->getAsRecordDecl();
  if (!R || R->isUnion() || !R->getDefinition())
    return 1;
  if (const auto *C = llvm::dyn_cast<clang::CXXRecordDecl>(R); C && C->getNumBases() > 0)
    return 1;
  std::optional<ir::ElemType> Scalar;
  int N = 0;
  for (const clang::FieldDecl *F : R->fields()) {
    std::optional<ir::ElemType> FE = elemTypeOf(Ctx, F->getType());
    if (!FE || FE->Lanes != 1 || F->isBitField() || (Scalar && ir::byteSize(*FE) != ir::byteSize(*Scalar)))
      return 1;
    if (!Scalar)
      Scalar = FE;
    ++N;
  }
  if (N < 2 || Ctx.getTypeSizeInChars(T).getQuantity() != N * ir::byteSize(*Scalar))
    return 1;
  E = Scalar;
  return N;
}

} // namespace

std::optional<std::string> KernelLowering::sharedArray(const clang::VarDecl *V) {
  if (const auto It = ArrayOf.find(V); It != ArrayOf.end()) // "": seen, not modelled
    return It->second.empty() ? std::nullopt : std::optional<std::string>(It->second);
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
  // One dimension of elements made of several scalars of one size (float3,
  // a struct of floats and ints): nvcc moves them one scalar at a time;
  // modelled as an array of the scalars.
  const int Split = E || Dynamic || Shape.size() != 1 ? 1 : scalarsOf(Ctx, T, E);
  if (!E) {
    note(loc(V->getLocation()),
         fmt::format("shared variable '{}' of type '{}' is not modelled; its accesses are not analyzed",
                     Name, V->getType().getAsString()),
         V->getLocation());
    ArrayOf[V] = "";
    return std::nullopt;
  }
  if (Shape.empty()) {
    // A shared scalar (`__shared__ float total;`): an array of one element,
    // so each access is a site (a read from every lane is a broadcast of its
    // one word). Never padded by --fix: it has no inner dimension.
    const std::string IrName = freshName(Name, Used);
    addArray(IrName, Name, *E, {1}, ir::MemSpace::Shared, loc(V->getLocation()));
    return ArrayOf[V] = IrName;
  }
  std::string DynamicKey;
  if (Dynamic) {
    DynamicKey = fmt::format("{}/{}", ir::spelling(*E), fmt::join(Shape.begin() + 1, Shape.end(), "x"));
    if (const auto It = DynamicArrays.find(DynamicKey); It != DynamicArrays.end())
      return ArrayOf[V] = It->second;
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
  if (Split > 1) { // no --fix: its padding would be in scalars, not elements
    addArray(IrName, Name, *E, {Shape[0] * Split}, ir::MemSpace::Shared, loc(V->getLocation()));
    Arrays[IrName].Split = Split;
    ArrayOf[V] = IrName;
    return IrName;
  }
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
  if (Dynamic)
    DynamicArrays[DynamicKey] = IrName;
  return IrName;
}

void KernelLowering::innerDimRange(const clang::VarDecl *V, SharedArraySource &S) const {
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
  // A size spelled with a macro (`[TILE]`) is taken where the declaration
  // invokes it: `--fix` then rewrites that text (`[TILE + 1]`), which pads
  // this array only. A declaration written inside a macro is left alone.
  const clang::SourceLocation B = SM.getExpansionRange(Size->getBeginLoc()).getBegin(),
                              E = SM.getExpansionRange(Size->getEndLoc()).getEnd();
  if (B.isInvalid() || E.isInvalid() || B.isMacroID() || E.isMacroID() || !SM.isWrittenInMainFile(B) ||
      SM.getFileID(B) != SM.getFileID(E))
    return;
  const clang::SourceLocation End = clang::Lexer::getLocForEndOfToken(E, 0, SM, Ctx.getLangOpts());
  if (End.isInvalid())
    return;
  const unsigned Begin = SM.getFileOffset(B), Stop = SM.getFileOffset(End);
  const llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(B));
  if (Stop <= Begin || Stop > Buffer.size())
    return;
  // The brackets must be in the file around the expression: `[` before, `]` after.
  const std::size_t Open = Buffer.substr(0, Begin).find_last_not_of(" \t\r\n");
  const std::size_t Close = Buffer.find_first_not_of(" \t\r\n", Stop);
  if (Open == llvm::StringRef::npos || Buffer[Open] != '[' || Close == llvm::StringRef::npos || Buffer[Close] != ']')
    return;
  S.InnerDimLoc = loc(B);
  S.InnerDimOffset = Begin;
  S.InnerDimLength = Stop - Begin;
  const auto *Fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(V->getParentFunctionOrMethod());
  S.InnerDimDependent = Size->isValueDependent() || V->isTemplated() || (Fn && Fn->isTemplateInstantiation());
}

//===-- Statements ------------------------------------------------------===//

void KernelLowering::lowerStmts(llvm::ArrayRef<clang::Stmt *> Stmts, ir::Block &Out) {
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

bool KernelLowering::isReturn(const clang::Stmt *S) {
  if (const auto *C = llvm::dyn_cast<clang::CompoundStmt>(S))
    return C->size() == 1 && isReturn(*C->body_begin());
  const auto *R = llvm::dyn_cast<clang::ReturnStmt>(S);
  return R && !R->getRetValue();
}

void KernelLowering::lowerStmt(const clang::Stmt *S, ir::Block &Out) {
  if (!S)
    return;
  const SourceLoc Outer = KernelStmt;
  const auto Restore = llvm::make_scope_exit([&] { KernelStmt = Outer; });
  if (InlineDepth == 0)
    KernelStmt = loc(S);
  if (const auto *C = llvm::dyn_cast<clang::CompoundStmt>(S))
    return lowerStmts({C->body_begin(), C->body_end()}, Out);
  if (const auto *A = llvm::dyn_cast<clang::AttributedStmt>(S)) {
    for (const clang::Attr *At : A->getAttrs()) {
      const auto *H = llvm::dyn_cast<clang::LoopHintAttr>(At);
      if (!H)
        continue;
      if (H->getOption() == clang::LoopHintAttr::Unroll) {
        PendingHint = H->getState() == clang::LoopHintAttr::Disable ? LoopUnroll::Disable : LoopUnroll::Full;
      } else if (H->getOption() == clang::LoopHintAttr::UnrollCount) {
        const std::optional<std::int64_t> N = H->getValue() ? evalInt(Ctx, H->getValue()) : std::nullopt;
        PendingHint = N && *N <= 1 ? LoopUnroll::Disable : LoopUnroll::Full;
        PendingCount = N && *N > 1 ? *N : 0;
      }
    }
    lowerStmt(A->getSubStmt(), Out);
    PendingHint = LoopUnroll::None; // a hint is its own loop's only
    PendingCount = 0;
    return;
  }
  if (const auto *D = llvm::dyn_cast<clang::DeclStmt>(S)) {
    for (const clang::Decl *Dc : D->decls())
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(Dc))
        declareLocal(V, Out);
    return;
  }
  if (const auto *E = llvm::dyn_cast<clang::Expr>(S))
    return lowerEffect(E, Out);
  const bool Branch = llvm::isa<clang::IfStmt, clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::SwitchStmt>(S);
  Nested += Branch;
  const auto Unnest = llvm::make_scope_exit([&] { Nested -= Branch; });
  if (const auto *If = llvm::dyn_cast<clang::IfStmt>(S))
    return lowerIf(If, Out);
  if (const auto *F = llvm::dyn_cast<clang::ForStmt>(S))
    return lowerFor(F, Out);
  if (const auto *W = llvm::dyn_cast<clang::WhileStmt>(S)) {
    if (!W->getConditionVariable() && lowerCountedWhile(S, W->getCond(), W->getBody(), nullptr, Out))
      return;
    return lowerOpaqueLoop(S, W->getCond(), W->getBody(), "a while loop", Out);
  }
  if (const auto *Do = llvm::dyn_cast<clang::DoStmt>(S)) {
    // do B while (C) is B, then while (C) B: the first trip peeled, the
    // rest a counted loop when it is one. Undone (notes, locals) if not.
    if (!hasJump(Do->getBody())) {
      const std::size_t Notes = Info.Notes.size(), Masks = Info.UncertainMask.size();
      const auto SavedLocals = Locals;
      const auto SavedPtrs = Ptrs;
      const auto SavedBad = BadPtrs;
      ir::Block First, Rest;
      lowerStmt(Do->getBody(), First);
      if (lowerCountedWhile(S, Do->getCond(), Do->getBody(), nullptr, Rest)) {
        for (ir::Stmt &St : First)
          Out.push_back(std::move(St));
        for (ir::Stmt &St : Rest)
          Out.push_back(std::move(St));
        return;
      }
      Info.Notes.resize(Notes);
      Info.UncertainMask.resize(Masks);
      Locals = SavedLocals;
      Ptrs = SavedPtrs;
      BadPtrs = SavedBad;
    }
    return lowerOpaqueLoop(S, Do->getCond(), Do->getBody(), "a do loop", Out);
  }
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
  if (const auto *A = llvm::dyn_cast<clang::GCCAsmStmt>(S); A && registerOnlyAsm(A)) {
    // Registers in, registers out: the inputs' reads kept, each output a
    // value the lint does not follow.
    LVal In = inexact("the value of inline asm", loc(S));
    for (unsigned I = 0; I < A->getNumInputs(); ++I)
      absorb(In, lowerValue(A->getInputExpr(I), Out));
    keepReads(In, loc(S), Out);
    for (unsigned I = 0; I < A->getNumOutputs(); ++I) {
      const clang::Expr *O = A->getOutputExpr(I);
      if (isMemoryLValue(O)) {
        note(loc(S), "inline asm writes memory; not analyzed", S->getBeginLoc());
        continue;
      }
      // The local written, also through `*(unsigned *)&h` or a member.
      const clang::Expr *Root = O;
      while (true) {
        Root = Root->IgnoreParenCasts();
        if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(Root);
            U && (U->getOpcode() == clang::UO_Deref || U->getOpcode() == clang::UO_AddrOf))
          Root = U->getSubExpr();
        else if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(Root); M && !M->isArrow())
          Root = M->getBase();
        else if (const auto *Sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(Root))
          Root = Sub->getBase();
        else
          break;
      }
      const clang::ValueDecl *D = namedDecl(Root);
      const auto It = D ? Locals.find(D) : Locals.end();
      if (It == Locals.end())
        continue; // a local the lint keeps no value of (a struct, an array)
      if (It->second.Kind == ir::VarKind::Let)
        setLocal(It->second, inexact("the value of inline asm", loc(S)), loc(S), Out);
      else
        It->second.Exact = false, It->second.Why = "the value of inline asm";
    }
    return;
  }
  note(loc(S), fmt::format("'{}' statement not understood; its accesses are not analyzed",
                           S->getStmtClassName()),
       S->getBeginLoc());
}

void KernelLowering::declareLocal(const clang::VarDecl *V, ir::Block &Out) {
  if (V->hasAttr<clang::CUDASharedAttr>()) {
    sharedArray(V);
    return;
  }
  const clang::QualType T = V->getType().getCanonicalType();
  const SourceLoc L = loc(V->getLocation());
  if (isGroupType(T)) // cg::thread_block b = cg::this_thread_block(): no code
    return bindGroup(V, V->getInit());
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

PtrVal KernelLowering::pointerLocal(const std::string &Name, PtrVal P, const SourceLoc &L, ir::Block &Out) {
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

void KernelLowering::lowerIf(const clang::IfStmt *If, ir::Block &Out) {
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

//===-- Effects ---------------------------------------------------------===//

void KernelLowering::lowerEffect(const clang::Expr *E, ir::Block &Out) {
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
    const clang::CallExpr *Outer = std::exchange(DiscardedCall, C);
    LVal V = lowerCall(C, Out);
    DiscardedCall = Outer;
    keepReads(V, loc(C), Out);
    return;
  }
  LVal V = lowerValue(E, Out);
  keepReads(V, loc(E), Out);
}

void KernelLowering::keepReads(const LVal &V, const SourceLoc &L, ir::Block &Out) {
  bool AnyRead = false;
  for (const Expr &D : V.Data)
    AnyRead |= D.is<ir::ArrayRead>();
  if (!AnyRead)
    return;
  const std::string Name = freshName(fmt::format("v{}", TempCount++), Used);
  Out.push_back({ir::Let{Name, V.materialize()}, ir::NodeLoc(L)});
}

void KernelLowering::lowerAssign(const clang::BinaryOperator *B, ir::Block &Out) {
  lowerAssign(B->getLHS(), B->getRHS(), B->getOpcode(), B, Out);
}

bool KernelLowering::lowerOperatorAssign(const clang::CXXOperatorCallExpr *C, ir::Block &Out) {
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

void KernelLowering::lowerAssign(const clang::Expr *LhsExpr, const clang::Expr *RhsExpr, clang::BinaryOperatorKind Opcode,
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

void KernelLowering::setLocal(LocalInfo &LI, const LVal &V, const SourceLoc &L, ir::Block &Out) {
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

void KernelLowering::combineInto(LVal &Acc, const LVal &Rhs, std::optional<BinaryOp> Op, bool Integral,
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

void KernelLowering::lowerIncDec(const clang::UnaryOperator *U, ir::Block &Out) {
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

void KernelLowering::assignPointer(const clang::ValueDecl *D, const clang::BinaryOperator *B, ir::Block &Out) {
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

void KernelLowering::updatePointer(const clang::ValueDecl *D, PtrVal P, const SourceLoc &L, ir::Block &Out) {
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

} // namespace bankwise::frontend::detail
