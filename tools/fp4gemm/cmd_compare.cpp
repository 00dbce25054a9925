// fp4gemm compare OLD.json NEW.json: the time ratio new/old of every bench row present in both,
// flagging changes beyond the noise (report/bench_compare.hpp). Exit status 0 whatever changed;
// 2 when a file cannot be read or is not a bench JSON file.
#include <fmt/format.h>

#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "report/bench_compare.hpp"

namespace fp4gemm::cli {
namespace {

struct BenchFile {
  std::string name;  // "OLD 'a.json'": how errors name it
  nlohmann::json doc;
};

BenchFile read_bench_json(const std::string& path, std::string_view argument) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, argument);
  BenchFile file{fmt::format("{} '{}'", argument, path), {}};
  try {
    file.doc = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw IoError(fmt::format("{} is not valid JSON: {}", file.name, e.what()));
  }
  return file;
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto paths = std::make_shared<std::pair<std::string, std::string>>();
  auto* cmd = app.add_subcommand("compare", "Compare two `bench --json` files row by row (new/old time)");
  cmd->add_option("OLD", paths->first, "The earlier bench JSON file")->required();
  cmd->add_option("NEW", paths->second, "The later bench JSON file")->required();
  cmd->callback([paths] {
    const BenchFile old_file = read_bench_json(paths->first, "OLD");
    const BenchFile new_file = read_bench_json(paths->second, "NEW");
    const auto rows = compare_bench(old_file.doc, old_file.name, new_file.doc, new_file.name);
    fmt::print("{}", comparison_table(rows));
  });
}

}  // namespace fp4gemm::cli
