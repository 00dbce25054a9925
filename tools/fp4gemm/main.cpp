#include <CLI/CLI.hpp>
#include "fp4gemm/backend.hpp"
int main(int argc, char** argv) {
  CLI::App app{"fp4gemm"};
  CLI11_PARSE(app, argc, argv);
  return 0;
}
