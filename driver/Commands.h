// The bankwise subcommands. Each registers itself on the CLI11 app and runs
// as a short script of library passes; user errors are thrown as UserError
// and turned into exit code 2 by main.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace bankwise::driver {

/// The action main runs after a successful parse.
using Action = std::function<int()>;

/// `bankwise model`: warp costs and simulated time under a machine model.
void registerModelCommand(CLI::App &App, Action &Run);
/// `bankwise analyze`: per-site costs of a .bw program's kernels.
void registerAnalyzeCommand(CLI::App &App, Action &Run);
/// `bankwise experiment rap-table`: seed 002's congestion tables.
void registerExperimentCommand(CLI::App &App, Action &Run);
/// `bankwise perm-stats`: D_w(P) and D_w(P^-1) of a permutation.
void registerPermStatsCommand(CLI::App &App, Action &Run);
/// `bankwise compile`: CUDA C++ from a .bw program.
void registerCompileCommand(CLI::App &App, Action &Run);
/// `bankwise lint`: bank conflicts and uncoalesced accesses in CUDA files
/// (built with the Clang frontend only).
void registerLintCommand(CLI::App &App, Action &Run);
/// The arguments after `--` on the command line (lint passes them to Clang).
std::vector<std::string> &passthroughArgs();
/// `--threads N` on Cmd (Names may add a short name: "-j,--threads"): the
/// threads the whole run may use, 0 for every core. It wins over the
/// environment's BANKWISE_THREADS.
void addThreadsOption(CLI::App &Cmd, const std::string &Names = "--threads");
/// Sets the run's thread count (support/Parallel.h) from --threads, else
/// from BANKWISE_THREADS; throws UserError for a malformed variable.
void applyThreadsSetting();

} // namespace bankwise::driver
