#pragma once
// TextTable: a terminal table with aligned columns (numbers right-aligned, text left-aligned),
// or the same rows as a GitHub-flavoured Markdown table.
#include <string>
#include <vector>

namespace fp4gemm {

class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells);
  std::string render() const;
  std::string render_markdown() const;  // '|' in a cell is escaped

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace fp4gemm
