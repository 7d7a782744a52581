// `moegemv info`: versions, cache, bundles and the GPU; the first thing to paste into a bug report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cache/bundle.hpp"
#include "cache/store.hpp"
#include "jit/nvrtc.hpp"
#include "jit/nvrtc_api.hpp"
#include "jit/templates.hpp"
#include "moegemv/moegemv.hpp"
#include "moegemv/options.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"

namespace moegemv::cli {

namespace {

nlohmann::ordered_json bundles_info(const Options& options) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& path : options.bundles) {
    try {
      const auto bundle = cache::Bundle::open(path);
      std::size_t current = 0;
      for (const auto& e : bundle.entries()) current += bundle_entry_unusable(bundle, e).empty();
      out.push_back({{"path", path},
                     {"format_version", bundle.format_version()},
                     {"entries", bundle.entries().size()},
                     {"current_entries", current}});
    } catch (const std::exception& e) {
      out.push_back({{"path", path}, {"error", e.what()}});
    }
  }
  return out;
}

nlohmann::ordered_json driver_info() {
  if (!driver::available()) return {{"available", false}, {"reason", driver::unavailable_reason()}};
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  const int count = driver::device_count();
  for (int d = 0; d < count; ++d) {
    const auto info = driver::device_info(d);
    devices.push_back({{"ordinal", d},
                       {"name", info.name},
                       {"arch", info.arch()},
                       {"sms", info.sm_count},
                       {"memory_bytes", info.total_mem}});
  }
  return {{"available", true},
          {"version", driver::api().driver_version},
          {"devices", std::move(devices)}};
}

nlohmann::ordered_json collect() {
  const Options& options = Options::global();
  Options disk_only = options;
  disk_only.bundles.clear();  // reported below, each with its own error
  // Looked at, not opened: info must not create the cache directory.
  const std::string root = cache::disk_root_path(disk_only);
  std::error_code ec;
  const bool exists = !root.empty() && std::filesystem::is_directory(root, ec);
  const bool writable =
      exists ? cache::CubinStore(disk_only).writable() : !root.empty() && cache::could_create(root);
  std::string nvrtc_error;
  const jit::NvrtcApi* nvrtc = jit::nvrtc_api_or_null(&nvrtc_error);
  return {{"moegemv", version()},
          {"nvrtc", jit::nvrtc_version()},
          {"nvrtc_library", nvrtc != nullptr ? nvrtc->path : ""},
          {"nvrtc_error", nvrtc_error},
          {"nvrtc_archs", jit::supported_archs()},
          {"template_hash", jit::templates_hash()},
          {"cache_root", root},
          {"cache_exists", exists},
          {"cache_writable", writable},
          {"disable_jit", options.disable_jit},
          {"bundles", bundles_info(options)},
          {"driver", driver_info()}};
}

void print_text(const nlohmann::ordered_json& info) {
  fmt::print("moegemv        {}\n", info["moegemv"].get<std::string>());
  if (info["nvrtc_library"].get<std::string>().empty()) {
    fmt::print("NVRTC          none: {} (kernels come from bundles only)\n",
               info["nvrtc_error"].get<std::string>());
  } else {
    fmt::print("NVRTC          {} from {} (archs: {})\n", info["nvrtc"].get<std::string>(),
               info["nvrtc_library"].get<std::string>(),
               fmt::join(info["nvrtc_archs"].get<std::vector<std::string>>(), " "));
  }
  fmt::print("template hash  {}\n", info["template_hash"].get<std::string>());
  fmt::print("cache          {} ({}{})\n", info["cache_root"].get<std::string>(),
             info["cache_exists"].get<bool>() ? "" : "not created yet, ",
             info["cache_writable"].get<bool>() ? "writable" : "read-only: memory-only");
  if (info["disable_jit"].get<bool>())
    fmt::print("JIT            disabled (MOEGEMV_DISABLE_JIT)\n");
  if (info["bundles"].empty()) fmt::print("bundles        none (MOEGEMV_BUNDLE unset)\n");
  for (const auto& b : info["bundles"]) {
    if (b.contains("error")) {
      fmt::print("bundle         {}: {}\n", b["path"].get<std::string>(),
                 b["error"].get<std::string>());
    } else {
      fmt::print("bundle         {}: format v{}, {} entries ({} usable by this build)\n",
                 b["path"].get<std::string>(), b["format_version"].get<int>(),
                 b["entries"].get<std::size_t>(), b["current_entries"].get<std::size_t>());
    }
  }
  const auto& drv = info["driver"];
  if (!drv["available"].get<bool>()) {
    fmt::print("driver         none usable: {}\n", drv["reason"].get<std::string>());
    return;
  }
  const int version = drv["version"].get<int>();
  fmt::print("driver         CUDA {}.{}\n", version / 1000, version % 1000 / 10);
  for (const auto& d : drv["devices"]) {
    fmt::print("GPU {}          {} ({}, {} SMs, {:.1f} GiB)\n", d["ordinal"].get<int>(),
               d["name"].get<std::string>(), d["arch"].get<std::string>(), d["sms"].get<int>(),
               d["memory_bytes"].get<double>() / (1 << 30));
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("info", "Versions, cache, bundles and GPUs");
  cmd->add_flag("--json", *json, "print JSON");
  cmd->callback([json] {
    const auto info = collect();
    if (*json) {
      fmt::print("{}\n", info.dump(2));
    } else {
      print_text(info);
    }
  });
}

}  // namespace moegemv::cli
