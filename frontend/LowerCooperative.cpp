// CUDA -> IR, cooperative groups and warp intrinsics (frontend/detail/Lowering.h).
//
// cooperative_groups' classes are modelled here, not inlined from the
// toolkit's headers: their members reach inline asm, `this` and dim3
// temporaries that the lowering does not follow, and what they compute is
// simple once the group is known. A group is the block, a tile of N of its
// threads (tiled_partition<N>, or tiled_partition(g, N) with a constant N;
// tiles are the block's threads in rank order, N at a time) or the grid:
//
//   thread_rank()      block: (tz * BY + ty) * BX + tx;  tile: that mod N;
//                      grid: the block's linear index * threads + block rank
//   size(), num_threads()   BX * BY * BZ;  N
//   meta_group_rank()  tile: block rank / N;  meta_group_size(): ceil(BX*BY*BZ / N)
//   sync(), cg::sync(g)     block, grid: a barrier;  tile: none (warp-synchronous)
//   shfl*(v, x)        a 32-thread tile: the warp shuffle (shuffle());  others: data
//   any, all, ballot, match_*, reduce, scans: data (their operands' reads kept)
//
// Warp intrinsics: __shfl_sync and its _up/_down/_xor forms with a full
// mask and width 32 are the IR's shuffle (the value of lane l ^ m and kin,
// a function of the lane); __ballot_sync, __activemask and the like are
// data.
#include "frontend/detail/Lowering.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>

#include <fmt/format.h>

namespace bankwise::frontend::detail {

namespace {

bool inCooperativeGroups(const clang::Decl *D) {
  for (const clang::DeclContext *C = D->getDeclContext(); C; C = C->getParent())
    if (const auto *N = llvm::dyn_cast<clang::NamespaceDecl>(C); N && N->getName() == "cooperative_groups")
      return true;
  return false;
}

const clang::CXXRecordDecl *groupRecord(clang::QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const clang::CXXRecordDecl *R = T->getAsCXXRecordDecl();
  return R && R->getIdentifier() && inCooperativeGroups(R) ? R : nullptr;
}

/// The group a type alone says: thread_block, grid_group, and the tiles
/// whose size is a template argument (thread_block_tile<N> and the bases
/// it inherits its members from).
std::optional<Group> groupOfType(clang::QualType T) {
  const clang::CXXRecordDecl *R = groupRecord(T);
  if (!R)
    return std::nullopt;
  const llvm::StringRef Name = R->getName();
  if (Name == "thread_block")
    return Group{Group::Block, 0};
  if (Name == "grid_group")
    return Group{Group::Grid, 0};
  if (const auto *S = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(R);
      S && Name.contains("tile") && S->getTemplateArgs().size() > 0 &&
      S->getTemplateArgs()[0].getKind() == clang::TemplateArgument::Integral) {
    const std::int64_t N = S->getTemplateArgs()[0].getAsIntegral().getExtValue();
    if (N > 0 && (N & (N - 1)) == 0)
      return Group{Group::Tile, N};
  }
  return std::nullopt;
}

/// E without the wrappers a group picks up on its way (temporaries, copies,
/// conversions to a base or to thread_group).
const clang::Expr *unwrapGroup(const clang::Expr *E) {
  while (true) {
    E = strip(E)->IgnoreParenImpCasts();
    if (const auto *C = llvm::dyn_cast<clang::CXXConstructExpr>(E); C && C->getNumArgs() == 1)
      E = C->getArg(0);
    else if (const auto *F = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(E))
      E = F->getSubExpr();
    else // strip() above takes temporaries and cleanups off
      return E;
  }
}

std::string calleeName(const clang::CallExpr *C) {
  const clang::FunctionDecl *F = C->getDirectCallee();
  return F && F->getIdentifier() ? F->getName().str() : "";
}

} // namespace

bool KernelLowering::isGroupType(clang::QualType T) { return groupRecord(T) != nullptr; }

Expr KernelLowering::blockRank(const SourceLoc &L) const {
  Expr R = node(ir::BuiltinRef{ir::Builtin::Tx}, L);
  if (BlockDim[1] > 1 || BlockDim[2] > 1) {
    Expr Y = node(ir::BuiltinRef{ir::Builtin::Ty}, L);
    if (BlockDim[2] > 1)
      Y = binary(BinaryOp::Add,
                 binary(BinaryOp::Mul, node(ir::BuiltinRef{ir::Builtin::Tz}, L), ir::makeInt(BlockDim[1], L), L), Y,
                 L);
    R = binary(BinaryOp::Add, binary(BinaryOp::Mul, Y, ir::makeInt(BlockDim[0], L), L), R, L);
  }
  return R;
}

std::optional<Group> KernelLowering::groupOf(const clang::Expr *E) {
  E = unwrapGroup(E);
  if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E))
    if (auto It = Groups.find(D->getDecl()); It != Groups.end())
      return It->second;
  if (std::optional<Group> G = groupOfType(E->getType()))
    return G;
  if (const auto *C = llvm::dyn_cast<clang::CallExpr>(E);
      C && C->getDirectCallee() && inCooperativeGroups(C->getDirectCallee())) {
    const std::string Name = calleeName(C);
    if (Name == "this_thread_block")
      return Group{Group::Block, 0};
    if (Name == "this_grid")
      return Group{Group::Grid, 0};
    // coalesced_threads() where every lane of the warp is known active (not
    // under a branch or loop, no lane returned, whole warps): the warp.
    if (Name == "coalesced_threads" && Nested == 0 && Uncertain == 0 && !AfterReturn &&
        (BlockDim[0] * BlockDim[1] * BlockDim[2]) % 32 == 0)
      return Group{Group::Tile, 32};
    if (Name == "tiled_partition" && C->getNumArgs() == 2) {
      std::optional<std::int64_t> N = evalInt(Ctx, C->getArg(1));
      if (N && *N > 0 && (*N & (*N - 1)) == 0 && groupOf(C->getArg(0)))
        return Group{Group::Tile, *N};
    }
  }
  return std::nullopt;
}

void KernelLowering::bindGroup(const clang::ValueDecl *D, const clang::Expr *Init) {
  std::optional<Group> G = Init ? groupOf(Init) : std::nullopt;
  if (G)
    Groups[D] = *G;
  else
    Groups.erase(D);
}

std::optional<LVal> KernelLowering::cooperativeComponent(const clang::MemberExpr *M) {
  const auto *C = llvm::dyn_cast<clang::CallExpr>(unwrapGroup(M->getBase()));
  const clang::FieldDecl *F = llvm::dyn_cast<clang::FieldDecl>(M->getMemberDecl());
  if (!C || !F || !C->getDirectCallee() || !inCooperativeGroups(C->getDirectCallee()))
    return std::nullopt;
  const std::string Field = F->getName().str();
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return std::nullopt;
  const int Dim = Field[0] - 'x';
  const auto *ME = llvm::dyn_cast<clang::MemberExpr>(C->getCallee()->IgnoreParenImpCasts());
  const std::optional<Group> G = ME ? groupOf(ME->getBase()) : std::nullopt;
  if (!G || G->K != Group::Block)
    return std::nullopt;
  const std::string Name = calleeName(C);
  const SourceLoc L = loc(M);
  if (Name == "thread_index")
    return builtinValue("threadIdx", Dim, L);
  if (Name == "group_index")
    return builtinValue("blockIdx", Dim, L);
  if (Name == "dim_threads" || Name == "group_dim")
    return builtinValue("blockDim", Dim, L);
  return std::nullopt;
}

LVal KernelLowering::shuffle(ir::ShuffleOp Op, const LVal &V, const LVal &X, bool Full, const SourceLoc &L) {
  if (Full && V.Exact && X.Exact) {
    LVal R = exact(node(ir::Shuffle{Op, V.E, X.E}, L));
    R.Data = V.Data;
    R.Data.insert(R.Data.end(), X.Data.begin(), X.Data.end());
    return R;
  }
  LVal R = inexact(fmt::format("the value of a shuffle ({})",
                               !Full ? "not of a whole warp" : !V.Exact ? V.Why : X.Why),
                   L, V.Data);
  absorb(R, X);
  return R;
}

std::optional<LVal> KernelLowering::lowerCooperative(const clang::CallExpr *C, ir::Block &Out) {
  const clang::FunctionDecl *F = C->getDirectCallee();
  if (!F || !F->getIdentifier())
    return std::nullopt;
  const std::string Name = F->getName().str();
  const SourceLoc L = loc(C);
  const auto Data = [&](unsigned From, std::string Why) {
    LVal V = inexact(std::move(Why), L);
    for (unsigned I = From; I < C->getNumArgs(); ++I)
      absorb(V, lowerValue(C->getArg(I), Out));
    return V;
  };
  // Warp intrinsics.
  static const std::map<std::string, ir::ShuffleOp, std::less<>> Shuffles = {
      {"__shfl_sync", ir::ShuffleOp::Idx},
      {"__shfl_up_sync", ir::ShuffleOp::Up},
      {"__shfl_down_sync", ir::ShuffleOp::Down},
      {"__shfl_xor_sync", ir::ShuffleOp::Xor}};
  if (const auto It = Shuffles.find(Name); It != Shuffles.end() && (C->getNumArgs() == 3 || C->getNumArgs() == 4)) {
    const std::optional<std::int64_t> Mask = evalInt(Ctx, C->getArg(0));
    const std::optional<std::int64_t> Width = C->getNumArgs() == 4 ? evalInt(Ctx, C->getArg(3)) : 32;
    lowerEffect(C->getArg(0), Out);
    LVal V = lowerValue(C->getArg(1), Out);
    if (!isIntegral(C->getArg(1)->getType()) && V.Exact)
      V = inexact("a floating-point value", loc(C->getArg(1)), V.Data);
    LVal X = lowerValue(C->getArg(2), Out);
    const bool Full = Mask && (*Mask & 0xffffffff) == 0xffffffff && Width && *Width == 32;
    return shuffle(It->second, V, X, Full, L);
  }
  if (Name == "__ballot_sync" || Name == "__activemask" || Name == "__any_sync" || Name == "__all_sync" ||
      Name == "__uni_sync" || Name == "__match_any_sync" || Name == "__match_all_sync" ||
      Name == "__reduce_add_sync" || Name == "__reduce_min_sync" || Name == "__reduce_max_sync" ||
      Name == "__reduce_and_sync" || Name == "__reduce_or_sync" || Name == "__reduce_xor_sync")
    return Data(0, fmt::format("the value of '{}'", Name));
  if (!inCooperativeGroups(F))
    return std::nullopt;

  // cooperative_groups: the group is the object of a member call, or the
  // first argument of a free function (cg::sync(g), cg::reduce(g, v, op)).
  const clang::Expr *Object = nullptr;
  unsigned First = 0;
  if (const auto *ME = llvm::dyn_cast<clang::MemberExpr>(C->getCallee()->IgnoreParenImpCasts())) {
    Object = ME->getBase();
  } else if (C->getNumArgs() > 0 && isGroupType(C->getArg(0)->getType())) {
    Object = C->getArg(0);
    First = 1;
  }
  if (Name == "this_thread_block" || Name == "this_grid" || Name == "tiled_partition" ||
      Name == "coalesced_threads")
    return inexact("a cooperative group", L); // used where a group is (groupOf)
  if (!Object)
    return std::nullopt;
  const std::optional<Group> G = groupOf(Object);
  const std::string What = fmt::format("'{}' of a cooperative group", Name);
  if (Name == "sync" || Name == "barrier_wait") {
    if (G && G->K != Group::Tile)
      Out.push_back({ir::Sync{}, ir::NodeLoc(L)});
    else if (!G)
      note(L, "a sync of a cooperative group the lint does not know: not lowered as a barrier", C->getBeginLoc());
    return inexact(fmt::format("the value of {}", What), L);
  }
  if (Name == "shfl" || Name == "shfl_up" || Name == "shfl_down" || Name == "shfl_xor") {
    const ir::ShuffleOp Op = Name == "shfl"        ? ir::ShuffleOp::Idx
                             : Name == "shfl_up"   ? ir::ShuffleOp::Up
                             : Name == "shfl_down" ? ir::ShuffleOp::Down
                                                   : ir::ShuffleOp::Xor;
    if (C->getNumArgs() != First + 2)
      return Data(First, fmt::format("the value of {}", What));
    LVal V = lowerValue(C->getArg(First), Out);
    if (!isIntegral(C->getArg(First)->getType()) && V.Exact)
      V = inexact("a floating-point value", loc(C->getArg(First)), V.Data);
    LVal X = lowerValue(C->getArg(First + 1), Out);
    return shuffle(Op, V, X, G && G->K == Group::Tile && G->Size == 32, L);
  }
  if (Name == "any" || Name == "all" || Name == "ballot" || Name == "match_any" || Name == "match_all" ||
      Name == "reduce" || Name == "inclusive_scan" || Name == "exclusive_scan")
    return Data(First, fmt::format("the value of {}", What)); // the operands' reads (not the operator)
  const bool Rank = Name == "thread_rank", Size = Name == "size" || Name == "num_threads";
  const bool Meta = Name == "meta_group_rank" || Name == "meta_group_size";
  if (!Rank && !Size && !Meta)
    return std::nullopt; // the header's own code (what it does is noted there)
  const std::int64_t Threads = BlockDim[0] * BlockDim[1] * BlockDim[2];
  if (G && G->K == Group::Grid && (Rank || Size)) {
    // The grid's threads in rank order: block by block (x fastest), each
    // block's threads in block rank order.
    if (Size)
      return exact(binary(BinaryOp::Mul,
                          binary(BinaryOp::Mul, binary(BinaryOp::Mul, Grid[0], Grid[1], L), Grid[2], L),
                          ir::makeInt(Threads, L), L));
    Expr B = node(ir::BuiltinRef{ir::Builtin::Bx}, L);
    if (!(Grid[1].is<ir::IntLit>() && Grid[1].as<ir::IntLit>()->Value == 1 && Grid[2].is<ir::IntLit>() &&
          Grid[2].as<ir::IntLit>()->Value == 1)) {
      Expr Y = binary(BinaryOp::Add, binary(BinaryOp::Mul, node(ir::BuiltinRef{ir::Builtin::Bz}, L), Grid[1], L),
                      node(ir::BuiltinRef{ir::Builtin::By}, L), L);
      B = binary(BinaryOp::Add, binary(BinaryOp::Mul, Y, Grid[0], L), B, L);
    }
    return exact(binary(BinaryOp::Add, binary(BinaryOp::Mul, B, ir::makeInt(Threads, L), L), blockRank(L), L));
  }
  if (!G && groupRecord(Object->getType()) && groupRecord(Object->getType())->getName() == "coalesced_group")
    return inexact(fmt::format("{} made by coalesced_threads() under a branch or loop: which lanes are active "
                               "is not known",
                               What),
                   L);
  if (!G || G->K == Group::Grid)
    return inexact(fmt::format("{} whose threads the lint does not know", What), L);
  if (G->K == Group::Block) {
    if (Rank)
      return exact(blockRank(L));
    if (Size)
      return exact(ir::makeInt(Threads, L));
    return exact(ir::makeInt(Name == "meta_group_rank" ? 0 : 1, L));
  }
  if (Rank)
    return exact(binary(BinaryOp::Mod, blockRank(L), ir::makeInt(G->Size, L), L));
  if (Size)
    return exact(ir::makeInt(G->Size, L));
  if (Name == "meta_group_rank")
    return exact(binary(BinaryOp::Div, blockRank(L), ir::makeInt(G->Size, L), L));
  return exact(ir::makeInt((Threads + G->Size - 1) / G->Size, L));
}

} // namespace bankwise::frontend::detail
