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

}  // namespace

Key gate_up_key(const GateUpArgs& args) { return detail::validate(args).key; }
Key down_combine_key(const DownCombineArgs& args) { return detail::validate(args).key; }

void gate_up(const GateUpArgs& args, CUstream stream, const LaunchOptions& options) {
  auto launch = detail::validate(args);
  auto kernel = detail::kernel_for(launch.key, driver::stream_is_capturing(stream));
  const Key& k = launch.key;
  const int m = launch.params.m;
  const bool single = m == 1 && kernel->single_token;
  const CUfunction f = single ? kernel->single_token : kernel->function;
  int ctas = 0;
  if (kernel->x_slots > 0) {
    ctas = std::min(gate_up_stream_units(m, k.k, k.i, k.si, kernel->x_slots), kernel->persistent_ctas);
  } else {
    const int routed = gate_up_routed_ctas(m, k.k, k.i), shared = gate_up_shared_ctas(m, k.si);
    // The tail's tiles run as two half-tile CTAs each (templates/gate_up.cuh).
    launch.params.tail = gate_up_tail_tiles(
        routed, shared, single ? kernel->single_token_resident_ctas : kernel->resident_ctas);
    ctas = routed + shared + launch.params.tail;
  }
  driver::launch(f, config(*kernel, ctas, options.pdl), stream, &launch.params);
}

void down_combine(const DownCombineArgs& args, CUstream stream, const LaunchOptions& options) {
  auto launch = detail::validate(args);
  auto kernel = detail::kernel_for(launch.key, driver::stream_is_capturing(stream));
  const int units = down_ctas(launch.params.m, launch.key.h, kernel->tile_rows);
  const int ctas = kernel->persistent_ctas > 0 ? std::min(units, kernel->persistent_ctas) : units;
  driver::launch(kernel->function, config(*kernel, ctas, options.pdl), stream, &launch.params);
}

void prepare(const Key& key) {
  key.validate();
  detail::kernel_for(key, false);
}

void add_bundle(const std::string& path) { detail::store().add_bundle(path); }

const char* version() { return "0.1.0"; }

}  // namespace moegemv
