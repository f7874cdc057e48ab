// Sema's check of floating-point values (docs/language.md, "Values and
// their types"): which values of a kernel body are floating-point, and the
// places that need an integer (indices, bounds, conditions, '%' and bit
// operators, constants, integer locals) that one reaches.
#include "dsl/Sema.h"

#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <functional>

namespace bankwise::dsl {

using namespace ir;

//===-- Floating-point values
//------------------------------------------------===//

namespace {

/// Which values of a kernel body are floating-point (docs/language.md,
/// "Values and their types"): a literal `0.5`, a local typed f16, bf16, f32
/// or f64, an untyped local that receives a floating-point value, and the
/// arithmetic (+ - * / unary -, min, max, ?:) of such a value. Comparisons
/// and logical operators give integers; an element read is the integer the
/// analysis takes it for in an index.
class FloatUses {
public:
  /// Arrays: the kernel's parameters and the top-level arrays, by name (the
  /// body's own are added as the walk declares them).
  FloatUses(std::function<void(const SourceLoc &, std::string)> Error, std::map<std::string, ElemType> Arrays)
      : Error(std::move(Error)), Arrays(std::move(Arrays)) {}

  void run(const Block &Body) {
    // Untyped locals become floating-point when any value they receive is:
    // a fixed point over the body (each round can only add locals).
    for (int Round = 0; Round < 64; ++Round) {
      Changed = false;
      walk(Body, false);
      if (!Changed)
        break;
    }
    walk(Body, true);
  }

private:
  std::function<void(const SourceLoc &, std::string)> Error;
  std::map<std::string, ElemType> Arrays;
  std::vector<std::map<std::string, const Let *, std::less<>>> Scopes;
  std::map<const Let *, bool> Float;
  bool Changed = false, Report = false;

  const Let *find(const std::string &Name) const {
    for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It)
      if (auto F = It->find(Name); F != It->end())
        return F->second;
    return nullptr;
  }

  bool isFloat(const Expr &E) const {
    if (E.is<FloatLit>())
      return true;
    if (const auto *V = E.as<VarRef>()) {
      const Let *L = V->Kind == VarKind::Let ? find(V->Name) : nullptr;
      return L && Float.count(L) && Float.at(L);
    }
    if (const auto *U = E.as<Unary>())
      return U->Op == UnaryOp::Neg && isFloat(*U->Operand);
    if (const auto *B = E.as<Binary>())
      return (B->Op == BinaryOp::Add || B->Op == BinaryOp::Sub || B->Op == BinaryOp::Mul ||
              B->Op == BinaryOp::Div) &&
             (isFloat(*B->Lhs) || isFloat(*B->Rhs));
    if (const auto *C = E.as<Call>())
      return (C->Fn == Function::Min || C->Fn == Function::Max) &&
             std::any_of(C->Args.begin(), C->Args.end(), [&](const Expr &A) { return isFloat(A); });
    if (const auto *S = E.as<Select>())
      return isFloat(*S->Then) || isFloat(*S->Else);
    if (const auto *S = E.as<Shuffle>())
      return isFloat(*S->Value);
    return false;
  }

  /// E must be an integer: an error at E when it is floating-point.
  void needInt(const Expr &E, std::string_view What) {
    if (Report && isFloat(E))
      Error(startOf(E), fmt::format("floating-point value in {}, which must be an integer", What));
  }

  /// Checks the integer operands inside E.
  void check(const Expr &E) {
    if (const auto *R = E.as<ArrayRead>())
      for (const Expr &I : R->Indices)
        needInt(I, fmt::format("an index of '{}'", R->Array));
    else if (const auto *P = E.as<PermApply>())
      needInt(*P->Arg, fmt::format("the argument of permutation '{}'", P->Perm));
    else if (const auto *S = E.as<Select>())
      needInt(*S->Cond, "the condition of '?:'");
    else if (const auto *A = E.as<Atomic>())
      checkAtomic(*A);
    else if (const auto *S = E.as<Shuffle>())
      needInt(*S->Lane, fmt::format("the {} of '{}'",
                                    S->Op == ShuffleOp::Idx   ? "lane"
                                    : S->Op == ShuffleOp::Xor ? "lane mask"
                                                              : "distance",
                                    spelling(S->Op)));
    else if (const auto *U = E.as<Unary>(); U && U->Op != UnaryOp::Neg)
      needInt(*U->Operand, fmt::format("the operand of '{}'", spelling(U->Op)));
    else if (const auto *C = E.as<Call>(); C && C->Fn != Function::Min && C->Fn != Function::Max)
      for (const Expr &A : C->Args)
        needInt(A, fmt::format("the argument of '{}'", spelling(C->Fn)));
    else if (const auto *B = E.as<Binary>())
      if (B->Op != BinaryOp::Add && B->Op != BinaryOp::Sub && B->Op != BinaryOp::Mul &&
          B->Op != BinaryOp::Div && precedence(B->Op) != 6 && precedence(B->Op) != 7) {
        needInt(*B->Lhs, fmt::format("an operand of '{}'", spelling(B->Op)));
        needInt(*B->Rhs, fmt::format("an operand of '{}'", spelling(B->Op)));
      }
    forEachChild(E, [&](const Expr &C) { check(C); });
  }

  /// An atomic's indices are integers, and so are its values when its
  /// element is (CUDA's atomicAdd on an int takes an int).
  void checkAtomic(const Atomic &A) {
    for (const Expr &I : A.Target.Indices)
      needInt(I, fmt::format("an index of '{}'", A.Target.Array));
    const auto It = Arrays.find(A.Target.Array);
    const bool IntElem = It != Arrays.end() && It->second.Scalar != ScalarType::F16 &&
                         It->second.Scalar != ScalarType::BF16 && It->second.Scalar != ScalarType::F32 &&
                         It->second.Scalar != ScalarType::F64;
    if (IntElem)
      for (const Expr &V : A.Args)
        needInt(V, fmt::format("the value of '{}' on '{}' (an {} array)", spelling(A.Op), A.Target.Array,
                               spelling(It->second)));
  }

  /// Local L receives V.
  void receive(const Let &L, const Expr &V) {
    if (L.Type) {
      const bool TypeFloat = L.Type->Scalar == ScalarType::F16 || L.Type->Scalar == ScalarType::BF16 ||
                             L.Type->Scalar == ScalarType::F32 || L.Type->Scalar == ScalarType::F64;
      if (Report && !TypeFloat && isFloat(V))
        Error(startOf(V), fmt::format("floating-point value stored in local '{}' of integer type {}", L.Name,
                                      spelling(*L.Type)));
      Float[&L] = TypeFloat;
      return;
    }
    if (isFloat(V) && !Float[&L]) {
      Float[&L] = true;
      Changed = true;
    }
  }

  void walk(const Block &B, bool Rep) {
    Report = Rep;
    Scopes.emplace_back();
    for (const Stmt &S : B) {
      if (const auto *L = S.as<Let>()) {
        check(L->Init);
        Float.emplace(L, false);
        receive(*L, L->Init);
        Scopes.back()[L->Name] = L;
      } else if (const auto *A = S.as<Assign>()) {
        check(A->Value);
        if (const auto *V = std::get_if<VarRef>(&A->Target)) {
          if (const Let *L = find(V->Name))
            receive(*L, A->Value);
        } else {
          check(Expr{std::get<ArrayRead>(A->Target), S.Loc});
        }
      } else if (const auto *F = S.as<For>()) {
        for (const Expr *E : {&F->Begin, &F->End}) {
          check(*E);
          needInt(*E, "a loop bound");
        }
        if (F->Step) {
          check(*F->Step);
          needInt(*F->Step, "a loop step");
        }
        Scopes.emplace_back();
        Scopes.back()[F->Var] = nullptr;
        walk(F->Body, Rep);
        Scopes.pop_back();
      } else if (const auto *W = S.as<While>()) {
        check(W->Cond);
        needInt(W->Cond, "the condition of 'while'");
        walk(W->Body, Rep);
      } else if (const auto *I = S.as<If>()) {
        check(I->Cond);
        needInt(I->Cond, "the condition of 'if'");
        walk(I->Then, Rep);
        walk(I->Else, Rep);
      } else if (const auto *X = S.as<ExprStmt>()) {
        check(X->Value);
      } else if (const auto *D = S.as<ArrayDecl>()) {
        Arrays[D->Decl.Name] = D->Decl.Elem;
      }
    }
    Scopes.pop_back();
  }
};

} // namespace

void Sema::checkFloatUses(const Kernel &K) {
  std::map<std::string, ElemType> Arrays;
  for (const Array &A : Out.Arrays)
    Arrays[A.Name] = A.Elem;
  for (const Array &A : K.Params) // a parameter hides a top-level array
    Arrays[A.Name] = A.Elem;
  FloatUses([&](const SourceLoc &L, std::string M) { error(L, std::move(M)); }, std::move(Arrays)).run(K.Body);
}

} // namespace bankwise::dsl
