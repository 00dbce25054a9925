#pragma once
// A one-line progress display on stderr for long bench sweeps: "[ 12/96] cuda-decode
// 16x6144x6144 w4a16", rewritten in place with '\r' and cleared by finish() (or the destructor).
// It draws only when the stream is a terminal (isatty), so logs and pipes stay clean.
#include <cstddef>
#include <cstdio>
#include <string>

#include "bench/bench_runner.hpp"

namespace fp4gemm {

class ProgressLine {
 public:
  // `total`: the number of rows the sweep will produce (cases x backends). `enabled` defaults to
  // isatty(fileno(stream)).
  explicit ProgressLine(std::size_t total, std::FILE* stream = stderr);
  ProgressLine(std::size_t total, std::FILE* stream, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Call once per finished row (e.g. from run_bench's on_row callback): shows the row just done.
  void row_done(const BenchRow& row);
  // Clears the line; idempotent.
  void finish();
  bool enabled() const { return enabled_; }
  std::size_t done() const { return done_; }

  // "[ 12/96] cuda-decode 16x6144x6144 w4a16" (the count padded to the width of `total`).
  static std::string format_line(std::size_t done, std::size_t total, const BenchRow& row);

 private:
  std::size_t total_;
  std::size_t done_ = 0;
  std::FILE* stream_;
  bool enabled_;
  std::size_t last_width_ = 0;
};

}  // namespace fp4gemm
