// How compile writes its outputs: every file through a temporary file
// renamed into place once all are written (writeTogether), and the side
// file of large tables on a thread of its own while the kernels are
// analyzed (SideFileWriter), so a failed or interrupted run never leaves a
// half-written output, nor one output without the others.
#pragma once

#include "codegen/Tables.h"
#include "support/TempFiles.h"

#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace bankwise::driver {

/// Side's bytes written to PATH.tmp on a thread of its own from the moment
/// the tables are planned (codegen::planSideFile, before the pipeline's
/// analyze pass, so the write overlaps the analysis of the kernels),
/// renamed to PATH once every other output is written. A writer not
/// committed removes its temporary file.
class SideFileWriter {
public:
  explicit SideFileWriter(std::string Path);
  SideFileWriter(const SideFileWriter &) = delete;
  SideFileWriter &operator=(const SideFileWriter &) = delete;
  ~SideFileWriter();
  /// Starts writing Side (once).
  void start(const codegen::SideFile &S);
  /// Renames the finished file into place, writing it first if Final is not
  /// what was started (a table planned after the analyses).
  void commit(const codegen::SideFile &Final);

private:
  void wait();
  std::string Path, Tmp;
  TempFileGuard Guard;
  codegen::SideFile Side;
  std::thread Thread;
  std::exception_ptr Error;
  bool Started = false, Committed = false;
};

/// Writes every (path, text) of Files through a temporary file each, and
/// renames them into place only once all are written and BeforeRename (when
/// given: the side file's commit) has returned: a failure or a signal
/// leaves none of them half-written, none without the others, and no
/// temporary file.
void writeTogether(const std::vector<std::pair<std::string, std::string>> &Files,
                   const std::function<void()> &BeforeRename = {});

} // namespace bankwise::driver
