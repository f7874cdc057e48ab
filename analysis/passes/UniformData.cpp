// Data that is the same in every active lane of a warp (an embedding row
// ids[bx] read by the whole warp) for analyzeKernel's evaluation
// (WarpEvaluation.cpp): such a value is one unknown X * DataStep + U.C plus
// the lanes' known parts, and stays so through sums, constant multiples and
// operations on operands all alike in the lanes, so that an address built
// from it is priced at every position the unknown can take
// (docs/analysis.md, "Data-dependent indices").
#include "analysis/passes/detail/Analyzer.h"
#include "analysis/passes/detail/WarpRun.h"

#include <limits>
#include <numeric>

namespace bankwise::kernel_analysis {

bool Analyzer::sameInLanes(const Val &X, Mask M) const {
  if (X.Unknown && !X.DataUniform)
    return false;
  if (X.Pred >= 0 || X.Lt >= 0 || X.Sel >= 0)
    return false;
  if (!X.HasV)
    return true;
  bool Any = false;
  std::int64_t First = 0;
  for (int L = 0; L < Lanes; ++L)
    if ((M >> L) & 1) {
      if (Any && X.V[static_cast<std::size_t>(L)] != First) {
        // A warp family's guard on its warp position leaves each warp a
        // subset of M, in which the lanes may be alike (`if tid == 0`, one
        // lane): a run per warp position, where M is exact, decides.
        if (CurPred >= 0)
          Run->warpPositionDecides("data whose lanes may be alike under a guard on the warp's position in its "
                                   "block");
        return false;
      }
      First = X.V[static_cast<std::size_t>(L)];
      Any = true;
    }
  return true;
}

std::optional<Val> Analyzer::uniformDataOp(ir::BinaryOp Op, const Val &A, const Val &B, Mask M) const {
  using ir::BinaryOp;
  auto Usable = [](const Val &X) { return X.Unknown ? X.DataUniform : X.Pred < 0 && X.Lt < 0 && X.Sel < 0; };
  if (!Usable(A) || !Usable(B))
    return std::nullopt;
  const std::string &Src = A.Unknown ? A.UnknownSrc : B.UnknownSrc;
  // Each operand as X * G + C + V[l]: data has its step; a known value's
  // symbolic terms (block indices, loop variables, opaque values) move it
  // by multiples of their coefficients' gcd, which is then its step.
  struct Form {
    Wide G = 0, C = 0;
    bool HasV = false;
    const LaneVals *V = nullptr;
  };
  auto FormOf = [](const Val &X) {
    Form F;
    F.C = X.U.C;
    if (X.Unknown)
      F.G = X.DataStep;
    for (auto [Var, Coef] : X.U.Terms)
      F.G = std::gcd(static_cast<std::int64_t>(F.G), Coef < 0 ? -Coef : Coef);
    F.HasV = X.HasV;
    F.V = &X.V;
    return F;
  };
  const Form FA = FormOf(A), FB = FormOf(B);
  auto Fits = [](Wide X) {
    return X >= std::numeric_limits<std::int64_t>::min() && X <= std::numeric_limits<std::int64_t>::max();
  };
  // Builds X * G + C + V; known (no data left) when G is 0.
  auto Make = [&](Wide G, Wide C, bool HasV, auto LaneOf) -> std::optional<Val> {
    if (!Fits(G))
      return std::nullopt;
    Val R;
    if (G != 0) {
      R = uniformData(Src);
      R.DataStep = static_cast<std::int64_t>(G);
      C = C % G;
      if (C < 0)
        C += G;
    }
    if (!Fits(C))
      return std::nullopt;
    R.U.C = static_cast<std::int64_t>(C);
    R.HasV = HasV;
    for (int L = 0; L < Lanes && HasV; ++L) {
      const Wide X = (M >> L) & 1 ? LaneOf(L) : 0;
      if (!Fits(X))
        return std::nullopt;
      R.V[static_cast<std::size_t>(L)] = static_cast<std::int64_t>(X);
    }
    return R;
  };
  auto Lane = [](const Form &F, int L) -> Wide { return F.HasV ? (*F.V)[static_cast<std::size_t>(L)] : 0; };
  auto IsConst = [](const Val &X) { return !X.Unknown && X.concrete() && !X.HasV; };
  switch (Op) {
  case BinaryOp::Add:
  case BinaryOp::Sub: {
    const Wide Sign = Op == BinaryOp::Add ? 1 : -1;
    return Make(std::gcd(static_cast<std::int64_t>(FA.G), static_cast<std::int64_t>(FB.G)), FA.C + Sign * FB.C,
                FA.HasV || FB.HasV, [&](int L) { return Lane(FA, L) + Sign * Lane(FB, L); });
  }
  case BinaryOp::Mul:
  case BinaryOp::Shl: {
    // A constant multiple: (X * G + C + V) * k.
    const bool BConst = IsConst(B), AConst = Op == BinaryOp::Mul && IsConst(A);
    if (BConst || AConst) {
      const Form &F = BConst ? FA : FB;
      Wide K = BConst ? B.U.C : A.U.C;
      if (Op == BinaryOp::Shl) {
        if (K < 0 || K > 62)
          break;
        K = Wide(1) << static_cast<int>(K);
      }
      const Wide G = F.G * (K < 0 ? -K : K);
      return Make(G, F.C * K, F.HasV, [&](int L) { return Lane(F, L) * K; });
    }
    break;
  }
  default:
    break;
  }
  // Any operation on values the same in every active lane: the same in
  // every active lane (a comparison, a division, a product of two data).
  if (sameInLanes(A, M) && sameInLanes(B, M))
    return uniformData(Src);
  return std::nullopt;
}

} // namespace bankwise::kernel_analysis
