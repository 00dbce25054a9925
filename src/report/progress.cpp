#include "report/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace fp4gemm {

ProgressLine::ProgressLine(std::size_t total, std::FILE* stream)
    : ProgressLine(total, stream, stream != nullptr && isatty(fileno(stream)) == 1) {}

ProgressLine::ProgressLine(std::size_t total, std::FILE* stream, bool enabled)
    : total_(total), stream_(stream), enabled_(enabled && stream != nullptr) {}

ProgressLine::~ProgressLine() { finish(); }

std::string ProgressLine::format_line(std::size_t done, std::size_t total, const BenchRow& row) {
  const GemmProblem& p = row.bench_case.problem;
  const std::size_t width = std::to_string(total).size();
  return fmt::format("[{:>{}}/{}] {} {}x{}x{} {}", done, width, total, row.backend, p.shape.m,
                     p.shape.n, p.shape.k, to_string(p.mode));
}

void ProgressLine::row_done(const BenchRow& row) {
  ++done_;
  if (!enabled_) return;
  const std::string line = format_line(done_, total_, row);
  // Pad with spaces over a longer previous line, then return to the line's start.
  const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  std::fprintf(stream_, "\r%s%*s", line.c_str(), int(pad), "");
  std::fflush(stream_);
  last_width_ = line.size();
}

void ProgressLine::finish() {
  if (!enabled_ || last_width_ == 0) return;
  std::fprintf(stream_, "\r%*s\r", int(last_width_), "");
  std::fflush(stream_);
  last_width_ = 0;
}

}  // namespace fp4gemm
