// dc_cluster=C (session 44): the streaming down's module gets a second kernel for M = 1 whose
// CTAs share the token's act rows over thread-block clusters of C (templates/down_cluster_act.cuh).
// The launcher takes it at M = 1 only, in clusters of C (runtime/api.cpp).
#include <fmt/format.h>

#include "jit/codegen.hpp"
#include "jit/render.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

namespace {

constexpr const char* kClusterDown = R"(
extern "C" __global__ void {{bounds}}
{{name}}(const __grid_constant__ moegemv::DownParams p) {
{{scope}}  moegemv::down_stream<{{h}}, {{i}}, {{si}}, {{k}}, {{chunks}}, {{pipe}}, {{cluster}}>(p);
}
)";

}  // namespace

bool has_cluster_kernel(const KernelConfig& config) { return config.stream && config.cluster > 1; }

void check_down_cluster(const Key& key, const KernelConfig& config, const std::string& tune) {
  if (config.cluster <= 1) return;
  if (!config.stream || config.wstage == 0)
    throw ArgumentError(
        "MOEGEMV_TUNE",
        "dc_cluster=2..8 on the streaming down with per-warp act staging (dc_wstage 1 or 2)",
        fmt::format("{} for {} (stream={}, wstage={})", tune, key.str(), config.stream,
                    config.wstage));
}

std::string cluster_kernel_source(const Key& key, const KernelConfig& config,
                                  const std::map<std::string, std::string>& values) {
  std::map<std::string, std::string> used = {{"name", single_token_kernel_name(key)},
                                              {"cluster", std::to_string(config.cluster)}};
  for (const char* name : {"bounds", "scope", "h", "i", "si", "k", "chunks", "pipe"})
    used[name] = values.at(name);
  return render(kClusterDown, used);
}

}  // namespace moegemv::jit
