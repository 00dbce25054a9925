// read_file_bytes: a whole file into memory, with errors naming the argument and path.
#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "io/posix_file.hpp"
#include "io/source_name.hpp"

namespace fp4gemm {

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path,
                                          std::string_view argument) {
  const auto fail = [&](std::string_view what, int error) {
    return IoError(fmt::format("cannot read {}: {}: {}", io::source_name(argument, path), what,
                               io::errno_text(error)));
  };
  io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.is_open()) throw fail("open", errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw fail("stat", errno);
  if (S_ISDIR(info.st_mode)) throw fail("open", EISDIR);

  std::vector<std::uint8_t> bytes;
  if (S_ISREG(info.st_mode)) bytes.reserve(std::size_t(info.st_size));
  // Read to end of file rather than trusting st_size: the file may change, or be a pipe.
  std::array<std::uint8_t, 1 << 16> chunk;
  for (;;) {
    const ssize_t got = ::read(fd.get(), chunk.data(), chunk.size());
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw fail("read", errno);
    }
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + got);
  }
  return bytes;
}

}  // namespace fp4gemm
