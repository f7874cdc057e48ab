// bankwise model: per-warp costs and the simulated time of a trace.
//
//   bankwise model --machine dmm --w 4 --l 3 --warp 0,1,10,6 --warp 8,9,14,15
//   bankwise model --machine sm_90 --elem f64 --warp 0,1,2,... [--store]
//   bankwise model --machine hmm --d 2 --w 4 --L 5 --trace samples/x.trace

#include "analysis/models/MemoryModel.h"
#include "analysis/models/Simulator.h"
#include "analysis/models/TraceFile.h"
#include "driver/Commands.h"
#include "driver/Output.h"
#include "support/Diagnostic.h"

#include <charconv>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bankwise::driver {

namespace {

struct ModelOptions {
  std::string MachineKind = "dmm";
  std::int64_t W = 32, L = 1, D = 1, GlobalL = 0;
  std::vector<std::string> Warps;
  std::string TracePath;
  std::string Elem = "f32";
  bool Store = false;
  bool Barrier = false;
  bool Json = false;
};

/// Bytes of a scalar or vector element type name (f32, f64, f32x4, u8, ...).
std::int64_t elementBytes(const std::string &Name) {
  static const std::map<std::string, std::int64_t> Scalars = {
      {"i8", 1},  {"u8", 1},  {"i16", 2}, {"u16", 2}, {"f16", 2},
      {"bf16", 2}, {"i32", 4}, {"u32", 4}, {"f32", 4}, {"i64", 8},
      {"u64", 8}, {"f64", 8}};
  const std::size_t X = Name.find('x');
  const std::string Base = Name.substr(0, X);
  const auto It = Scalars.find(Base);
  std::int64_t Lanes = 1;
  if (X != std::string::npos) {
    const std::string Count = Name.substr(X + 1);
    const auto [Ptr, EC] =
        std::from_chars(Count.data(), Count.data() + Count.size(), Lanes);
    if (EC != std::errc() || Ptr != Count.data() + Count.size())
      Lanes = 0;
  }
  if (It == Scalars.end() || !(Lanes == 1 || Lanes == 2 || Lanes == 4))
    throw UserError(fmt::format("unknown element type '{}' (expected i8, u8, "
                                "i16, u16, f16, bf16, i32, u32, f32, i64, "
                                "u64, f64, or a vector such as f32x4)",
                                Name));
  return It->second * Lanes;
}

/// "0,1,_,6" -> {0, 1, NoAccess, 6}.
std::vector<Address> parseWarp(const std::string &Text, std::size_t WarpIndex) {
  std::vector<Address> Lanes;
  std::size_t Pos = 0;
  while (Pos <= Text.size()) {
    std::size_t End = Text.find(',', Pos);
    if (End == std::string::npos)
      End = Text.size();
    std::string Tok = Text.substr(Pos, End - Pos);
    Tok.erase(0, Tok.find_first_not_of(" \t"));
    Tok.erase(Tok.find_last_not_of(" \t") + 1);
    Pos = End + 1;
    if (Tok == "_" || Tok == "-" || Tok == "x") {
      Lanes.push_back(NoAccess);
      continue;
    }
    Address A = 0;
    const auto [Ptr, EC] = std::from_chars(Tok.data(), Tok.data() + Tok.size(), A);
    if (EC != std::errc() || Ptr != Tok.data() + Tok.size() || A < 0)
      throw UserError(fmt::format(
          "--warp #{}: lane {}: expected a non-negative address or '_', got "
          "'{}'",
          WarpIndex, Lanes.size(), Tok));
    Lanes.push_back(A);
  }
  return Lanes;
}

Machine makeMachine(const ModelOptions &O) {
  Machine M;
  if (O.MachineKind == "dmm")
    M = Dmm{O.W, O.L};
  else if (O.MachineKind == "umm")
    M = Umm{O.W, O.L};
  else
    M = Hmm{O.D, O.W, O.GlobalL > 0 ? O.GlobalL : O.L};
  validateMachine(M);
  return M;
}

Trace traceFromWarps(const ModelOptions &O, std::int64_t W) {
  Trace T;
  T.Threads = static_cast<std::int64_t>(O.Warps.size()) * W;
  Round R;
  R.Where = Space::Global; // on the HMM, --warp accesses are global
  R.Addr.assign(static_cast<std::size_t>(T.Threads), NoAccess);
  for (std::size_t I = 0; I < O.Warps.size(); ++I) {
    std::vector<Address> Lanes = parseWarp(O.Warps[I], I);
    if (static_cast<std::int64_t>(Lanes.size()) > W)
      throw UserError(fmt::format("--warp #{} has {} lanes, but w is {}", I,
                                  Lanes.size(), W));
    std::copy(Lanes.begin(), Lanes.end(),
              R.Addr.begin() + static_cast<std::ptrdiff_t>(I) * W);
  }
  T.Rounds.push_back(std::move(R));
  return T;
}

const char *costName(const Machine &M, Space S) {
  if (std::holds_alternative<Dmm>(M))
    return "congestion";
  if (std::holds_alternative<Umm>(M))
    return "groups";
  return S == Space::Shared ? "congestion" : "groups";
}

std::int64_t warpCost(const Machine &M, Space S, std::span<const Address> L) {
  const std::int64_t W = machineWidth(M);
  if (std::holds_alternative<Dmm>(M) ||
      (std::holds_alternative<Hmm>(M) && S == Space::Shared))
    return dmmCongestion(L, W);
  return ummGroups(L, W);
}

int runMemoryMachine(const ModelOptions &O) {
  const Machine M = makeMachine(O);
  const std::int64_t W = machineWidth(M);
  if (O.Warps.empty() == O.TracePath.empty())
    throw UserError("give the accesses with --warp (one per warp) or --trace "
                    "FILE, not both");
  Trace T = O.TracePath.empty() ? traceFromWarps(O, W) : loadTraceFile(O.TracePath, W);
  SimOptions SO;
  SO.Barrier = O.Barrier;
  const SimResult Res = simulate(M, T, SO);

  nlohmann::json J;
  J["machine"] = machineName(M);
  J["threads"] = T.Threads;
  J["barrier"] = O.Barrier;
  std::string Text = fmt::format("machine: {}\nthreads: {} ({} warps of {})\n",
                                 machineName(M), T.Threads,
                                 (T.Threads + W - 1) / W, W);
  for (std::size_t R = 0; R < T.Rounds.size(); ++R) {
    const Round &Rd = T.Rounds[R];
    const RoundStats &St = Res.Rounds[R];
    nlohmann::json JR;
    JR["space"] = Rd.Where == Space::Shared ? "shared" : "global";
    Text += fmt::format("round {}{}:\n", R,
                        std::holds_alternative<Hmm>(M)
                            ? (Rd.Where == Space::Shared ? " (shared)" : " (global)")
                            : "");
    for (std::int64_t First = 0, Warp = 0; First < T.Threads; First += W, ++Warp) {
      std::span<const Address> Lanes(Rd.Addr.data() + First,
                                     static_cast<std::size_t>(std::min(W, T.Threads - First)));
      const std::int64_t Cost = warpCost(M, Rd.Where, Lanes);
      if (Cost == 0)
        continue;
      std::vector<std::string> Shown;
      nlohmann::json JL = nlohmann::json::array();
      for (Address A : Lanes) {
        Shown.push_back(A == NoAccess ? "_" : std::to_string(A));
        JL.push_back(A == NoAccess ? nlohmann::json(nullptr) : nlohmann::json(A));
      }
      Text += fmt::format("  W({}): {} {}  [{}]\n", Warp, costName(M, Rd.Where),
                          Cost, fmt::join(Shown, " "));
      JR["warps"].push_back({{"warp", Warp}, {costName(M, Rd.Where), Cost}, {"lanes", JL}});
    }
    Text += fmt::format("  stages {}, units {}..{}\n", St.Stages, St.Start, St.End);
    JR["stages"] = St.Stages;
    JR["start"] = St.Start;
    JR["end"] = St.End;
    J["rounds"].push_back(JR);
  }
  Text += fmt::format("time: {} time units\n", Res.Time);
  J["time"] = Res.Time;
  return emitReport(O.Json, J, Text);
}

int runSm90(const ModelOptions &O) {
  if (!O.TracePath.empty() || O.Warps.empty())
    throw UserError("--machine sm_90 takes the accesses with --warp (element "
                    "indices, one --warp per warp)");
  const std::int64_t Bytes = elementBytes(O.Elem);
  if (!isSm90AccessSize(Bytes))
    throw UserError(fmt::format("sm_90 has no {}-byte access ('{}')", Bytes, O.Elem));
  nlohmann::json J;
  J["machine"] = "sm_90";
  J["elem"] = O.Elem;
  J["elem_bytes"] = Bytes;
  J["op"] = O.Store ? "store" : "load";
  std::string Text = fmt::format("machine: sm_90 (32 banks x 4 B; 32 B sectors, "
                                 "128 B lines), element {} ({} B), {}\n",
                                 O.Elem, Bytes, O.Store ? "stores" : "loads");
  std::int64_t TotalWave = 0, TotalSect = 0;
  for (std::size_t I = 0; I < O.Warps.size(); ++I) {
    std::vector<Address> Lanes = parseWarp(O.Warps[I], I);
    if (Lanes.size() > 32)
      throw UserError(fmt::format("--warp #{} has {} lanes; a warp has 32", I,
                                  Lanes.size()));
    for (Address &A : Lanes)
      if (A != NoAccess) {
        if (A > std::numeric_limits<Address>::max() / Bytes)
          throw UserError(fmt::format("--warp #{}: element index {} overflows "
                                      "a 64-bit byte address",
                                      I, A));
        A *= Bytes;
      }
    const Sm90SharedCost S = sm90Shared(Lanes, Bytes, O.Store ? SharedOp::Store : SharedOp::Load);
    const Sm90GlobalCost G = sm90Global(Lanes, Bytes);
    TotalWave += S.Wavefronts;
    TotalSect += G.Sectors;
    Text += fmt::format("  warp {}: shared {} wavefront{} (worst bank {} "
                        "word{}), global {} sector{} in {} line{}\n",
                        I, S.Wavefronts, S.Wavefronts == 1 ? "" : "s",
                        S.MaxWordsPerBank, S.MaxWordsPerBank == 1 ? "" : "s",
                        G.Sectors, G.Sectors == 1 ? "" : "s", G.Lines,
                        G.Lines == 1 ? "" : "s");
    J["warps"].push_back({{"warp", I},
                          {"shared_wavefronts", S.Wavefronts},
                          {"max_words_per_bank", S.MaxWordsPerBank},
                          {"global_sectors", G.Sectors},
                          {"global_lines", G.Lines},
                          {"bytes", S.BytesMoved}});
  }
  const double N = static_cast<double>(O.Warps.size());
  Text += fmt::format("mean: {:.4g} wavefronts per shared instruction, {:.4g} "
                      "sectors per global request\n",
                      TotalWave / N, TotalSect / N);
  J["mean_shared_wavefronts"] = TotalWave / N;
  J["mean_global_sectors"] = TotalSect / N;
  return emitReport(O.Json, J, Text);
}

} // namespace

void registerModelCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<ModelOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "model", "Cost of warp accesses and simulated time under a machine model");
  Cmd->add_option("--machine", O->MachineKind, "dmm, umm, hmm or sm_90")
      ->check(CLI::IsMember({"dmm", "umm", "hmm", "sm_90"}))
      ->capture_default_str();
  Cmd->add_option("--w", O->W, "width: banks (DMM) or words per address group (UMM)")
      ->capture_default_str();
  Cmd->add_option("--l", O->L, "memory latency in time units (DMM, UMM)")
      ->capture_default_str();
  Cmd->add_option("--d", O->D, "HMM: number of DMMs (streaming multiprocessors)")
      ->capture_default_str();
  Cmd->add_option("--L", O->GlobalL, "HMM: global-memory latency (default: --l)");
  Cmd->add_option("--warp", O->Warps,
                  "one warp's lane addresses, comma-separated, '_' for an "
                  "inactive lane; repeat for W(0), W(1), ...");
  Cmd->add_option("--trace", O->TracePath, "trace file of rounds (see docs/cli.md)")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--elem", O->Elem, "sm_90: element type (f32, f64, f32x4, u8, ...)")
      ->capture_default_str();
  Cmd->add_flag("--store", O->Store,
                "sm_90: price the accesses as shared stores (8- and 16-byte loads "
                "whose lanes pair up merge; stores do not)");
  Cmd->add_flag("--barrier", O->Barrier,
                "start each round after the previous completed (the papers' "
                "synchronous rounds)");
  Cmd->add_flag("--json", O->Json, "print JSON instead of text");
  Cmd->callback([O, &Run] {
    Run = [O] {
      return O->MachineKind == "sm_90" ? runSm90(*O) : runMemoryMachine(*O);
    };
  });
}

} // namespace bankwise::driver
