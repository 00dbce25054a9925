#include "report/text_table.hpp"

#include <algorithm>

#include "fp4gemm/error.hpp"

namespace fp4gemm {

void TextTable::add_row(std::vector<std::string> cells) {
  require(cells.size() == columns_.size(), "table row has {} cells for {} columns", cells.size(),
          columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      const bool last = c + 1 == cells.size();
      if (columns_[c].align == Align::right) out += pad + cells[c];
      else out += last ? cells[c] : cells[c] + pad;
      out += last ? "\n" : "  ";
    }
  };
  std::vector<std::string> headers;
  for (const auto& c : columns_) headers.push_back(c.header);
  line(headers);
  std::vector<std::string> rules;
  for (std::size_t w : width) rules.push_back(std::string(w, '-'));
  line(rules);
  for (const auto& row : rows_) line(row);
  return out;
}

std::string TextTable::render_markdown() const {
  const auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const std::string& cell : cells) {
      out += ' ';
      for (char ch : cell) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
      out += " |";
    }
    return out + "\n";
  };
  std::vector<std::string> headers, rules;
  for (const auto& c : columns_) {
    headers.push_back(c.header);
    rules.push_back(c.align == Align::right ? "---:" : "---");
  }
  std::string out = line(headers) + line(rules);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace fp4gemm
