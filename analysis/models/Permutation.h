// Permutations of 0..n-1 and their distribution D_w(P) (seed 001 Sec. IV):
//   D_w(P) = sum over warps j of |{ floor(P(j*w + k) / w) : 0 <= k < w }|,
// the address groups of b the destination-designated algorithm b[P(i)] = a[i]
// writes. D_w(identity) = n/w, D_w(shuffle) = 2n/w, D_w(bit-reversal) =
// D_w(transpose) = n (for n >= w^2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bankwise {

/// A permutation of 0..n-1, stored as P(i) for every i (n <= 2^32).
class Permutation {
public:
  Permutation() = default;
  /// Takes ownership of Map; throws UserError (naming the first bad index)
  /// if Map is not a permutation of 0..Map.size()-1.
  explicit Permutation(std::vector<std::uint32_t> Map);
  /// Takes Map unchecked, for maps that are bijections by construction (a
  /// Fisher-Yates shuffle, the inverse of a permutation, a composition of
  /// permutations): the check costs a random access per entry, a second
  /// at n = 2^26.
  static Permutation ofBijection(std::vector<std::uint32_t> Map) {
    Permutation P;
    P.Map = std::move(Map);
    return P;
  }

  std::uint64_t size() const { return Map.size(); }
  std::uint64_t operator()(std::uint64_t I) const { return Map[I]; }
  const std::vector<std::uint32_t> &map() const { return Map; }
  bool operator==(const Permutation &) const = default;

private:
  std::vector<std::uint32_t> Map;
};

/// The largest n bankwise stores: indices are 32-bit.
inline constexpr std::uint64_t MaxPermutationSize = std::uint64_t(1) << 32;

/// P(i) = i.
Permutation identityPermutation(std::uint64_t N);
/// Perfect shuffle, a one-bit left rotation of the index: i_m..i_1 ->
/// i_{m-1}..i_1 i_m. N must be a power of two.
Permutation shufflePermutation(std::uint64_t N);
/// Bit reversal: i_m..i_1 -> i_1..i_m. N must be a power of two.
Permutation bitReversalPermutation(std::uint64_t N);
/// Transpose of a Rows x Cols row-major matrix: P(i*Cols + j) = j*Rows + i.
Permutation transposePermutation(std::uint64_t Rows, std::uint64_t Cols);
/// Stride-S permutation (the FFT's L^n_s): element i = q*S + r goes to
/// r*(N/S) + q, i.e. transpose(N/S, S). S must divide N.
Permutation stridePermutation(std::uint64_t N, std::uint64_t S);
/// Uniformly random permutation (Fisher-Yates on bankwise's own generator):
/// the same (N, Seed) gives the same permutation everywhere.
Permutation randomPermutation(std::uint64_t N, std::uint64_t Seed);

/// Reads a permutation file: N little-endian unsigned integers of IndexBytes
/// (4 or 8) bytes each, optionally after a 32-byte header ("BWPERM1\n",
/// the index width in byte 8 (which then overrides IndexBytes), bytes 9-15
/// zero, N as u64 at 16, FNV-1a of the entry bytes as u64 at 24). Throws
/// UserError, located at the file, for an unreadable file, a header that
/// is cut or disagrees with the length or the checksum, a length that is
/// not a whole number of entries, an empty file, a value out of range or a
/// duplicate; the error names the first bad index and its byte offset.
Permutation loadPermutationFile(const std::string &Path, int IndexBytes = 4);

/// Writes P in the format loadPermutationFile reads, with the header unless
/// Header is false (atomically: a temporary file renamed into place).
void savePermutationFile(const Permutation &P, const std::string &Path,
                         int IndexBytes = 4, bool Header = true);

/// P^{-1}, with P^{-1}(P(i)) = i.
Permutation inverse(const Permutation &P);

/// D_w(P) as defined above; the last warp may be partial when w does not
/// divide n.
std::uint64_t distribution(const Permutation &P, std::uint64_t W);

/// A bit-permute-complement (BPC) permutation of n = 2^Bits indices: bit k
/// of i moves to bit To[k], then the result is XORed with Xor:
///   P(i) = Xor ^ sum_k bit_k(i) << To[k].
/// Transpose of 2^a x 2^b, bit reversal, the perfect shuffle and its
/// inverse, Morton (Z) order and the FFT's strides are all of this form.
struct BitPermutation {
  int Bits = 0;
  std::vector<int> To;    ///< To[k]: the bit source bit k moves to
  std::uint64_t Xor = 0;  ///< the complement mask
  bool operator==(const BitPermutation &) const = default;
  std::uint64_t operator()(std::uint64_t I) const;
  /// The bit of the source that lands on destination bit D.
  int from(int D) const;
};

/// P as a BPC permutation when it is one (n a power of two and every entry
/// agrees with the bits P moves 0 and each 2^k to), nullopt otherwise. Looks
/// at every entry: O(n).
std::optional<BitPermutation> asBitPermutation(const Permutation &P);

/// "bits 0..4 -> 21..25, 5..25 -> 0..20" (runs of bits that move
/// together), with ", xor 0x..." when Xor is set.
std::string describe(const BitPermutation &B);

/// The BitPermutation as a table (n = 2^Bits <= 2^32).
Permutation bitPermutation(const BitPermutation &B);

/// A named permutation: "identity", "shuffle", "bitrev" (or "bitreverse"),
/// "transpose" (needs Rows and Cols), "stride" (needs Stride), "random"
/// (uses Seed). Throws UserError for an unknown name or bad sizes.
struct PermutationSpec {
  std::string Name;
  std::uint64_t N = 0;
  std::uint64_t Rows = 0, Cols = 0, Stride = 0, Seed = 0;
};
Permutation makePermutation(const PermutationSpec &Spec);

} // namespace bankwise
