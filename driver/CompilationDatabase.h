// `bankwise lint -p BUILD_DIR`: the CUDA files of a project's compilation
// database.
#pragma once

#include <string>
#include <vector>

namespace bankwise::driver {

/// The .cu files of BuildDir's compile_commands.json, each once, absolute
/// (an entry's file is relative to its directory), in sorted order. Throws
/// UserError when there is none, it is not a compilation database, or it
/// lists no .cu file.
std::vector<std::string> projectFiles(const std::string &BuildDir);

} // namespace bankwise::driver
