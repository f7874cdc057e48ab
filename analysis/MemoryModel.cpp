#include "analysis/MemoryModel.h"
#include "analysis/detail/Stages.h"

#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
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

std::int64_t dmmCongestion(std::span<const Address> Lanes, std::int64_t W) {
  std::vector<detail::LaneKey> Scratch;
  return detail::assignStages(Lanes, W, detail::StageRule::Bank, {}, Scratch);
}

std::int64_t ummGroups(std::span<const Address> Lanes, std::int64_t W) {
  std::vector<detail::LaneKey> Scratch;
  return detail::assignStages(Lanes, W, detail::StageRule::Group, {}, Scratch);
}

bool isSm90AccessSize(std::int64_t Bytes) {
  return Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16;
}

Sm90SharedCost sm90Shared(std::span<const Address> ByteAddrs,
                          std::int64_t Bytes) {
  checkAligned(ByteAddrs, Bytes);
  constexpr std::int64_t WordBytes = 4, Banks = 32, WavefrontBytes = 128;
  Sm90SharedCost C;
  std::vector<Address> Words;
  for (Address A : ByteAddrs) {
    if (A == NoAccess)
      continue;
    C.BytesMoved += Bytes;
    for (Address Word = A / WordBytes; Word <= (A + Bytes - 1) / WordBytes;
         ++Word)
      Words.push_back(Word);
  }
  if (Words.empty())
    return C;
  sortUnique(Words);
  std::int64_t PerBank[Banks] = {};
  for (Address Word : Words)
    C.MaxWordsPerBank = std::max(C.MaxWordsPerBank, ++PerBank[Word % Banks]);
  C.Wavefronts = std::max(C.MaxWordsPerBank,
                          (C.BytesMoved + WavefrontBytes - 1) / WavefrontBytes);
  return C;
}

Sm90GlobalCost sm90Global(std::span<const Address> ByteAddrs,
                          std::int64_t Bytes) {
  checkAligned(ByteAddrs, Bytes);
  constexpr std::int64_t SectorBytes = 32, LineBytes = 128;
  Sm90GlobalCost C;
  std::vector<Address> Sectors, Lines;
  for (Address A : ByteAddrs) {
    if (A == NoAccess)
      continue;
    C.BytesMoved += Bytes;
    for (Address S = A / SectorBytes; S <= (A + Bytes - 1) / SectorBytes; ++S)
      Sectors.push_back(S);
    for (Address L = A / LineBytes; L <= (A + Bytes - 1) / LineBytes; ++L)
      Lines.push_back(L);
  }
  sortUnique(Sectors);
  sortUnique(Lines);
  C.Sectors = static_cast<std::int64_t>(Sectors.size());
  C.Lines = static_cast<std::int64_t>(Lines.size());
  return C;
}

} // namespace bankwise
