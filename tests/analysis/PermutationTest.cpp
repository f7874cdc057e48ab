// Permutations and their distribution D_w(P) (seed 001 Sec. IV).

#include "analysis/models/Permutation.h"
#include "analysis/passes/PermutationTables.h"
#include "tests/support/ProgramFixtures.h"
#include "support/Diagnostic.h"
#include "support/Random.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>

using namespace bankwise;

namespace {

std::string tmpPath(const std::string &Name) {
  return std::string(BANKWISE_TEST_TMPDIR) + "/" + Name;
}

void writeBytes(const std::string &Path, const std::vector<unsigned char> &B) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(reinterpret_cast<const char *>(B.data()),
            static_cast<std::streamsize>(B.size()));
}

std::vector<unsigned char> le32(const std::vector<std::uint32_t> &V) {
  std::vector<unsigned char> B;
  for (std::uint32_t X : V)
    for (int I = 0; I < 4; ++I)
      B.push_back(static_cast<unsigned char>(X >> (8 * I)));
  return B;
}

std::string errorOf(const std::function<void()> &F) {
  try {
    F();
  } catch (const UserError &E) {
    return E.diagnostic().Message;
  }
  return "";
}

} // namespace

TEST_CASE("named permutations map as defined") {
  CHECK(shufflePermutation(8).map() == std::vector<std::uint32_t>{0, 2, 4, 6, 1, 3, 5, 7});
  CHECK(bitReversalPermutation(8).map() == std::vector<std::uint32_t>{0, 4, 2, 6, 1, 5, 3, 7});
  // transpose(2, 3): a 2x3 row-major matrix; (i, j) -> (j, i) of a 3x2 one.
  CHECK(transposePermutation(2, 3).map() == std::vector<std::uint32_t>{0, 2, 4, 1, 3, 5});
  CHECK(stridePermutation(6, 3) == transposePermutation(2, 3));
  CHECK(identityPermutation(5).map() == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  CHECK(shufflePermutation(1).size() == 1);
  // The generators' tables skip the entry-by-entry check: each must pass it.
  for (std::uint64_t M = 0; M <= 12; ++M) {
    CHECK_NOTHROW(Permutation(shufflePermutation(std::uint64_t(1) << M).map()));
    CHECK_NOTHROW(Permutation(bitReversalPermutation(std::uint64_t(1) << M).map()));
  }
  for (std::uint64_t R = 1; R <= 40; R += 3)
    for (std::uint64_t C = 1; C <= 40; C += 7) {
      CHECK_NOTHROW(Permutation(transposePermutation(R, C).map()));
      CHECK_NOTHROW(Permutation(stridePermutation(R * C, C).map()));
    }
}

TEST_CASE("D_w(identity) = n/w, D_w(shuffle) = 2n/w, D_w(bit-reversal) = "
          "D_w(transpose) = n, also for the inverses (seed 001 Sec. IV)") {
  for (std::uint64_t W : {4u, 16u, 32u})
    for (int LogN = 10; LogN <= 20; LogN += 2) {
      const std::uint64_t N = std::uint64_t(1) << LogN;
      CAPTURE(W);
      CAPTURE(N);
      CHECK(distribution(identityPermutation(N), W) == N / W);
      const Permutation S = shufflePermutation(N);
      CHECK(distribution(S, W) == 2 * N / W);
      CHECK(distribution(inverse(S), W) == 2 * N / W);
      const Permutation B = bitReversalPermutation(N);
      CHECK(distribution(B, W) == N);
      CHECK(distribution(inverse(B), W) == N);
      std::uint64_t Side = std::uint64_t(1) << (LogN / 2);
      const Permutation T = transposePermutation(Side, Side);
      CHECK(distribution(T, W) == N);
      CHECK(distribution(inverse(T), W) == N);
    }
}

TEST_CASE("D_w(random) is close to n with high probability") {
  const std::uint64_t N = 1 << 20;
  const std::uint64_t D = distribution(randomPermutation(N, 1), 32);
  CHECK(D <= N);
  CHECK(D > N - N / 50); // expected collisions per warp ~ 32*31/2/(n/32)
}

TEST_CASE("random permutations are deterministic per seed and valid") {
  const Permutation A = randomPermutation(1000, 42), B = randomPermutation(1000, 42),
                    C = randomPermutation(1000, 43);
  CHECK(A == B);
  CHECK_FALSE(A == C);
  // Re-validating through the checking constructor must succeed.
  CHECK_NOTHROW(Permutation(A.map()));
  CHECK(inverse(inverse(A)) == A);
  for (std::uint64_t I = 0; I < A.size(); ++I)
    REQUIRE(inverse(A)(A(I)) == I);
}

TEST_CASE("random permutations are the plain Fisher-Yates shuffle of the seed's draws") {
  // randomPermutation draws its partners ahead of the swaps; the values
  // must be those of the textbook loop, at every n around the lookahead.
  for (const std::uint64_t N : {1ull, 2ull, 3ull, 31ull, 32ull, 33ull, 34ull, 64ull, 65ull, 1000ull, 100003ull}) {
    std::vector<std::uint32_t> Map(N);
    for (std::uint64_t I = 0; I < N; ++I)
      Map[I] = static_cast<std::uint32_t>(I);
    Rng R(2026);
    for (std::uint64_t I = N - 1; I > 0; --I)
      std::swap(Map[I], Map[R.below(I + 1)]);
    CHECK_MESSAGE(randomPermutation(N, 2026).map() == Map, "n = " << N);
  }
}

TEST_CASE("invalid parameters are user errors") {
  CHECK_THROWS_AS(shufflePermutation(12), UserError);
  CHECK_THROWS_AS(bitReversalPermutation(0), UserError);
  CHECK_THROWS_AS(stridePermutation(10, 3), UserError);
  CHECK_THROWS_AS(transposePermutation(0, 3), UserError);
  CHECK_THROWS_AS(makePermutation({"nonsense", 8}), UserError);
  CHECK(errorOf([] { makePermutation({"transpose", 10}); }).find("not a square") !=
        std::string::npos);
}

TEST_CASE("permutation files: round trip in 4 and 8 bytes") {
  const Permutation P = randomPermutation(4099, 5);
  for (int Bytes : {4, 8}) {
    const std::string Path = tmpPath("round-trip-" + std::to_string(Bytes) + ".bin");
    savePermutationFile(P, Path, Bytes, /*Header=*/false);
    CHECK(std::filesystem::file_size(Path) == 4099u * static_cast<unsigned>(Bytes));
    CHECK(loadPermutationFile(Path, Bytes) == P);
    // With the header (the default): 32 bytes more, and its width wins over
    // the reader's argument.
    savePermutationFile(P, Path, Bytes);
    CHECK(std::filesystem::file_size(Path) == 32u + 4099u * static_cast<unsigned>(Bytes));
    CHECK(loadPermutationFile(Path, 12 - Bytes) == P);
  }
}

TEST_CASE("permutation files: a header that disagrees with its file is an error") {
  const std::string Path = tmpPath("header.bin");
  savePermutationFile(randomPermutation(16, 1), Path, 4);
  std::ifstream In(Path, std::ios::binary);
  const std::vector<unsigned char> Good((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  REQUIRE(Good.size() == 32 + 64);
  CHECK(std::string(Good.begin(), Good.begin() + 8) == "BWPERM1\n");
  auto Cut = Good;
  Cut.resize(32 + 4 * 10 + 2);
  writeBytes(Path, Cut);
  CHECK(errorOf([&] { loadPermutationFile(Path); }) ==
        "the header gives 16 entries of 4 bytes (64 bytes) but 42 bytes follow it (entry 10 is the first missing "
        "or cut)");
  auto Flipped = Good;
  Flipped[32 + 5] ^= 1; // one bit of entry 1
  writeBytes(Path, Flipped);
  CHECK(errorOf([&] { loadPermutationFile(Path); }).find("do not match the header's checksum") != std::string::npos);
  writeBytes(Path, std::vector<unsigned char>(Good.begin(), Good.begin() + 20));
  CHECK(errorOf([&] { loadPermutationFile(Path); }) == "the header is truncated: 20 of its 32 bytes");
  auto Width = Good;
  Width[8] = 3;
  writeBytes(Path, Width);
  CHECK(errorOf([&] { loadPermutationFile(Path); }) == "the header gives an index width of 3 bytes; expected 4 or 8");
  writeBytes(Path, std::vector<unsigned char>(Good.begin(), Good.begin() + 32));
  CHECK(errorOf([&] { loadPermutationFile(Path); }).find("the header gives 16 entries") != std::string::npos);
}

TEST_CASE("permutation files: errors name the first bad index") {
  const std::string Path = tmpPath("bad.bin");
  writeBytes(Path, le32({0, 1, 2, 9, 4}));
  CHECK(errorOf([&] { loadPermutationFile(Path); }) ==
        "entry 3 (byte offset 12) is 9, outside the range 0..4 of a 5-entry "
        "permutation");
  writeBytes(Path, le32({0, 1, 2, 1, 3, 2}));
  CHECK(errorOf([&] { loadPermutationFile(Path); }) ==
        "entry 3 (byte offset 12) is 1, which an earlier entry already holds");
  auto Truncated = le32({0, 1, 2});
  Truncated.pop_back();
  writeBytes(Path, Truncated);
  CHECK(errorOf([&] { loadPermutationFile(Path); }).find("not a whole number") !=
        std::string::npos);
  writeBytes(Path, {});
  CHECK(errorOf([&] { loadPermutationFile(Path); }) == "permutation file is empty");
  CHECK(errorOf([&] { loadPermutationFile(tmpPath("does-not-exist.bin")); }) ==
        "cannot open permutation file");
  try {
    loadPermutationFile(tmpPath("does-not-exist.bin"));
  } catch (const UserError &E) {
    CHECK(E.diagnostic().Loc.File == tmpPath("does-not-exist.bin"));
  }
}

// PermutationTables builds closed forms with the generators above, their
// inverses in closed form where one exists, and shares tables of one
// definition between programs: every table must still be the declaration's
// map (applyClosedForm), and every inverse its inverse.
TEST_CASE("permutation tables equal the declarations' closed forms and inverses") {
  const ir::Program Prog = testing::parseOrFail(
      "permutation I = identity(64)\npermutation Sh = shuffle(64)\n"
      "permutation Br = bitreverse(64)\npermutation T = transpose(4, 16)\n"
      "permutation St = stride(64, 8)\npermutation R = random(64, seed: 3)\n"
      "permutation L = [2, 0, 1]\nkernel k() threads 1 {}\n");
  const ir::Program Again = testing::parseOrFail(
      "permutation Br2 = bitreverse(64)\npermutation T2 = transpose(4, 16)\n"
      "permutation R2 = random(64, seed: 3)\npermutation R3 = random(64, seed: 4)\n"
      "kernel k() threads 1 {}\n");
  PermutationTables Tables(Prog), Other(Again);
  for (const ir::Permutation &P : Prog.Perms) {
    INFO(P.Name);
    const Permutation &Fwd = Tables.get(P.Name), &Inv = Tables.get(P.Name, true);
    REQUIRE(static_cast<std::int64_t>(Fwd.size()) == *P.Size);
    for (std::uint64_t X = 0; X < Fwd.size(); ++X) {
      if (P.Kind != ir::PermKind::Random)
        CHECK(static_cast<std::int64_t>(Fwd(X)) == ir::applyClosedForm(P, static_cast<std::int64_t>(X)).value());
      CHECK(Inv(Fwd(X)) == X);
    }
  }
  CHECK(Other.get("Br2") == Tables.get("Br"));
  CHECK(Other.get("T2", true) == Tables.get("T", true));
  CHECK(Other.get("R2") == Tables.get("R"));
  CHECK(Other.get("R2") == randomPermutation(64, 3));
  CHECK(!(Other.get("R3") == Tables.get("R")));
}
