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
  Expander(const ir::Program &Prog, const ir::Kernel &K) {
    for (const ir::Param &P : Prog.Params) {
      if (P.Runtime && !P.Init)
        Runtime.insert(P.Name);
      else
        Bound[P.Name] = P.Value;
    }
    collect(K.Body);
  }

  std::optional<Terms> expand(const ir::Expr &E, int Depth = 0) {
    if (Depth > MaxDepth)
      return opaque(E);
    if (const auto *I = E.as<ir::IntLit>())
      return Terms{{reduce(I->Value), {}, false}};
    if (const auto *V = E.as<ir::VarRef>()) {
      if (V->Kind == ir::VarKind::Param) {
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
  Expander X(Prog, K);
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

} // namespace bankwise::frontend::detail
