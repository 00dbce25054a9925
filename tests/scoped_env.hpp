#pragma once
// ScopedEnv(name, value): sets the environment variable `name` to `value` (nullptr: unsets it)
// for the object's lifetime, then restores what was there (or unsets it).
#include <cstdlib>
#include <optional>
#include <string>

namespace fp4gemm::test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace fp4gemm::test
