#include "codegen/Tables.h"

#include "support/Diagnostic.h"

#include <fmt/format.h>

namespace bankwise::codegen {

int narrowestWidth(std::uint64_t Bound) {
  if (Bound <= (std::uint64_t(1) << 8))
    return 1;
  if (Bound <= (std::uint64_t(1) << 16))
    return 2;
  if (Bound <= (std::uint64_t(1) << 32))
    return 4;
  return 8;
}

std::string unsignedTypeName(int Bytes) {
  return fmt::format("std::uint{}_t", Bytes * 8);
}

std::uint64_t fnv1a(const unsigned char *Data, std::size_t N) {
  std::uint64_t H = 0xcbf29ce484222325ULL;
  for (std::size_t I = 0; I < N; ++I)
    H = (H ^ Data[I]) * 0x100000001b3ULL;
  return H;
}

std::vector<unsigned char> TablePlan::bytes() const {
  std::vector<unsigned char> Out;
  if (!Raw16.empty()) {
    Out.reserve(Raw16.size() * 2);
    for (std::uint16_t V : Raw16) {
      Out.push_back(static_cast<unsigned char>(V));
      Out.push_back(static_cast<unsigned char>(V >> 8));
    }
    return Out;
  }
  if (!Values)
    return Out;
  Out.reserve(Values->size() * static_cast<std::size_t>(Width));
  for (std::uint32_t V : Values->map())
    for (int B = 0; B < Width; ++B)
      Out.push_back(B < 4 ? static_cast<unsigned char>(V >> (8 * B)) : 0);
  return Out;
}

std::vector<unsigned char> sideFileBytes(const std::vector<TablePlan> &Tables) {
  std::vector<unsigned char> Out = {'B', 'W', 'T', 'A', 'B', 'L', 'E', '1'};
  for (const TablePlan &T : Tables)
    if (!T.InSource && T.stored()) {
      const auto B = T.bytes();
      Out.insert(Out.end(), B.begin(), B.end());
    }
  return Out;
}

} // namespace bankwise::codegen
