#pragma once
// Errors. Every user-facing error names the argument and the rule it broke, e.g.
// "K = 100 is not a multiple of 16 (the NVFP4 block size)".
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace fp4gemm {

// Base of every exception fp4gemm throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller passed something the rules do not allow (shape, alignment, option, file content).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A file could not be read or written, or its contents are malformed.
class IoError : public Error {
 public:
  using Error::Error;
};

// Throws InvalidArgument with a formatted message unless `condition` holds.
template <typename... Args>
void require(bool condition, fmt::format_string<Args...> message, Args&&... args) {
  if (!condition) throw InvalidArgument(fmt::format(message, std::forward<Args>(args)...));
}

}  // namespace fp4gemm
