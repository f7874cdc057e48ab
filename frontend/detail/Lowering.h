// What the parts of the CUDA -> IR lowering share (frontend/CudaLowering.cpp,
// LowerStmt.cpp, LowerExpr.cpp): the small IR builders and Clang type helpers,
// the lowered values, and the KernelLowering class, whose members are defined
// in LowerStmt.cpp (declarations, statements, effects) and LowerExpr.cpp
// (values, calls, memory). Internal to frontend/ (it includes Clang).
#pragma once

#include "frontend/ClangSupport.h"
#include "frontend/CudaLowering.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <llvm/ADT/ArrayRef.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bankwise::frontend::detail {

using ir::BinaryOp;
using ir::Expr;

//===-- Small IR builders ---------------------------------------------------===//

Expr node(Expr::Kind K, const SourceLoc &L);

/// A op B, folding the identities x + 0, x * 1, 0 + x, 1 * x.
Expr binary(BinaryOp Op, Expr A, Expr B, const SourceLoc &L = {});

/// The sum of Terms; 0 when there are none.
Expr sumOf(const std::vector<Expr> &Terms, const SourceLoc &L);

/// Name as a DSL identifier: other characters become '_', reserved words
/// get a '_' appended.
std::string identifier(std::string_view Name);

/// A fresh name from Base, not in Used; recorded there.
std::string freshName(std::string_view Base, std::set<std::string> &Used);

//===-- Types ---------------------------------------------------------------===//

/// The IR element type of a C++ type: scalars of 1..8 bytes and CUDA's
/// vector types of 2 or 4 of them; nullopt for anything else.
std::optional<ir::ElemType> elemTypeOf(const clang::ASTContext &Ctx, clang::QualType T);

bool isIntegral(clang::QualType T);

std::optional<std::int64_t> evalInt(const clang::ASTContext &Ctx, const clang::Expr *E);

const clang::Expr *strip(const clang::Expr *E);

/// The CUDA built-in variable and component of `threadIdx.x` and its kin:
/// ("threadIdx", 0); nullopt for anything else.
std::optional<std::pair<std::string, int>> builtinMember(const clang::Expr *E);


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

LVal exact(Expr E);

LVal inexact(std::string Why, SourceLoc Loc, std::vector<Expr> Data = {});

/// The data and the first reason of every part, and exactness of all.
void absorb(LVal &Into, const LVal &Part);

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
  /// Scalars per source element: an element of several scalars that nvcc
  /// moves one by one (a 12-byte float3, a struct of floats) is that many
  /// IR elements; a PtrVal's last index counts source elements.
  int Split = 1;
};

/// A cooperative group whose threads the lowering knows: the block, a tile
/// of Size threads of it (tiled_partition, static or with a constant size),
/// or the grid.
struct Group {
  enum Kind { Block, Tile, Grid } K = Block;
  std::int64_t Size = 0; ///< a tile's threads
};

/// An offset (in elements of its array) that a widening cast needs to be
/// a multiple of Quantum: `reinterpret_cast<float4 *>(&A[i])` needs i % 4
/// == 0, or the access faults.
struct AlignedOffset {
  Expr Offset;
  std::int64_t Quantum = 1;
  std::string Why; ///< "the 16-byte 'float4' access at line 47 is aligned only there"
};

/// The multiples of K's runtime sizes at which every offset in Uses is
/// aligned, for offsets whose terms force one (LowerAlignment.cpp).
std::vector<ir::SizeMultiple> alignmentMultiples(const ir::Program &Prog, const ir::Kernel &K,
                                                 const std::vector<AlignedOffset> &Uses);

/// How nvcc -O3 is expected to unroll a counted loop: what a `#pragma
/// unroll` says, and the size of its body (Clang AST nodes; a call to a
/// function whose body the file does not have counts 100, its code being
/// large or unknown). LowerAlignment.cpp's mergeUnrolledAccesses reads it.
struct LoopUnroll {
  enum Hint { None, Full, Disable } H = None;
  /// `#pragma unroll N` (N >= 2): copies made N at a time, 0 for any other.
  std::int64_t Count = 0;
  std::int64_t Cost = 0;
  /// The body calls a function whose body the file does not have (sinf's
  /// __nv_sinf): its branches keep the unrolled copies' accesses apart,
  /// even under `#pragma unroll`.
  bool OpaqueCall = false;
  std::string Counter; ///< as the source names it
};

//===-- Kernel lowering ----------------------------------------------------===//

class KernelLowering {
public:
  KernelLowering(clang::ASTContext &Ctx, ir::Program &Prog, LoweredKernel &Info,
                 const std::map<const clang::ParmVarDecl *, std::string> &ScalarParams,
                 std::set<std::string> ProgramNames)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Prog(Prog), Info(Info),
        ScalarParams(ScalarParams), Used(std::move(ProgramNames)) {}

  /// Model nvcc -O3's merge of an unrolled loop's consecutive shared
  /// accesses into 8- and 16-byte ones (LowerOptions::AsWritten off).
  bool MergeVectors = true;

  /// Lowers F into K (whose Geo is set); notes go to Info.
  void lower(const clang::FunctionDecl *F, ir::Kernel &K, const Dim3 &Block,
             const std::array<Expr, 3> &GridExprs, std::int64_t DynamicSharedBytes);

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
  /// The pointer fields of a struct parameter passed by value (a kernel's
  /// `const __grid_constant__ Params p`): each its own global array.
  std::map<std::pair<const clang::ValueDecl *, const clang::ValueDecl *>, PtrVal> FieldPtrs;
  std::map<const clang::ValueDecl *, std::string> ArrayOf;  ///< shared var -> IR array
  std::map<std::string, ArrayInfo> Arrays;
  std::map<std::string, std::string> Views; ///< "array/elem" -> view array
  /// Element type and inner shape -> the IR array of the extern __shared__
  /// arrays declared with them: every such declaration (one per helper
  /// function, say) names the same dynamic memory.
  std::map<std::string, std::string> DynamicArrays;
  ir::Block SharedDecls;
  std::vector<AlignedOffset> AlignUses; ///< widening casts' offsets
  int InlineDepth = 0;
  /// The call lowerEffect is lowering: its value is dropped (an atomic's
  /// old value unused, ir::Atomic::OldValueUsed).
  const clang::CallExpr *DiscardedCall = nullptr;
  std::vector<const clang::FunctionDecl *> InlineStack;
  /// The kernel's own innermost statement being lowered: where a note from
  /// a header's inlined function is given (note()).
  SourceLoc KernelStmt;
  int Uncertain = 0;     ///< inside a condition the lint cannot evaluate
  int Nested = 0;        ///< inside an if, loop or switch of the source
  bool AfterReturn = false; ///< a lane may have returned early
  int TempCount = 0;
  /// Each IR `for` loop's unrolling (by its counter's IR name), and the
  /// hint of a `#pragma unroll` the next loop takes.
  std::map<std::string, LoopUnroll> Unrolls;
  LoopUnroll::Hint PendingHint = LoopUnroll::None;
  std::int64_t PendingCount = 0;

  /// nvcc -O3 unrolls a `for` of a constant trip count with a small body
  /// and merges its copies' consecutive, provably aligned 4- or 8-byte
  /// shared loads (or stores) into 8- and 16-byte ones (LDS.64, LDS.128):
  /// each such access becomes a read (write) of a vector view of its array
  /// at the first iteration of each merged group, and none at the others
  /// (LowerAlignment.cpp).
  void mergeUnrolledAccesses(ir::Block &Body);
  bool mergeLoop(ir::For &F, const ir::Block &Whole);

  /// What `this` is in the member functions being inlined, innermost
  /// last: an element of a modelled array (`(float)in[i]` of a bf16
  /// array), a local object (registers, no memory access), or neither
  /// (Why says what).
  struct ThisObject {
    std::optional<PtrVal> Ptr;
    bool Local = false;
    std::string Why;
  };
  std::vector<ThisObject> ThisStack;

  /// What the object of a member call C of Def is (ThisObject).
  ThisObject thisObject(const clang::CallExpr *C, const clang::FunctionDecl *Def, ir::Block &Out);

  /// Whether E (an lvalue) is `*this` or `this->m` of a local object.
  bool isLocalThisMember(const clang::Expr *E) const;

  /// Whether the lvalue E is (part of) a local variable: registers.
  bool isLocalObject(const clang::Expr *E);

  /// Whether E is `&x` of a local object x, under any casts
  /// (`*reinterpret_cast<unsigned *>(&h)` of the half headers).
  bool isLocalAddress(const clang::Expr *E);

  /// L as a location; one inside a system header (CUDA's, a library's
  /// inlined __device__ function) is recorded with the kernel statement
  /// that reached it (LoweredKernel::FromHeader).
  SourceLoc loc(clang::SourceLocation L) const {
    SourceLoc S = toSourceLoc(SM, L);
    if (S.Line > 0 && KernelStmt.Line > 0 && S.File != KernelStmt.File && L.isValid() &&
        SM.isInSystemHeader(SM.getExpansionLoc(L)) &&
        std::none_of(Info.FromHeader.begin(), Info.FromHeader.end(),
                     [&](const std::pair<SourceLoc, SourceLoc> &P) { return P.first == S; }))
      Info.FromHeader.emplace_back(S, KernelStmt);
    return S;
  }
  SourceLoc loc(const clang::Stmt *S) const { return loc(S->getBeginLoc()); }

  /// Adds a located note once; returns its index in Info.Notes (the
  /// earlier one when the same note is there already).
  std::size_t note(const SourceLoc &L, std::string Msg, clang::SourceLocation CL = {});

  void markUnderstood(const std::string &Array, bool Ok);

  std::string sourceName(const std::string &Array) const;

  //===-- Declarations -------------------------------------------------===//

  void addArray(const std::string &IrName, const std::string &Source, ir::ElemType Elem,
                std::vector<std::int64_t> Shape, ir::MemSpace Space, const SourceLoc &L,
                int SharedIndex = -1, std::optional<std::string> ViewOf = std::nullopt);

  void declareParam(const clang::ParmVarDecl *P);

  /// Whether the function body assigns D (=, op=, ++, --, or takes its address).
  bool isAssigned(const clang::ValueDecl *D) const;

  /// The IR array of a shared variable, declared on first sight.
  std::optional<std::string> sharedArray(const clang::VarDecl *V);

  /// Where the innermost `[N]` of V's declaration is, for --fix.
  void innerDimRange(const clang::VarDecl *V, SharedArraySource &S) const;

  //===-- Statements ------------------------------------------------------===//

  void lowerStmts(llvm::ArrayRef<clang::Stmt *> Stmts, ir::Block &Out);

  static bool isReturn(const clang::Stmt *S);

  void lowerStmt(const clang::Stmt *S, ir::Block &Out);

  void declareLocal(const clang::VarDecl *V, ir::Block &Out);

  /// A pointer variable: its indices kept in locals of their own, so later
  /// changes of what they were computed from do not move it.
  PtrVal pointerLocal(const std::string &Name, PtrVal P, const SourceLoc &L, ir::Block &Out);

  void lowerIf(const clang::IfStmt *If, ir::Block &Out);

  /// Whether S contains break, continue or return (not in nested loops for
  /// the first two).
  static bool hasJump(const clang::Stmt *S, bool InLoop = false);

  /// The declaration an expression names directly, ignoring casts.
  static const clang::ValueDecl *namedDecl(const clang::Expr *E);

  /// Every local the statement assigns.
  static std::set<const clang::ValueDecl *> assignedIn(const clang::Stmt *S);

  /// A loop the lowering cannot express: its body once, with every local it
  /// changes unknown from the start.
  void lowerOpaqueLoop(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                       const std::string &What, ir::Block &Out);

  void lowerFor(const clang::ForStmt *F, ir::Block &Out);

  /// A loop whose condition is an exact integer expression of locals, whose
  /// body changes no pointer and leaves exact every local it changes that
  /// was exact before, each counter of the condition at the body's top
  /// level (not under an `if`):
  /// the IR's `while` (Inc, a for's increment, run after the body), so the
  /// analysis counts its trips (`i += blockDim.x * gridDim.x`, `s *= 2`
  /// to a runtime bound, two variables). False, with nothing lowered or
  /// noted, for any other loop.
  bool lowerCountedWhile(const clang::Stmt *Loop, const clang::Expr *Cond, const clang::Stmt *Body,
                         const clang::Expr *Inc, ir::Block &Out);

  /// Whether the local D has its address taken, or is bound to a non-const
  /// reference, anywhere in its function: it may change where the lint
  /// does not see it.
  static bool aliased(const clang::ValueDecl *D);

  /// A loop whose trip values the lint can compute (`for (h = 128; h > 0;
  /// h >>= 1)`), at most 64 trips: unrolled.
  bool tryUnroll(const clang::ForStmt *F, const clang::ValueDecl *Var, const clang::Expr *Begin,
                 ir::Block &Out);

  //===-- Effects ---------------------------------------------------------===//

  /// An expression evaluated for its effects: assignments, atomics, calls,
  /// barriers; loads it makes are kept as sites.
  void lowerEffect(const clang::Expr *E, ir::Block &Out);

  /// Reads of a value nobody stores still happen: a local holds them.
  void keepReads(const LVal &V, const SourceLoc &L, ir::Block &Out);

  void lowerAssign(const clang::BinaryOperator *B, ir::Block &Out);

  /// `a = b` and `a op= b` of a class type (float4 and kin), which Clang
  /// writes as operator calls.
  bool lowerOperatorAssign(const clang::CXXOperatorCallExpr *C, ir::Block &Out);

  void lowerAssign(const clang::Expr *LhsExpr, const clang::Expr *RhsExpr, clang::BinaryOperatorKind Opcode,
                   const clang::Expr *B, ir::Block &Out);

  void setLocal(LocalInfo &LI, const LVal &V, const SourceLoc &L, ir::Block &Out);

  void combineInto(LVal &Acc, const LVal &Rhs, std::optional<BinaryOp> Op, bool Integral,
                   const SourceLoc &L);

  void lowerIncDec(const clang::UnaryOperator *U, ir::Block &Out);

  void assignPointer(const clang::ValueDecl *D, const clang::BinaryOperator *B, ir::Block &Out);

  void updatePointer(const clang::ValueDecl *D, PtrVal P, const SourceLoc &L, ir::Block &Out);

  //===-- Values ----------------------------------------------------------===//

  static std::optional<BinaryOp> binaryOp(clang::BinaryOperatorKind K);

  LVal local(const LocalInfo &LI, const SourceLoc &L);

  LVal lowerValue(const clang::Expr *E, ir::Block &Out);

  LVal builtinValue(const std::string &Var, int Dim, const SourceLoc &L);

  LVal lowerCast(const clang::CastExpr *C, ir::Block &Out);

  LVal lowerUnary(const clang::UnaryOperator *U, ir::Block &Out);

  LVal lowerBinary(const clang::BinaryOperator *B, ir::Block &Out);

  /// c ? a : b through a local set in each branch, so that each side's
  /// reads happen only for the lanes that take it.
  LVal lowerConditional(const clang::ConditionalOperator *C, ir::Block &Out);

  //===-- Calls -------------------------------------------------------------===//

  LVal lowerCall(const clang::CallExpr *C, ir::Block &Out);

  /// A __device__ function inlined: parameters bound to locals (pointers to
  /// what the arguments point to), the body lowered in place, the value of
  /// its one final `return` returned. With PtrOut, a function returning a
  /// pointer: where its final `return` points goes there (nullopt with
  /// PtrWhy when it cannot be followed).
  LVal inlineCall(const clang::CallExpr *C, const clang::FunctionDecl *Def, ir::Block &Out,
                  std::optional<PtrVal> *PtrOut = nullptr, std::string *PtrWhy = nullptr);

  /// The definition of the __device__ (or constexpr) function C calls
  /// directly, when the lowering may inline it; nullptr otherwise.
  static const clang::FunctionDecl *inlinable(const clang::CallExpr *C);

  //===-- Cooperative groups and warp intrinsics (LowerCooperative.cpp) -===//

  /// Group variables and parameters whose group is not in their type
  /// (`thread_group t = tiled_partition(block, 16)`).
  std::map<const clang::ValueDecl *, Group> Groups;

  /// Whether T (a reference to it) is one of cooperative_groups' classes.
  static bool isGroupType(clang::QualType T);

  /// The group E designates; nullopt when the lowering does not know it.
  std::optional<Group> groupOf(const clang::Expr *E);

  /// D, a variable or parameter of a group type, bound to Init's group (an
  /// unknown group when Init's is not known). Nothing is lowered.
  void bindGroup(const clang::ValueDecl *D, const clang::Expr *Init);

  /// A call into cooperative_groups the lowering models itself instead of
  /// inlining the toolkit's header (thread_rank, size, sync, shuffles,
  /// reduce, ...), or a warp intrinsic (__shfl*_sync, __ballot_sync,
  /// __activemask): its value. nullopt for any other call.
  std::optional<LVal> lowerCooperative(const clang::CallExpr *C, ir::Block &Out);

  /// `g.thread_index().x` and kin on a known group: the component's value.
  std::optional<LVal> cooperativeComponent(const clang::MemberExpr *M);

  /// V moved between the lanes of a warp (Op, with the lane, mask or
  /// distance X): the IR's shuffle when both are exact integers and the
  /// whole warp takes part (Full: a full mask, width 32); else data.
  LVal shuffle(ir::ShuffleOp Op, const LVal &V, const LVal &X, bool Full, const SourceLoc &L);

  /// The thread's rank in its block, (tz * BY + ty) * BX + tx.
  Expr blockRank(const SourceLoc &L) const;

  //===-- Memory ------------------------------------------------------------===//

  /// Whether E designates an element of shared or global memory (not a
  /// local's register).
  bool isMemoryLValue(const clang::Expr *E);

  /// Whether Base (of a subscript) is a local array in registers.
  bool isRegisterArray(const clang::Expr *Base);

  LVal load(const clang::Expr *E, ir::Block &Out, bool Component = false);

  LVal loadThrough(const clang::Expr *Ptr, const SourceLoc &L, ir::Block &Out);

  /// Notes an access left out of the IR, with the space it goes to.
  void unknownAccess(const SourceLoc &L, const std::string &Why, clang::SourceLocation CL, AccessSpace Space);
  /// The space an access through E (an array, a pointer, a member of
  /// either) goes to, from the declaration it starts at.
  AccessSpace spaceOf(const clang::Expr *E) const;
  AccessSpace spaceOf(const std::string &Array) const;
  /// E names a __shared__ scalar (the IR models shared arrays): its
  /// declaration, else null.
  const clang::VarDecl *sharedScalar(const clang::Expr *E);

  /// The ArrayRead an lvalue designates (a load, or with IsStore a store
  /// target); nullopt, with a note, when it cannot be followed. Of an
  /// array of split elements (ArrayInfo::Split), Component picks one
  /// scalar; a whole element is its first scalar, the others' accesses
  /// emitted into Out.
  std::optional<Expr> access(const clang::Expr *E, ir::Block &Out, bool IsStore, int Component = -1);

  /// The element P points to (its scalar Component, or the first, of a
  /// split element), as an IR read located at L.
  std::optional<Expr> accessAt(const PtrVal &P, const SourceLoc &L, clang::SourceLocation CL, int Component = -1);

  /// A split element's scalars after the first, accessed (loaded, or with
  /// IsStore stored) into Out: nvcc moves such an element one scalar at a time.
  void otherScalars(const PtrVal &P, const SourceLoc &L, bool IsStore, ir::Block &Out);

  /// Where a pointer expression points; nullopt with Why when unknown.
  std::optional<PtrVal> lowerPointer(const clang::Expr *E, ir::Block &Out, std::string &Why);

  static std::optional<PtrVal> failPtr(std::string &Why, std::string Reason);

  /// An array-typed lvalue: a shared array or a sub-array of one.
  std::optional<PtrVal> arrayLValue(const clang::Expr *E, ir::Block &Out, std::string &Why);

  /// P seen as a pointer to To: itself when the element sizes agree, else a
  /// view of the same memory with To's elements (reinterpret_cast<float4*>).
  std::optional<PtrVal> viewAs(PtrVal P, clang::QualType To, const SourceLoc &L, std::string &Why);
};

} // namespace bankwise::frontend::detail
