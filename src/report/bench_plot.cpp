#include "report/bench_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "fp4gemm/io.hpp"

namespace fp4gemm {
namespace {

constexpr double kWidth = 1200;
constexpr double kChartHeight = 560;
constexpr double kPlotLeft = 90, kPlotRight = 780;   // plot area, x
constexpr double kPlotTop = 70, kPlotBottom = 480;   // plot area, y within one chart
constexpr double kLegendX = 805;

// Colors per backend, in order of first appearance (colorblind-safe Okabe-Ito palette).
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr const char* kDashes[] = {"", "6,3", "2,3", "8,3,2,3", "12,4"};

std::string num(double v) { return fmt::format("{:.1f}", v); }

// A log10 axis over whole decades [lo, hi] mapped to pixels [p0, p1].
struct LogAxis {
  int lo = 0, hi = 1;
  double p0 = 0, p1 = 1;
  double map(double v) const {
    return p0 + (std::log10(v) - lo) / double(hi - lo) * (p1 - p0);
  }
};

LogAxis make_axis(double vmin, double vmax, double p0, double p1) {
  LogAxis a;
  a.lo = int(std::floor(std::log10(vmin) + 1e-9));
  a.hi = int(std::ceil(std::log10(vmax) - 1e-9));
  if (a.hi <= a.lo) a.hi = a.lo + 1;
  a.p0 = p0;
  a.p1 = p1;
  return a;
}

std::string tick_label(int decade) {
  if (decade >= -3 && decade <= 6) return fmt::format("{:g}", std::pow(10.0, decade));
  return fmt::format("1e{}", decade);
}

// Grid, ticks at 1, 2, 5 x 10^d (labels on the powers of ten), axis titles; y offset `oy`.
std::string draw_axes(const LogAxis& x, const LogAxis& y, double oy, const std::string& x_title,
                      const std::string& y_title) {
  std::string s;
  const double top = oy + kPlotTop, bottom = oy + kPlotBottom;
  s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#ffffff" stroke="#333333"/>)"
                   "\n", num(kPlotLeft), num(top), num(kPlotRight - kPlotLeft), num(bottom - top));
  for (int d = x.lo; d <= x.hi; ++d) {
    for (int m : {1, 2, 5}) {
      const double v = m * std::pow(10.0, d);
      if (std::log10(v) > x.hi + 1e-9) break;
      const double px = x.map(v);
      const bool major = m == 1;
      s += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-width="1"/>)"
                       "\n", num(px), num(top), num(bottom), major ? "#d0d0d0" : "#eeeeee");
      s += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#333333"/>)" "\n",
                       num(px), num(bottom), num(bottom + (major ? 6 : 3)));
      if (major)
        s += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="12">{}</text>)"
                         "\n", num(px), num(bottom + 20), tick_label(d));
    }
  }
  for (int d = y.lo; d <= y.hi; ++d) {
    for (int m : {1, 2, 5}) {
      const double v = m * std::pow(10.0, d);
      if (std::log10(v) > y.hi + 1e-9) break;
      const double py = oy + y.map(v);
      const bool major = m == 1;
      s += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="{3}" stroke-width="1"/>)"
                       "\n", num(py), num(kPlotLeft), num(kPlotRight), major ? "#d0d0d0" : "#eeeeee");
      s += fmt::format(R"(<line x1="{1}" y1="{0}" x2="{2}" y2="{0}" stroke="#333333"/>)" "\n",
                       num(py), num(kPlotLeft - (major ? 6 : 3)), num(kPlotLeft));
      if (major)
        s += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" font-size="12">{}</text>)"
                         "\n", num(kPlotLeft - 9), num(py + 4), tick_label(d));
    }
  }
  s += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="14">{}</text>)" "\n",
                   num((kPlotLeft + kPlotRight) / 2), num(bottom + 44), xml_escape(x_title));
  const double cy = (top + bottom) / 2;
  s += fmt::format(R"(<text x="{0}" y="{1}" text-anchor="middle" font-size="14" )"
                   R"svg(transform="rotate(-90 {0} {1})">{2}</text>)svg" "\n",
                   num(28), num(cy), xml_escape(y_title));
  return s;
}

std::string chart_title(double oy, const std::string& title) {
  return fmt::format(R"(<text x="{}" y="{}" text-anchor="middle" font-size="17" )"
                     R"(font-weight="bold">{}</text>)" "\n",
                     num((kPlotLeft + kPlotRight) / 2), num(oy + 40), xml_escape(title));
}

std::string note_text(double x, double y, const std::string& text, const char* anchor = "start") {
  return fmt::format(R"(<text x="{}" y="{}" text-anchor="{}" font-size="13" fill="#555555" )"
                     R"(font-style="italic">{}</text>)" "\n", num(x), num(y), anchor,
                     xml_escape(text));
}

std::string shape_label(const BenchRow& r) {
  const GemmProblem& p = r.bench_case.problem;
  return fmt::format("{}x{}x{} {}", p.shape.m, p.shape.n, p.shape.k, to_string(p.mode));
}

struct LegendEntry {
  std::string color, dash, text;
  bool line = false;
  bool marker = true;
};

// Visible point labels placed without overlapping each other or the points: each label tries
// right-above, right-below, left-above, left-below of its point (inside the plot), then moves
// down a line at a time from the first of those; the color ties it to its point.
class LabelPlacer {
 public:
  void add_point(double px, double py) { boxes_.push_back({px - 5, py + 5, 10, 10}); }
  // Returns the text element for a label next to the point (px, py).
  std::string place(double px, double py, double plot_top, double plot_bottom,
                    const std::string& color, const std::string& text) {
    const double w = 5.6 * double(text.size()), h = 11;
    struct Candidate {
      bool left;
      double y;  // baseline
    };
    const Candidate candidates[] = {{false, py - 5}, {false, py + 13}, {true, py - 5}, {true, py + 13}};
    auto x_of = [&](bool left) { return left ? px - 8 - w : px + 8; };
    auto fits = [&](const Candidate& c) {
      const double x = x_of(c.left);
      return x >= kPlotLeft && x + w <= kPlotRight && c.y - h >= plot_top && c.y <= plot_bottom &&
             !collides(x, c.y, w, h);
    };
    Candidate chosen = candidates[px + 8 + w > kPlotRight ? 2 : 0];
    bool found = false;
    for (const Candidate& c : candidates)
      if (fits(c)) {
        chosen = c;
        found = true;
        break;
      }
    for (int attempt = 0; !found && attempt < 8; ++attempt) {
      chosen.y += h;
      found = !collides(x_of(chosen.left), chosen.y, w, h);
    }
    boxes_.push_back({x_of(chosen.left), chosen.y, w, h});
    return fmt::format(R"(<text class="point-label" x="{}" y="{}" font-size="10" fill="{}">{}</text>)"
                       "\n", num(x_of(chosen.left)), num(chosen.y), color, xml_escape(text));
  }

 private:
  struct Box {
    double x, y, w, h;  // y: the bottom (text baseline); the box spans [y - h, y]
  };
  bool collides(double x, double y, double w, double h) const {
    for (const Box& b : boxes_)
      if (x < b.x + b.w && b.x < x + w && y - h < b.y && b.y - b.h < y) return true;
    return false;
  }
  std::vector<Box> boxes_;
};

std::string draw_legend(double oy, const std::vector<LegendEntry>& entries) {
  std::string s;
  double y = oy + kPlotTop + 8;
  s += fmt::format(R"(<text x="{}" y="{}" font-size="13" font-weight="bold">legend</text>)" "\n",
                   num(kLegendX), num(y));
  for (const LegendEntry& e : entries) {
    y += 20;
    if (y > oy + kChartHeight - 20) {
      s += note_text(kLegendX, y, "(more not shown)");
      break;
    }
    if (e.line)
      s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)"
                       "\n", num(kLegendX), num(y - 4), num(kLegendX + 26), num(y - 4), e.color,
                       e.dash.empty() ? "" : fmt::format(R"( stroke-dasharray="{}")", e.dash));
    if (e.marker)
      s += fmt::format(R"(<circle cx="{}" cy="{}" r="4.5" fill="{}" stroke="#ffffff"/>)" "\n",
                       num(kLegendX + 13), num(y - 4), e.color);
    s += fmt::format(R"(<text x="{}" y="{}" font-size="12">{}</text>)" "\n", num(kLegendX + 34),
                     num(y), xml_escape(e.text));
  }
  return s;
}

class Colors {
 public:
  explicit Colors(const std::vector<BenchRow>& rows) {
    for (const BenchRow& r : rows)
      if (r.ran && !index_.contains(r.backend)) {
        const std::size_t i = index_.size();
        index_[r.backend] = i;
        order_.push_back(r.backend);
      }
  }
  std::string of(const std::string& backend) const {
    return kPalette[index_.at(backend) % std::size(kPalette)];
  }
  const std::vector<std::string>& backends() const { return order_; }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> order_;
};

std::string roofline_chart(const std::vector<const BenchRow*>& ran, const BenchContext& ctx,
                           const Colors& colors, std::size_t not_run, double oy) {
  std::string s = chart_title(oy, "Roofline on " + ctx.device);
  if (ran.empty()) {
    s += note_text((kPlotLeft + kPlotRight) / 2, oy + 250,
                   fmt::format("no result to plot: no row ran ({} not run)", not_run), "middle");
    return s;
  }
  const Ceilings& c = ctx.ceilings;
  struct Roof {
    const char* name;
    double tflops;
  };
  std::vector<Roof> roofs;
  if (c.known()) {
    if (c.bf16_tflops > 0) roofs.push_back({"BF16", c.bf16_tflops});
    if (c.fp8_tflops > 0) roofs.push_back({"FP8", c.fp8_tflops});
    if (c.fp4_tflops > 0) roofs.push_back({"FP4", c.fp4_tflops});
  }
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const BenchRow* r : ran) {
    const double x = r->bench_case.problem.shape.flops() / r->bytes, y = r->tflops();
    xmin = std::min(xmin, x), xmax = std::max(xmax, x);
    ymin = std::min(ymin, y), ymax = std::max(ymax, y);
  }
  const double bw_tb = c.memory_gbps * 1e-3;  // TB/s: TFLOPS = bw_tb * intensity
  for (const Roof& roof : roofs) {
    ymax = std::max(ymax, roof.tflops);
    xmax = std::max(xmax, roof.tflops / bw_tb * 2);
  }
  const LogAxis x = make_axis(xmin, xmax, kPlotLeft, kPlotRight);
  const LogAxis y = make_axis(ymin, ymax * 1.3, kPlotBottom, kPlotTop);
  s += draw_axes(x, y, oy, "arithmetic intensity (FLOP/byte)", "TFLOPS");
  const double x_lo = std::pow(10.0, x.lo), x_hi = std::pow(10.0, x.hi);
  const double y_lo = std::pow(10.0, y.lo);
  std::vector<LegendEntry> legend;
  if (c.known()) {
    // The bandwidth roof, from the left edge (or where it enters the plot) to the highest ridge.
    const double top_peak = roofs.empty() ? std::pow(10.0, y.hi) : roofs.back().tflops;
    double bx0 = std::max(x_lo, y_lo / bw_tb);
    double bx1 = std::min(x_hi, top_peak / bw_tb);
    if (bx1 > bx0) {
      s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="2"/>)"
                       "\n", num(x.map(bx0)), num(oy + y.map(bw_tb * bx0)), num(x.map(bx1)),
                       num(oy + y.map(bw_tb * bx1)));
      const double lx = std::sqrt(bx0 * bx1 / 8);
      const double angle = std::atan2(y.map(bw_tb * bx1) - y.map(bw_tb * bx0),
                                      x.map(bx1) - x.map(bx0)) * 180 / M_PI;
      s += fmt::format(R"(<text x="{0}" y="{1}" font-size="12" fill="#444444" )"
                       R"svg(transform="rotate({2} {0} {1})">{3} {4:.0f} GB/s</text>)svg" "\n",
                       num(x.map(lx)), num(oy + y.map(bw_tb * lx) - 6), num(angle),
                       xml_escape(c.memory.empty() ? "DRAM" : c.memory), c.memory_gbps);
    }
    for (const Roof& roof : roofs) {
      const double ridge = std::max(x_lo, roof.tflops / bw_tb);
      const double py = oy + y.map(roof.tflops);
      s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#444444" stroke-width="2" )"
                       R"(stroke-dasharray="7,3"/>)" "\n", num(x.map(ridge)), num(py),
                       num(kPlotRight), num(py));
      s += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" font-size="12" fill="#444444">)"
                       R"({} tensor {:.0f} TFLOPS</text>)" "\n", num(kPlotRight - 4), num(py - 5),
                       roof.name, roof.tflops);
    }
    s += note_text(kPlotLeft + 6, oy + kPlotBottom - 8, "roofs: " + c.source);
  } else {
    s += note_text(kPlotLeft + 6, oy + kPlotTop + 18,
                   "no ceiling known for " + (c.device.empty() ? ctx.device : c.device) +
                       ": points only, no roofs");
  }
  LabelPlacer labels;
  for (const BenchRow* r : ran)
    labels.add_point(x.map(r->bench_case.problem.shape.flops() / r->bytes), oy + y.map(r->tflops()));
  for (const BenchRow* r : ran) {
    const double px = x.map(r->bench_case.problem.shape.flops() / r->bytes);
    const double py = oy + y.map(r->tflops());
    const std::string label = shape_label(*r);
    s += fmt::format(R"(<circle class="point" cx="{}" cy="{}" r="5" fill="{}" stroke="#ffffff" )"
                     R"(stroke-width="1"><title>{}</title></circle>)" "\n",
                     num(px), num(py), colors.of(r->backend),
                     xml_escape(fmt::format("{} {}: {:.2f} TFLOPS, {:.0f} GB/s, {:.2f} us",
                                            r->backend, label, r->tflops(), r->gbps(),
                                            r->timing.median_s * 1e6)));
    s += labels.place(px, py, oy + kPlotTop, oy + kPlotBottom, colors.of(r->backend), label);
  }
  for (const std::string& b : colors.backends()) legend.push_back({colors.of(b), "", b, false});
  if (c.known()) legend.push_back({"#444444", "", "roofs (solid: memory, dashed: compute)", true, false});
  s += draw_legend(oy, legend);
  if (not_run > 0)
    s += note_text(kPlotLeft, oy + kChartHeight - 12, fmt::format("{} row(s) not run, not shown", not_run));
  return s;
}

std::string time_chart(const std::vector<const BenchRow*>& ran, const Colors& colors,
                       std::size_t not_run, double oy) {
  std::string s = chart_title(oy, "Time vs M per backend and shape");
  if (ran.empty()) {
    s += note_text((kPlotLeft + kPlotRight) / 2, oy + 250,
                   fmt::format("no result to plot: no row ran ({} not run)", not_run), "middle");
    return s;
  }
  using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::string, std::string>;
  std::map<Key, std::vector<const BenchRow*>> series;
  std::vector<Key> order;
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const BenchRow* r : ran) {
    const GemmProblem& p = r->bench_case.problem;
    const Key key{r->backend, p.shape.n, p.shape.k, std::string(to_string(p.format)),
                  std::string(to_string(p.mode))};
    if (!series.contains(key)) order.push_back(key);
    series[key].push_back(r);
    const double us = r->timing.median_s * 1e6;
    xmin = std::min(xmin, double(p.shape.m)), xmax = std::max(xmax, double(p.shape.m));
    ymin = std::min(ymin, us), ymax = std::max(ymax, us);
  }
  const LogAxis x = make_axis(xmin, std::max(xmax, xmin * 10), kPlotLeft, kPlotRight);
  const LogAxis y = make_axis(ymin, ymax, kPlotBottom, kPlotTop);
  s += draw_axes(x, y, oy, "M (tokens)", "time per GEMM (us, median)");
  std::map<std::string, std::size_t> dash_of_backend;
  std::vector<LegendEntry> legend;
  for (const Key& key : order) {
    auto& points = series[key];
    std::stable_sort(points.begin(), points.end(), [](const BenchRow* a, const BenchRow* b) {
      return a->bench_case.problem.shape.m < b->bench_case.problem.shape.m;
    });
    const std::string color = colors.of(std::get<0>(key));
    const std::string dash = kDashes[dash_of_backend[std::get<0>(key)]++ % std::size(kDashes)];
    std::string pts;
    for (const BenchRow* r : points)
      pts += fmt::format("{},{} ", num(x.map(double(r->bench_case.problem.shape.m))),
                         num(oy + y.map(r->timing.median_s * 1e6)));
    if (points.size() > 1)
      s += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>)" "\n",
                       pts, color,
                       dash.empty() ? "" : fmt::format(R"( stroke-dasharray="{}")", dash));
    for (const BenchRow* r : points)
      s += fmt::format(R"(<circle class="time-point" cx="{}" cy="{}" r="4" fill="{}" )"
                       R"(stroke="#ffffff"><title>{}</title></circle>)" "\n",
                       num(x.map(double(r->bench_case.problem.shape.m))),
                       num(oy + y.map(r->timing.median_s * 1e6)), color,
                       xml_escape(fmt::format("{} {}: {:.2f} us", r->backend, shape_label(*r),
                                              r->timing.median_s * 1e6)));
    legend.push_back({color, dash,
                      fmt::format("{} N={} K={} {} {}", std::get<0>(key), std::get<1>(key),
                                  std::get<2>(key), std::get<3>(key), std::get<4>(key)),
                      true});
  }
  s += draw_legend(oy, legend);
  if (not_run > 0)
    s += note_text(kPlotLeft, oy + kChartHeight - 12, fmt::format("{} row(s) not run, not shown", not_run));
  return s;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n') out += ' ';
        else out += ch;
    }
  }
  return out;
}

std::string bench_plot_svg(const std::vector<BenchRow>& rows, const BenchContext& context) {
  std::vector<const BenchRow*> ran;
  for (const BenchRow& r : rows)
    if (r.ran && r.timing.median_s > 0 && r.bytes > 0 && r.tflops() > 0) ran.push_back(&r);
  const std::size_t not_run = rows.size() - ran.size();
  const Colors colors(rows);
  const double height = 2 * kChartHeight + 30;
  std::string s = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
      R"(font-family="Helvetica, Arial, sans-serif">)" "\n"
      R"(<rect width="100%" height="100%" fill="#fafafa"/>)" "\n",
      num(kWidth), num(height));
  s += roofline_chart(ran, context, colors, not_run, 0);
  s += time_chart(ran, colors, not_run, kChartHeight);
  if (!context.command.empty()) s += note_text(kPlotLeft, height - 10, "command: " + context.command);
  s += "</svg>\n";
  return s;
}

void write_bench_plot(const std::string& path, const std::vector<BenchRow>& rows,
                      const BenchContext& context, bool force) {
  write_text_atomically(path, bench_plot_svg(rows, context), force, "--plot");
}

}  // namespace fp4gemm
