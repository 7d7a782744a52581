#include "tools/harness/bench.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/moegemv.hpp"
#include "moegemv/options.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/launch.hpp"
#include "runtime/memory.hpp"
#include "runtime/module.hpp"
#include "runtime/registry.hpp"
#include "templates/params.h"
#include "tools/harness/check.hpp"
#include "tools/harness/timeline.hpp"
#include "tools/harness/device_layer.hpp"
#include "tools/harness/models.hpp"

namespace moegemv::harness {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

Timing time_graph(const driver::GraphExec& graph, CUstream stream, int batches, int replays,
                  double settle_ms) {
  for (int i = 0; i < 3; ++i) graph.launch(stream);
  if (settle_ms > 0) {  // one timed launch sizes the settling run, queued without a pause
    driver::Event start, end;
    start.record(stream);
    graph.launch(stream);
    end.record(stream);
    const double one_ms = std::max(static_cast<double>(driver::elapsed_ms(start, end)), 1e-3);
    const int launches = static_cast<int>(std::min(std::ceil(settle_ms / one_ms), 1e6));
    for (int i = 0; i < launches; ++i) graph.launch(stream);
  }
  std::vector<double> ms;
  for (int b = 0; b < batches; ++b) {
    driver::Event start, end;
    start.record(stream);
    for (int r = 0; r < replays; ++r) graph.launch(stream);
    end.record(stream);
    ms.push_back(driver::elapsed_ms(start, end) / replays);
  }
  auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  return {median(ms), *hi - *lo, ms};
}

namespace {

// Bytes of one expert's gate/up and down weights plus their swizzled scales.
struct ExpertBytes {
  double gate_up, down, shared_gate_up, shared_down;
};

ExpertBytes expert_bytes(const nvfp4::ModelShape& s) {
  auto scales = [](double rows, double cols) {
    return std::ceil(rows / 128) * 128 * std::ceil(cols / 16 / 4) * 4;
  };
  return {2.0 * s.I * s.H / 2 + scales(2.0 * s.I, s.H), 1.0 * s.H * s.I / 2 + scales(s.H, s.I),
          s.SI ? 2.0 * s.SI * s.H / 2 + scales(2.0 * s.SI, s.H) : 0,
          s.SI ? 1.0 * s.H * s.SI / 2 + scales(s.H, s.SI) : 0};
}

struct ModelRun {
  nvfp4::ModelShape shape;
  std::vector<std::unique_ptr<DeviceLayer>> layers;
};

}  // namespace

namespace {

// Median GB/s of `runs` launches of a read kernel after `warmups` untimed ones (event-timed).
double median_read_gbps(CUfunction f, const driver::LaunchConfig& c, CUstream stream, void* params,
                        std::size_t bytes_read, int warmups, int runs) {
  std::vector<double> gbps;
  for (int i = 0; i < warmups + runs; ++i) {
    driver::Event start, end;
    start.record(stream);
    driver::launch(f, c, stream, params);
    end.record(stream);
    const double ms = driver::elapsed_ms(start, end);
    if (i >= warmups) gbps.push_back(bytes_read / (ms * 1e6));
  }
  return median(gbps);
}

// The streaming-read kernel's grid: 4 CTAs of 512 threads per SM, grid-stride.
driver::LaunchConfig stream_read_config() {
  CUdevice device = 0;
  driver::check(driver::api().cuCtxGetDevice(&device), "cuCtxGetDevice");
  driver::LaunchConfig c;
  c.grid[0] = static_cast<unsigned>(driver::device_info(device).sm_count * 4);
  c.block[0] = 512;
  return c;
}

}  // namespace

double median_batch_ms(CUstream stream, const std::function<void()>& launch, int warmups,
                       int batches, int launches) {
  for (int i = 0; i < warmups; ++i) launch();
  std::vector<double> ms;
  for (int b = 0; b < batches; ++b) {
    driver::Event start, end;
    start.record(stream);
    for (int i = 0; i < launches; ++i) launch();
    end.record(stream);
    ms.push_back(driver::elapsed_ms(start, end));
  }
  return median(ms);
}

driver::Module compile_diagnostic(std::string (*source)(const std::string&), const char* name) {
  const std::string arch = detail::current_arch();
  auto compiled = jit::compile(source(arch), name, arch, jit::compile_options(arch));
  return driver::Module(compiled.cubin);
}

double measure_stream_read(std::size_t bytes, CUstream stream) {
  driver::Module module = compile_diagnostic(jit::stream_read_source, "stream_read");
  CUfunction f = module.function(jit::kStreamReadKernel);
  driver::DeviceBuffer data(bytes), sink(4);
  data.fill_u16(0x3C01, stream);  // not zeros
  StreamReadParams p{reinterpret_cast<const void*>(data.ptr()), bytes / 16,
                     reinterpret_cast<unsigned int*>(sink.ptr())};
  return median_read_gbps(f, stream_read_config(), stream, &p, bytes, 3, 10);
}

namespace {
constexpr std::size_t kTileReadBytes = std::size_t{2} << 30;
}  // namespace

TileReadBench::TileReadBench(CUstream stream)
    : stream_(stream), module_(compile_diagnostic(jit::tile_read_source, "tile_read")),
      stream_module_(compile_diagnostic(jit::stream_read_source, "stream_read")),
      data_(kTileReadBytes), sink_(4) {
  data_.fill_u16(0x3C01, stream_);
}

double TileReadBench::sized_gbps(std::size_t bytes, bool tiles) {
  constexpr int kLaunches = 20, kBatches = 5;
  constexpr std::size_t kRow = 3584, kTileBytes = 16 * kRow;
  if (tiles) bytes = bytes / kTileBytes * kTileBytes;
  if (bytes == 0 || bytes > kTileReadBytes / 2)
    throw ArgumentError("bytes", "1 tile .. 1 GiB", std::to_string(bytes));
  CUfunction f = tiles ? module_.function("moegemv_tile_read_128_0_0") : stream_module_.function(jit::kStreamReadKernel);
  driver::LaunchConfig c = stream_read_config();
  if (tiles) {  // one CTA of 4 warps per 16 rows
    c.grid[0] = static_cast<unsigned>(bytes / kTileBytes);
    c.block[0] = 128;
  }
  const std::size_t slots = (kTileReadBytes - bytes) / 256;
  std::size_t slot = 0;
  auto launch_next = [&] {
    const std::size_t offset = (slot * ((bytes + 255) / 256) % slots) * 256;  // successive, wrapping
    ++slot;
    StreamReadParams p{reinterpret_cast<const void*>(data_.ptr() + offset),
                       tiles ? static_cast<unsigned long long>(kRow) : bytes / 16,
                       reinterpret_cast<unsigned int*>(sink_.ptr())};
    driver::launch(f, c, stream_, &p);
  };
  const double ms = median_batch_ms(stream_, launch_next, 3, kBatches, kLaunches);
  return kLaunches * static_cast<double>(bytes) / (ms * 1e6);
}

double TileReadBench::gbps(int row_bytes, int chunk, int rounds, int work, int ctas_per_sm) {
  const std::string name = fmt::format("moegemv_tile_read_{}_{}_{}", chunk, rounds, work);
  CUfunction f = module_.function(name.c_str());
  const std::size_t tiles = kTileReadBytes / (16 * static_cast<std::size_t>(row_bytes));
  // Each of a tile's 4 warps reads whole steps of `chunk` bytes per row (tile_read.cuh); count
  // only what is read (rows of 3584 bytes in 256-byte steps leave 128 of each warp's 896 unread).
  const std::size_t read = tiles * 16 * 4 * (static_cast<std::size_t>(row_bytes) / 4 / chunk * chunk);
  StreamReadParams p{reinterpret_cast<const void*>(data_.ptr()), static_cast<unsigned long long>(row_bytes),
                     reinterpret_cast<unsigned int*>(sink_.ptr())};
  driver::LaunchConfig c;
  c.grid[0] = static_cast<unsigned>(tiles);
  c.block[0] = 128;
  if (ctas_per_sm > 0) c.smem_bytes = static_cast<unsigned>(std::min(48 * 1024, 228 * 1024 / (ctas_per_sm + 1) + 1024));
  return median_read_gbps(f, c, stream_, &p, read, 3, 5);
}

int bench_layers(double gate_up_touched, double down_touched, double l2_bytes, double layer_bytes,
                 double max_bytes, int requested) {
  int layers = requested;
  if (layers <= 0) {
    layers = static_cast<int>(std::ceil(4.0 * l2_bytes / std::min(gate_up_touched, down_touched)));
    layers = std::clamp(layers, kBenchMinLayers, kBenchMaxLayers);
  }
  return std::max(1, std::min(layers, static_cast<int>(max_bytes / layer_bytes)));
}

BenchResult run_bench(const BenchConfig& config, CUstream stream,
                      const std::function<void(const BenchRow&)>& report) {
  BenchResult result;
  CUdevice device = 0;
  driver::check(driver::api().cuCtxGetDevice(&device), "cuCtxGetDevice");
  const auto info = driver::device_info(device);
  result.device = fmt::format("{} ({}, {} SMs, {} MB L2)", info.name, info.arch(), info.sm_count,
                              info.l2_bytes >> 20);
  result.tune = Options::global().tune;
  result.seed = config.seed;
  result.settle_ms = config.settle_ms;
  result.ceiling_bytes = 4.0 * (1ull << 30);
  result.ceiling_gbps = measure_stream_read(static_cast<std::size_t>(result.ceiling_bytes), stream);

  for (const auto& name : config.models) {
    const ModelPreset preset = find_preset(name).with_tp(config.tp);
    nvfp4::ModelShape shape{preset.h, preset.i, preset.si, preset.k, preset.e};
    const ExpertBytes eb = expert_bytes(shape);
    const double layer_bytes = preset.e * (eb.gate_up + eb.down) + eb.shared_gate_up + eb.shared_down;
    const int layers =
        bench_layers(preset.k * eb.gate_up + eb.shared_gate_up, preset.k * eb.down + eb.shared_down,
                     static_cast<double>(info.l2_bytes), layer_bytes, config.max_gib * (1ull << 30),
                     config.layers);
    auto seed_of = [&](int m, int l) {
      return config.seed ? bench_seed(config.seed, name, m, l) : fresh_seed();
    };
    auto host = nvfp4::make_layer_fast(shape, seed_of(0, 0));
    ModelRun run{shape, {}};
    for (int l = 0; l < layers; ++l) run.layers.push_back(std::make_unique<DeviceLayer>(host));
    prepare(preset.keys()[0]);
    prepare(preset.keys()[1]);

    for (int m : config.ms) {
      std::vector<std::unique_ptr<DeviceStep>> steps;
      double gu_bytes = 0, down_bytes = 0;
      for (int l = 0; l < layers; ++l) {
        auto in = nvfp4::make_inputs(shape, m, seed_of(m, l));
        steps.push_back(std::make_unique<DeviceStep>(shape, m));
        steps.back()->upload(in);
        std::set<int> experts;
        for (int id : in.ids)
          if (id >= 0) experts.insert(id);
        const double act = 2.0 * m * preset.k * preset.i, sact = 2.0 * m * preset.si;
        gu_bytes += experts.size() * eb.gate_up + eb.shared_gate_up + 2.0 * m * preset.h + act + sact;
        down_bytes += experts.size() * eb.down + eb.shared_down + act + sact + 2.0 * m * preset.h;
      }
      gu_bytes /= layers;
      down_bytes /= layers;
      auto capture = [&](bool gu, bool down, bool pdl) {
        return driver::capture(stream, [&] {
          for (int l = 0; l < layers; ++l) {
            if (gu) gate_up(gate_up_args(*run.layers[l], *steps[l]), stream, LaunchOptions{pdl});
            if (down) down_combine(down_args(*run.layers[l], *steps[l]), stream, LaunchOptions{pdl});
          }
        });
      };
      struct Mode {
        const char* name;
        bool gu, down, pdl;
        double bytes;
      };
      const Mode modes[] = {{"gate_up", true, false, false, gu_bytes},
                            {"down", false, true, false, down_bytes},
                            {"pair_pdl", true, true, true, gu_bytes + down_bytes},
                            {"pair", true, true, false, gu_bytes + down_bytes}};
      for (const auto& mode : modes) {
        auto graph = capture(mode.gu, mode.down, mode.pdl);
        const Timing t =
            time_graph(graph, stream, config.batches, config.replays, config.settle_ms);
        BenchRow row;
        row.model = preset.name;
        row.m = m;
        row.mode = mode.name;
        row.layers = layers;
        row.us = t.median_ms * 1e3 / layers;
        row.us_spread = t.spread_ms * 1e3 / layers;
        for (double ms : t.batch_ms) row.batch_us.push_back(ms * 1e3 / layers);
        row.unique_bytes = mode.bytes;
        row.gbps = mode.bytes / (row.us * 1e3);
        row.pct = 100.0 * row.gbps / result.ceiling_gbps;
        if (config.timeline && mode.gu && mode.down) {  // more replays, stamped, one at a time
          const Key gu_key = preset.keys()[0], down_key = preset.keys()[1];
          for (int r = 0; r < config.timeline_replays; ++r) {
            clear_timeline(gu_key, stream);
            clear_timeline(down_key, stream);
            graph.launch(stream);
            driver::check(driver::api().cuStreamSynchronize(stream), "cuStreamSynchronize(timeline)");
            if (config.timeline_replays > 1)
              row.timeline += fmt::format("  replay {} of {}:\n", r + 1, config.timeline_replays);
            row.timeline += timeline_summary(read_timeline(gu_key), read_timeline(down_key));
          }
        }
        result.rows.push_back(row);
        report(row);
      }
    }
  }
  return result;
}

std::uint64_t bench_seed(std::uint64_t base, const std::string& model, int m, int layer) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : model) h = (h ^ c) * 0x100000001b3ull;
  auto mix = [](std::uint64_t z) {  // SplitMix64's finalizer
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::uint64_t z = mix(base + 0x9e3779b97f4a7c15ull);
  z = mix(z ^ h);
  z = mix(z ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(m)) << 32 |
               static_cast<std::uint32_t>(layer)));
  return z;
}

std::string to_json(const BenchResult& r) {
  nlohmann::json j;
  j["device"] = r.device;
  j["tune"] = r.tune;
  j["seed"] = r.seed;
  j["settle_ms"] = r.settle_ms;
  j["ceiling_gbps"] = r.ceiling_gbps;
  j["ceiling_bytes"] = r.ceiling_bytes;
  for (const auto& row : r.rows)
    j["rows"].push_back({{"model", row.model}, {"m", row.m}, {"mode", row.mode},
                         {"layers", row.layers}, {"us", row.us}, {"us_spread", row.us_spread},
                         {"batch_us", row.batch_us}, {"unique_bytes", row.unique_bytes},
                         {"gbps", row.gbps}, {"pct", row.pct}});
  return j.dump(1);
}

std::string to_table(const BenchResult& r) {
  std::string s = fmt::format(
      "device: {}\nkernel configs: {}\nseed: {}\n{}streaming-read ceiling: {:.0f} GB/s ({:.0f} GiB "
      "read)\n",
      r.device, r.tune.empty() ? "default" : "MOEGEMV_TUNE=" + r.tune,
      r.seed ? std::to_string(r.seed) : std::string("fresh"),
      r.settle_ms > 0 ? fmt::format("settled: {:.0f} ms of replays before each row\n", r.settle_ms)
                      : "",
      r.ceiling_gbps, r.ceiling_bytes / (1ull << 30));
  s += fmt::format("{:<18} {:>3} {:<9} {:>9} {:>7} {:>9} {:>7} {:>6}\n", "model", "M", "mode",
                   "us/layer", "spread", "MB", "GB/s", "%ceil");
  std::map<std::pair<std::string, int>, std::map<std::string, double>> us;
  for (const auto& row : r.rows) {
    s += fmt::format("{:<18} {:>3} {:<9} {:>9.2f} {:>7.2f} {:>9.1f} {:>7.0f} {:>5.1f}%\n", row.model,
                     row.m, row.mode, row.us, row.us_spread, row.unique_bytes / 1e6, row.gbps,
                     row.pct);
    us[{row.model, row.m}][row.mode] = row.us;
  }
  s += "PDL saving per layer (pair - pair_pdl):\n";
  for (const auto& [k, v] : us)
    if (v.count("pair") && v.count("pair_pdl"))
      s += fmt::format("  {:<18} M={:<3} {:6.2f} us\n", k.first, k.second,
                       v.at("pair") - v.at("pair_pdl"));
  return s;
}

}  // namespace moegemv::harness
