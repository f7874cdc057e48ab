#include "analysis/models/Permutation.h"

#include "support/Bits.h"
#include "support/Diagnostic.h"
#include "support/Hash.h"
#include "support/TempFiles.h"
#include "support/Random.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <numeric>
#include <unordered_set>

namespace bankwise {

namespace {

void requireSize(std::uint64_t N, const char *What) {
  if (N == 0)
    throw UserError(fmt::format("{} permutation needs n >= 1", What));
  if (N > MaxPermutationSize)
    throw UserError(fmt::format("{} permutation of n = {} exceeds the limit "
                                "of 2^32 elements",
                                What, N));
}

void requirePowerOfTwo(std::uint64_t N, const char *What) {
  requireSize(N, What);
  if (!std::has_single_bit(N))
    throw UserError(
        fmt::format("{} permutation needs n to be a power of two, got {}",
                    What, N));
}

/// Builds a permutation from Fn(i) for i in 0..N-1, a closed form that is a
/// bijection (PermutationTest and IrTest check each one against its
/// definition), so the table is not checked again entry by entry.
template <class F> Permutation generate(std::uint64_t N, F Fn) {
  std::vector<std::uint32_t> Map(N);
  for (std::uint64_t I = 0; I < N; ++I)
    Map[I] = static_cast<std::uint32_t>(Fn(I));
  return Permutation::ofBijection(std::move(Map));
}

} // namespace

Permutation::Permutation(std::vector<std::uint32_t> M) : Map(std::move(M)) {
  const std::uint64_t N = Map.size();
  // One bit per value: n/8 bytes, so the check stays in cache longer.
  std::vector<std::uint64_t> Seen((N + 63) / 64, 0);
  for (std::uint64_t I = 0; I < N; ++I) {
    const std::uint64_t V = Map[I];
    if (V >= N)
      throw UserError(fmt::format(
          "entry {} is {}, outside the range 0..{}", I, V, N - 1));
    const std::uint64_t Bit = std::uint64_t(1) << (V % 64);
    if (Seen[V / 64] & Bit)
      throw UserError(fmt::format(
          "entry {} is {}, which an earlier entry already holds", I, V));
    Seen[V / 64] |= Bit;
  }
}

Permutation identityPermutation(std::uint64_t N) {
  requireSize(N, "identity");
  return generate(N, [](std::uint64_t I) { return I; });
}

Permutation shufflePermutation(std::uint64_t N) {
  requirePowerOfTwo(N, "shuffle");
  const int Bits = std::countr_zero(N);
  return generate(N, [=](std::uint64_t I) {
    if (Bits == 0)
      return I;
    return ((I << 1) | (I >> (Bits - 1))) & (N - 1);
  });
}

Permutation bitReversalPermutation(std::uint64_t N) {
  requirePowerOfTwo(N, "bit-reversal");
  const int Bits = std::countr_zero(N);
  return generate(N, [=](std::uint64_t I) { return reverseBits(I, Bits); });
}

Permutation transposePermutation(std::uint64_t Rows, std::uint64_t Cols) {
  if (Rows == 0 || Cols == 0)
    throw UserError(fmt::format(
        "transpose permutation needs rows and cols >= 1, got {} x {}", Rows,
        Cols));
  if (Cols > MaxPermutationSize / Rows)
    throw UserError(fmt::format(
        "transpose permutation of {} x {} exceeds the limit of 2^32 elements",
        Rows, Cols));
  return generate(Rows * Cols, [=](std::uint64_t I) {
    return (I % Cols) * Rows + I / Cols;
  });
}

Permutation stridePermutation(std::uint64_t N, std::uint64_t S) {
  requireSize(N, "stride");
  if (S == 0 || N % S != 0)
    throw UserError(fmt::format(
        "stride permutation needs a stride that divides n = {}, got {}", N, S));
  return transposePermutation(N / S, S);
}

Permutation randomPermutation(std::uint64_t N, std::uint64_t Seed) {
  requireSize(N, "random");
  std::vector<std::uint32_t> Map(N);
  std::iota(Map.begin(), Map.end(), 0u);
  Rng R(Seed);
  // Fisher-Yates from the top. The partners J do not depend on the table,
  // so they are drawn Ahead steps early and their entries prefetched: the
  // swaps (the same ones, in the same order) then find them in cache
  // instead of waiting for a miss each, most of the time at n = 2^26.
  constexpr std::uint64_t Ahead = 32;
  std::uint64_t Partner[Ahead];
  const std::uint64_t Early = std::min<std::uint64_t>(Ahead, N - 1);
  for (std::uint64_t K = 0; K < Early; ++K) {
    Partner[K] = R.below(N - K);
    __builtin_prefetch(&Map[Partner[K]], 1);
  }
  for (std::uint64_t I = N - 1, K = 0; I > 0; --I, K = (K + 1) % Ahead) {
    const std::uint64_t J = Partner[K];
    if (I > Ahead) { // the draw for I - Ahead, in draw order
      Partner[K] = R.below(I - Ahead + 1);
      __builtin_prefetch(&Map[Partner[K]], 1);
    }
    std::swap(Map[I], Map[J]);
  }
  return Permutation::ofBijection(std::move(Map));
}

namespace {

// The optional header of a permutation file (docs/cli.md): magic, index
// width, entries, FNV-1a of the entry bytes; 32 bytes, little endian.
constexpr unsigned char PermMagic[8] = {'B', 'W', 'P', 'E', 'R', 'M', '1', '\n'};
constexpr std::size_t PermHeaderBytes = 32;

std::uint64_t readLE(const unsigned char *P, int Bytes) {
  std::uint64_t V = 0;
  for (int B = Bytes - 1; B >= 0; --B)
    V = (V << 8) | P[B];
  return V;
}

void writeLE(unsigned char *P, std::uint64_t V, int Bytes) {
  for (int B = 0; B < Bytes; ++B)
    P[B] = static_cast<unsigned char>((V >> (8 * B)) & 0xff);
}

} // namespace

Permutation loadPermutationFile(const std::string &Path, int IndexBytes) {
  const SourceLoc Loc{Path, 0, 0};
  if (IndexBytes != 4 && IndexBytes != 8)
    throw UserError(Loc, fmt::format("index width must be 4 or 8 bytes, got {}",
                                     IndexBytes));
  std::error_code EC;
  if (std::filesystem::is_directory(Path, EC))
    throw UserError(Loc, "is a directory, not a permutation file");
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw UserError(Loc, "cannot open permutation file");
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)),
                          std::istreambuf_iterator<char>());
  if (Bytes.empty())
    throw UserError(Loc, "permutation file is empty");
  const auto *Raw = reinterpret_cast<const unsigned char *>(Bytes.data());
  std::size_t Body = Bytes.size();
  std::optional<std::uint64_t> Count, Checksum;
  if (Bytes.size() >= sizeof(PermMagic) && std::equal(PermMagic, PermMagic + sizeof(PermMagic), Raw)) {
    if (Bytes.size() < PermHeaderBytes)
      throw UserError(Loc, fmt::format("the header is truncated: {} of its {} bytes", Bytes.size(),
                                       PermHeaderBytes));
    IndexBytes = Raw[8];
    if (IndexBytes != 4 && IndexBytes != 8)
      throw UserError(Loc, fmt::format("the header gives an index width of {} bytes; expected 4 or 8", IndexBytes));
    Count = readLE(Raw + 16, 8);
    Checksum = readLE(Raw + 24, 8);
    Raw += PermHeaderBytes;
    Body -= PermHeaderBytes;
    if (*Count > MaxPermutationSize)
      throw UserError(Loc, fmt::format("the header gives {} entries, more than the limit of 2^32", *Count));
    const std::uint64_t Want = *Count * static_cast<std::uint64_t>(IndexBytes);
    if (Body != Want)
      throw UserError(Loc, fmt::format("the header gives {} entries of {} bytes ({} bytes) but {} bytes follow it{}",
                                       *Count, IndexBytes, Want, Body,
                                       Body < Want ? fmt::format(" (entry {} is the first missing or cut)",
                                                                 Body / static_cast<std::size_t>(IndexBytes))
                                                   : ""));
    if (fnv1a(Raw, Body) != *Checksum)
      throw UserError(Loc, fmt::format("the entries do not match the header's checksum {:#018x} (the file is "
                                       "damaged)",
                                       *Checksum));
  }
  if (Body == 0)
    throw UserError(Loc, "permutation file has no entries");
  if (Body % static_cast<std::size_t>(IndexBytes) != 0)
    throw UserError(
        Loc, fmt::format("file size {} bytes is not a whole number of {}-byte "
                         "indices (entry {} is truncated)",
                         Body, IndexBytes,
                         Body / static_cast<std::size_t>(IndexBytes)));
  const std::uint64_t N = Body / static_cast<std::size_t>(IndexBytes);
  if (N > MaxPermutationSize)
    throw UserError(Loc, fmt::format("{} entries exceed the limit of 2^32", N));
  std::vector<std::uint32_t> Map(N);
  std::vector<std::uint8_t> Seen(N, 0);
  const std::uint64_t HeaderOffset = Count ? PermHeaderBytes : 0;
  for (std::uint64_t I = 0; I < N; ++I) {
    const std::uint64_t V = readLE(Raw + I * static_cast<std::uint64_t>(IndexBytes), IndexBytes);
    const std::uint64_t Offset = HeaderOffset + I * static_cast<std::uint64_t>(IndexBytes);
    if (V >= N)
      throw UserError(Loc, fmt::format("entry {} (byte offset {}) is {}, "
                                       "outside the range 0..{} of a "
                                       "{}-entry permutation",
                                       I, Offset, V, N - 1, N));
    if (Seen[V])
      throw UserError(Loc,
                      fmt::format("entry {} (byte offset {}) is {}, which an "
                                  "earlier entry already holds",
                                  I, Offset, V));
    Seen[V] = 1;
    Map[I] = static_cast<std::uint32_t>(V);
  }
  return Permutation(std::move(Map));
}

void savePermutationFile(const Permutation &P, const std::string &Path,
                         int IndexBytes, bool Header) {
  if (IndexBytes != 4 && IndexBytes != 8)
    throw UserError(fmt::format("index width must be 4 or 8 bytes, got {}",
                                IndexBytes));
  const std::string Tmp = Path + ".tmp";
  const TempFileGuard Guard(Tmp);
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    if (!Out)
      throw UserError(SourceLoc{Path, 0, 0}, "cannot write permutation file");
    const std::size_t Head = Header ? PermHeaderBytes : 0;
    std::vector<unsigned char> Buf(Head + P.size() * static_cast<std::uint64_t>(IndexBytes));
    for (std::uint64_t I = 0; I < P.size(); ++I)
      writeLE(&Buf[Head + I * static_cast<std::uint64_t>(IndexBytes)], P(I), IndexBytes);
    if (Header) {
      std::copy(PermMagic, PermMagic + sizeof(PermMagic), Buf.begin());
      Buf[8] = static_cast<unsigned char>(IndexBytes);
      writeLE(&Buf[16], P.size(), 8);
      writeLE(&Buf[24], fnv1a(Buf.data() + Head, Buf.size() - Head), 8);
    }
    Out.write(reinterpret_cast<const char *>(Buf.data()),
              static_cast<std::streamsize>(Buf.size()));
    if (!Out)
      throw UserError(SourceLoc{Path, 0, 0}, "write failed");
  }
  std::error_code EC;
  std::filesystem::rename(Tmp, Path, EC);
  if (EC) {
    std::filesystem::remove(Tmp, EC);
    throw UserError(SourceLoc{Path, 0, 0}, "cannot rename temporary file");
  }
}

Permutation inverse(const Permutation &P) {
  std::vector<std::uint32_t> Inv(P.size());
  for (std::uint64_t I = 0; I < P.size(); ++I)
    Inv[P(I)] = static_cast<std::uint32_t>(I);
  return Permutation::ofBijection(std::move(Inv));
}

std::uint64_t distribution(const Permutation &P, std::uint64_t W) {
  if (W == 0)
    throw UserError("distribution needs w >= 1");
  std::uint64_t Total = 0;
  std::vector<std::uint64_t> Groups;
  Groups.reserve(W);
  for (std::uint64_t First = 0; First < P.size(); First += W) {
    Groups.clear();
    const std::uint64_t Last = std::min(P.size(), First + W);
    for (std::uint64_t I = First; I < Last; ++I)
      Groups.push_back(P(I) / W);
    std::sort(Groups.begin(), Groups.end());
    Total += static_cast<std::uint64_t>(
        std::unique(Groups.begin(), Groups.end()) - Groups.begin());
  }
  return Total;
}

Permutation makePermutation(const PermutationSpec &S) {
  if (S.Name == "identity")
    return identityPermutation(S.N);
  if (S.Name == "shuffle")
    return shufflePermutation(S.N);
  if (S.Name == "bitrev" || S.Name == "bitreverse")
    return bitReversalPermutation(S.N);
  if (S.Name == "transpose") {
    if (S.Rows == 0 && S.Cols == 0 && S.N != 0) {
      // Square by default, as the papers' sqrt(n) x sqrt(n) matrices.
      std::uint64_t R = 1;
      while ((R + 1) * (R + 1) <= S.N)
        ++R;
      if (R * R != S.N)
        throw UserError(fmt::format(
            "transpose of n = {} needs --rows and --cols (n is not a square)",
            S.N));
      return transposePermutation(R, R);
    }
    if (S.N != 0 && S.Rows * S.Cols != S.N)
      throw UserError(fmt::format("transpose {} x {} does not have n = {} "
                                  "elements",
                                  S.Rows, S.Cols, S.N));
    return transposePermutation(S.Rows, S.Cols);
  }
  if (S.Name == "stride")
    return stridePermutation(S.N, S.Stride);
  if (S.Name == "random")
    return randomPermutation(S.N, S.Seed);
  throw UserError(fmt::format("unknown permutation '{}' (expected identity, "
                              "shuffle, bitrev, transpose, stride or random)",
                              S.Name));
}

std::uint64_t BitPermutation::operator()(std::uint64_t I) const {
  std::uint64_t Out = 0;
  for (int K = 0; K < Bits; ++K)
    Out |= ((I >> K) & 1) << To[static_cast<std::size_t>(K)];
  return Out ^ Xor;
}

int BitPermutation::from(int D) const {
  for (int K = 0; K < Bits; ++K)
    if (To[static_cast<std::size_t>(K)] == D)
      return K;
  return -1;
}

std::optional<BitPermutation> asBitPermutation(const Permutation &P) {
  const std::uint64_t N = P.size();
  if (N < 2 || (N & (N - 1)) != 0)
    return std::nullopt;
  BitPermutation B;
  while ((std::uint64_t(1) << B.Bits) < N)
    ++B.Bits;
  B.Xor = P(0);
  std::uint64_t Used = 0;
  for (int K = 0; K < B.Bits; ++K) {
    const std::uint64_t D = P(std::uint64_t(1) << K) ^ B.Xor;
    if (D == 0 || (D & (D - 1)) != 0 || (Used & D))
      return std::nullopt;
    Used |= D;
    B.To.push_back(__builtin_ctzll(D));
  }
  // Every entry: P(i) = P(i without its lowest set bit) ^ (the image of
  // that bit), so each entry costs one lookup of an earlier one.
  const std::uint32_t *Map = P.map().data();
  for (std::uint64_t I = 1; I < N; ++I) {
    const std::uint64_t Low = I & (~I + 1);
    if ((Map[I] ^ Map[I ^ Low]) != (std::uint64_t(1) << B.To[static_cast<std::size_t>(__builtin_ctzll(Low))]))
      return std::nullopt;
  }
  return B;
}

std::string describe(const BitPermutation &B) {
  std::string S;
  for (int K = 0; K < B.Bits;) {
    int J = K + 1;
    const int Dir = K + 1 < B.Bits && B.To[static_cast<std::size_t>(K) + 1] == B.To[static_cast<std::size_t>(K)] - 1 ? -1 : 1;
    while (J < B.Bits && B.To[static_cast<std::size_t>(J)] == B.To[static_cast<std::size_t>(J) - 1] + Dir)
      ++J;
    const int From = B.To[static_cast<std::size_t>(K)], To = B.To[static_cast<std::size_t>(J) - 1];
    S += S.empty() ? "" : ", ";
    S += J - K == 1 ? fmt::format("{} -> {}", K, From) : fmt::format("{}..{} -> {}..{}", K, J - 1, From, To);
    K = J;
  }
  if (B.Xor)
    S += fmt::format(", xor {:#x}", B.Xor);
  return "bits " + S;
}

Permutation bitPermutation(const BitPermutation &B) {
  if (B.Bits < 0 || B.Bits > 32 || B.To.size() != static_cast<std::size_t>(B.Bits))
    throw UserError(fmt::format("a bit permutation of {} bits needs {} targets, got {}", B.Bits, B.Bits, B.To.size()));
  std::uint64_t Seen = 0;
  for (int T : B.To) {
    if (T < 0 || T >= B.Bits || (Seen >> T & 1))
      throw UserError(fmt::format("bit targets must be a permutation of 0..{}; {} is out of range or repeated",
                                  B.Bits - 1, T));
    Seen |= std::uint64_t(1) << T;
  }
  if (B.Xor >> B.Bits)
    throw UserError(fmt::format("xor mask {} has bits above bit {}", B.Xor, B.Bits - 1));
  const std::uint64_t N = std::uint64_t(1) << B.Bits;
  std::vector<std::uint32_t> Map(N);
  for (std::uint64_t I = 0; I < N; ++I)
    Map[I] = static_cast<std::uint32_t>(B(I));
  return Permutation::ofBijection(std::move(Map));
}

} // namespace bankwise
