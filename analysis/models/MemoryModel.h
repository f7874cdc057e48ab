// The memory-machine models of Nakano et al. and the sm_90 (Hopper) model.
//
//   DMM(w, l): address a lives in bank a mod w; a warp access costs its
//              congestion, the largest number of distinct addresses that one
//              bank receives (equal addresses merge).       [seed 000 Sec. 2]
//   UMM(w, l): address a lives in group floor(a / w); a warp access costs the
//              number of distinct groups it touches.         [seed 000 Sec. 2]
//   HMM(d, w, L): d DMMs of latency 1 (shared memory) beside one UMM of
//              latency L (global memory).                    [seed 001 Sec. II]
//   sm_90:     shared memory of 32 banks of 4-byte words; wavefronts = max over
//              banks of distinct words, never fewer than bytes / 128, per
//              half warp (8 B) or quarter warp (16 B) (sm90Shared). Global
//              memory in 32-byte sectors and 128-byte lines. [HARDWARE.md]
//
// A warp access is a span of lane addresses; NoAccess marks an inactive lane,
// which takes no part.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>

namespace bankwise {

using Address = std::int64_t;
inline constexpr Address NoAccess = -1;

/// Discrete Memory Machine: W banks, latency L (time units per request).
struct Dmm {
  std::int64_t W = 32;
  std::int64_t L = 1;
  bool operator==(const Dmm &) const = default;
};

/// Unified Memory Machine: address groups of W words, latency L.
struct Umm {
  std::int64_t W = 32;
  std::int64_t L = 1;
  bool operator==(const Umm &) const = default;
};

/// Hierarchical Memory Machine: D DMMs (latency 1) and one UMM (latency L),
/// all of width W.
struct Hmm {
  std::int64_t D = 1;
  std::int64_t W = 32;
  std::int64_t L = 1;
  bool operator==(const Hmm &) const = default;
};

/// A machine the timing simulator runs.
using Machine = std::variant<Dmm, Umm, Hmm>;

/// Checks the parameters (W >= 1, L >= 1, D >= 1); throws UserError naming
/// the bad one.
void validateMachine(const Machine &M);

/// Printable form, e.g. "dmm(w: 32, l: 1)", "hmm(d: 132, w: 32, L: 400)".
std::string machineName(const Machine &M);

/// Warp width of M.
std::int64_t machineWidth(const Machine &M);

/// DMM congestion: max over banks (a mod W) of distinct addresses in it.
/// congestion({0,1,10,6}, 4) == 2 (banks 0,1,2,2).
std::int64_t dmmCongestion(std::span<const Address> Lanes, std::int64_t W);

/// UMM cost: number of distinct address groups floor(a / W).
/// ummGroups({0,1,10,6}, 4) == 3 (groups 0,0,2,1).
std::int64_t ummGroups(std::span<const Address> Lanes, std::int64_t W);

/// Element sizes sm_90 loads and stores: 1, 2, 4, 8 or 16 bytes.
bool isSm90AccessSize(std::int64_t Bytes);

/// Whether a shared access reads or writes: sm_90 merges the lanes of wide
/// loads that pair up, never those of stores.
enum class SharedOp { Load, Store };

/// sm_90 shared-memory cost of one warp instruction. Lanes are byte addresses
/// of accesses of Bytes each (aligned to Bytes), indexed by lane.
///
/// The rule, measured on an H100 for every lane pattern class of 1- to
/// 16-byte loads and stores (bench/results/h100/shared-rules.md, 740 of 740
/// patterns; bench/gpu-shared-rules.sh):
/// - a part of the warp served together costs max over the 32 banks of the
///   distinct 4-byte words the part touches in that bank (identical words
///   merge), and never fewer than its bytes moved / 128;
/// - 1-, 2- and 4-byte accesses: the whole warp is one part;
/// - 8-byte accesses: half warps (lanes 0-15, 16-31), added; 16-byte
///   accesses: quarter warps of 8 lanes, added. s4[4 * (l % 8) + l / 8] on
///   f32x4: 4 wavefronts per quarter, 16 (the whole-warp rule says 4);
/// - 8- and 16-byte loads whose lanes pair up, every pair (l, l ^ 1) or
///   every pair (l, l ^ 2) naming one address (or holding an idle lane),
///   are served as the 16 pairs: one part (8 B) or two parts of 8 pairs
///   (16 B). A broadcast f32x4 load: 2; the f64 load a[l / 2]: 1. Stores
///   never pair up (a broadcast f32x4 store: 4).
struct Sm90SharedCost {
  std::int64_t Wavefronts = 0;      ///< the parts' costs, added
  std::int64_t MaxWordsPerBank = 0; ///< distinct 4-byte words in the worst bank of any part
  std::int64_t BytesMoved = 0;      ///< active lanes * access size
};
Sm90SharedCost sm90Shared(std::span<const Address> ByteAddrs, std::int64_t Bytes, SharedOp Op);

/// sm_90 global-memory cost of one warp request: distinct 32-byte sectors and
/// 128-byte lines (the UMM with w = 32 words counts lines).
struct Sm90GlobalCost {
  std::int64_t Sectors = 0;
  std::int64_t Lines = 0;
  std::int64_t BytesMoved = 0;
};
Sm90GlobalCost sm90Global(std::span<const Address> ByteAddrs,
                          std::int64_t Bytes);

/// Every model's cost of one warp access at element addresses Lanes
/// (NoAccess for idle lanes) of ElemBytes-byte elements: DMM congestion and
/// UMM groups of width W, and, when ElemBytes is an sm_90 access size, the
/// sm_90 wavefronts (Shared) or sectors and lines (global). The same figures
/// as the functions above, computed together from one pass over the lanes;
/// the analysis calls this once per warp access. Op matters only for 8-
/// and 16-byte shared accesses (sm90Shared).
struct WarpAccessCosts {
  std::int64_t Congestion = 0, Groups = 0;
  std::int64_t Wavefronts = 0;      ///< shared only
  std::int64_t Sectors = 0, Lines = 0; ///< global only
  std::int64_t Serialization = 0;   ///< atomics only: atomicSerialization
};
WarpAccessCosts warpAccessCosts(std::span<const Address> Lanes, std::int64_t W,
                                std::int64_t ElemBytes, bool Shared, SharedOp Op);

/// warpAccessCosts(Lanes, 32, ElemBytes, true, Op) for a whole warp of 32
/// lanes reading or writing 4- or 8-byte shared elements at 16-bit indices
/// (seed 001's s and d planes, evaluated once per warp of a 2^26 schedule):
/// when the 32 indices are distinct mod 32 (and, for 8 bytes, each half's
/// 16 distinct mod 16), congestion is 1, wavefronts are ElemBytes / 4 and
/// the UMM groups are the distinct Lanes[i] / 32, counted in a table of
/// 2048 stamps; any other warp goes through warpAccessCosts.
WarpAccessCosts sharedWordWarpCosts(std::span<const std::uint16_t, 32> Lanes, std::int64_t ElemBytes, SharedOp Op);

/// Same-address serialization of an atomic warp access: the most active
/// lanes that name one address (their read-modify-writes of it run one
/// after another); 1 when the addresses all differ, 0 with no lane active.
/// atomicSerialization({3, 3, NoAccess, 5, 3}) == 3.
std::int64_t atomicSerialization(std::span<const Address> Lanes);

/// DMM congestion of an atomic warp access: the most active lanes whose
/// addresses fall in one bank (a mod W), repeats counted, since atomic
/// updates of one address do not merge as reads of it do.
/// dmmAtomicCongestion({0, 0, 4, 1}, 4) == 3 (dmmCongestion says 2).
std::int64_t dmmAtomicCongestion(std::span<const Address> Lanes, std::int64_t W);

/// The expected DMM congestion (banks of width W) of the warp access Lanes
/// when each active lane takes part independently with probability 1/2, as
/// under a branch whose condition reads data the analysis does not know.
/// Exact: bank b's distinct addresses present form a Poisson-binomial D_b
/// (an address that m lanes name is present with probability 1 - 2^-m),
/// and E[max_b D_b] = sum_k (1 - prod_b P(D_b < k)). E.g. four lanes on one
/// bank at distinct addresses: 4 * 1/2 = 2; four lanes on one address:
/// 1 - 1/16 = 0.9375; 32 lanes in 32 banks: 1 - 2^-32.
double expectedHalfLaneCongestion(std::span<const Address> Lanes, std::int64_t W);

/// The same for an atomic warp access, whose congestion counts the lanes
/// in a bank with repeats (dmmAtomicCongestion): each lane an item present
/// with probability 1/2. Four lanes on one address: 1 - 1/16 = 0.9375 for
/// expectedHalfLaneCongestion, 4 * 1/2 = 2 here.
double expectedHalfLaneAtomicCongestion(std::span<const Address> Lanes, std::int64_t W);

} // namespace bankwise
