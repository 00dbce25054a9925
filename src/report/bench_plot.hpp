#pragma once
// `fp4gemm bench --plot FILE.svg`: two charts of a bench run in one hand-written SVG file.
//   (a) roofline: arithmetic intensity (FLOP/byte) vs TFLOPS, log-log, with the DRAM bandwidth
//       roof and the BF16/FP8/FP4 compute roofs of the ceilings (those that are non-zero), one
//       labelled point per result that ran, colored per backend; without a known ceiling the
//       points alone and a note saying so;
//   (b) time (us) vs M, log-log, one line per (backend, N, K, format, mode).
// Rows that did not run are left out (a note counts them); with no row that ran each chart says
// so instead of drawing empty axes.
#include <string>
#include <vector>

#include "report/bench_report.hpp"

namespace fp4gemm {

std::string bench_plot_svg(const std::vector<BenchRow>& rows, const BenchContext& context);

// Writes bench_plot_svg() atomically (write_text_atomically); an existing `path` is replaced
// only when `force` (InvalidArgument "--plot '<path>' already exists; pass --force ..." else).
void write_bench_plot(const std::string& path, const std::vector<BenchRow>& rows,
                      const BenchContext& context, bool force);

// Text escaped for XML character data and attribute values (& < > " ').
std::string xml_escape(std::string_view text);

}  // namespace fp4gemm
