#pragma once
// Runs the built fp4gemm binary (popen) and returns its exit status and output.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace fp4gemm::test {

struct CliResult {
  int status;
  std::string output;  // stdout and stderr
};

inline CliResult run_cli(const std::string& arguments) {
  const std::string command = std::string(FP4GEMM_CLI_PATH) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace fp4gemm::test
