#include <spdlog/spdlog.h>

#include <algorithm>

#include "jit/codegen.hpp"
#include "moegemv/moegemv.hpp"
#include "runtime/launch.hpp"
#include "runtime/registry.hpp"
#include "runtime/validate.hpp"

namespace moegemv {

namespace {

driver::LaunchConfig config(const detail::LoadedKernel& kernel, unsigned ctas, bool pdl) {
  driver::LaunchConfig c;
  c.grid[0] = ctas;
  c.block[0] = static_cast<unsigned>(32 * kernel.warps);
  c.smem_bytes = static_cast<unsigned>(kernel.smem_bytes);
  c.pdl = pdl;
  return c;
}

void launch_gate_up(detail::GateUpLaunch launch, const detail::LoadedKernel& kernel,
                    CUstream stream, bool pdl) {
  const Key& k = launch.key;
  const int m = launch.params.m;
  const int ctas = kernel.x_slots > 0
                       ? std::min(gate_up_stream_units(m, k.k, k.i, k.si, kernel.x_slots),
                                  kernel.persistent_ctas)
                       : gate_up_routed_ctas(m, k.k, k.i) + gate_up_shared_ctas(m, k.si);
  const CUfunction f = m == 1 && kernel.single_token ? kernel.single_token : kernel.function;
  driver::launch(f, config(kernel, ctas, pdl), stream, &launch.params);
}

void launch_down(detail::DownLaunch launch, const detail::LoadedKernel& kernel,
                 CUstream stream, bool pdl) {
  const int units = down_ctas(launch.params.m, launch.key.h, kernel.tile_rows);
  const int ctas = kernel.persistent_ctas > 0 ? std::min(units, kernel.persistent_ctas) : units;
  driver::launch(kernel.function, config(kernel, ctas, pdl), stream, &launch.params);
}

}  // namespace

Key gate_up_key(const GateUpArgs& args) { return detail::validate(args).key; }
Key down_combine_key(const DownCombineArgs& args) { return detail::validate(args).key; }

void gate_up(const GateUpArgs& args, CUstream stream, const LaunchOptions& options) {
  const auto launch = detail::validate(args);
  const auto kernel = detail::kernel_for(launch.key, driver::stream_is_capturing(stream));
  launch_gate_up(launch, *kernel, stream, options.pdl);
}

void down_combine(const DownCombineArgs& args, CUstream stream, const LaunchOptions& options) {
  const auto launch = detail::validate(args);
  const auto kernel = detail::kernel_for(launch.key, driver::stream_is_capturing(stream));
  launch_down(launch, *kernel, stream, options.pdl);
}

void moe_block(const GateUpArgs& gu, const DownCombineArgs& dc, const Tensor& sync, CUstream stream,
               const LaunchOptions& options) {
  auto gu_launch = detail::validate(gu);
  auto dc_launch = detail::validate(dc);
  unsigned int* counters = detail::validate_block(gu_launch, dc_launch, gu, dc, sync);
  const bool capturing = driver::stream_is_capturing(stream);
  const auto gu_kernel = detail::kernel_for(gu_launch.key, capturing);
  const auto dc_kernel = detail::kernel_for(dc_launch.key, capturing);
  // Both sides or neither: a gate_up that counts for a down that never clears would leave the
  // counters wrong for the next block; without them the pair is gate_up() then down_combine().
  if (gu_kernel->pair_sync && dc_kernel->pair_sync) {
    gu_launch.params.sync = counters;
    dc_launch.params.sync = counters;
  }
  launch_gate_up(gu_launch, *gu_kernel, stream, options.pdl);
  launch_down(dc_launch, *dc_kernel, stream, options.pdl);
}

std::int64_t moe_block_sync_words(int m, int k) {
  if (m < 1) throw ArgumentError("m", ">= 1", std::to_string(m));
  if (k < 1) throw ArgumentError("k", ">= 1", std::to_string(k));
  return pair_sync_words(m, k);
}

void prepare(const Key& key) {
  key.validate();
  detail::kernel_for(key, false);
}

void add_bundle(const std::string& path) { detail::store().add_bundle(path); }

const char* version() { return "0.1.0"; }

}  // namespace moegemv
