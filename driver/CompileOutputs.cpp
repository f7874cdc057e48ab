#include "driver/CompileOutputs.h"

#include "support/Diagnostic.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <unistd.h>

namespace bankwise::driver {

namespace {

/// Writes Side's bytes to Tmp (created or truncated), through O_DIRECT where
/// the file system takes it: the bytes go to the disk from one reused 8 MiB
/// buffer instead of being copied into as much fresh page cache first. At
/// n = 2^26 the side file is 1.9 GB, and that copy (with the first touch of
/// 1.9 GB of pages) took 3.5-5.8 s of the compile on the development VM.
/// Elsewhere an ordinary stream. Throws UserError naming Path on failure,
/// with Tmp removed.
void writeSideFileBytes(const std::string &Tmp, const std::string &Path, const codegen::SideFile &Side) {
  auto Fail = [&] {
    std::error_code Ignored;
    std::filesystem::remove(Tmp, Ignored);
    throw UserError(fmt::format("cannot write '{}'", Path));
  };
#ifdef O_DIRECT
  constexpr std::size_t Align = 4096, BufBytes = std::size_t(8) << 20;
  const int Fd = ::open(Tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0666);
  if (Fd < 0 && errno != EINVAL) // EINVAL: no O_DIRECT on this file system
    Fail();
  if (Fd >= 0) {
    std::unique_ptr<unsigned char, decltype(&std::free)> Buf(
        static_cast<unsigned char *>(std::aligned_alloc(Align, BufBytes)), &std::free);
    bool Ok = Buf != nullptr;
    // Whole buffers, and whole blocks of the last one, go out directly; a
    // write O_DIRECT refuses (alignment) and the tail shorter than a block
    // go through the page cache.
    auto Buffered = [&] { Ok = Ok && ::fcntl(Fd, F_SETFL, ::fcntl(Fd, F_GETFL) & ~O_DIRECT) == 0; };
    auto WriteAll = [&](const unsigned char *Data, std::size_t N) {
      while (Ok && N > 0) {
        const ssize_t Done = ::write(Fd, Data, N);
        if (Done < 0 && errno == EINTR)
          continue;
        if (Done < 0 && errno == EINVAL && (::fcntl(Fd, F_GETFL) & O_DIRECT)) {
          Buffered();
          continue;
        }
        if (Done <= 0) {
          Ok = false;
          break;
        }
        Data += Done;
        N -= static_cast<std::size_t>(Done);
      }
    };
    std::size_t Used = 0;
    if (Ok)
      Side.forEachChunk([&](const unsigned char *Data, std::size_t N) {
        while (N > 0 && Ok) {
          const std::size_t Take = std::min(N, BufBytes - Used);
          std::memcpy(Buf.get() + Used, Data, Take);
          Used += Take;
          Data += Take;
          N -= Take;
          if (Used == BufBytes) {
            WriteAll(Buf.get(), Used);
            Used = 0;
          }
        }
      });
    const std::size_t Whole = Used / Align * Align;
    WriteAll(Buf.get(), Whole);
    if (Used > Whole)
      Buffered();
    WriteAll(Buf.get() + Whole, Used - Whole);
    if (::close(Fd) != 0 || !Ok)
      Fail();
    return;
  }
#endif
  std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
  if (!Out || !Side.write(Out) || !Out.flush()) {
    Out.close();
    Fail();
  }
}

} // namespace

SideFileWriter::SideFileWriter(std::string Path) : Path(std::move(Path)), Tmp(this->Path + ".tmp"), Guard(Tmp) {}

SideFileWriter::~SideFileWriter() {
  wait();
  if (Started && !Committed) {
    std::error_code Ignored;
    std::filesystem::remove(Tmp, Ignored);
  }
}

void SideFileWriter::start(const codegen::SideFile &S) {
  if (Started) // a later plan is compared, and written if it differs, by commit
    return;
  Side = S;
  Started = true;
  Thread = std::thread([this] {
    try {
      writeSideFileBytes(Tmp, Path, Side);
    } catch (...) {
      Error = std::current_exception();
    }
  });
}

void SideFileWriter::commit(const codegen::SideFile &Final) {
  wait();
  if (Error)
    std::rethrow_exception(Error);
  const bool Same = Started && Final.Tables.size() == Side.Tables.size() &&
                    std::equal(Final.Tables.begin(), Final.Tables.end(), Side.Tables.begin(),
                               [](const codegen::TablePlan &A, const codegen::TablePlan &B) {
                                 return A.Offset == B.Offset && A.Size == B.Size && A.Width == B.Width &&
                                        A.Hash == B.Hash;
                               });
  if (!Same) {
    Started = true;
    writeSideFileBytes(Tmp, Path, Final);
  }
  std::error_code EC;
  std::filesystem::rename(Tmp, Path, EC);
  if (EC)
    throw UserError(fmt::format("cannot write '{}': {}", Path, EC.message()));
  Committed = true;
}

void SideFileWriter::wait() {
  if (Thread.joinable())
    Thread.join();
}

/// Writes every (path, text) of Files through a temporary file each, and
/// renames them into place only once all are written and BeforeRename (when
/// given: the side file's commit) has returned: a failure or a signal
/// leaves none of them half-written, none without the others, and no
/// temporary file.
void writeTogether(const std::vector<std::pair<std::string, std::string>> &Files,
                   const std::function<void()> &BeforeRename) {
  std::vector<std::unique_ptr<TempFileGuard>> Guards;
  std::vector<std::string> Written;
  auto RemoveAll = [&] {
    std::error_code Ignored;
    for (const std::string &T : Written)
      std::filesystem::remove(T, Ignored);
  };
  for (const auto &[Path, Text] : Files) {
    const std::string Tmp = Path + ".tmp";
    Guards.push_back(std::make_unique<TempFileGuard>(Tmp));
    Written.push_back(Tmp);
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    Out.write(Text.data(), static_cast<std::streamsize>(Text.size()));
    Out.flush();
    if (!Out) {
      Out.close();
      RemoveAll();
      throw UserError(fmt::format("cannot write '{}'", Path));
    }
  }
  if (BeforeRename) {
    try {
      BeforeRename();
    } catch (...) {
      RemoveAll();
      throw;
    }
  }
  for (std::size_t I = 0; I < Files.size(); ++I) {
    std::error_code EC;
    std::filesystem::rename(Written[I], Files[I].first, EC);
    if (EC) {
      RemoveAll();
      throw UserError(fmt::format("cannot write '{}': {}", Files[I].first, EC.message()));
    }
  }
}

} // namespace bankwise::driver
