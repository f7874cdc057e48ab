// schedule bits: a copy whose map permutes the index bits becomes one tiled
// pass, and that pass moves every a[i] to b[P(i)] (checked here by running
// the lowered kernel's own index expressions for every thread, apart from
// the code generator and its CPU reference) with coalesced global accesses.

#include "analysis/models/Permutation.h"
#include "analysis/passes/ColoredSchedule.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/PermutationTables.h"
#include "ir/Eval.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace bankwise;
using bankwise::testing::parseOrFail;

namespace {

/// Runs the lowered kernel (tile decl; for k { let r; tile[..][..] = a[..] };
/// sync; for k { let r; b[..] = tile[..][..] }) block by block, thread by
/// thread, through ir::evaluate: returns b for a[i] = i.
std::vector<std::int64_t> runLowered(const ir::Kernel &K, std::int64_t N) {
  REQUIRE(K.Body.size() == 4);
  const auto *Decl = K.Body[0].as<ir::ArrayDecl>();
  const auto *Load = K.Body[1].as<ir::For>();
  REQUIRE(K.Body[2].as<ir::Sync>());
  const auto *Store = K.Body[3].as<ir::For>();
  REQUIRE((Decl && Load && Store));
  const std::int64_t Rows = Decl->Decl.Shape[0], Cols = Decl->Decl.Shape[1];
  std::vector<std::int64_t> B(static_cast<std::size_t>(N), -1), Tile(static_cast<std::size_t>(Rows * Cols), -1);
  std::int64_t Tx = 0, Ty = 0, Bx = 0, KV = 0, R = 0;
  ir::EvalHooks H;
  H.BuiltinValue = [&](ir::Builtin Which) -> std::optional<std::int64_t> {
    switch (Which) {
    case ir::Builtin::Tx:
      return Tx;
    case ir::Builtin::Ty:
      return Ty;
    case ir::Builtin::Bx:
      return Bx;
    default:
      return std::nullopt;
    }
  };
  H.Var = [&](const ir::VarRef &V) -> std::optional<std::int64_t> {
    if (V.Name == Load->Var)
      return KV;
    return R;
  };
  auto Eval = [&](const ir::Expr &E) {
    const ir::EvalResult X = ir::evaluate(E, H);
    REQUIRE(X.ok());
    return X.Value;
  };
  const std::int64_t Blocks = K.Geo.GridDim[0];
  CHECK(Blocks * K.Geo.threadsPerBlock() * 4 == N);
  for (Bx = 0; Bx < Blocks; ++Bx) {
    for (int Phase = 0; Phase < 2; ++Phase) {
      const ir::For &F = Phase == 0 ? *Load : *Store;
      const auto &Let = *F.Body[0].as<ir::Let>();
      const auto &A = *F.Body[1].as<ir::Assign>();
      const auto &Target = std::get<ir::ArrayRead>(A.Target);
      for (Ty = 0; Ty < K.Geo.BlockDim[1]; ++Ty)
        for (Tx = 0; Tx < K.Geo.BlockDim[0]; ++Tx)
          for (KV = 0; KV < Eval(F.End); ++KV) {
            R = Eval(Let.Init);
            std::vector<std::int64_t> T, V;
            for (const ir::Expr &I : Target.Indices)
              T.push_back(Eval(I));
            const auto &Val = *A.Value.as<ir::ArrayRead>();
            for (const ir::Expr &I : Val.Indices)
              V.push_back(Eval(I));
            if (Phase == 0) {
              REQUIRE(V[0] >= 0);
              REQUIRE(V[0] < N);
              Tile[static_cast<std::size_t>(T[0] * Cols + T[1])] = V[0]; // a[i] = i
            } else {
              REQUIRE(T[0] >= 0);
              REQUIRE(T[0] < N);
              CHECK(B[static_cast<std::size_t>(T[0])] == -1); // written once
              B[static_cast<std::size_t>(T[0])] = Tile[static_cast<std::size_t>(V[0] * Cols + V[1])];
            }
          }
    }
    std::fill(Tile.begin(), Tile.end(), -1);
  }
  return B;
}

std::string errorOf(const std::string &Text) {
  try {
    applyColoredSchedules(parseOrFail(Text));
  } catch (const UserError &E) {
    return E.diagnostic().Message;
  }
  return "";
}

} // namespace

TEST_CASE("asBitPermutation recognizes BPC permutations and only those") {
  const auto Rev = asBitPermutation(bitReversalPermutation(1 << 12));
  REQUIRE(Rev);
  CHECK(Rev->Bits == 12);
  CHECK(Rev->To == std::vector<int>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(describe(*Rev) == "bits 0..11 -> 11..0");
  const auto Sh = asBitPermutation(shufflePermutation(1 << 10));
  REQUIRE(Sh);
  CHECK(describe(*Sh) == "bits 0..8 -> 1..9, 9 -> 0");
  const auto Tr = asBitPermutation(transposePermutation(1 << 4, 1 << 8));
  REQUIRE(Tr);
  CHECK(describe(*Tr) == "bits 0..7 -> 4..11, 8..11 -> 0..3");
  // Not BPC: a random permutation, a transpose of non-powers of two, and a
  // map that moves every single bit right but not their sums.
  CHECK_FALSE(asBitPermutation(randomPermutation(1 << 12, 7)));
  CHECK_FALSE(asBitPermutation(transposePermutation(48, 64)));
  std::vector<std::uint32_t> Map(1024);
  for (std::uint32_t I = 0; I < 1024; ++I)
    Map[I] = I;
  std::swap(Map[3], Map[1023]); // bits 0 and 1 still map to themselves
  CHECK_FALSE(asBitPermutation(Permutation(Map)));
  // A complement: P(i) = (i with bits swapped) ^ 0x2a5.
  BitPermutation X{10, {3, 0, 9, 1, 8, 2, 7, 4, 6, 5}, 0x2a5};
  const auto Back = asBitPermutation(bitPermutation(X));
  REQUIRE(Back);
  CHECK(*Back == X);
}

TEST_CASE("schedule bits: one coalesced pass that moves every a[i] to b[P(i)]") {
  struct Case {
    std::string Perm, Copy, Elem;
    int M;
  };
  const std::vector<Case> Cases = {
      {"bitreverse(N)", "b[P(tid)] = a[tid]", "f32", 12},
      {"bitreverse(N)", "b[P(tid)] = a[tid]", "f32", 10},
      {"shuffle(N)", "b[P(tid)] = a[tid]", "f32", 13},
      {"shuffle(N)", "b[tid] = a[P(tid)]", "u8", 12}, // the inverse shuffle
      {"transpose(64, 256)", "b[P(tid)] = a[tid]", "f64", 14},
      {"transpose(4, 1024)", "b[P(tid)] = a[tid]", "f16", 12},
      {"stride(N, 8)", "b[tid] = a[P(tid)]", "f32", 11},
      {"identity(N)", "b[P(tid)] = a[tid]", "f32", 11},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.Perm);
    CAPTURE(C.Copy);
    CAPTURE(C.M);
    const std::int64_t N = std::int64_t(1) << C.M;
    const std::string Text = fmt::format(R"(target sm_90
param N = {}
permutation P = {}
kernel move(a: global {}[N], b: global {}[N]) grid (N / 256) block (256) schedule bits {{
  {}
}}
)",
                                         N, C.Perm, C.Elem, C.Elem, C.Copy);
    const ir::Program Before = parseOrFail(Text);
    auto [Prog, Reports] = applyColoredSchedules(Before);
    REQUIRE(Reports.size() == 1);
    REQUIRE(Reports[0].Bits);
    REQUIRE(Prog.Kernels.size() == 1);
    const ir::Kernel &K = Prog.Kernels[0];
    CHECK(K.Name == "move");
    CHECK(K.Schedule == ir::KernelSchedule::None);
    // The map the copy moves: b[f(t)] = a[g(t)], so a[g(t)] goes to f(t).
    PermutationTables T(Before);
    const Permutation &P = T.get("P");
    const bool Gather = C.Copy.rfind("b[tid]", 0) == 0;
    const std::vector<std::int64_t> B = runLowered(K, N);
    for (std::int64_t I = 0; I < N; ++I) {
      const std::uint64_t U = static_cast<std::uint64_t>(I);
      const std::int64_t From = Gather ? static_cast<std::int64_t>(P(U)) : I;
      const std::int64_t To = Gather ? I : static_cast<std::int64_t>(P(U));
      if (B[static_cast<std::size_t>(To)] != From) {
        FAIL_CHECK(fmt::format("b[{}] holds a[{}], not a[{}]", To, B[static_cast<std::size_t>(To)], From));
        break;
      }
    }
    // Every global access of the pass: one warp reads or writes 32
    // consecutive elements (sector count of 32 elements), in every warp.
    const KernelReport R = analyzeKernel(Prog, K);
    const std::int64_t Bytes = C.Elem == "f64" ? 8 : C.Elem == "f16" ? 2 : C.Elem == "u8" ? 1 : 4;
    int Global = 0;
    for (const AccessSiteReport &S : R.Sites)
      if (S.Space == ir::MemSpace::Global) {
        ++Global;
        CHECK(S.Sectors.Max == (32 * Bytes + 31) / 32);
        CHECK(S.Sectors.Min == S.Sectors.Max);
      }
    CHECK(Global == 2);
  }
}

TEST_CASE("schedule bits: located errors") {
  CHECK(errorOf(R"(target sm_90
param N = 4096
permutation P = random(N, seed: 3)
kernel move(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) schedule bits {
  b[P(tid)] = a[tid]
}
)")
            .find("permutes the bits of the index") != std::string::npos);
  CHECK(errorOf(R"(target sm_90
param N = 512
permutation P = bitreverse(N)
kernel move(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) schedule bits {
  b[P(tid)] = a[tid]
}
)")
            .find("n >= 1024") != std::string::npos);
  CHECK(errorOf(R"(target sm_90
param N = 1024
permutation P = bitreverse(N)
kernel move(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) schedule bits {
  b[P(tid)] = a[tid]
  b[tid] = a[tid]
}
)")
            .find("schedule bits needs a body of exactly one copy") != std::string::npos);
  CHECK(errorOf(R"(target sm_90
param N = 1024
permutation P = bitreverse(N)
kernel move(a: global f32[N], b: global f64[N]) grid (N / 256) block (256) schedule bits {
  b[P(tid)] = a[tid]
}
)")
            .find("schedule bits copies bits") != std::string::npos);
}
