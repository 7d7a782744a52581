#include "moegemv/options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "moegemv/errors.hpp"

namespace moegemv {

namespace {
std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool parse_flag(const char* name, const std::string& value) {
  const std::string v = lower(value);
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return false;
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  throw ArgumentError(name, "1|true|yes|on or 0|false|no|off", "'" + value + "'");
}

// spdlog's names, and the common spellings of two of them; spdlog itself turns an unknown name
// into "off", which would hide every warning.
std::string parse_log_level(const std::string& value) {
  const std::string v = lower(value);
  if (v == "warning") return "warn";
  if (v == "error") return "err";
  for (const char* level : {"trace", "debug", "info", "warn", "err", "critical", "off"})
    if (v == level) return v;
  throw ArgumentError("MOEGEMV_LOG_LEVEL", "trace|debug|info|warn|error|critical|off",
                      "'" + value + "'");
}
}  // namespace

Options Options::from_env() {
  Options options;
  options.cache_dir = env("MOEGEMV_CACHE_DIR");
  if (options.cache_dir.empty()) {
    std::string xdg = env("XDG_CACHE_HOME");
    std::string home = env("HOME");
    if (!xdg.empty()) {
      options.cache_dir = xdg + "/moegemv";
    } else if (!home.empty()) {
      options.cache_dir = home + "/.cache/moegemv";
    } else {
      options.cache_dir = "/tmp/moegemv-cache-" + std::to_string(::geteuid());
      options.cache_dir_private = true;
    }
  }
  std::string bundles = env("MOEGEMV_BUNDLE");
  for (std::size_t start = 0; start <= bundles.size();) {
    std::size_t end = bundles.find(':', start);
    if (end == std::string::npos) end = bundles.size();
    if (end > start) options.bundles.push_back(bundles.substr(start, end - start));
    start = end + 1;
  }
  options.disable_jit = parse_flag("MOEGEMV_DISABLE_JIT", env("MOEGEMV_DISABLE_JIT"));
  options.tune = env("MOEGEMV_TUNE");
  options.nvrtc_library = env("MOEGEMV_NVRTC_LIBRARY");
  const std::string level = env("MOEGEMV_LOG_LEVEL");
  if (!level.empty()) options.log_level = parse_log_level(level);
  return options;
}

const Options& Options::global() {
  static const Options options = from_env();
  return options;
}

}  // namespace moegemv
