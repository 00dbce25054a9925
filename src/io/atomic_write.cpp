// write_file_atomically: temporary file in the target's directory -> write -> fsync -> rename.
//
// The temporary file is created beside the target (rename is atomic only within one file
// system) as ".<name>.<pid>.<n>.tmp", with O_EXCL so that two writers never share one, and mode
// 0666 less the umask, as a plain create would give the target. A TemporaryFile removes it
// unless the rename succeeded, so every failure path (an exception included) cleans up.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "io/posix_file.hpp"
#include "io/source_name.hpp"

namespace fp4gemm {
namespace {

namespace fs = std::filesystem;

// The directory that holds `path` ("." for a bare file name).
fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

class TemporaryFile {
 public:
  TemporaryFile(const fs::path& target, std::string_view argument)
      : target_(target), argument_(argument), fd_(create_exclusive()) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!renamed_) ::unlink(path_.c_str());  // fd_ closes itself after
  }

  void write(std::span<const std::uint8_t> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t wrote = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
      if (wrote < 0) {
        if (errno == EINTR) continue;
        throw failure("writing the temporary file", path_, errno);
      }
      done += std::size_t(wrote);
    }
  }

  // fsync, close, rename over the target, then fsync the directory so the rename is durable.
  void commit() {
    if (::fsync(fd_.get()) != 0) throw failure("syncing the temporary file", path_, errno);
    if (const int error = fd_.close(); error != 0)
      throw failure("closing the temporary file", path_, error);
    if (std::rename(path_.c_str(), target_.c_str()) != 0)
      throw failure("renaming the temporary file over the target", path_, errno);
    renamed_ = true;
    const fs::path directory = directory_of(target_);
    io::UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open() || ::fsync(fd.get()) != 0)
      throw failure("syncing the directory", directory, errno);
  }

 private:
  // Opens a new temporary file, setting path_. O_EXCL fails on a leftover of a crashed process
  // that had the same pid: then the next number is tried.
  int create_exclusive() {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = directory_of(target_) /
              fmt::format(".{}.{}.{}.tmp", target_.filename().string(), ::getpid(), counter++);
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) return fd;
      if (errno != EEXIST) break;
    }
    throw failure("creating the temporary file", path_, errno);
  }

  // "cannot write --output 'x.npy': <step> '<subject>' failed: <reason>"
  IoError failure(std::string_view step, const fs::path& subject, int error) const {
    return IoError(fmt::format("cannot write {}: {} '{}' failed: {}",
                               io::source_name(argument_, target_), step, subject.string(),
                               io::errno_text(error)));
  }

  // Declaration order matters: create_exclusive() (initializing fd_) uses the members above it.
  fs::path target_;
  std::string_view argument_;
  fs::path path_;
  io::UniqueFd fd_;
  bool renamed_ = false;
};

}  // namespace

void require_output_writable(const std::filesystem::path& path, bool overwrite, std::string_view argument) {
  std::error_code ignored;  // a status that cannot be read is left to the create to report
  if (!overwrite && fs::exists(fs::symlink_status(path, ignored)))
    throw InvalidArgument(fmt::format("{} already exists; pass --force to replace it",
                                      io::source_name(argument, path)));
  const fs::path directory = directory_of(path);
  const fs::file_status status = fs::status(directory, ignored);
  const auto refuse = [&](const std::string& why) {
    return IoError(fmt::format("cannot write {}: its directory '{}' {}", io::source_name(argument, path),
                               directory.string(), why));
  };
  if (!fs::exists(status)) throw refuse("does not exist");
  if (!fs::is_directory(status)) throw refuse("is not a directory");
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    throw refuse(fmt::format("is not writable: {}", io::errno_text(errno)));
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                           bool overwrite, std::string_view argument) {
  require_output_writable(path, overwrite, argument);
  TemporaryFile temporary(path, argument);
  temporary.write(bytes);
  temporary.commit();
}

}  // namespace fp4gemm
