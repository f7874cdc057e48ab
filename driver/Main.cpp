// bankwise: memory-access analysis and code generation for GPUs.

#include "driver/Commands.h"
#include "support/Diagnostic.h"
#include "support/Parallel.h"
#include "support/TempFiles.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>

#ifndef BANKWISE_VERSION
#define BANKWISE_VERSION "0.0.0"
#endif

namespace bankwise::driver {
namespace {
std::optional<unsigned> &threadsOption() {
  static std::optional<unsigned> N;
  return N;
}
} // namespace

void addThreadsOption(CLI::App &Cmd, const std::string &Names) {
  Cmd.add_option_function<unsigned>(
         Names, [](const unsigned &N) { threadsOption() = N; },
         "threads to use (0: every core, the default; also $BANKWISE_THREADS); results do not depend on it")
      ->check(CLI::Range(0u, MaxThreads));
}

void applyThreadsSetting() {
  if (threadsOption()) {
    runThreads() = *threadsOption();
    return;
  }
  const char *Env = std::getenv("BANKWISE_THREADS");
  if (!Env || !*Env)
    return;
  const std::string_view Text(Env);
  unsigned long N = 0;
  const bool Digits = Text.size() <= 5 && Text.find_first_not_of("0123456789") == std::string_view::npos;
  if (Digits)
    N = std::strtoul(Env, nullptr, 10);
  if (!Digits || N > MaxThreads)
    throw UserError(fmt::format("BANKWISE_THREADS '{}': expected a number of threads from 0 (every core) to {}",
                                Text, MaxThreads));
  runThreads() = static_cast<unsigned>(N);
}
} // namespace bankwise::driver

int main(int Argc, char **Argv) {
  using namespace bankwise;
  CLI::App App{"bankwise: GPU memory access made fast by construction "
               "(memory-machine models, analysis, code generation)",
               "bankwise"};
  App.set_version_flag("--version", std::string("bankwise ") + BANKWISE_VERSION);
  App.require_subcommand(1);
  installTempFileCleanup();
  driver::Action Run;
  driver::registerModelCommand(App, Run);
  driver::registerAnalyzeCommand(App, Run);
  driver::registerExperimentCommand(App, Run);
  driver::registerPermStatsCommand(App, Run);
  driver::registerCompileCommand(App, Run);
#ifdef BANKWISE_HAVE_LINT
  driver::registerLintCommand(App, Run);
  // `bankwise lint a.cu -- -DFOO=1`: what follows -- goes to Clang.
  for (int I = 1; I < Argc; ++I)
    if (std::string_view(Argv[I]) == "--") {
      for (int J = I + 1; J < Argc; ++J)
        driver::passthroughArgs().push_back(Argv[J]);
      Argc = I;
      break;
    }
#endif

  try {
    App.parse(Argc, Argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    App.exit(E); // prints the message
    return 2;
  }
  try {
    driver::applyThreadsSetting();
    return Run ? Run() : 2;
  } catch (const UserError &E) {
    printDiagnostic(std::cerr, E.diagnostic());
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "bankwise: error: out of memory\n";
    return 2;
  }
}
