// The timing simulator against every figure the seeds state: the worked
// examples, the closed forms for contiguous and stride access, and the HMM
// round costs and Table I running times.

#include "analysis/models/Permutation.h"
#include "analysis/models/Simulator.h"
#include "support/Diagnostic.h"

#include <doctest/doctest.h>
#include <functional>
#include <numeric>

using namespace bankwise;

namespace {

/// Builds a trace of one round from per-warp lane lists.
Trace oneRound(std::int64_t W, const std::vector<std::vector<Address>> &Warps,
               Space S = Space::Shared) {
  Trace T;
  T.Threads = static_cast<std::int64_t>(Warps.size()) * W;
  Round R;
  R.Where = S;
  for (const auto &Lanes : Warps)
    R.Addr.insert(R.Addr.end(), Lanes.begin(), Lanes.end());
  T.Rounds.push_back(R);
  return T;
}

/// Streams Rounds rounds of P threads through the simulator; Addr(t, i) is
/// thread i's address in round t.
SimResult run(const Machine &M, std::int64_t P, std::int64_t Rounds,
              const std::function<Address(std::int64_t, std::int64_t)> &Addr,
              bool Barrier = false,
              const std::function<Space(std::int64_t)> &Where = nullptr,
              std::int64_t BlockThreads = 0) {
  SimOptions O;
  O.Barrier = Barrier;
  O.BlockThreads = BlockThreads;
  Simulator Sim(M, P, O);
  const std::int64_t W = machineWidth(M);
  std::vector<Address> Lanes;
  for (std::int64_t T = 0; T < Rounds; ++T) {
    Sim.beginRound(Where ? Where(T) : Space::Shared);
    for (std::int64_t Warp = 0; Warp * W < P; ++Warp) {
      Lanes.clear();
      for (std::int64_t I = Warp * W; I < std::min(P, (Warp + 1) * W); ++I)
        Lanes.push_back(Addr(T, I));
      Sim.warpAccess(Warp, Lanes);
    }
  }
  return Sim.finish();
}

/// Pipelined time of R rounds in which each of P warps costs K stages, with
/// latency L: either the pipeline never idles (R*P*K + L - 1) or warp W(0)
/// waits for its own previous request every round.
std::int64_t pipelinedUniform(std::int64_t R, std::int64_t P, std::int64_t K,
                              std::int64_t L) {
  return std::max(R * P * K + L - 1, (R - 1) * (K + L - 1) + P * K + L - 1);
}

/// The papers' synchronous count: every round P*K stages plus L - 1.
std::int64_t synchronousUniform(std::int64_t R, std::int64_t P, std::int64_t K,
                                std::int64_t L) {
  return R * (P * K + L - 1);
}

} // namespace

TEST_CASE("worked example: seed 000 Fig. 4, p = 8, w = 4, l = 3") {
  const Trace T = oneRound(4, {{0, 1, 10, 6}, {8, 9, 14, 15}});
  const SimResult D = simulate(Dmm{4, 3}, T);
  CHECK(D.Time == 5);
  CHECK(D.Rounds[0].Stages == 3);
  const SimResult U = simulate(Umm{4, 3}, T);
  CHECK(U.Time == 7);
  CHECK(U.Rounds[0].Stages == 5);
}

TEST_CASE("worked example: seed 001 Fig. 3 and seed 004 Fig. 3, l = 5") {
  const Trace T = oneRound(4, {{7, 5, 15, 0}, {10, 11, 12, 9}});
  CHECK(simulate(Dmm{4, 5}, T).Time == 7);
  CHECK(simulate(Umm{4, 5}, T).Time == 9);
}

TEST_CASE("a warp with no request is skipped, and inactive lanes take no part") {
  Trace T = oneRound(4, {{7, 5, 15, 0},
                         {NoAccess, NoAccess, NoAccess, NoAccess},
                         {10, 11, NoAccess, 9}});
  const SimResult D = simulate(Dmm{4, 5}, T);
  CHECK(D.Rounds[0].WarpAccesses == 2);
  CHECK(D.Rounds[0].Requests == 7);
  CHECK(D.Time == 7);
}

TEST_CASE("a thread waits for its previous request, others need not") {
  // Round 0: W(0) has congestion 2 (lanes 0 and 1 in bank 0); lane 0's
  // request (address 0) enters at unit 0 and lane 1's (address 4) at 1.
  // Round 1: only lane 0 requests, so it may start at unit 0 + l = 3.
  Trace T;
  T.Threads = 4;
  T.Rounds.push_back({Space::Shared, {0, 4, NoAccess, NoAccess}});
  T.Rounds.push_back({Space::Shared, {1, NoAccess, NoAccess, NoAccess}});
  const SimResult R = simulate(Dmm{4, 3}, T);
  CHECK(R.Rounds[1].Start == 3);
  CHECK(R.Time == 6);
  // If lane 1 requests too, the warp waits for it: 1 + 3 = 4.
  T.Rounds[1].Addr = {1, 2, NoAccess, NoAccess};
  CHECK(simulate(Dmm{4, 3}, T).Rounds[1].Start == 4);
}

TEST_CASE("contiguous access: n/w + l - 1 if p/w >= l, nl/p + p/w - 1 if "
          "p/w <= l (seed 004 Sec. 3)") {
  int Checked = 0;
  for (std::int64_t W : {2, 4, 8, 32})
    for (std::int64_t L : {1, 2, 3, 5, 16, 100})
      for (std::int64_t P : {W, 2 * W, 4 * W, 16 * W, 64 * W})
        for (std::int64_t Rounds : {1, 2, 3, 8}) {
          const std::int64_t N = P * Rounds;
          const auto Contig = [P](std::int64_t T, std::int64_t I) { return T * P + I; };
          const std::int64_t Expected =
              P / W >= L ? N / W + L - 1 : N * L / P + P / W - 1;
          for (const Machine &M : {Machine(Dmm{W, L}), Machine(Umm{W, L})}) {
            CAPTURE(W);
            CAPTURE(L);
            CAPTURE(P);
            CAPTURE(N);
            REQUIRE(run(M, P, Rounds, Contig).Time == Expected);
            // Seed 000 Sec. 3 counts synchronous rounds instead:
            // (p/w + l - 1) * n/p, the same as the pipelined time when there
            // is one round, larger otherwise since rounds do not overlap.
            REQUIRE(run(M, P, Rounds, Contig, true).Time ==
                    (P / W + L - 1) * Rounds);
            ++Checked;
          }
        }
  CHECK(Checked == 4 * 6 * 5 * 4 * 2);
}

TEST_CASE("stride access on the DMM: every warp has congestion "
          "GCD(n/p, w) (seed 000 Sec. 3, Theorem 3.1)") {
  for (std::int64_t W : {4, 8, 32})
    for (std::int64_t L : {1, 5, 40})
      for (std::int64_t P : {W, 4 * W, 32 * W})
        for (std::int64_t S : {1, 2, 3, 4, 6, 8, 12, 32, 33}) {
          // n = p * s; thread i accesses m[i * n/p + t] in round t.
          const auto Stride = [S](std::int64_t T, std::int64_t I) { return I * S + T; };
          const std::int64_t G = std::gcd(S, W);
          const SimResult Pipe = run(Dmm{W, L}, P, S, Stride);
          const SimResult Sync = run(Dmm{W, L}, P, S, Stride, true);
          CAPTURE(W);
          CAPTURE(L);
          CAPTURE(P);
          CAPTURE(S);
          for (const RoundStats &R : Pipe.Rounds) {
            REQUIRE(R.MaxWarpCost == G);
            REQUIRE(R.Stages == G * P / W);
          }
          // The paper: (G * p/w + l - 1) per round, n/p rounds, i.e.
          // O(nG/w + nl/p). The simulator overlaps rounds (a warp issues its
          // next request as soon as its own previous one completed), so it
          // reports the pipelined figure, never more than the paper's.
          REQUIRE(Sync.Time == synchronousUniform(S, P / W, G, L));
          REQUIRE(Pipe.Time == pipelinedUniform(S, P / W, G, L));
          REQUIRE(Pipe.Time <= Sync.Time);
        }
  // n/p = w: all w lanes of a warp hit one bank, so congestion w.
  CHECK(run(Dmm{32, 1}, 64, 32, [](std::int64_t T, std::int64_t I) {
          return I * 32 + T;
        }).Rounds[0].MaxWarpCost == 32);
}

TEST_CASE("stride access on the UMM: min(n/p, w) groups per warp "
          "(seed 000 Sec. 3, Theorem 3.1)") {
  for (std::int64_t W : {4, 8, 32})
    for (std::int64_t L : {1, 7, 64})
      for (std::int64_t P : {W, 8 * W})
        for (std::int64_t S : {1, 2, 3, 5, 8, 31, 32, 33, 64}) {
          const auto Stride = [S](std::int64_t T, std::int64_t I) { return I * S + T; };
          // Paper: n/p >= w gives w groups (every lane its own group); for
          // n/p < w at most ceil(((w-1) n/p + 1) / w) <= n/p groups. The
          // exact count is min(n/p, w) since the lanes span (w-1)s+1
          // consecutive-stride words that start on a group boundary plus t.
          const std::int64_t K = std::min(S, W);
          const SimResult Pipe = run(Umm{W, L}, P, S, Stride);
          const SimResult Sync = run(Umm{W, L}, P, S, Stride, true);
          CAPTURE(W);
          CAPTURE(L);
          CAPTURE(P);
          CAPTURE(S);
          for (const RoundStats &R : Pipe.Rounds)
            REQUIRE(R.MaxWarpCost == K);
          REQUIRE(Sync.Time == synchronousUniform(S, P / W, K, L));
          REQUIRE(Pipe.Time == pipelinedUniform(S, P / W, K, L));
        }
}

TEST_CASE("HMM round costs: coalesced global round n/w + L - 1, "
          "conflict-free shared round n/w (seed 001 Lemma 1)") {
  for (std::int64_t W : {4, 32})
    for (std::int64_t L : {2, 100, 400})
      for (std::int64_t N : {W, 16 * W, 1024 * W}) {
        const auto Contig = [](std::int64_t, std::int64_t I) { return I; };
        const Hmm M{1, W, L};
        CHECK(run(M, N, 1, Contig, true, [](std::int64_t) { return Space::Global; })
                  .Time == N / W + L - 1);
        CHECK(run(M, N, 1, Contig, true, [](std::int64_t) { return Space::Shared; })
                  .Time == N / W);
      }
  // With d DMMs the shared rounds of different blocks run side by side:
  // n/(dw) units, while the one global memory still takes n/w + L - 1.
  const Hmm M4{4, 32, 400};
  const auto Contig = [](std::int64_t, std::int64_t I) { return I % 1024; };
  CHECK(run(M4, 4096, 1, Contig, true, [](std::int64_t) { return Space::Shared; }, 1024)
            .Time == 4096 / (4 * 32));
  CHECK(run(M4, 4096, 1, Contig, true, [](std::int64_t) { return Space::Global; }, 1024)
            .Time == 4096 / 32 + 400 - 1);
}

namespace {

/// Seed 001 Sec. IV on the HMM (d = 1, barrier between rounds): a at 0, the
/// index array at n, b at 2n.
SimResult designated(const Permutation &P, std::int64_t W, std::int64_t L,
                     bool SourceDesignated) {
  const auto N = static_cast<std::int64_t>(P.size());
  const Permutation Q = inverse(P);
  const auto Addr = [&](std::int64_t T, std::int64_t I) -> Address {
    if (!SourceDesignated) {
      // b[p[i]] <- a[i]: read a[i], read p[i], write b[p[i]].
      if (T == 0)
        return I;
      if (T == 1)
        return N + I;
      return 2 * N + static_cast<Address>(P(static_cast<std::uint64_t>(I)));
    }
    // b[i] <- a[q[i]]: read q[i], read a[q[i]], write b[i].
    if (T == 0)
      return N + I;
    if (T == 1)
      return static_cast<Address>(Q(static_cast<std::uint64_t>(I)));
    return 2 * N + I;
  };
  return run(Hmm{1, W, L}, N, 3, Addr, true, [](std::int64_t) { return Space::Global; });
}

} // namespace

TEST_CASE("Table I: D-designated D_w(P) + 2n/w + 3L - 3, S-designated "
          "D_w(P^-1) + 2n/w + 3L - 3 (seed 001 Lemma 4)") {
  const std::int64_t W = 32, L = 400;
  for (std::uint64_t N : {1024u, 4096u, 65536u}) {
    const std::vector<Permutation> Perms = {
        identityPermutation(N), shufflePermutation(N), bitReversalPermutation(N),
        transposePermutation(32, N / 32), randomPermutation(N, 11)};
    for (const Permutation &P : Perms) {
      const auto Nn = static_cast<std::int64_t>(N);
      const auto Dw = static_cast<std::int64_t>(distribution(P, W));
      const auto DwInv = static_cast<std::int64_t>(distribution(inverse(P), W));
      CHECK(designated(P, W, L, false).Time == Dw + 2 * Nn / W + 3 * L - 3);
      CHECK(designated(P, W, L, true).Time == DwInv + 2 * Nn / W + 3 * L - 3);
    }
  }
}

TEST_CASE("Table I: transpose through a diagonal arrangement takes "
          "4n/w + 2L - 2 (seed 001 Sec. V, Lemma 5)") {
  for (std::int64_t W : {4, 8, 32})
    for (std::int64_t Tiles : {1, 2, 4}) {
      const std::int64_t L = 50;
      const std::int64_t M = Tiles * W; // sqrt(n)
      const std::int64_t N = M * M;
      // Thread T(tile * w^2 + i*w + j) handles element (i, j) of its tile
      // (bi, bj); its block of w^2 threads owns the shared tile alpha.
      const auto Addr = [=](std::int64_t T, std::int64_t Th) -> Address {
        const std::int64_t Tile = Th / (W * W), I = Th % (W * W) / W, J = Th % W;
        const std::int64_t Bi = Tile / Tiles, Bj = Tile % Tiles;
        switch (T) {
        case 0: // alpha[i, j] <- a[bi*w + i][bj*w + j]
          return (Bi * W + I) * M + Bj * W + J;
        case 1: // diagonal arrangement: alpha[i, j] at i*w + (i + j) mod w
          return I * W + (I + J) % W;
        case 2: // read alpha[j, i]
          return J * W + (J + I) % W;
        default: // b[bj*w + i][bi*w + j] <- alpha[j, i]
          return N + (Bj * W + I) * M + Bi * W + J;
        }
      };
      const auto Where = [](std::int64_t T) {
        return T == 0 || T == 3 ? Space::Global : Space::Shared;
      };
      const SimResult R = run(Hmm{1, W, L}, N, 4, Addr, true, Where, W * W);
      CAPTURE(W);
      CAPTURE(Tiles);
      for (const RoundStats &St : R.Rounds)
        CHECK(St.MaxWarpCost == 1); // coalesced and conflict-free
      CHECK(R.Time == 4 * N / W + 2 * L - 2);
    }
}

TEST_CASE("simulate rejects malformed traces and machines") {
  Trace T;
  T.Threads = 4;
  T.Rounds.push_back({Space::Shared, {1, 2, 3}});
  CHECK_THROWS_AS(simulate(Dmm{4, 1}, T), UserError);
  T.Rounds[0].Addr = {1, 2, 3, -7};
  CHECK_THROWS_AS(simulate(Dmm{4, 1}, T), UserError);
  T.Rounds[0].Addr = {1, 2, 3, 4};
  CHECK_THROWS_AS(simulate(Dmm{0, 1}, T), UserError);
  CHECK_THROWS_AS(simulate(Umm{4, 0}, T), UserError);
  SimOptions O;
  O.BlockThreads = 6;
  CHECK_THROWS_AS(simulate(Hmm{2, 4, 10}, T, O), UserError);
}
