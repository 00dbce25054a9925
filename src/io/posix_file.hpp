#pragma once
// A POSIX file descriptor that closes itself, and errno as text, for src/io's file access.
#include <unistd.h>

#include <string>
#include <system_error>

namespace fp4gemm::io {

// The system's description of an errno value ("No such file or directory").
inline std::string errno_text(int error) { return std::generic_category().message(error); }

class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  // Destruction closes without looking at the result: only paths that already failed get here
  // with the descriptor open. Paths that need to know close() explicitly.
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  // Closes now; 0, or the errno of a failed close (which can report a lost write, e.g. on NFS).
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

}  // namespace fp4gemm::io
