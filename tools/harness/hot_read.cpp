#include "tools/harness/hot_read.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/memory.hpp"
#include "runtime/module.hpp"
#include "templates/params.h"
#include "tools/harness/bench.hpp"

namespace moegemv::harness {

namespace {

constexpr std::size_t kColdBytes = std::size_t{2} << 30;

// Qwen3-Next at M = 1 (H 2048, I = SI = 512, K 10): gate_up's routed-and-shared grid of 704 CTAs
// of 4 warps, each with x (4 KB) and ~9 KB of weights and scales; the down's 256 CTAs of 11 warps
// (one per segment), each staging its token's act and sact (11 KB) after the PDL wait, its
// weights already in shared memory (so none cold here).
std::vector<HotReadCase> hot_read_cases() {
  return {{"qwen3-next gate_up M=1: x 4 KB + 9 KB weights per CTA", 704, 128, 4096, 9216},
          {"qwen3-next gate_up M=1: x 4 KB alone", 704, 128, 4096, 0},
          {"qwen3-next down M=1: act 11 KB alone", 256, 352, 11264, 0}};
}

double time_case(CUfunction f, const HotReadCase& c, int copies, int cluster,
                 const driver::DeviceBuffer& hot, const driver::DeviceBuffer& cold,
                 const driver::DeviceBuffer& sink, CUstream stream) {
  constexpr int kLaunches = 20, kBatches = 5, kWarmups = 3;
  const std::size_t cold_per_launch = static_cast<std::size_t>(c.ctas) * c.cold_bytes;
  const std::size_t slots = cold_per_launch ? kColdBytes / cold_per_launch : 1;
  std::size_t slot = 0;
  driver::LaunchConfig config;
  config.grid[0] = static_cast<unsigned>(c.ctas);
  config.block[0] = static_cast<unsigned>(c.threads);
  config.smem_bytes = static_cast<unsigned>(c.hot_bytes);
  config.cluster = static_cast<unsigned>(cluster);
  auto launch_next = [&] {
    const CUdeviceptr cold_slice = cold.ptr() + (slot++ % slots) * cold_per_launch;
    HotReadParams p{reinterpret_cast<const void*>(hot.ptr()),
                    reinterpret_cast<const void*>(cold_slice),
                    static_cast<unsigned>(c.hot_bytes / 16), static_cast<unsigned>(copies),
                    static_cast<unsigned>(c.cold_bytes / 16),
                    reinterpret_cast<unsigned int*>(sink.ptr())};
    driver::launch(f, config, stream, &p);
  };
  return median_batch_ms(stream, launch_next, kWarmups, kBatches, kLaunches) * 1e3 / kLaunches;
}

}  // namespace

std::vector<HotReadRow> measure_hot_reads(CUstream stream) {
  driver::Module module = compile_diagnostic(jit::hot_read_source, "hot_read");
  CUfunction f = module.function(jit::kHotReadKernel);
  CUfunction shared = module.function((std::string(jit::kHotReadKernel) + "_cluster").c_str());
  const auto cases = hot_read_cases();
  std::size_t hot_bytes = 0;
  for (const auto& c : cases) {
    if (c.hot_bytes % 16 || c.hot_bytes == 0 || c.hot_bytes > 48 * 1024 || c.cold_bytes % 16)
      throw ArgumentError("hot_read case", "hot bytes 16..48 KiB and cold bytes in 16-byte groups",
                          c.what);
    hot_bytes = std::max(hot_bytes, static_cast<std::size_t>(c.ctas) * c.hot_bytes);
  }
  driver::DeviceBuffer hot(hot_bytes), cold(kColdBytes), sink(4);
  hot.fill_u16(0x3C01, stream);  // not zeros
  cold.fill_u16(0x3C01, stream);
  std::vector<HotReadRow> rows;
  for (const auto& c : cases) {
    for (int copies : {c.ctas, 64, 8, 2, 1})
      rows.push_back({c, copies, 1, time_case(f, c, copies, 1, hot, cold, sink, stream)});
    for (int cluster : {2, 4, 8})
      rows.push_back({c, 1, cluster, time_case(shared, c, 1, cluster, hot, cold, sink, stream)});
    // The cluster's own cost (its stores and barrier, on distinct lines), then the first row
    // again: how far two timings of one form lie apart.
    rows.push_back({c, c.ctas, 4, time_case(shared, c, c.ctas, 4, hot, cold, sink, stream)});
    rows.push_back({c, c.ctas, 1, time_case(f, c, c.ctas, 1, hot, cold, sink, stream)});
  }
  return rows;
}

std::string hot_read_table(const std::vector<HotReadRow>& rows) {
  std::string out =
      "shared activation lines (us per launch, 20 back to back; against one copy per CTA)\n";
  double own = 0;
  const HotReadCase* shape = nullptr;
  for (const auto& r : rows) {
    if (shape == nullptr || r.shape.what != shape->what) {  // a shape's first row: one copy per CTA
      shape = &r.shape;
      own = r.us;
      out += fmt::format("{} ({} CTAs x {} threads)\n", r.shape.what, r.shape.ctas,
                         r.shape.threads);
    }
    const bool each = r.copies == r.shape.ctas;
    const std::string copies =
        each ? std::string("one copy per CTA")
             : fmt::format("{} {}", r.copies, r.copies == 1 ? "copy" : "copies");
    const std::string read =
        r.cluster > 1 ? fmt::format("{}, one read per cluster of {}", copies, r.cluster) : copies;
    out += fmt::format("  {:<48} {:6.2f} us ({:+.2f})\n", read, r.us, r.us - own);
  }
  return out;
}

}  // namespace moegemv::harness
