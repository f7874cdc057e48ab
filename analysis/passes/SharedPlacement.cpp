#include "analysis/passes/SharedPlacement.h"

#include "analysis/models/MemoryModel.h"
#include "analysis/passes/ArrayLayout.h"
#include "ir/Walk.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace bankwise {

namespace {

/// The arrays kernel K names, in the order it first names them: its
/// parameters, then, statement by statement, the arrays its expressions
/// read, its assignments write, its views see and its body declares (the
/// order codegen declares them in).
class ArrayScan {
public:
  struct Use {
    const ir::Array *A = nullptr;
    bool Body = false; ///< declared in the kernel's body
    bool Written = false;
  };

  ArrayScan(const ir::Program &Prog, const ir::Kernel &K) : Prog(Prog) {
    for (const ir::Array &A : K.Params)
      add(A, false);
    block(K.Body);
  }

  std::vector<Use> Uses;

private:
  void add(const ir::Array &A, bool Body) {
    if (Index.emplace(A.Name, Uses.size()).second)
      Uses.push_back({&A, Body, false});
  }

  void touch(const std::string &Name, bool Written) {
    if (!Index.count(Name)) {
      const ir::Array *A = Prog.findArray(Name);
      if (!A)
        return; // codegen reports it
      add(*A, false);
    }
    Use &U = Uses[Index.at(Name)];
    U.Written = U.Written || Written;
    if (U.A->ViewOf) // what a view reads or writes is its array's
      touch(*U.A->ViewOf, Written);
  }

  void expr(const ir::Expr &E) {
    ir::forEachSubexpr(E, [&](const ir::Expr &X) {
      if (const auto *R = X.as<ir::ArrayRead>())
        touch(R->Array, false);
      else if (const ir::ArrayRead *T = ir::atomicTarget(X))
        touch(T->Array, true);
    });
  }

  void block(const ir::Block &B) {
    for (const ir::Stmt &St : B) {
      if (const auto *L = St.as<ir::Let>()) {
        expr(L->Init);
      } else if (const auto *X = St.as<ir::ExprStmt>()) {
        expr(X->Value);
      } else if (const auto *A = St.as<ir::Assign>()) {
        expr(A->Value);
        if (const auto *R = std::get_if<ir::ArrayRead>(&A->Target)) {
          touch(R->Array, true);
          for (const ir::Expr &I : R->Indices)
            expr(I);
        }
      } else if (const auto *F = St.as<ir::For>()) {
        expr(F->Begin);
        expr(F->End);
        if (F->Step)
          expr(*F->Step);
        block(F->Body);
      } else if (const auto *W = St.as<ir::While>()) {
        expr(W->Cond);
        block(W->Body);
      } else if (const auto *I = St.as<ir::If>()) {
        expr(I->Cond);
        block(I->Then);
        block(I->Else);
      } else if (const auto *D = St.as<ir::ArrayDecl>()) {
        if (D->Decl.ViewOf) // its array first: the view points into it
          touch(*D->Decl.ViewOf, false);
        add(D->Decl, true);
      }
    }
  }

  const ir::Program &Prog;
  std::map<std::string, std::size_t, std::less<>> Index;
};

/// A staging copy of A by Threads threads (at most 1,024): lanes over
/// consecutive elements, as many rounds as the array needs.
StagingCost stagingCost(const ir::Array &A, std::int64_t Threads) {
  const std::int64_t Bytes = ir::byteSize(A.Elem);
  const std::int64_t Lanes = std::min<std::int64_t>(32, Threads);
  std::vector<Address> Addrs;
  for (std::int64_t L = 0; L < Lanes; ++L)
    Addrs.push_back(static_cast<Address>(L * Bytes));
  StagingCost C;
  if (isSm90AccessSize(Bytes)) {
    // Distinct contiguous lanes: loads and stores cost the same.
    C.Wavefronts = sm90Shared(Addrs, Bytes, SharedOp::Store).Wavefronts;
    const Sm90GlobalCost G = sm90Global(Addrs, Bytes);
    C.Sectors = G.Sectors;
    C.Lines = G.Lines;
  }
  const std::int64_t N = A.numElements();
  const std::int64_t Rounds = (N + Threads - 1) / Threads;
  C.WarpExecutions = Rounds * ((Threads + 31) / 32);
  return C;
}

bool runtimeGrid(const ir::Kernel &K, const std::vector<std::string> &Runtime) {
  return std::any_of(K.Geo.Grid.begin(), K.Geo.Grid.end(), [&](const ir::Expr &G) {
    return ir::anySubexpr(G, [&](const ir::Expr &X) {
      const auto *V = X.as<ir::VarRef>();
      return V && V->Kind == ir::VarKind::Param &&
             std::find(Runtime.begin(), Runtime.end(), V->Name) != Runtime.end();
    });
  });
}

/// K's shared arrays, or nullopt when a layout does not apply.
std::optional<std::vector<SharedArrayPlacement>> sharedArrays(const ir::Program &Prog, const ir::Kernel &K) {
  std::vector<SharedArrayPlacement> Out;
  for (const ArrayScan::Use &U : ArrayScan(Prog, K).Uses) {
    if (U.A->Space != ir::MemSpace::Shared || U.A->ViewOf) // a view allocates nothing
      continue;
    SharedArrayPlacement P;
    P.Array = U.A->Name;
    try {
      P.Bytes = (arrayLayout(*U.A).footprint() * ir::byteSize(U.A->Elem) + 15) / 16 * 16;
    } catch (const UserError &) {
      return std::nullopt;
    }
    P.Staged = !U.Body;
    P.Written = U.Written;
    Out.push_back(std::move(P));
  }
  return Out;
}

SharedPlacement placeKernel(const ir::Program &Prog, const ir::Kernel &K, const ir::TargetInfo &T,
                            const std::vector<std::string> &Runtime) {
  SharedPlacement S;
  S.Kernel = K.Name;
  std::optional<std::vector<SharedArrayPlacement>> Arrays = sharedArrays(Prog, K);
  if (!Arrays)
    return S;
  S.Arrays = std::move(*Arrays);
  auto Total = [&] {
    std::int64_t Sum = 0;
    for (const SharedArrayPlacement &A : S.Arrays)
      if (!A.Demoted)
        Sum += A.Bytes;
    return Sum;
  };
  // The largest staged arrays go to global memory until the rest fit.
  while (Total() > T.MaxSharedPerBlock) {
    SharedArrayPlacement *Largest = nullptr;
    for (SharedArrayPlacement &A : S.Arrays)
      if (A.Staged && !A.Demoted && (!Largest || A.Bytes > Largest->Bytes))
        Largest = &A;
    if (!Largest) {
      S.Error = UserError(K.Loc, fmt::format("kernel '{}' needs {} bytes of shared memory; {} has {} per block",
                                             K.Name, Total(), T.Name, T.MaxSharedPerBlock));
      return S;
    }
    const ir::Array *Decl = Prog.findArray(K, Largest->Array);
    S.Warnings.push_back({Severity::Warning, Decl ? Decl->Loc : K.Loc,
                          fmt::format("shared array '{}' ({} bytes) does not fit {}'s {} bytes of shared memory "
                                      "with the rest of kernel '{}'; the generated code keeps it in global memory",
                                      Largest->Array, Largest->Bytes, T.Name, T.MaxSharedPerBlock, K.Name),
                          {}});
    Largest->Demoted = true;
  }
  const std::int64_t Blocks = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2];
  const bool RuntimeGrid = runtimeGrid(K, Runtime);
  for (const SharedArrayPlacement &A : S.Arrays)
    if (A.Staged && !A.Demoted && A.Written && (Blocks > 1 || RuntimeGrid)) {
      const ir::Array *Decl = Prog.findArray(K, A.Array);
      S.Error = UserError(Decl ? Decl->Loc : K.Loc,
                          fmt::format("shared array '{}' is written by kernel '{}' of {} blocks: codegen cannot "
                                      "give every block its own copy back",
                                      A.Array, K.Name, RuntimeGrid ? "a runtime number of" : std::to_string(Blocks)));
      return S;
    }
  S.StaticBytes = Total();
  S.Dynamic = S.StaticBytes > T.DefaultSharedPerBlock;
  if (S.Dynamic)
    for (SharedArrayPlacement &A : S.Arrays)
      if (!A.Demoted) {
        A.Offset = S.DynamicBytes;
        S.DynamicBytes += A.Bytes;
      }
  const std::int64_t Threads = std::min<std::int64_t>(K.Geo.threadsPerBlock(), 1024);
  for (SharedArrayPlacement &A : S.Arrays)
    if (A.Staged && !A.Demoted)
      if (const ir::Array *Decl = Prog.findArray(K, A.Array))
        A.Copy = stagingCost(*Decl, Threads);
  return S;
}

} // namespace

const SharedArrayPlacement *SharedPlacement::find(std::string_view Name) const {
  for (const SharedArrayPlacement &A : Arrays)
    if (A.Array == Name)
      return &A;
  return nullptr;
}

std::string describe(const SharedPlacement &S) {
  if (S.Arrays.empty())
    return "";
  std::vector<std::string> Kept, Demoted;
  for (const SharedArrayPlacement &A : S.Arrays) {
    if (A.Demoted) {
      Demoted.push_back(fmt::format("'{}'", A.Array));
      continue;
    }
    std::string T = fmt::format("'{}' {} bytes{}", A.Array, A.Bytes, A.Staged ? " staged" : "");
    if (A.Offset >= 0)
      T += fmt::format(" at {}", A.Offset);
    Kept.push_back(std::move(T));
  }
  std::string Out = fmt::format("# place-shared: kernel '{}': {}: {} bytes{}", S.Kernel,
                                Kept.empty() ? std::string("none in shared memory") : fmt::format("{}", fmt::join(Kept, ", ")),
                                S.StaticBytes, S.Dynamic ? ", dynamic" : "");
  if (!Demoted.empty())
    Out += fmt::format("; in global memory: {}", fmt::join(Demoted, ", "));
  if (S.Error)
    Out += "; error: " + S.Error->diagnostic().Message;
  return Out + "\n";
}

std::vector<SharedPlacement> placeShared(const ir::Program &Prog, const ir::TargetInfo &T,
                                         const std::vector<std::string> &Runtime) {
  std::vector<SharedPlacement> Out;
  for (const ir::Kernel &K : Prog.Kernels)
    Out.push_back(placeKernel(Prog, K, T, Runtime));
  return Out;
}

} // namespace bankwise
