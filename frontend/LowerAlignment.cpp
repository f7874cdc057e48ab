// The sizes at which a widening cast's accesses are aligned: a 16-byte
// `reinterpret_cast<float4 *>(&A[r * K + 4 * c])` faults unless r * K is a
// multiple of 4 floats, so for a row r = 1 the kernel runs only where
// K % 4 == 0. The lint prices the view's element at the offset rounded
// down (the index is `offset * 4 / 16`), which is a figure for sizes the
// program never runs; this file finds the multiples the kernel needs, and
// the all-sizes analysis ranges over them only (ir::SizeMultiple).
//
// The offset is expanded into a sum of products: constants, the runtime
// sizes, and opaque factors (thread indices, loop counters, anything else)
// that are taken to reach 1 for some lane or iteration. A product of one
// size and such factors with coefficient c needs the size to be a multiple
// of Q / gcd(c, Q), Q being the view's width over the element's. Locals
// are expanded through their definitions (a `let`'s value and the values
// assigned to it; `A_i0 = A_i0 + 8` contributes 8 times a count). A term
// with a size inside an opaque factor, or with two sizes, needs nothing of
// them here: the rule names only what one term forces.
#include "frontend/detail/Lowering.h"

#include "ir/Walk.h"

#include <fmt/format.h>

#include <functional>
#include <numeric>
#include <set>

namespace bankwise::frontend::detail {

namespace {

/// Coefficients are kept modulo this (a multiple of every vector width
/// over element width, all powers of two up to 16).
constexpr std::int64_t Modulus = 1024;

std::int64_t reduce(std::int64_t V) {
  return ((V % Modulus) + Modulus) % Modulus;
}

struct Term {
  std::int64_t Coef = 1;
  /// Runtime sizes, by name, one entry per occurrence.
  std::vector<std::string> Sizes;
  /// An opaque factor holds a runtime size (the term says nothing then).
  bool SizeInside = false;
};
using Terms = std::vector<Term>;

constexpr std::size_t MaxTerms = 256;
constexpr int MaxDepth = 12;

class Expander {
public:
  /// CompilerView: what nvcc knows when it compiles the kernel, where
  /// every kernel parameter is unknown (a -D or a launch's constant binds
  /// it for the lint, not for the compiler): an opaque factor.
  Expander(const ir::Program &Prog, const ir::Block &Body, bool CompilerView = false)
      : CompilerView(CompilerView) {
    for (const ir::Param &P : Prog.Params) {
      if (P.Runtime && !P.Init)
        Runtime.insert(P.Name);
      else
        Bound[P.Name] = P.Value;
    }
    collect(Body);
  }

  std::optional<Terms> expand(const ir::Expr &E, int Depth = 0) {
    if (Depth > MaxDepth)
      return opaque(E);
    if (const auto *I = E.as<ir::IntLit>())
      return Terms{{reduce(I->Value), {}, false}};
    if (const auto *V = E.as<ir::VarRef>()) {
      if (V->Kind == ir::VarKind::Param) {
        if (CompilerView)
          return opaque(E);
        if (Runtime.count(V->Name))
          return Terms{{1, {V->Name}, false}};
        if (auto It = Bound.find(V->Name); It != Bound.end())
          return Terms{{reduce(It->second), {}, false}};
        return opaque(E);
      }
      if (V->Kind == ir::VarKind::Let)
        return local(V->Name, E, Depth);
      return opaque(E);
    }
    if (const auto *U = E.as<ir::Unary>(); U && U->Op == ir::UnaryOp::Neg) {
      std::optional<Terms> T = expand(*U->Operand, Depth + 1);
      if (T)
        for (Term &X : *T)
          X.Coef = reduce(-X.Coef);
      return T;
    }
    if (const auto *B = E.as<ir::Binary>()) {
      switch (B->Op) {
      case ir::BinaryOp::Add:
      case ir::BinaryOp::Sub: {
        std::optional<Terms> L = expand(*B->Lhs, Depth + 1), R = expand(*B->Rhs, Depth + 1);
        if (!L || !R || L->size() + R->size() > MaxTerms)
          return std::nullopt;
        for (Term &X : *R) {
          if (B->Op == ir::BinaryOp::Sub)
            X.Coef = reduce(-X.Coef);
          L->push_back(std::move(X));
        }
        return L;
      }
      case ir::BinaryOp::Mul: {
        std::optional<Terms> L = expand(*B->Lhs, Depth + 1), R = expand(*B->Rhs, Depth + 1);
        if (!L || !R || L->size() * R->size() > MaxTerms)
          return std::nullopt;
        Terms Out;
        for (const Term &X : *L)
          for (const Term &Y : *R) {
            Term P{reduce(X.Coef * Y.Coef), X.Sizes, X.SizeInside || Y.SizeInside};
            P.Sizes.insert(P.Sizes.end(), Y.Sizes.begin(), Y.Sizes.end());
            Out.push_back(std::move(P));
          }
        return Out;
      }
      case ir::BinaryOp::Shl:
        if (const auto *S = B->Rhs->as<ir::IntLit>(); S && S->Value >= 0 && S->Value < 10) {
          std::optional<Terms> L = expand(*B->Lhs, Depth + 1);
          if (L)
            for (Term &X : *L)
              X.Coef = reduce(X.Coef << S->Value);
          return L;
        }
        return opaque(E);
      default:
        return opaque(E);
      }
    }
    return opaque(E);
  }

private:
  bool CompilerView = false;
  std::set<std::string> Runtime;
  std::map<std::string, std::int64_t> Bound;
  /// A local's values: its `let`, every value assigned to it, and for an
  /// increment (`x = x + d`) d, which counts some number of times (an
  /// opaque factor that may be 1: d's terms as they are).
  std::map<std::string, std::vector<const ir::Expr *>> Defs;
  std::set<std::string> Expanding;

  Terms opaque(const ir::Expr &E) const {
    const bool Inside = ir::anySubexpr(E, [&](const ir::Expr &X) {
      const auto *V = X.as<ir::VarRef>();
      return V && V->Kind == ir::VarKind::Param && Runtime.count(V->Name);
    });
    return Terms{{1, {}, Inside}};
  }

  void collect(const ir::Block &B) {
    for (const ir::Stmt &S : B) {
      if (const auto *L = S.as<ir::Let>()) {
        Defs[L->Name].push_back(&L->Init);
      } else if (const auto *A = S.as<ir::Assign>()) {
        const auto *T = std::get_if<ir::VarRef>(&A->Target);
        if (!T)
          continue;
        const auto *Bin = A->Value.as<ir::Binary>();
        auto Self = [&](const ir::Expr &X) {
          const auto *V = X.as<ir::VarRef>();
          return V && V->Name == T->Name;
        };
        // The sign of an increment does not change what it needs.
        if (Bin && (Bin->Op == ir::BinaryOp::Add || Bin->Op == ir::BinaryOp::Sub) && Self(*Bin->Lhs))
          Defs[T->Name].push_back(&*Bin->Rhs);
        else if (Bin && Bin->Op == ir::BinaryOp::Add && Self(*Bin->Rhs))
          Defs[T->Name].push_back(&*Bin->Lhs);
        else
          Defs[T->Name].push_back(&A->Value);
      } else if (const auto *F = S.as<ir::For>()) {
        collect(F->Body);
      } else if (const auto *W = S.as<ir::While>()) {
        collect(W->Body);
      } else if (const auto *I = S.as<ir::If>()) {
        collect(I->Then);
        collect(I->Else);
      }
    }
  }

  std::optional<Terms> local(const std::string &Name, const ir::Expr &E, int Depth) {
    const auto It = Defs.find(Name);
    if (It == Defs.end() || Expanding.count(Name))
      return opaque(E);
    Expanding.insert(Name);
    Terms Out;
    bool Ok = true;
    for (const ir::Expr *D : It->second) {
      std::optional<Terms> T = expand(*D, Depth + 1);
      if (!T || Out.size() + T->size() > MaxTerms) {
        Ok = false;
        break;
      }
      for (Term &X : *T)
        Out.push_back(std::move(X));
    }
    Expanding.erase(Name);
    if (!Ok)
      return std::nullopt;
    return Out;
  }
};

} // namespace

std::vector<ir::SizeMultiple> alignmentMultiples(const ir::Program &Prog, const ir::Kernel &K,
                                                 const std::vector<AlignedOffset> &Uses) {
  std::map<std::string, std::pair<std::int64_t, std::string>> Need; // size -> multiple, why
  Expander X(Prog, K.Body);
  for (const AlignedOffset &U : Uses) {
    if (U.Quantum <= 1 || Modulus % U.Quantum != 0)
      continue;
    const std::optional<Terms> T = X.expand(U.Offset);
    if (!T)
      continue;
    for (const Term &Y : *T) {
      if (Y.SizeInside || Y.Sizes.size() != 1)
        continue;
      const std::int64_t M = U.Quantum / std::gcd(Y.Coef % U.Quantum, U.Quantum);
      if (M <= 1)
        continue;
      auto &[Multiple, Why] = Need[Y.Sizes.front()];
      if (Multiple == 0)
        Why = U.Why;
      Multiple = std::lcm(std::max<std::int64_t>(Multiple, 1), M);
    }
  }
  std::vector<ir::SizeMultiple> Out;
  for (const auto &[Name, MW] : Need)
    Out.push_back({Name, MW.first, MW.second});
  return Out;
}

//===-- nvcc's merge of unrolled consecutive shared accesses ----------------===//
//
// nvcc -O3 unrolls a counted loop of a constant trip count (fully, or in
// groups when the trip count is large) and merges the copies' shared
// accesses at consecutive addresses into one 8- or 16-byte access where it
// can prove the first address aligned: `acc += As[ty][k]` for k < 16 is
// four LDS.128, `regN[i] = Bs[c * 8 + i]` for i < 8 two. Measured with
// cuobjdump on sm_90 (docs/lint.md, "Vector merges"): merged are loads, or
// stores, of 4- or 8-byte elements of any shared array (static arrays are
// placed 16-byte aligned, dynamic ones start so), in a loop of a constant
// trip count whose body is straight-line and small or under `#pragma
// unroll`. Not merged: a body with a branch (a call of a function without
// a body, such as sinf's __nv_sinf, has some, even under `#pragma
// unroll`), a barrier, or shared loads beside shared stores; an offset nvcc
// cannot prove aligned (a kernel parameter's multiple, a row of 33
// floats); a loop under `#pragma unroll 1`. Not modelled (the accesses stay
// as written): a runtime trip count, which nvcc unrolls with a remainder.

namespace {

/// Bodies under this size (LoopUnroll::Cost) are taken to be unrolled by
/// nvcc -O3 in groups of at least four copies: a loop of 256 trips with a
/// one-line body (about 30) is, eight LDS.128 per unrolled trip; one whose
/// body calls sinf (a call of a function without a body counts 100) is not
/// unrolled at all. The one-line bodies of tests/lint/vector-merge/ and of
/// the GEMM register tiles measure 20 to 50.
constexpr std::int64_t UnrollCostLimit = 100;

/// Calls Fn on E and every subexpression, parents first; Fn may not
/// replace what it is given (the walk goes on into the node).
void forEachExprMut(ir::Expr &E, const std::function<void(ir::Expr &)> &Fn) {
  Fn(E);
  std::visit(
      [&](auto &N) {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ir::Unary>) {
          forEachExprMut(*N.Operand, Fn);
        } else if constexpr (std::is_same_v<T, ir::Binary>) {
          forEachExprMut(*N.Lhs, Fn);
          forEachExprMut(*N.Rhs, Fn);
        } else if constexpr (std::is_same_v<T, ir::Call>) {
          for (ir::Expr &A : N.Args)
            forEachExprMut(A, Fn);
        } else if constexpr (std::is_same_v<T, ir::ArrayRead>) {
          for (ir::Expr &I : N.Indices)
            forEachExprMut(I, Fn);
        } else if constexpr (std::is_same_v<T, ir::PermApply>) {
          forEachExprMut(*N.Arg, Fn);
        } else if constexpr (std::is_same_v<T, ir::Select>) {
          forEachExprMut(*N.Cond, Fn);
          forEachExprMut(*N.Then, Fn);
          forEachExprMut(*N.Else, Fn);
        } else if constexpr (std::is_same_v<T, ir::Atomic>) {
          for (ir::Expr &I : N.Target.Indices)
            forEachExprMut(I, Fn);
          for (ir::Expr &A : N.Args)
            forEachExprMut(A, Fn);
        } else if constexpr (std::is_same_v<T, ir::Shuffle>) {
          forEachExprMut(*N.Value, Fn);
          forEachExprMut(*N.Lane, Fn);
        }
      },
      E.Node);
}

bool isVar(const ir::Expr &E, const std::string &Name) {
  const auto *V = E.as<ir::VarRef>();
  return V && V->Name == Name;
}

/// Whether Var is an added term of E (`a + (b + Var)`, `Var - c`), not
/// subtracted, scaled or inside anything else.
bool addedTerm(const ir::Expr &E, const std::string &Var) {
  if (isVar(E, Var))
    return true;
  if (const auto *B = E.as<ir::Binary>()) {
    if (B->Op == ir::BinaryOp::Add)
      return addedTerm(*B->Lhs, Var) || addedTerm(*B->Rhs, Var);
    if (B->Op == ir::BinaryOp::Sub)
      return addedTerm(*B->Lhs, Var);
  }
  return false;
}

std::size_t countVar(const ir::Expr &E, const std::string &Var) {
  std::size_t N = 0;
  ir::forEachSubexpr(E, [&](const ir::Expr &X) { N += isVar(X, Var); });
  return N;
}

ir::Expr substituteVar(ir::Expr E, const std::string &Var, std::int64_t Value) {
  forEachExprMut(E, [&](ir::Expr &X) {
    if (isVar(X, Var))
      X.Node = ir::IntLit{Value};
  });
  return E;
}

/// The pieces nvcc splits T consecutive accesses into, the first aligned
/// to W elements: {first iteration, elements}, W at a time, then halves;
/// a last single element stays a scalar access (width 1).
std::vector<std::pair<std::int64_t, std::int64_t>> mergePieces(std::int64_t T, std::int64_t W) {
  std::vector<std::pair<std::int64_t, std::int64_t>> Out;
  std::int64_t P = 0;
  for (std::int64_t Width = W; Width >= 1; Width /= 2)
    while (T - P >= Width && (Width == W || Width == 1 || Out.empty() || Out.back().second > Width)) {
      Out.push_back({P, Width});
      P += Width;
    }
  return Out;
}

} // namespace

void KernelLowering::mergeUnrolledAccesses(ir::Block &Body) {
  std::function<void(ir::Block &)> Walk = [&](ir::Block &B) {
    for (ir::Stmt &S : B) {
      if (auto *F = S.as<ir::For>()) {
        Walk(F->Body);
        mergeLoop(*F, Body);
      } else if (auto *W = S.as<ir::While>()) {
        Walk(W->Body);
      } else if (auto *I = S.as<ir::If>()) {
        Walk(I->Then);
        Walk(I->Else);
      }
    }
  };
  Walk(Body);
}

bool KernelLowering::mergeLoop(ir::For &F, const ir::Block &Whole) {
  const auto U = Unrolls.find(F.Var);
  if (U == Unrolls.end() || U->second.H == LoopUnroll::Disable || U->second.OpaqueCall ||
      (U->second.H == LoopUnroll::None && U->second.Cost >= UnrollCostLimit))
    return false;
  const auto *B = F.Begin.as<ir::IntLit>();
  const auto *E = F.End.as<ir::IntLit>();
  const auto *St = F.Step ? F.Step->as<ir::IntLit>() : nullptr;
  if (!B || !E || (F.Step && (!St || St->Value != 1)) || E->Value - B->Value < 2)
    return false;
  const std::int64_t Begin = B->Value, Trips = E->Value - B->Value;
  // `#pragma unroll N` below the trip count leaves a loop of N copies,
  // whose counter ptxas does not know to be a multiple of N: it merges the
  // 4-byte accesses in pairs (LDS.64), measured at N = 2 and 4 for 8
  // trips. Other element sizes, and N not dividing the trips, are not
  // modelled: the accesses stay as written.
  const std::int64_t N = U->second.Count;
  const bool Partial = N > 0 && N < Trips;
  if (Partial && (Trips % N != 0 || N % 2 != 0))
    return false;
  const std::int64_t MaxPiece = Partial ? 2 : 16;

  // Straight-line: lets and assignments, no atomic; shared loads and
  // shared stores not both (a store between loads keeps them apart).
  std::set<std::string> BodyLocals;
  std::vector<ir::Expr *> Reads;
  std::vector<ir::Stmt *> Stores;
  bool Atomic = false;
  auto SharedArray = [&](const std::string &Name) -> const ArrayInfo * {
    const auto It = Arrays.find(Name);
    return It != Arrays.end() && It->second.Space == ir::MemSpace::Shared ? &It->second : nullptr;
  };
  auto Scan = [&](ir::Expr &X) {
    forEachExprMut(X, [&](ir::Expr &Y) {
      if (const auto *R = Y.as<ir::ArrayRead>(); R && SharedArray(R->Array))
        Reads.push_back(&Y);
      Atomic |= Y.is<ir::Atomic>();
    });
  };
  for (ir::Stmt &S : F.Body) {
    if (auto *L = S.as<ir::Let>()) {
      BodyLocals.insert(L->Name);
      Scan(L->Init);
    } else if (auto *A = S.as<ir::Assign>()) {
      Scan(A->Value);
      if (const auto *T = std::get_if<ir::VarRef>(&A->Target)) {
        BodyLocals.insert(T->Name);
      } else {
        auto &R = std::get<ir::ArrayRead>(A->Target);
        for (ir::Expr &I : R.Indices)
          Scan(I);
        if (SharedArray(R.Array))
          Stores.push_back(&S);
      }
    } else {
      return false;
    }
  }
  if (Atomic || (!Reads.empty() && !Stores.empty()))
    return false;

  // One access: its array, its indices, and what becomes of it.
  struct Candidate {
    const ir::ArrayRead *Access;
    ir::NodeLoc Loc;
    std::int64_t W = 1; ///< elements in a full piece (16 bytes; 8 under a partial unroll)
  };
  // The alignment of every candidate's first address is read through the
  // same definitions of the kernel's locals: one expander for the loop.
  std::optional<Expander> Align;
  // Loads of floating-point elements only: the iterations that read
  // nothing take a floating-point literal, data that never becomes an index
  // (an integer read might, and a literal would make it known).
  auto Check = [&](const ir::ArrayRead &R, const ir::NodeLoc &Loc, bool Load) -> std::optional<Candidate> {
    const ArrayInfo *A = SharedArray(R.Array);
    if (!A || A->Split > 1 || A->Elem.Lanes != 1 ||
        (Load && A->Elem.Scalar != ir::ScalarType::F32 && A->Elem.Scalar != ir::ScalarType::F64))
      return std::nullopt;
    const std::int64_t Bytes = ir::byteSize(A->Elem);
    if ((Bytes != 4 && Bytes != 8) || (Partial && Bytes != 4))
      return std::nullopt;
    const ir::Array *Decl = nullptr;
    for (const ir::Stmt &S : SharedDecls)
      if (const auto *D = S.as<ir::ArrayDecl>(); D && D->Decl.Name == R.Array)
        Decl = &D->Decl;
    const std::int64_t W = std::min(16 / Bytes, MaxPiece);
    if (!Decl || Decl->ViewOf || Decl->Lay.Kind != ir::LayoutKind::Raw || R.Indices.size() != Decl->Shape.size() ||
        Decl->Shape.back() % W != 0)
      return std::nullopt;
    std::size_t Uses = 0;
    for (const ir::Expr &I : R.Indices) {
      Uses += countVar(I, F.Var);
      if (ir::anySubexpr(I, [&](const ir::Expr &X) {
            const auto *V = X.as<ir::VarRef>();
            return X.is<ir::ArrayRead>() || (V && BodyLocals.count(V->Name));
          }))
        return std::nullopt; // data, or a value the body computes
    }
    if (Uses != 1 || !addedTerm(R.Indices.back(), F.Var))
      return std::nullopt;
    // The first address's alignment as nvcc can prove it: the gcd of the
    // terms' coefficients (a thread index, a kernel parameter or an outer
    // counter may be anything; a constant is itself).
    ir::Expr Flat = ir::makeInt(0);
    std::int64_t Stride = 1;
    for (std::size_t I = R.Indices.size(); I-- > 0;) {
      Flat = binary(BinaryOp::Add, binary(BinaryOp::Mul, substituteVar(R.Indices[I], F.Var, Begin), ir::makeInt(Stride)),
                    Flat);
      Stride *= Decl->Shape[I];
    }
    if (!Align)
      Align.emplace(Prog, Whole, /*CompilerView=*/true);
    const std::optional<Terms> T = Align->expand(Flat);
    if (!T)
      return std::nullopt;
    std::int64_t G = Modulus;
    for (const Term &Y : *T)
      G = std::gcd(G, Y.Coef);
    if (G % W != 0)
      return std::nullopt;
    return Candidate{&R, Loc, W};
  };

  // Views of the array as vectors of 2 or 4 (or 2 of 8 bytes), per width.
  auto ViewOf = [&](const std::string &Array, std::int64_t Width, const SourceLoc &L) {
    const ArrayInfo &A = Arrays.at(Array);
    const std::string Key = fmt::format("{}/merged x{}", Array, Width);
    if (const auto It = Views.find(Key); It != Views.end())
      return It->second;
    ir::ElemType Vec = A.Elem;
    Vec.Lanes = static_cast<int>(Width);
    std::vector<std::int64_t> Shape = A.Shape;
    Shape.back() /= Width;
    const std::string Name = freshName(fmt::format("{}_{}", Array, ir::spelling(Vec)), Used);
    addArray(Name, A.Source, Vec, Shape, ir::MemSpace::Shared, L, -1, Array);
    Views[Key] = Name;
    return Name;
  };
  auto Rel = [&](const SourceLoc &L) {
    ir::Expr I = ir::makeVar(F.Var, ir::VarKind::Loop, L);
    return Begin == 0 ? I : binary(BinaryOp::Sub, std::move(I), ir::makeInt(Begin, L), L);
  };
  // The condition of a piece {P, Width} of Pieces, for the iteration that
  // makes its access.
  auto PieceCond = [&](const std::vector<std::pair<std::int64_t, std::int64_t>> &Pieces, std::size_t I,
                       std::int64_t W, const SourceLoc &L) {
    const auto [P, Width] = Pieces[I];
    if (Width != W)
      return binary(BinaryOp::Eq, Rel(L), ir::makeInt(P, L), L);
    ir::Expr C = binary(BinaryOp::Eq, binary(BinaryOp::Mod, Rel(L), ir::makeInt(W, L), L), ir::makeInt(0, L), L);
    const std::int64_t MainEnd = P + W * static_cast<std::int64_t>(std::count_if(
                                         Pieces.begin(), Pieces.end(), [&](const auto &Q) { return Q.second == W; }));
    if (MainEnd < Trips)
      C = binary(BinaryOp::LogAnd, std::move(C), binary(BinaryOp::Lt, Rel(L), ir::makeInt(MainEnd, L), L), L);
    return C;
  };
  auto Access = [&](const ir::ArrayRead &R, std::int64_t Width, const SourceLoc &L) {
    if (Width == 1)
      return R;
    ir::ArrayRead V{ViewOf(R.Array, Width, L), R.Indices};
    V.Indices.back() = binary(BinaryOp::Div, V.Indices.back(), ir::makeInt(Width, L), L);
    return V;
  };
  auto Describe = [&](const Candidate &C, bool Store, std::int64_t Pieces) {
    const ArrayInfo &A = Arrays.at(C.Access->Array);
    Info.CompilerNotes.push_back(
        {Severity::Note, C.Loc,
         fmt::format("nvcc -O3 unrolls the loop over '{}' and merges its {} consecutive {}-byte {} '{}' into {} "
                     "wider ones ({} bytes where aligned: {}.{}); the figures are per merged {} (--as-written "
                     "prices them as written)",
                     U->second.Counter, Trips, ir::byteSize(A.Elem), Store ? "stores to" : "loads from", A.Source,
                     Pieces, C.W * ir::byteSize(A.Elem), Store ? "STS" : "LDS", 8 * C.W * ir::byteSize(A.Elem),
                     Store ? "store" : "load"),
         {}});
    markUnderstood(C.Access->Array, false); // padding would break the alignment the merge needs
  };

  bool Merged = false;
  if (!Reads.empty()) {
    for (ir::Expr *X : Reads) {
      const std::optional<Candidate> C = Check(*X->as<ir::ArrayRead>(), X->Loc, true);
      if (!C)
        continue;
      const auto Pieces = mergePieces(Trips, C->W);
      const SourceLoc L = X->Loc;
      // Innermost first: the last piece's access, else nothing (data).
      ir::Expr Value = node(ir::FloatLit{0.0}, L);
      for (std::size_t I = Pieces.size(); I-- > 0;) {
        if (Pieces[I].second == C->W && I > 0 && Pieces[I - 1].second == C->W)
          continue; // the main pieces share one condition
        Value = node(ir::Select{PieceCond(Pieces, I, C->W, L),
                                node(Access(*C->Access, Pieces[I].second, L), L), std::move(Value)},
                     L);
      }
      Describe(*C, false, static_cast<std::int64_t>(Pieces.size()));
      *X = std::move(Value);
      Merged = true;
    }
  } else {
    for (ir::Stmt *S : Stores) {
      auto &A = *S->as<ir::Assign>();
      if (A.Compound)
        continue; // a read as well
      const std::optional<Candidate> C = Check(std::get<ir::ArrayRead>(A.Target), S->Loc, false);
      if (!C)
        continue;
      const auto Pieces = mergePieces(Trips, C->W);
      const SourceLoc L = S->Loc;
      ir::Block Else;
      for (std::size_t I = Pieces.size(); I-- > 0;) {
        if (Pieces[I].second == C->W && I > 0 && Pieces[I - 1].second == C->W)
          continue;
        ir::Assign Piece{Access(*C->Access, Pieces[I].second, L), A.Value, std::nullopt};
        ir::If Branch{PieceCond(Pieces, I, C->W, L), {ir::Stmt{std::move(Piece), ir::NodeLoc(L)}}, std::move(Else)};
        Else = {ir::Stmt{std::move(Branch), ir::NodeLoc(L)}};
      }
      Describe(*C, true, static_cast<std::int64_t>(Pieces.size()));
      *S = std::move(Else.front());
      Merged = true;
    }
  }
  return Merged;
}

} // namespace bankwise::frontend::detail
