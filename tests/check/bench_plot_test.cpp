// bench_plot_svg: well-formed XML (checked by a small parser below), one labelled point per row
// that ran, roofs only where ceilings are known, and a clear note without results.
#include "report/bench_plot.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fp4gemm/error.hpp"
#include "report/progress.hpp"

namespace fp4gemm {
namespace {

// A minimal XML 1.0 well-formedness check: one root element, matched tags, quoted and unique
// attributes, no '<' in text or attribute values, only the predefined or numeric entities.
// Returns an empty string when well-formed, else what is wrong and where.
std::string xml_error(const std::string& s) {
  std::size_t i = 0;
  std::vector<std::string> stack;
  int roots = 0;
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  auto check_entities = [](const std::string& text) -> std::string {
    for (std::size_t p = text.find('&'); p != std::string::npos; p = text.find('&', p + 1)) {
      const std::size_t end = text.find(';', p);
      if (end == std::string::npos) return "unterminated entity";
      const std::string e = text.substr(p + 1, end - p - 1);
      static const std::set<std::string> named{"amp", "lt", "gt", "quot", "apos"};
      if (!named.contains(e) && !(e.size() > 1 && e[0] == '#')) return "unknown entity &" + e + ";";
    }
    return "";
  };
  while (i < s.size()) {
    if (s[i] != '<') {
      const std::size_t next = s.find('<', i);
      const std::string text = s.substr(i, next - i);
      if (stack.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos)
        return "text outside the root at " + std::to_string(i);
      if (auto e = check_entities(text); !e.empty()) return e + " at " + std::to_string(i);
      if (text.find('>') != std::string::npos && false) return "";
      i = next == std::string::npos ? s.size() : next;
      continue;
    }
    if (s.compare(i, 5, "<?xml") == 0) {
      if (i != 0) return "XML declaration not at the start";
      const std::size_t end = s.find("?>", i);
      if (end == std::string::npos) return "unterminated declaration";
      i = end + 2;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0) {
      const std::size_t end = s.find("-->", i);
      if (end == std::string::npos) return "unterminated comment";
      i = end + 3;
      continue;
    }
    const bool closing = i + 1 < s.size() && s[i + 1] == '/';
    std::size_t p = i + (closing ? 2 : 1);
    const std::size_t name_start = p;
    while (p < s.size() && is_name(s[p])) ++p;
    const std::string name = s.substr(name_start, p - name_start);
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
      if (p >= s.size() || s[p] != '>') return "bad closing tag at " + std::to_string(i);
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
      i = p + 1;
      continue;
    }
    std::set<std::string> attributes;
    bool self_closing = false;
    while (true) {
      const std::size_t before = p;
      while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
      if (p >= s.size()) return "unterminated tag <" + name + ">";
      if (s[p] == '>') { ++p; break; }
      if (s[p] == '/' && p + 1 < s.size() && s[p + 1] == '>') { self_closing = true; p += 2; break; }
      if (p == before) return "no space before an attribute in <" + name + ">";
      const std::size_t a = p;
      while (p < s.size() && is_name(s[p])) ++p;
      const std::string attribute = s.substr(a, p - a);
      if (attribute.empty()) return "bad attribute in <" + name + "> at " + std::to_string(p);
      if (!attributes.insert(attribute).second) return "duplicate attribute " + attribute;
      if (p >= s.size() || s[p] != '=') return "attribute " + attribute + " without '='";
      ++p;
      if (p >= s.size() || (s[p] != '"' && s[p] != '\'')) return "unquoted attribute " + attribute;
      const char quote = s[p];
      const std::size_t end = s.find(quote, p + 1);
      if (end == std::string::npos) return "unterminated attribute " + attribute;
      const std::string value = s.substr(p + 1, end - p - 1);
      if (value.find('<') != std::string::npos) return "'<' in attribute " + attribute;
      if (auto e = check_entities(value); !e.empty()) return e + " in attribute " + attribute;
      p = end + 1;
    }
    if (stack.empty()) ++roots;
    if (!self_closing) stack.push_back(name);
    i = p;
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// FP4GEMM_PLOT_SAMPLE_DIR=DIR keeps each test's SVG there, for looking at (not part of the check).
void keep_sample(const std::string& name, const std::string& svg) {
  if (const char* dir = std::getenv("FP4GEMM_PLOT_SAMPLE_DIR")) std::ofstream(std::string(dir) + "/" + name) << svg;
}

BenchRow make_row(const std::string& backend, std::int64_t m, std::int64_t n, std::int64_t k,
                  Mode mode, double median_us, bool ran = true) {
  BenchRow r;
  r.backend = backend;
  r.bench_case.problem.shape = {m, n, k};
  r.bench_case.problem.mode = mode;
  r.bytes = double(n * k) / 2 + double(m * k) * 2 + double(m * n) * 2;
  r.ran = ran;
  if (ran) {
    r.timing.median_s = r.timing.p10_s = r.timing.p90_s = median_us * 1e-6;
  } else {
    r.note = "M = 64 > 32 (the decode kernel's limit) <refused> & skipped";
  }
  return r;
}

BenchContext h200_context() {
  BenchContext c;
  c.command = "fp4gemm bench -m 1,16,256 --plot \"a&b.svg\"";
  c.device = "NVIDIA H200 <sm_90> & co";
  c.ceilings = lookup_ceilings("NVIDIA H200");
  return c;
}

std::vector<BenchRow> sample_rows() {
  std::vector<BenchRow> rows;
  for (std::int64_t m : {1, 16, 256, 4096}) {
    rows.push_back(make_row("cuda-mma", m, 6144, 6144, Mode::w4a16, 29.0 * (1 + m / 20.0)));
    rows.push_back(make_row("cublas-bf16", m, 6144, 6144, Mode::w4a16, 24.0 * (1 + m / 100.0)));
    if (m <= 16) rows.push_back(make_row("cuda-decode", m, 6144, 6144, Mode::w4a16, 21.5 + m / 10.0));
    else rows.push_back(make_row("cuda-decode", m, 6144, 6144, Mode::w4a16, 0, false));
    rows.push_back(make_row("cublaslt-fp8", m, 768, 6144, Mode::w4a4, 10.0 * (1 + m / 300.0)));
  }
  return rows;
}

TEST(BenchPlot, WellFormedWithOnePointPerRanRowAndRoofs) {
  const std::vector<BenchRow> rows = sample_rows();
  const std::string svg = bench_plot_svg(rows, h200_context());
  EXPECT_EQ(xml_error(svg), "");
  std::size_t ran = 0;
  for (const BenchRow& r : rows) {
    if (!r.ran) continue;
    ++ran;
    const auto& s = r.bench_case.problem.shape;
    const std::string label = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                              std::to_string(s.k) + " " + std::string(to_string(r.bench_case.problem.mode));
    EXPECT_NE(svg.find(">" + label + "</text>"), std::string::npos) << label;
  }
  EXPECT_EQ(count(svg, "class=\"point\""), ran);
  EXPECT_EQ(count(svg, "class=\"point-label\""), ran);
  EXPECT_EQ(count(svg, "class=\"time-point\""), ran);
  EXPECT_NE(svg.find("BF16 tensor"), std::string::npos);
  EXPECT_NE(svg.find("FP8 tensor"), std::string::npos);
  EXPECT_EQ(svg.find("FP4 tensor"), std::string::npos);  // the H200 has none
  EXPECT_NE(svg.find("HBM3e"), std::string::npos);
  EXPECT_NE(svg.find("NVIDIA H200 &lt;sm_90&gt; &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("2 row(s) not run"), std::string::npos);
  // One line per (backend, N, K, mode) with more than one M; a legend entry for each.
  EXPECT_EQ(count(svg, "<polyline"), 4u);
  // Tick labels at powers of ten.
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);
}

TEST(BenchPlot, WithoutCeilingsPointsOnlyAndANote) {
  BenchContext c;
  c.device = "AMD EPYC 7B13";
  c.ceilings = lookup_ceilings("AMD EPYC 7B13");
  std::vector<BenchRow> rows{make_row("cpu-fast", 1, 768, 6144, Mode::w4a16, 700),
                             make_row("cpu-fast", 16, 768, 6144, Mode::w4a16, 3000)};
  const std::string svg = bench_plot_svg(rows, c);
  keep_sample("cpu.svg", svg);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_EQ(count(svg, "class=\"point\""), 2u);
  EXPECT_NE(svg.find("no ceiling known"), std::string::npos);
  EXPECT_EQ(svg.find("tensor"), std::string::npos);
}

TEST(BenchPlot, EmptyAndAllNotRunSayWhy) {
  for (const std::vector<BenchRow>& rows :
       {std::vector<BenchRow>{}, std::vector<BenchRow>{make_row("cuda-decode", 64, 6144, 6144,
                                                                Mode::w4a16, 0, false)}}) {
    const std::string svg = bench_plot_svg(rows, h200_context());
    keep_sample("empty" + std::to_string(rows.size()) + ".svg", svg);
    EXPECT_EQ(xml_error(svg), "");
    EXPECT_EQ(count(svg, "class=\"point\""), 0u);
    EXPECT_NE(svg.find("no result to plot: no row ran (" + std::to_string(rows.size()) + " not run)"),
              std::string::npos);
  }
}

TEST(BenchPlot, WellFormednessCheckCatchesErrors) {
  EXPECT_NE(xml_error("<svg><g></svg>"), "");
  EXPECT_NE(xml_error("<svg a=\"1\" a=\"2\"/>"), "");
  EXPECT_NE(xml_error("<svg>a & b</svg>"), "");
  EXPECT_NE(xml_error("<svg>a < b</svg>"), "");
  EXPECT_NE(xml_error("<svg x=1/>"), "");
  EXPECT_EQ(xml_error("<?xml version=\"1.0\"?>\n<svg x=\"1\"><t>a &amp; b</t></svg>\n"), "");
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

TEST(BenchPlot, WriterRefusesToOverwriteWithoutForce) {
  const auto dir = std::filesystem::temp_directory_path() / "fp4gemm_bench_plot_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "plot.svg").string();
  std::filesystem::remove(path);
  const auto rows = sample_rows();
  write_bench_plot(path, rows, h200_context(), false);
  EXPECT_THROW(write_bench_plot(path, rows, h200_context(), false), InvalidArgument);
  EXPECT_NO_THROW(write_bench_plot(path, rows, h200_context(), true));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), bench_plot_svg(rows, h200_context()));
  keep_sample("h200.svg", text.str());
  std::filesystem::remove_all(dir);
}

TEST(ProgressLine, FormatsCountPaddedToTotal) {
  const BenchRow r = make_row("cuda-decode", 16, 6144, 6144, Mode::w4a16, 20);
  EXPECT_EQ(ProgressLine::format_line(12, 96, r), "[12/96] cuda-decode 16x6144x6144 w4a16");
  EXPECT_EQ(ProgressLine::format_line(3, 96, r), "[ 3/96] cuda-decode 16x6144x6144 w4a16");
}

TEST(ProgressLine, DrawsAndClearsOnlyWhenEnabled) {
  const BenchRow r = make_row("cpu-fast", 1, 768, 6144, Mode::w4a4, 20);
  {
    std::FILE* f = std::tmpfile();
    {
      ProgressLine progress(2, f, true);
      progress.row_done(r);
      progress.row_done(r);
      EXPECT_EQ(progress.done(), 2u);
    }  // destructor clears
    std::rewind(f);
    std::string out;
    for (int ch; (ch = std::fgetc(f)) != EOF;) out += char(ch);
    std::fclose(f);
    const std::string line = "[2/2] cpu-fast 1x768x6144 w4a4";
    EXPECT_NE(out.find("\r" + line), std::string::npos);
    // Ends with the line blanked and the cursor back at its start.
    EXPECT_EQ(out.substr(out.size() - line.size() - 2), "\r" + std::string(line.size(), ' ') + "\r");
  }
  {
    std::FILE* f = std::tmpfile();  // not a terminal: nothing written
    {
      ProgressLine progress(2, f);
      EXPECT_FALSE(progress.enabled());
      progress.row_done(r);
    }
    EXPECT_EQ(std::ftell(f), 0L);
    std::fclose(f);
  }
}

}  // namespace
}  // namespace fp4gemm
