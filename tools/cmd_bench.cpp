// `moegemv bench`: see tools/harness/bench.hpp. Prints each row as it is measured, the table last.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/memory.hpp"
#include "tools/commands.hpp"
#include "moegemv/errors.hpp"
#include "tools/harness/bench.hpp"

namespace moegemv::cli {

void add_bench_command(CLI::App& app) {
  auto config = std::make_shared<harness::BenchConfig>();
  auto json = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("bench", "Time both ops on the GPU against the streaming-read ceiling");
  cmd->add_option("--model", config->models, "model presets")->delimiter(',');
  cmd->add_option("--m", config->ms, "token counts")->delimiter(',');
  cmd->add_option("--tp", config->tp, "tensor-parallel degree (divides I and SI)");
  cmd->add_option("--batches", config->batches, "timed batches (median reported)");
  cmd->add_option("--replays", config->replays, "graph replays per batch");
  cmd->add_option("--json", *json, "write the results as JSON to this file");
  cmd->callback([config, json] {
    if (!driver::available())
      throw moegemv::Error("moegemv bench needs a GPU: " + driver::unavailable_reason());
    driver::PrimaryContext context(0);
    context.make_current();
    driver::Stream stream;
    auto result = harness::run_bench(*config, stream.get(), [](const harness::BenchRow& row) {
      std::cout << fmt::format("  {} M={} {}: {:.2f} us/layer, {:.1f}% of ceiling\n", row.model,
                               row.m, row.mode, row.us, row.pct)
                << std::flush;
    });
    if (!json->empty()) std::ofstream(*json) << harness::to_json(result) << "\n";
    std::cout << harness::to_table(result);
  });
}

}  // namespace moegemv::cli
