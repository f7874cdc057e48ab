#include "driver/CompilationDatabase.h"

#include "support/Diagnostic.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace bankwise::driver {

std::vector<std::string> projectFiles(const std::string &BuildDir) {
  namespace fs = std::filesystem;
  const fs::path Db = fs::path(BuildDir) / "compile_commands.json";
  std::ifstream In(Db);
  if (!In)
    throw UserError(fmt::format("-p {}: no compile_commands.json there (configure the project with "
                                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)",
                                BuildDir));
  nlohmann::json J;
  try {
    J = nlohmann::json::parse(In);
  } catch (const nlohmann::json::exception &E) {
    throw UserError(fmt::format("{}: not a compilation database: {}", Db.string(), E.what()));
  }
  if (!J.is_array())
    throw UserError(fmt::format("{}: not a compilation database: expected an array of entries", Db.string()));
  std::vector<std::string> Out;
  for (const nlohmann::json &E : J) {
    if (!E.is_object() || !E.contains("file") || !E["file"].is_string())
      throw UserError(fmt::format("{}: an entry without a \"file\" string", Db.string()));
    fs::path F = E["file"].get<std::string>();
    if (F.is_relative() && E.contains("directory") && E["directory"].is_string())
      F = fs::path(E["directory"].get<std::string>()) / F;
    if (F.extension() == ".cu")
      Out.push_back(fs::absolute(F).lexically_normal().string());
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  if (Out.empty())
    throw UserError(fmt::format("{}: no .cu file among its entries", Db.string()));
  return Out;
}

} // namespace bankwise::driver
