// bankwise experiment rap-table: seed 002's Table II (w x w matrix) and, with
// --dims 4, Table IV (w^4 array) by Monte Carlo over random layouts.
//
//   bankwise experiment rap-table [--w 16,32,64,128,256] [--trials 1000]
//                                 [--seed 1] [--dims 2|4] [--json]

#include "analysis/models/RapExperiment.h"
#include "driver/Commands.h"
#include "driver/Output.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace bankwise::driver {

namespace {

struct ExperimentOptions {
  RapTableOptions Rap;
  bool Json = false;
};

int runRapTableCommand(const ExperimentOptions &O) {
  const std::vector<RapTableCell> Cells = runRapTable(O.Rap);
  nlohmann::json J;
  J["experiment"] = O.Rap.Dims == 2 ? "seed 002 Table II" : "seed 002 Table IV";
  J["trials"] = O.Rap.Trials;
  J["seed"] = O.Rap.Seed;
  // Text: one table per layout, patterns down, widths across.
  std::vector<std::string> Layouts, Patterns;
  std::map<std::pair<std::string, std::string>, std::map<std::int64_t, const RapTableCell *>> Grid;
  for (const RapTableCell &C : Cells) {
    if (std::find(Layouts.begin(), Layouts.end(), C.Layout) == Layouts.end())
      Layouts.push_back(C.Layout);
    if (std::find(Patterns.begin(), Patterns.end(), C.Pattern) == Patterns.end())
      Patterns.push_back(C.Pattern);
    Grid[{C.Layout, C.Pattern}][C.W] = &C;
    nlohmann::json JC = {{"w", C.W},         {"layout", C.Layout}, {"pattern", C.Pattern},
                         {"congestion", C.Mean}, {"stderr", C.StdErr}};
    if (!C.Detail.empty())
      JC["found"] = C.Detail;
    J["cells"].push_back(JC);
  }
  std::string Text = fmt::format("expected congestion of one warp access ({}; {} random "
                                 "layouts per cell, seed {})\n",
                                 J["experiment"].get<std::string>(), O.Rap.Trials, O.Rap.Seed);
  for (const std::string &L : Layouts) {
    Text += fmt::format("\n{:<12}", L);
    for (std::int64_t W : O.Rap.Widths)
      Text += fmt::format("{:>9}", fmt::format("w={}", W));
    Text += '\n';
    for (const std::string &P : Patterns) {
      Text += fmt::format("  {:<10}", P);
      std::string Found;
      for (std::int64_t W : O.Rap.Widths) {
        const auto &Row = Grid[{L, P}];
        auto It = Row.find(W);
        Text += It == Row.end() ? fmt::format("{:>9}", "-") : fmt::format("{:>9.2f}", It->second->Mean);
        if (It != Row.end() && !It->second->Detail.empty())
          Found = It->second->Detail;
      }
      if (!Found.empty())
        Text += "   (" + Found + ")";
      Text += '\n';
    }
  }
  return emitReport(O.Json, J, Text);
}

} // namespace

void registerExperimentCommand(CLI::App &App, Action &Run) {
  auto O = std::make_shared<ExperimentOptions>();
  CLI::App *Cmd = App.add_subcommand("experiment", "Reproduce the seed papers' experiments");
  Cmd->require_subcommand(1);
  CLI::App *Rap = Cmd->add_subcommand(
      "rap-table", "Expected congestion under RAW, RAS and RAP (seed 002 Tables II and IV)");
  Rap->add_option("--w", O->Rap.Widths, "warp widths, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  Rap->add_option("--trials", O->Rap.Trials, "random layouts per cell")->capture_default_str();
  Rap->add_option("--seed", O->Rap.Seed, "seed of the random layouts")->capture_default_str();
  Rap->add_option("--dims", O->Rap.Dims, "2: a w x w matrix (Table II); 4: a w^4 array (Table IV)")
      ->capture_default_str();
  Rap->add_flag("--json", O->Json, "print JSON instead of text");
  Rap->callback([O, &Run] { Run = [O] { return runRapTableCommand(*O); }; });
}

} // namespace bankwise::driver
