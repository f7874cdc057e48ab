#include "analysis/models/TraceFile.h"

#include "support/Diagnostic.h"

#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <vector>

namespace bankwise {

namespace {

struct PendingRound {
  Space Where = Space::Shared;
  std::vector<std::vector<Address>> Warps;
};

bool isSpace(char C) { return C == ' ' || C == '\t' || C == ',' || C == '\r'; }

} // namespace

Trace parseTrace(std::string_view Text, const std::string &File,
                 std::int64_t W) {
  if (W < 1)
    throw UserError(fmt::format("trace width w must be at least 1, got {}", W));
  std::vector<PendingRound> Rounds;
  int LineNo = 0;
  std::size_t Pos = 0;
  while (Pos <= Text.size()) {
    const std::size_t End = std::min(Text.find('\n', Pos), Text.size());
    std::string_view Line = Text.substr(Pos, End - Pos);
    const std::string FullLine(Line);
    Pos = End + 1;
    ++LineNo;
    auto fail = [&](std::size_t Col, const std::string &Msg) {
      throw UserError(Diagnostic{Severity::Error,
                                 {File, LineNo, static_cast<int>(Col) + 1},
                                 Msg, FullLine});
    };
    if (const std::size_t Hash = Line.find('#'); Hash != std::string_view::npos)
      Line = Line.substr(0, Hash);
    // Split into tokens with their columns.
    std::vector<std::pair<std::size_t, std::string_view>> Tokens;
    for (std::size_t I = 0; I < Line.size();) {
      if (isSpace(Line[I])) {
        ++I;
        continue;
      }
      std::size_t J = I;
      while (J < Line.size() && !isSpace(Line[J]))
        ++J;
      Tokens.push_back({I, Line.substr(I, J - I)});
      I = J;
    }
    if (Tokens.empty())
      continue;
    if (Tokens[0].second == "round") {
      PendingRound R;
      if (Tokens.size() > 2)
        fail(Tokens[2].first, "unexpected text after the round's space");
      if (Tokens.size() == 2) {
        if (Tokens[1].second == "shared")
          R.Where = Space::Shared;
        else if (Tokens[1].second == "global")
          R.Where = Space::Global;
        else
          fail(Tokens[1].first,
               fmt::format("unknown space '{}' (expected 'shared' or "
                           "'global')",
                           Tokens[1].second));
      }
      Rounds.push_back(std::move(R));
      continue;
    }
    if (Rounds.empty())
      Rounds.emplace_back(); // an implicit first round
    if (static_cast<std::int64_t>(Tokens.size()) > W)
      fail(Tokens[static_cast<std::size_t>(W)].first,
           fmt::format("warp has {} lanes, but the machine's width is {}",
                       Tokens.size(), W));
    std::vector<Address> Lanes;
    for (const auto &[Col, Tok] : Tokens) {
      if (Tok == "-" || Tok == "_") {
        Lanes.push_back(NoAccess);
        continue;
      }
      Address A = 0;
      const auto [Ptr, EC] = std::from_chars(Tok.data(), Tok.data() + Tok.size(), A);
      if (EC == std::errc::result_out_of_range)
        fail(Col, fmt::format("address '{}' does not fit in 64 bits", Tok));
      if (EC != std::errc() || Ptr != Tok.data() + Tok.size())
        fail(Col, fmt::format("expected an address or '-', got '{}'", Tok));
      if (A < 0)
        fail(Col, fmt::format("address {} is negative", A));
      Lanes.push_back(A);
    }
    Rounds.back().Warps.push_back(std::move(Lanes));
  }
  if (Rounds.empty())
    throw UserError(SourceLoc{File, 0, 0}, "trace has no warp accesses");

  std::size_t MaxWarps = 0;
  for (const PendingRound &R : Rounds)
    MaxWarps = std::max(MaxWarps, R.Warps.size());
  if (MaxWarps == 0)
    throw UserError(SourceLoc{File, 0, 0}, "trace has no warp accesses");
  Trace T;
  T.Threads = static_cast<std::int64_t>(MaxWarps) * W;
  for (const PendingRound &R : Rounds) {
    Round Out;
    Out.Where = R.Where;
    Out.Addr.assign(static_cast<std::size_t>(T.Threads), NoAccess);
    for (std::size_t Wp = 0; Wp < R.Warps.size(); ++Wp)
      for (std::size_t L = 0; L < R.Warps[Wp].size(); ++L)
        Out.Addr[Wp * static_cast<std::size_t>(W) + L] = R.Warps[Wp][L];
    T.Rounds.push_back(std::move(Out));
  }
  return T;
}

Trace loadTraceFile(const std::string &Path, std::int64_t W) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw UserError(SourceLoc{Path, 0, 0}, "cannot open trace file");
  std::ostringstream SS;
  SS << In.rdbuf();
  return parseTrace(SS.str(), Path, W);
}

} // namespace bankwise
