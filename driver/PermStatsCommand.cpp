// bankwise perm-stats: the distribution D_w(P) of a permutation (seed 001,
// Sec. IV): how many address groups the destination-designated algorithm
// writes (D_w(P)) and the source-designated algorithm reads (D_w(P^-1)).
//
//   bankwise perm-stats --perm bitrev --n 1048576 [--w 32] [--json]

#include "analysis/models/Permutation.h"
#include "driver/Commands.h"
#include "driver/Output.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace bankwise::driver {

namespace {

struct PermStatsOptions {
  PermutationSpec Spec;
  std::string File;
  int IndexBytes = 4;
  std::uint64_t W = 32;
  bool Json = false;
};

int runPermStats(const PermStatsOptions &O) {
  if (O.W == 0)
    throw UserError("--w must be at least 1");
  Permutation P;
  std::string Name = O.Spec.Name;
  if (O.Spec.Name == "file") {
    if (O.File.empty())
      throw UserError("--perm file needs --file PATH");
    P = loadPermutationFile(O.File, O.IndexBytes);
    if (O.Spec.N != 0 && O.Spec.N != P.size())
      throw UserError(SourceLoc{O.File, 0, 0},
                      fmt::format("file holds {} entries, but --n is {}",
                                  P.size(), O.Spec.N));
    Name = "file " + O.File;
  } else {
    if (O.Spec.N == 0 && !(O.Spec.Name == "transpose" && O.Spec.Rows != 0))
      throw UserError(fmt::format("--perm {} needs --n", O.Spec.Name));
    P = makePermutation(O.Spec);
  }
  const Permutation Inv = inverse(P);
  const std::uint64_t N = P.size();
  const std::uint64_t Dw = distribution(P, O.W);
  const std::uint64_t DwInv = distribution(Inv, O.W);
  const std::uint64_t Ideal = (N + O.W - 1) / O.W;
  nlohmann::json J = {{"permutation", Name}, {"n", N},          {"w", O.W},
                      {"D_w(P)", Dw},        {"D_w(P^-1)", DwInv}, {"n/w", Ideal}};
  if (O.Spec.Name == "random")
    J["seed"] = O.Spec.Seed;
  const std::string Text = fmt::format(
      "permutation: {}{}\nn: {}, w: {}\n"
      "D_w(P)    = {}  ({:.4g} x n/w): groups written by b[P(i)] = a[i]\n"
      "D_w(P^-1) = {}  ({:.4g} x n/w): groups read by b[i] = a[P^-1(i)]\n",
      Name, O.Spec.Name == "random" ? fmt::format(" (seed {})", O.Spec.Seed) : "",
      N, O.W, Dw, static_cast<double>(Dw) / static_cast<double>(Ideal), DwInv,
      static_cast<double>(DwInv) / static_cast<double>(Ideal));
  return emitReport(O.Json, J, Text);
}

} // namespace

void registerPermStatsCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<PermStatsOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "perm-stats", "Distribution D_w(P) and D_w(P^-1) of a permutation");
  Cmd->add_option("--perm", O->Spec.Name,
                  "identity, shuffle, bitrev, transpose, stride, random or file")
      ->required()
      ->check(CLI::IsMember({"identity", "shuffle", "bitrev", "bitreverse",
                             "transpose", "stride", "random", "file"}));
  Cmd->add_option("--n", O->Spec.N, "number of elements");
  Cmd->add_option("--w", O->W, "warp width / address-group size")->capture_default_str();
  Cmd->add_option("--rows", O->Spec.Rows, "transpose: rows");
  Cmd->add_option("--cols", O->Spec.Cols, "transpose: columns");
  Cmd->add_option("--stride", O->Spec.Stride, "stride: the stride s (divides n)");
  Cmd->add_option("--seed", O->Spec.Seed, "random: seed")->capture_default_str();
  Cmd->add_option("--file", O->File,
                  "file: little-endian unsigned indices, P(0) first");
  Cmd->add_option("--index-bytes", O->IndexBytes, "file: 4 or 8 bytes per index")
      ->check(CLI::IsMember({4, 8}))
      ->capture_default_str();
  Cmd->add_flag("--json", O->Json, "print JSON instead of text");
  Cmd->callback([O, &Run] { Run = [O] { return runPermStats(*O); }; });
}

} // namespace bankwise::driver
