#include "analysis/models/MemoryModel.h"
#include "analysis/models/detail/Stages.h"

#include "support/Diagnostic.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <vector>

namespace bankwise {

namespace {

template <class... Ts> struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

void requirePositive(std::int64_t V, const char *Machine, const char *Name) {
  if (V < 1)
    throw UserError(
        fmt::format("{} parameter '{}' must be at least 1, got {}", Machine,
                    Name, V));
}

/// Sorted distinct values, reusing Buf.
void sortUnique(std::vector<Address> &Buf) {
  std::sort(Buf.begin(), Buf.end());
  Buf.erase(std::unique(Buf.begin(), Buf.end()), Buf.end());
}

void checkAligned(std::span<const Address> Addrs, std::int64_t Bytes) {
  if (!isSm90AccessSize(Bytes))
    throw UserError(fmt::format(
        "sm_90 accesses are 1, 2, 4, 8 or 16 bytes wide, got {}", Bytes));
  for (std::size_t I = 0; I < Addrs.size(); ++I)
    if (Addrs[I] != NoAccess && (Addrs[I] < 0 || Addrs[I] % Bytes != 0))
      throw UserError(fmt::format(
          "lane {}: byte address {} is not a non-negative multiple of the "
          "{}-byte access size",
          I, Addrs[I], Bytes));
}

} // namespace

void validateMachine(const Machine &M) {
  std::visit(Overloaded{[](const Dmm &D) {
                          requirePositive(D.W, "dmm", "w");
                          requirePositive(D.L, "dmm", "l");
                        },
                        [](const Umm &U) {
                          requirePositive(U.W, "umm", "w");
                          requirePositive(U.L, "umm", "l");
                        },
                        [](const Hmm &H) {
                          requirePositive(H.D, "hmm", "d");
                          requirePositive(H.W, "hmm", "w");
                          requirePositive(H.L, "hmm", "L");
                        }},
             M);
}

std::string machineName(const Machine &M) {
  return std::visit(
      Overloaded{
          [](const Dmm &D) { return fmt::format("dmm(w: {}, l: {})", D.W, D.L); },
          [](const Umm &U) { return fmt::format("umm(w: {}, l: {})", U.W, U.L); },
          [](const Hmm &H) {
            return fmt::format("hmm(d: {}, w: {}, L: {})", H.D, H.W, H.L);
          }},
      M);
}

std::int64_t machineWidth(const Machine &M) {
  return std::visit([](const auto &X) { return X.W; }, M);
}

namespace detail {

std::int64_t assignStages(std::span<const Address> Lanes, std::int64_t W,
                          StageRule Rule, std::span<std::int32_t> Stage,
                          std::vector<LaneKey> &Scratch) {
  Scratch.clear();
  for (std::size_t I = 0; I < Lanes.size(); ++I) {
    if (Lanes[I] == NoAccess)
      continue;
    const Address A = Lanes[I];
    // DMM: requests to one bank go in increasing address order; UMM: groups
    // go in increasing order. Key = (bank or 0, address).
    const std::int64_t Major = Rule == StageRule::Bank ? A % W : 0;
    Scratch.push_back({Major, A, static_cast<std::int32_t>(I)});
  }
  std::sort(Scratch.begin(), Scratch.end(),
            [](const LaneKey &X, const LaneKey &Y) {
              return X.Major != Y.Major ? X.Major < Y.Major : X.Addr < Y.Addr;
            });
  std::int64_t K = 0;
  std::int64_t Rank = -1;
  for (std::size_t I = 0; I < Scratch.size(); ++I) {
    const LaneKey &Cur = Scratch[I];
    if (I == 0 || Cur.Major != Scratch[I - 1].Major) {
      Rank = 0;
    } else if (Rule == StageRule::Bank ? Cur.Addr != Scratch[I - 1].Addr
                                       : Cur.Addr / W !=
                                             Scratch[I - 1].Addr / W) {
      ++Rank;
    }
    if (!Stage.empty())
      Stage[static_cast<std::size_t>(Cur.Lane)] = static_cast<std::int32_t>(Rank);
    K = std::max(K, Rank + 1);
  }
  return K;
}

} // namespace detail

// The cost functions run once per warp access, millions of times at real
// sizes: they do not allocate (one reused buffer per thread) and sort only
// as a last resort. Where lanes fall in distinct banks, congestion is 1;
// values to count (groups, sectors, lines, words) within 64 of each other
// are counted in a 64-bit mask, within 2^14 in a bitmap, up to 64 of them
// in a small hash set; only more are sorted. assignStages, the definition,
// stays the reference in tests.
namespace {

/// The calling thread's buffer for one warp's values.
std::vector<Address> &scratch() {
  thread_local std::vector<Address> Buf;
  Buf.clear();
  return Buf;
}

/// A set of at most 64 values for one warp: open addressing in 128 slots,
/// emptied by a new generation rather than by clearing.
class SmallSet {
public:
  static constexpr std::size_t MaxValues = 64;
  void reset() {
    if (++Gen == 0) {
      std::fill(std::begin(Stamp), std::end(Stamp), 0u);
      Gen = 1;
    }
  }
  /// True when X was not in the set yet.
  bool insert(Address X) {
    std::size_t H = static_cast<std::size_t>((static_cast<std::uint64_t>(X) * 0x9E3779B97F4A7C15ULL) >> 57);
    while (Stamp[H] == Gen) {
      if (Slot[H] == X)
        return false;
      H = (H + 1) & 127;
    }
    Stamp[H] = Gen;
    Slot[H] = X;
    return true;
  }

private:
  Address Slot[128];
  std::uint32_t Stamp[128] = {};
  std::uint32_t Gen = 0;
};

SmallSet &smallSet() {
  thread_local SmallSet S;
  S.reset();
  return S;
}

/// X / D and X mod D for X >= 0, by shift and mask when D is a power of two
/// (the common warp widths): a division per lane is most of a warp's cost.
struct Divisor {
  explicit Divisor(std::int64_t D)
      : D(D), Pow2(std::has_single_bit(static_cast<std::uint64_t>(D))),
        Shift(std::countr_zero(static_cast<std::uint64_t>(D))) {}
  Address div(Address X) const { return Pow2 ? X >> Shift : X / D; }
  Address mod(Address X) const { return Pow2 ? X & (D - 1) : X % D; }
  std::int64_t D;
  bool Pow2;
  int Shift;
};

/// Ranges of values countDistinct counts in a bitmap.
constexpr Address BitmapValues = 1 << 14;

/// Distinct values in V (reordered).
std::int64_t countDistinct(std::vector<Address> &V) {
  if (V.empty())
    return 0;
  const auto [Lo, Hi] = std::minmax_element(V.begin(), V.end());
  if (*Hi - *Lo < 64) {
    const Address Base = *Lo;
    std::uint64_t Mask = 0;
    for (Address X : V)
      Mask |= std::uint64_t(1) << (X - Base);
    return std::popcount(Mask);
  }
  if (*Hi - *Lo < BitmapValues) {
    // One bit per value of the range, set and cleared again word by word.
    thread_local std::uint64_t Bits[BitmapValues / 64] = {};
    const Address Base = *Lo;
    std::int64_t N = 0;
    for (Address X : V) {
      std::uint64_t &Word = Bits[(X - Base) / 64];
      const std::uint64_t Bit = std::uint64_t(1) << ((X - Base) % 64);
      N += !(Word & Bit);
      Word |= Bit;
    }
    for (Address X : V)
      Bits[(X - Base) / 64] = 0;
    return N;
  }
  if (V.size() <= SmallSet::MaxValues) {
    SmallSet &Set = smallSet();
    std::int64_t N = 0;
    for (Address X : V)
      N += Set.insert(X);
    return N;
  }
  sortUnique(V);
  return static_cast<std::int64_t>(V.size());
}

/// The most distinct values one of W banks (value mod W) receives; V holds
/// non-negative values and is reordered.
std::int64_t maxDistinctPerBank(std::vector<Address> &V, std::int64_t W) {
  if (V.empty())
    return 0;
  if (W <= 64) {
    const Divisor BankOf(W);
    std::uint64_t Banks = 0;
    bool Distinct = true;
    for (Address X : V) {
      const std::uint64_t Bit = std::uint64_t(1) << BankOf.mod(X);
      Distinct = Distinct && !(Banks & Bit);
      Banks |= Bit;
    }
    if (Distinct)
      return 1;
    std::int64_t PerBank[64] = {}, Max = 0;
    if (V.size() <= SmallSet::MaxValues) {
      SmallSet &Set = smallSet();
      for (Address X : V)
        if (Set.insert(X))
          Max = std::max(Max, ++PerBank[BankOf.mod(X)]);
      return Max;
    }
    sortUnique(V);
    for (Address X : V)
      Max = std::max(Max, ++PerBank[BankOf.mod(X)]);
    return Max;
  }
  sortUnique(V);
  std::vector<detail::LaneKey> Keys;
  return detail::assignStages(V, W, detail::StageRule::Bank, {}, Keys);
}

bool anyNegative(std::span<const Address> Lanes) {
  return std::any_of(Lanes.begin(), Lanes.end(),
                     [](Address A) { return A < 0 && A != NoAccess; });
}

} // namespace

std::int64_t dmmCongestion(std::span<const Address> Lanes, std::int64_t W) {
  if (anyNegative(Lanes)) {
    std::vector<detail::LaneKey> Keys;
    return detail::assignStages(Lanes, W, detail::StageRule::Bank, {}, Keys);
  }
  std::vector<Address> &V = scratch();
  for (Address A : Lanes)
    if (A != NoAccess)
      V.push_back(A);
  return maxDistinctPerBank(V, W);
}

std::int64_t ummGroups(std::span<const Address> Lanes, std::int64_t W) {
  if (anyNegative(Lanes)) {
    std::vector<detail::LaneKey> Keys;
    return detail::assignStages(Lanes, W, detail::StageRule::Group, {}, Keys);
  }
  std::vector<Address> &V = scratch();
  for (Address A : Lanes)
    if (A != NoAccess)
      V.push_back(A / W);
  return countDistinct(V);
}

namespace {

/// The longest run of equal values in V, sorted first.
std::int64_t longestRun(std::vector<Address> &V) {
  std::sort(V.begin(), V.end());
  std::int64_t Most = 0, Run = 0;
  for (std::size_t I = 0; I < V.size(); ++I) {
    Run = I > 0 && V[I] == V[I - 1] ? Run + 1 : 1;
    Most = std::max(Most, Run);
  }
  return Most;
}

} // namespace

std::int64_t atomicSerialization(std::span<const Address> Lanes) {
  thread_local std::vector<Address> V;
  V.clear();
  for (Address A : Lanes)
    if (A != NoAccess)
      V.push_back(A);
  return longestRun(V);
}

std::int64_t dmmAtomicCongestion(std::span<const Address> Lanes, std::int64_t W) {
  if (W < 1)
    throw UserError(fmt::format("dmm parameter 'w' must be at least 1, got {}", W));
  thread_local std::vector<Address> V;
  V.clear();
  for (Address A : Lanes)
    if (A != NoAccess)
      V.push_back(((A % W) + W) % W);
  return longestRun(V);
}

bool isSm90AccessSize(std::int64_t Bytes) {
  return Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16;
}

namespace {

/// One part of a warp access served together: max over the 32 banks of the
/// distinct 4-byte words in the bank, and at least bytes moved / 128.
Sm90SharedCost sharedPart(std::span<const Address> ByteAddrs, std::int64_t Bytes) {
  constexpr std::int64_t WordBytes = 4, Banks = 32, WavefrontBytes = 128;
  Sm90SharedCost C;
  std::vector<Address> &Words = scratch();
  for (Address A : ByteAddrs) {
    if (A == NoAccess)
      continue;
    C.BytesMoved += Bytes;
    for (Address Word = A / WordBytes; Word <= (A + Bytes - 1) / WordBytes; ++Word)
      Words.push_back(Word);
  }
  if (Words.empty())
    return C;
  C.MaxWordsPerBank = maxDistinctPerBank(Words, Banks);
  C.Wavefronts = std::max(C.MaxWordsPerBank, (C.BytesMoved + WavefrontBytes - 1) / WavefrontBytes);
  return C;
}

/// Lane l of a warp, NoAccess past the span (a warp of fewer lanes).
Address laneAt(std::span<const Address> Lanes, std::size_t L) {
  return L < Lanes.size() ? Lanes[L] : NoAccess;
}

/// The 16 units of a wide load whose lanes pair up: when every pair
/// (l, l ^ Mask) names at most one address (equal, or one lane idle), the
/// pair is one unit, unit 2q + i of quad q holding its i-th pair (Mask 1:
/// lanes 4q + 2i and the next; Mask 2: lanes 4q + i and 4q + i + 2). False
/// when some pair names two addresses.
bool pairUnits(std::span<const Address> Lanes, std::size_t Mask, std::array<Address, 16> &Units) {
  for (std::size_t Q = 0; Q < 8; ++Q)
    for (std::size_t I = 0; I < 2; ++I) {
      const std::size_t A = 4 * Q + (Mask == 1 ? 2 * I : I), B = A ^ Mask;
      const Address X = laneAt(Lanes, A), Y = laneAt(Lanes, B);
      if (X != NoAccess && Y != NoAccess && X != Y)
        return false;
      Units[2 * Q + I] = X != NoAccess ? X : Y;
    }
  return true;
}

/// Adds the parts of Lanes, PartLanes consecutive lanes each, into C.
void addParts(std::span<const Address> Lanes, std::size_t PartLanes, std::int64_t Bytes, Sm90SharedCost &C) {
  for (std::size_t First = 0; First < Lanes.size(); First += PartLanes) {
    const Sm90SharedCost P = sharedPart(Lanes.subspan(First, std::min(PartLanes, Lanes.size() - First)), Bytes);
    C.Wavefronts += P.Wavefronts;
    C.MaxWordsPerBank = std::max(C.MaxWordsPerBank, P.MaxWordsPerBank);
  }
}

} // namespace

Sm90SharedCost sm90Shared(std::span<const Address> ByteAddrs, std::int64_t Bytes, SharedOp Op) {
  checkAligned(ByteAddrs, Bytes);
  if (Bytes <= 4)
    return sharedPart(ByteAddrs, Bytes);
  if (ByteAddrs.size() > 32) {
    // Lanes past 32 (a machine wider than a warp): one warp of 32 at a time.
    Sm90SharedCost C;
    for (std::size_t First = 0; First < ByteAddrs.size(); First += 32) {
      const Sm90SharedCost P =
          sm90Shared(ByteAddrs.subspan(First, std::min<std::size_t>(32, ByteAddrs.size() - First)), Bytes, Op);
      C.Wavefronts += P.Wavefronts;
      C.MaxWordsPerBank = std::max(C.MaxWordsPerBank, P.MaxWordsPerBank);
      C.BytesMoved += P.BytesMoved;
    }
    return C;
  }
  // 8- and 16-byte accesses: served half a warp (8 B) or a quarter warp
  // (16 B) at a time, each part by the rule, the parts added; a load whose
  // lanes pair up (l with l ^ 1 throughout, or l with l ^ 2) is served as
  // its 16 units, in one part (8 B) or two of 8 units (16 B).
  // bench/results/h100/shared-rules.md: 740 of 740 measured patterns.
  Sm90SharedCost C;
  for (Address A : ByteAddrs)
    C.BytesMoved += A == NoAccess ? 0 : Bytes;
  const std::size_t PartLanes = Bytes == 8 ? 16 : 8;
  std::array<Address, 16> Units;
  if (Op == SharedOp::Load && (pairUnits(ByteAddrs, 1, Units) || pairUnits(ByteAddrs, 2, Units)))
    addParts(Units, PartLanes, Bytes, C); // 16 units: one part (8 B) or two (16 B)
  else
    addParts(ByteAddrs, PartLanes, Bytes, C);
  return C;
}

Sm90GlobalCost sm90Global(std::span<const Address> ByteAddrs,
                          std::int64_t Bytes) {
  checkAligned(ByteAddrs, Bytes);
  constexpr std::int64_t SectorBytes = 32, LineBytes = 128;
  Sm90GlobalCost C;
  // Aligned accesses of at most 16 bytes lie in one sector and one line.
  std::vector<Address> &Units = scratch();
  for (Address A : ByteAddrs)
    if (A != NoAccess) {
      C.BytesMoved += Bytes;
      Units.push_back(A / SectorBytes);
    }
  C.Sectors = countDistinct(Units);
  for (Address &U : Units)
    U /= LineBytes / SectorBytes;
  C.Lines = countDistinct(Units);
  return C;
}

WarpAccessCosts warpAccessCosts(std::span<const Address> Lanes, std::int64_t W,
                                std::int64_t ElemBytes, bool Shared, SharedOp Op) {
  WarpAccessCosts C;
  const bool Sm90 = isSm90AccessSize(ElemBytes);
  if (anyNegative(Lanes)) {
    // The definitions, which report what is wrong with such an address.
    C.Congestion = dmmCongestion(Lanes, W);
    C.Groups = ummGroups(Lanes, W);
    if (Sm90) {
      std::vector<Address> ByteAddrs(Lanes.size());
      for (std::size_t I = 0; I < Lanes.size(); ++I)
        ByteAddrs[I] = Lanes[I] == NoAccess ? NoAccess : Lanes[I] * ElemBytes;
      if (Shared) {
        C.Wavefronts = sm90Shared(ByteAddrs, ElemBytes, Op).Wavefronts;
      } else {
        const Sm90GlobalCost G = sm90Global(ByteAddrs, ElemBytes);
        C.Sectors = G.Sectors;
        C.Lines = G.Lines;
      }
    }
    return C;
  }
  thread_local std::vector<Address> Active, Units;
  Active.clear();
  for (Address A : Lanes)
    if (A != NoAccess)
      Active.push_back(A);
  if (Active.empty())
    return C;
  // Groups first: lanes in distinct groups are at distinct addresses, so
  // the congestion is then the most lanes in one bank, no set needed (a
  // scatter over a large array, one counting pass instead of two).
  const Divisor Group(W);
  Units.clear();
  for (Address A : Active)
    Units.push_back(Group.div(A));
  C.Groups = countDistinct(Units);
  if (W <= 64 && C.Groups == static_cast<std::int64_t>(Active.size())) {
    std::int64_t PerBank[64] = {};
    for (Address A : Active)
      C.Congestion = std::max(C.Congestion, ++PerBank[Group.mod(A)]);
  } else {
    Units.assign(Active.begin(), Active.end());
    C.Congestion = maxDistinctPerBank(Units, W);
  }
  if (!Sm90)
    return C;
  const std::int64_t Moved = ElemBytes * static_cast<std::int64_t>(Active.size());
  if (Shared && ElemBytes >= 8) {
    // Half or quarter warps, and loads whose lanes pair up (sm90Shared).
    thread_local std::vector<Address> ByteAddrs;
    ByteAddrs.resize(Lanes.size());
    for (std::size_t I = 0; I < Lanes.size(); ++I)
      ByteAddrs[I] = Lanes[I] == NoAccess ? NoAccess : Lanes[I] * ElemBytes;
    C.Wavefronts = sm90Shared(ByteAddrs, ElemBytes, Op).Wavefronts;
    return C;
  }
  if (Shared) {
    // 4-byte elements on 32 banks: words are the addresses, so the worst
    // bank's distinct words are the DMM congestion.
    std::int64_t MaxWords = 0;
    if (ElemBytes == 4 && W == 32) {
      MaxWords = C.Congestion;
    } else {
      Units.clear();
      for (Address A : Active)
        for (Address Word = A * ElemBytes / 4; Word <= (A * ElemBytes + ElemBytes - 1) / 4; ++Word)
          Units.push_back(Word);
      MaxWords = maxDistinctPerBank(Units, 32);
    }
    C.Wavefronts = std::max(MaxWords, (Moved + 127) / 128);
    return C;
  }
  // An aligned access of at most 16 bytes lies in one sector and one line.
  // Lines are the UMM's groups when w elements fill 128 bytes; lanes in
  // distinct lines are in distinct sectors.
  if (ElemBytes * W == 128) {
    C.Lines = C.Groups;
  } else {
    Units.clear();
    for (Address A : Active)
      Units.push_back((A * ElemBytes) >> 7);
    C.Lines = countDistinct(Units);
  }
  if (C.Lines == static_cast<std::int64_t>(Active.size())) {
    C.Sectors = C.Lines;
  } else {
    Units.clear();
    for (Address A : Active)
      Units.push_back((A * ElemBytes) >> 5);
    C.Sectors = countDistinct(Units);
  }
  return C;
}

WarpAccessCosts sharedWordWarpCosts(std::span<const std::uint16_t, 32> Lanes, std::int64_t ElemBytes, SharedOp Op) {
  // Group g = index / 32 was seen in this call when Stamp[g] == Gen: a new
  // generation per call empties the table (a 2048-bit map set and tested
  // lane by lane waits on its own stores, twice as slow).
  thread_local std::uint8_t Stamp[(1 << 16) / 32] = {};
  thread_local std::uint8_t Gen = 0;
  if (++Gen == 0) {
    std::fill(std::begin(Stamp), std::end(Stamp), std::uint8_t(0));
    Gen = 1;
  }
  std::uint32_t Banks = 0, Halves[2] = {0, 0};
  std::int64_t Groups = 0;
  for (std::size_t L = 0; L < 32; ++L) {
    const std::uint16_t V = Lanes[L];
    Banks |= std::uint32_t(1) << (V & 31);
    Halves[L / 16] |= std::uint32_t(1) << (V & 15);
    Groups += Stamp[V >> 5] != Gen;
    Stamp[V >> 5] = Gen;
  }
  const bool HalfWarps = ElemBytes == 8;
  if (Banks != ~std::uint32_t(0) || (HalfWarps && (Halves[0] != 0xFFFF || Halves[1] != 0xFFFF))) {
    Address A[32];
    std::copy(Lanes.begin(), Lanes.end(), A);
    return warpAccessCosts(A, 32, ElemBytes, true, Op);
  }
  // One lane per bank: each bank sees one address (congestion 1). 4-byte
  // elements: the 128 bytes moved are one wavefront. 8-byte elements:
  // element e holds words 2e and 2e + 1, in banks 2(e mod 16) and the next,
  // so indices distinct mod 32 put exactly two words in every bank, the 2
  // wavefronts that 256 bytes need.
  WarpAccessCosts C;
  C.Congestion = 1;
  C.Groups = Groups;
  C.Wavefronts = ElemBytes / 4;
  return C;
}

namespace {

/// E[max over banks of the items present], each item of a bank present
/// independently with its probability: per bank the Poisson-binomial
/// distribution of its count, then sum_k (1 - prod_b P(count_b < k)).
double expectedMostPresent(const std::map<Address, std::vector<double>> &Present) {
  std::vector<std::vector<double>> Dist;
  std::size_t Most = 0;
  for (const auto &[Bank, Ps] : Present) {
    std::vector<double> D{1.0};
    for (double P : Ps) {
      std::vector<double> Next(D.size() + 1, 0.0);
      for (std::size_t K = 0; K < D.size(); ++K) {
        Next[K] += D[K] * (1 - P);
        Next[K + 1] += D[K] * P;
      }
      D.swap(Next);
    }
    Most = std::max(Most, D.size() - 1);
    Dist.push_back(std::move(D));
  }
  double Expected = 0;
  for (std::size_t K = 1; K <= Most; ++K) {
    double AllBelow = 1; // P(max < K)
    for (const std::vector<double> &D : Dist) {
      double Below = 0;
      for (std::size_t J = 0; J < K && J < D.size(); ++J)
        Below += D[J];
      AllBelow *= Below;
    }
    Expected += 1 - AllBelow;
  }
  return Expected;
}

} // namespace

double expectedHalfLaneCongestion(std::span<const Address> Lanes, std::int64_t W) {
  // Distinct addresses and how many lanes name each, by bank.
  std::map<Address, int> Mult;
  for (Address A : Lanes)
    if (A != NoAccess)
      ++Mult[A];
  if (Mult.empty() || W <= 0)
    return 0;
  std::map<Address, std::vector<double>> Present; // bank -> presence probabilities
  for (const auto &[A, M] : Mult)
    Present[((A % W) + W) % W].push_back(1.0 - std::ldexp(1.0, -M));
  return expectedMostPresent(Present);
}

double expectedHalfLaneAtomicCongestion(std::span<const Address> Lanes, std::int64_t W) {
  if (W <= 0)
    return 0;
  std::map<Address, std::vector<double>> Present; // bank -> one 1/2 per lane
  for (Address A : Lanes)
    if (A != NoAccess)
      Present[((A % W) + W) % W].push_back(0.5);
  return expectedMostPresent(Present);
}

} // namespace bankwise
