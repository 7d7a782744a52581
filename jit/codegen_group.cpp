// The grouped streaming down's instantiation (templates/down_group.cuh), appended to the streaming
// down's module when its config has `group` (jit/codegen.cpp).
#include <fmt/format.h>

#include "jit/codegen.hpp"
#include "jit/render.hpp"
#include "moegemv/errors.hpp"
#include "templates/down_group_params.h"

namespace moegemv::jit {

namespace {

constexpr const char* kGroupDown = R"(
#include "down_group.cuh"

extern "C" __global__ void __launch_bounds__({{threads}}, 1)
{{name}}(const __grid_constant__ moegemv::DownParams p) {
  moegemv::down_group<{{h}}, {{i}}, {{si}}, {{k}}, {{rings}}, {{chunks}}, {{lanes}}>(p);
}
)";

}  // namespace

std::string group_kernel_name(const Key& key) { return kernel_name(key) + "_group"; }

int group_rings(const Key& key, const KernelConfig& config) {
  const int fit = down_group_rings_max(key.h, key.i, key.si, key.k);
  if (fit == 0) return 0;
  if (config.rings == 0) return down_group_rings(key.h, key.i, key.si, key.k);
  if (config.rings > fit)
    throw ArgumentError("MOEGEMV_TUNE",
                        fmt::format("dc_rings <= {} on {} (shared memory at {} CTAs)", fit, key.str(),
                                    kDownGroupSizingCtas),
                        fmt::format("dc_rings={}", config.rings));
  return config.rings;
}

std::string group_kernel_source(const Key& key, const KernelConfig& config) {
  const int rings = group_rings(key, config);
  const int chunks = down_group_chunks(key.i, key.k);
  return render(kGroupDown, {{"threads", std::to_string(32 * (rings * chunks + 1))},
                             {"name", group_kernel_name(key)},
                             {"h", std::to_string(key.h)},
                             {"i", std::to_string(key.i)},
                             {"si", std::to_string(key.si)},
                             {"k", std::to_string(key.k)},
                             {"rings", std::to_string(rings)},
                             {"chunks", std::to_string(chunks)},
                             {"lanes", config.lanes || down_group_lanes_default(key.i) ? "true" : "false"}});
}

}  // namespace moegemv::jit
