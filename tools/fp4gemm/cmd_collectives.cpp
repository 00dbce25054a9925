// fp4gemm collectives: NCCL all-reduce and all-to-all between the GPUs of this host, one process
// per GPU, timed per message size in nccl-tests' style (time per op, algbw, busbw), printed as a
// table and, with --json, written to a file (atomically). NVLink multicast stays off
// (NCCL_NVLS_ENABLE=0). Without a GPU, or without NCCL: an error naming the reason, non-zero exit.
#include <fmt/format.h>

#include "cluster/collective_math.hpp"
#include "cluster/collectives_launcher.hpp"
#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "rank_run.hpp"
#include "report/collectives_report.hpp"

namespace fp4gemm::cli {
namespace {

struct CollectivesArgs {
  CollectivesOptions options;
  std::string ops = "all_reduce,all_to_all";
  std::string json_path;
  bool force = false;
};

void run_collectives_command(CollectivesArgs& args) {
  args.options.ops = parse_collective_ops(args.ops);
  validate(args.options);
  std::optional<CollectivesRecord> started =
      start_rank_run("collectives measures NCCL between GPUs", args.options, args.json_path, args.force);
  if (!started) return;
  CollectivesRecord& record = *started;
  const int world_size = record.world_size;
  fmt::print(stderr, "fp4gemm collectives: {} rank(s), NCCL {} from {}\n", world_size,
             nccl_version_text(record.nccl_version), record.nccl_library);
  record.measurements = run_collectives(args.options, world_size);
  fmt::print("{}", collectives_table(record));
  if (!args.json_path.empty())
    write_text_atomically(args.json_path, to_json(record).dump(2) + "\n", args.force, "--json");
  for (const CollectiveMeasurement& m : record.measurements) {
    if (m.correct) continue;
    fmt::print(stderr, "fp4gemm: error: {} of {} bytes received wrong values\n", collective_op_name(m.op), m.bytes);
    exit_code() = 1;
  }
}

}  // namespace

void add_collectives_command(CLI::App& app) {
  auto args = std::make_shared<CollectivesArgs>();
  auto* cmd = app.add_subcommand(
      "collectives", "Measure NCCL all-reduce and all-to-all between this host's GPUs (nccl-tests' algbw/busbw)");
  cmd->add_option("--gpus", args->options.gpus, "Ranks, one process per GPU (default: every visible GPU)");
  cmd->add_option("--min-bytes", args->options.min_bytes, "Smallest message per rank in bytes (default 1024)");
  cmd->add_option("--max-bytes", args->options.max_bytes,
                  "Largest message per rank in bytes (default 268435456; at most 8 GiB)");
  cmd->add_option("--factor", args->options.factor, "Each size is the previous one times this (default 2)");
  cmd->add_option("--ops", args->ops, "Comma-separated collectives: all_reduce, all_to_all (default both)");
  cmd->add_option("--iters", args->options.iters, "Timed calls per size (default 20)");
  cmd->add_option("--warmup", args->options.warmup, "Untimed calls before them (default 5)");
  cmd->add_option("--timeout", args->options.timeout_seconds,
                  "Seconds the whole run may take; ranks still running then are ended (default 600)");
  cmd->add_option("--json", args->json_path, "Also write the results as JSON to this file");
  cmd->add_flag("--force", args->force, "Replace an existing --json file");
  cmd->callback([args] { run_collectives_command(*args); });
}

}  // namespace fp4gemm::cli
