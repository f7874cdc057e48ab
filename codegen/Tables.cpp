#include "codegen/Tables.h"

#include "support/Diagnostic.h"
#include "templates/bankwise/tables.cuh"

#include <fmt/format.h>
#include <sstream>

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

std::vector<unsigned char> TablePlan::bytes() const {
  std::vector<unsigned char> Out;
  forEachChunk([&](const unsigned char *Data, std::size_t N) { Out.insert(Out.end(), Data, Data + N); });
  return Out;
}

std::uint64_t TablePlan::hash() const {
  TableHash H; // the reader's check (templates/bankwise/tables.cuh)
  forEachChunk([&](const unsigned char *Data, std::size_t N) { H.update(Data, N); });
  return H.finish();
}

std::uint64_t SideFile::size() const {
  std::uint64_t Bytes = sizeof(SideFileMagic);
  for (const TablePlan &T : Tables)
    Bytes += T.Size * static_cast<std::uint64_t>(T.Width);
  return Bytes;
}

bool SideFile::write(std::ostream &Out) const {
  forEachChunk([&](const unsigned char *Data, std::size_t N) {
    Out.write(reinterpret_cast<const char *>(Data), static_cast<std::streamsize>(N));
  });
  return static_cast<bool>(Out);
}

std::vector<unsigned char> SideFile::bytes() const {
  std::ostringstream Out;
  write(Out);
  const std::string Text = std::move(Out).str();
  return {Text.begin(), Text.end()};
}

} // namespace bankwise::codegen
