#include <spdlog/spdlog.h>

#include <algorithm>

#include "jit/codegen.hpp"
#include "moegemv/moegemv.hpp"
#include "runtime/launch.hpp"
#include "runtime/registry.hpp"
#include "runtime/validate.hpp"
#include "templates/down_group_params.h"

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
  if (m > kGateUpDpreMaxM) {  // the down-weight hint is used at M = 1 only (defaults.h, v62)
    launch.params.dw2 = launch.params.dw2_sf = nullptr;
    launch.params.dwsd = launch.params.dssd = nullptr;
  }
  const bool many = kernel->many_token != nullptr && gate_up_two_tiles(m, k.k, kernel->many_token_min_m);
  const int ctas = kernel->x_slots > 0
                       ? std::min(gate_up_stream_units(m, k.k, k.i, k.si, kernel->x_slots),
                                  kernel->persistent_ctas)
                       : gate_up_routed_ctas(m, k.k, k.i, many ? 2 : 1) + gate_up_shared_ctas(m, k.si);
  const bool single = !many && m == 1 && kernel->single_token;
  const CUfunction f = many ? kernel->many_token : single ? kernel->single_token : kernel->function;
  driver::LaunchConfig c = config(*kernel, ctas, options.pdl);
  if (single) c.block[0] = static_cast<unsigned>(32 * kernel->single_token_warps);
  driver::launch(f, c, stream, &launch.params);
}

void down_combine(const DownCombineArgs& args, CUstream stream, const LaunchOptions& options) {
  auto launch = detail::validate(args);
  auto kernel = detail::kernel_for(launch.key, driver::stream_is_capturing(stream));
  const int m = launch.params.m;
  if (kernel->group != nullptr && m >= kernel->group_min_m && m <= kDownGroupMaxM) {
    driver::LaunchConfig c = config(*kernel, static_cast<unsigned>(kernel->group_ctas), options.pdl);
    c.block[0] = static_cast<unsigned>(32 * kernel->group_warps);
    c.smem_bytes = static_cast<unsigned>(kernel->group_smem_bytes);
    driver::launch(kernel->group, c, stream, &launch.params);
    return;
  }
  if (m == 1 && kernel->single_token_cluster > 1) {  // dc_cluster's M = 1 kernel
    const auto ctas = static_cast<unsigned>(kernel->single_token_ctas);
    driver::LaunchConfig c = config(*kernel, ctas, options.pdl);
    c.cluster = static_cast<unsigned>(kernel->single_token_cluster);
    driver::launch(kernel->single_token, c, stream, &launch.params);
    return;
  }
  const int units = down_ctas(m, launch.key.h, kernel->tile_rows);
  const int ctas = kernel->persistent_ctas > 0 ? std::min(units, kernel->persistent_ctas) : units;
  driver::launch(kernel->function, config(*kernel, ctas, options.pdl), stream, &launch.params);
}

void prepare(const Key& key) {
  key.validate();
  detail::kernel_for(key, false);
}

void add_bundle(const std::string& path) { detail::store().add_bundle(path); }

const char* version() { return MOEGEMV_VERSION; }  // CMake's PROJECT_VERSION

}  // namespace moegemv
