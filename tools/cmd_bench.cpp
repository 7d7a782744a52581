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
#include "tools/harness/hot_read.hpp"
#include "tools/harness/multi_gpu.hpp"

namespace moegemv::cli {

void add_bench_command(CLI::App& app) {
  auto config = std::make_shared<harness::BenchConfig>();
  auto json = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("bench", "Time both ops on the GPU against the streaming-read ceiling");
  cmd->add_option("--model", config->models, "model presets")->delimiter(',');
  cmd->add_option("--m", config->ms, "token counts")->delimiter(',');
  auto ranks_tp = std::make_shared<int>(1), ranks_ep = std::make_shared<int>(1);
  cmd->add_option("--tp-share", config->tp,
                  "one GPU: time one rank's share of a tensor-parallel layer (I and SI divided)");
  cmd->add_option("--tp", *ranks_tp,
                  "N GPUs, one process each: tensor-parallel layer with an NCCL all-reduce");
  cmd->add_option("--ep", *ranks_ep,
                  "N GPUs, one process each: expert-parallel layer with an NCCL all-reduce");
  cmd->add_option("--batches", config->batches, "timed batches (median reported)");
  cmd->add_option("--replays", config->replays, "graph replays per batch");
  cmd->add_option("--layers", config->layers,
                  "rotated layers, memory permitting (default: enough that each op's weights "
                  "alone exceed 4x L2, at least 8)")
      ->check(CLI::Range(1, harness::kBenchMaxLayers));
  cmd->add_option("--json", *json, "write the results as JSON to this file");
  cmd->add_option("--seed", config->seed,
                  "weights, routing and inputs from this seed (0: fresh each run); runs to be "
                  "compared at M >= 2 should share one, so that they touch the same bytes");
  cmd->add_option("--settle-ms", config->settle_ms,
                  "before each row, replay its graph back to back for about this many ms, so that "
                  "every row is timed at sustained load's power state (0: off)")
      ->check(CLI::Range(0.0, 60000.0));
  auto* timeline = cmd->add_flag("--timeline", config->timeline,
                "diagnostic: after each pair, the CTAs' start / PDL wait / end of one more replay "
                "(--timeline-replays: more; needs MOEGEMV_TUNE=gu_timeline=1,dc_timeline=1)");
  cmd->add_option("--timeline-replays", config->timeline_replays,
                  "with --timeline: how many stamped replays after each pair, each summarized")
      ->check(CLI::Range(1, 1000))
      ->needs(timeline);
  auto patterns = std::make_shared<bool>(false);
  auto* patterns_flag = cmd->add_flag("--patterns", *patterns,
                "only the access-pattern diagnostic: the tiles' read pattern without arithmetic");
  auto hot = std::make_shared<bool>(false);
  cmd->add_flag("--hot", *hot,
                "only the shared-lines diagnostic: many CTAs staging the same activation rows")
      ->excludes(patterns_flag);
  cmd->callback([config, json, ranks_tp, ranks_ep, patterns, hot] {
    if (*ranks_tp > 1 || *ranks_ep > 1) {
      // No CUDA call in this process before the ranks are forked.
      harness::MultiGpuConfig m;
      m.model = config->models.front();
      m.mode = *ranks_tp > 1 ? "tp" : "ep";
      m.ranks = *ranks_tp > 1 ? *ranks_tp : *ranks_ep;
      m.ms = config->ms;
      m.batches = config->batches;
      m.replays = config->replays;
      auto rows = harness::run_multi_gpu_bench(m);
      std::cout << fmt::format("{} {}={} (per layer, all-reduce included) vs one GPU:\n", m.model,
                               m.mode, m.ranks);
      bool ok = true;
      for (const auto& r : rows) {
        std::cout << fmt::format("  M={:<3} sharded {:8.2f} us  one GPU {:8.2f} us  {} {}\n", r.m,
                                 r.us_sharded, r.us_single, r.pass ? "PASS" : "FAIL", r.check);
        ok = ok && r.pass;
      }
      if (!ok) throw CLI::RuntimeError(1);
      return;
    }
    if (!driver::available())
      throw moegemv::Error("moegemv bench needs a GPU: " + driver::unavailable_reason());
    driver::PrimaryContext context(0);
    context.make_current();
    driver::Stream stream;
    if (*hot) {
      std::cout << harness::hot_read_table(harness::measure_hot_reads(stream.get())) << std::flush;
      return;
    }
    if (*patterns) {
      std::cout << fmt::format("streaming-read ceiling: {:.0f} GB/s\n",
                               harness::measure_stream_read(std::size_t{4} << 30, stream.get()));
      harness::TileReadBench reads(stream.get());
      // Kernels of one layer's size (DeepSeek-V3 M=1: gate_up 149 MB, down 74 MB; Qwen3-Next
      // 13 / 6.5, and 19.5: its whole layer in one kernel, the bound of any pair or fused form).
      for (double mb : {6.5, 13.0, 19.5, 74.0, 149.0, 512.0})
        for (bool tiles : {false, true})
          std::cout << fmt::format("{} of {} MB per launch, 20 launches back to back: {:.0f} GB/s\n",
                                   tiles ? "tile pattern" : "streaming read", mb,
                                   reads.sized_gbps(static_cast<std::size_t>(mb * 1e6), tiles))
                    << std::flush;
      for (int row_bytes : {3584, 1024, 2560})
        for (int chunk : {64, 128, 256})
          std::cout << fmt::format("tile pattern: rows of {} bytes, {} bytes per row per warp step: {:.0f} GB/s\n",
                                   row_bytes, chunk, reads.gbps(row_bytes, chunk, 0, 0, 0))
                    << std::flush;
      // The same loads with synthetic dependent work between a warp's steps (4 IMAD chains of
      // `rounds` per 16-byte load; the GEMV spends ~86 instructions per 16 bytes of weights), at
      // full residency, at the classic gate_up's 5 CTAs (20 warps) per SM and at the split
      // tile's 4 (16 warps; session 10).
      for (int ctas : {0, 5, 4})
        for (int chunk : {64, 128})
          for (int rounds : {0, 8, 16, 24})
            std::cout << fmt::format("tile pattern + work: rows of 3584 bytes, {} bytes per row per warp step, "
                                     "{} instructions per 16 bytes, {} CTAs/SM: {:.0f} GB/s\n",
                                     chunk, 4 * rounds, ctas == 0 ? std::string("all") : std::to_string(ctas),
                                     reads.gbps(3584, chunk, rounds, 0, ctas))
                      << std::flush;
      // The GEMV's other kinds of per-weight work, to time their pipes against IMAD's.
      const struct { int work, rounds; const char* what; } kinds[] = {
          {1, 8, "HMUL2.BF16"}, {1, 16, "HMUL2.BF16"}, {1, 24, "HMUL2.BF16"},
          {2, 2, "F2FP.BF16.F32"}, {2, 4, "F2FP.BF16.F32"}, {2, 8, "F2FP.BF16.F32"},
          {3, 16, "PRMT"}, {3, 24, "PRMT"}, {4, 16, "LOP3"}, {4, 24, "LOP3"}};
      for (const auto& k : kinds)
        std::cout << fmt::format("tile pattern + work: rows of 3584 bytes, 128 bytes per row per warp step, "
                                 "{} {} per 16 bytes, all CTAs/SM: {:.0f} GB/s\n",
                                 4 * k.rounds, k.what, reads.gbps(3584, 128, k.rounds, k.work, 0))
                  << std::flush;
      return;
    }
    auto result = harness::run_bench(*config, stream.get(), [](const harness::BenchRow& row) {
      std::cout << fmt::format("  {} M={} {}: {:.2f} us/layer, {:.1f}% of ceiling\n", row.model,
                               row.m, row.mode, row.us, row.pct)
                << row.timeline << std::flush;
    });
    if (!json->empty()) std::ofstream(*json) << harness::to_json(result) << "\n";
    std::cout << harness::to_table(result);
  });
}

}  // namespace moegemv::cli
