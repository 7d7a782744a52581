#pragma once
// `moegemv bench`: per-layer times of gate_up, down_combine and the chained pair (with and
// without PDL) as CUDA-graph replays over enough distinct layers that the weights are cold, plus
// the streaming-read ceiling measured in the same run.
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/memory.hpp"
#include "runtime/module.hpp"

namespace moegemv::harness {

struct BenchConfig {
  std::vector<std::string> models{"deepseek-v3", "qwen3-next", "glm-4.5", "llama4-maverick"};
  std::vector<int> ms{1, 2, 4, 8, 16};
  int tp = 1;
  int batches = 7;      ///< timed batches; the median is reported
  int replays = 10;     ///< graph replays per batch
  double max_gib = 48;  ///< device memory budget for the rotated layers
  int layers = 0;  ///< rotated layers (memory permitting); 0: bench_layers' rule
  bool timeline = false;  ///< diagnostic: CTA stamps of one more pair replay (harness/timeline.hpp)
  int timeline_replays = 1;  ///< (--timeline) stamped replays after each pair, each summarized
  /// 0: fresh weights, routing and inputs each run; else derived from it (bench_seed), so runs
  /// with the same seed touch the same bytes (A/B of variants at M >= 2, session 18).
  std::uint64_t seed = 0;
  /// > 0: before each row's timed batches, its graph replayed back to back for about this many ms,
  /// so that every row is timed at the power state of sustained load. Session 33 (an H100): the
  /// card's ~1 s average power reaches its cap late in a ~1.5 s burst and the SM clock falls to
  /// 1200-1380 MHz, so the rows timed there (the M=16 pairs) ran 17% slower than at `--m 16`.
  /// Session 34 (1500 ms): the card held at its cap, SM ~1520-1760 MHz; M=1 rows +1.3..+2.2%.
  double settle_ms = 0;
};

/// How many layers a preset's bench rotates (session 26): enough that the weights each *op alone*
/// touches at M=1 over one replay (the smaller of gate_up's and the down's) exceed 4x L2, and at
/// least kBenchMinLayers, so that the replay's own start and end (~2.8 us on an H100) weigh at
/// most ~0.4% of a layer; at most kBenchMaxLayers and what max_bytes holds (layer_bytes: all
/// experts of one layer). requested > 0 replaces the rule (still within max_bytes). Before
/// session 26 the rule used the pair's bytes, so each op alone cycled 1.9-5.6x L2 and L2 kept
/// part of it (docs/PERF.md, History, Session 26).
inline constexpr int kBenchMinLayers = 8;
inline constexpr int kBenchMaxLayers = 64;  // Qwen3-Next takes 33 on a 50 MiB L2, 39 on 60 MiB
int bench_layers(double gate_up_touched, double down_touched, double l2_bytes, double layer_bytes,
                 double max_bytes, int requested = 0);

/// The seed of one preset's weights (m = 0, layer = 0) or of layer `layer`'s routing and inputs at
/// M = m, from a bench run's seed: the same for the same arguments on every machine and build,
/// distinct across layers, M and presets (SplitMix64 over FNV-1a of the preset's name).
std::uint64_t bench_seed(std::uint64_t base, const std::string& model, int m, int layer);

struct BenchRow {
  std::string model;
  int m = 0;
  std::string mode;  ///< "gate_up" | "down" | "pair_pdl" | "pair"
  int layers = 0;
  double us = 0;            ///< median per-layer time
  double us_spread = 0;     ///< (max - min) over batches, per layer
  /// Each timed batch's per-layer time in run order (JSON `batch_us`): a bimodal row, e.g.
  /// DeepSeek-V3's M=16 pair with PDL (session 34: spread 155-204 us against 23 without PDL), shows
  /// which batches were slow and whether the median fell among them (session 35: they come in
  /// runs, with and without PDL, while the card sits at its power cap).
  std::vector<double> batch_us;
  double unique_bytes = 0;  ///< weight + scale + activation bytes touched per layer (mean)
  double gbps = 0;          ///< unique_bytes / us
  double pct = 0;           ///< gbps / ceiling
  std::string timeline;     ///< (--timeline, pairs) the last layer's CTA stamps, summarized per replay
};

struct BenchResult {
  std::string device;
  std::string tune;         ///< MOEGEMV_TUNE of the run ("" = default kernel configs)
  std::uint64_t seed = 0;   ///< BenchConfig::seed (0: fresh)
  double settle_ms = 0;     ///< BenchConfig::settle_ms
  double ceiling_gbps = 0;  ///< streaming read over >= 2 GiB, same run
  double ceiling_bytes = 0;
  std::vector<BenchRow> rows;
};

/// Runs on the current context's device; `report` is called as each row is measured.
BenchResult run_bench(const BenchConfig& config, CUstream stream,
                      const std::function<void(const BenchRow&)>& report);

struct Timing {
  double median_ms, spread_ms;   ///< per replay: median and (max - min) over batches
  std::vector<double> batch_ms;  ///< per replay, each batch in run order
};

/// `batches` timed batches of `replays` graph launches each, after 3 warm-up launches and, where
/// settle_ms > 0, about that many ms of launches back to back (BenchConfig::settle_ms).
Timing time_graph(const driver::GraphExec& graph, CUstream stream, int batches, int replays,
                  double settle_ms = 0);

/// The median over `batches` of the ms that `launches` calls of `launch` (each enqueueing one
/// kernel on `stream`) take back to back, event-timed, after `warmups` untimed calls.
double median_batch_ms(CUstream stream, const std::function<void()>& launch, int warmups,
                       int batches, int launches);

/// A diagnostic kernel source (stream_read, tile_read, hot_read) compiled for the current device.
driver::Module compile_diagnostic(std::string (*source)(const std::string&), const char* name);

/// Median GB/s of a read-only kernel over `bytes` (16-byte loads, evict-first).
double measure_stream_read(std::size_t bytes, CUstream stream);

/// Diagnostic (`bench --patterns`): GB/s of reading ~2 GiB laid out as rows of `row_bytes` with
/// the GEMV tiles' access pattern (templates/tile_read.cuh). Its kernels are compiled and the data
/// allocated once, for all the measurements of one run.
class TileReadBench {
 public:
  explicit TileReadBench(CUstream stream);
  /// `chunk` (64, 128 or 256) bytes per row per warp step, `rounds` x 4 synthetic instructions of
  /// kind `work` per 16-byte load (the kernels jit::tile_read_source() holds); `ctas_per_sm` > 0
  /// caps residency with unused shared memory (5: the classic gate_up's 20 warps).
  double gbps(int row_bytes, int chunk, int rounds, int work, int ctas_per_sm);
  /// GB/s of reads of `bytes` per launch, 20 launches back to back on successive cold slices of
  /// the 2 GiB buffer (timed together, median of 5 batches): the grid-stride streaming read
  /// (`tiles` false) or the tile pattern, one CTA per 16 rows of 3584 bytes, 128 bytes per row
  /// per step. Shows what launch, ramp-up and tail cost a kernel of one layer's size.
  double sized_gbps(std::size_t bytes, bool tiles);

 private:
  CUstream stream_;
  driver::Module module_, stream_module_;
  driver::DeviceBuffer data_, sink_;
};

std::string to_json(const BenchResult& result);
std::string to_table(const BenchResult& result);

}  // namespace moegemv::harness
