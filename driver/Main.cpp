// bankwise: memory-access analysis and code generation for GPUs.

#include "driver/Commands.h"
#include "support/Diagnostic.h"
#include "support/TempFiles.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string_view>

#ifndef BANKWISE_VERSION
#define BANKWISE_VERSION "0.0.0"
#endif

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
    return Run ? Run() : 2;
  } catch (const UserError &E) {
    printDiagnostic(std::cerr, E.diagnostic());
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "bankwise: error: out of memory\n";
    return 2;
  }
}
