#include "moegemv/options.hpp"

#include <cstdlib>

namespace moegemv {

namespace {
std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
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
      options.cache_dir = "/tmp/moegemv-cache";
    }
  }
  std::string bundles = env("MOEGEMV_BUNDLE");
  for (std::size_t start = 0; start <= bundles.size();) {
    std::size_t end = bundles.find(':', start);
    if (end == std::string::npos) end = bundles.size();
    if (end > start) options.bundles.push_back(bundles.substr(start, end - start));
    start = end + 1;
  }
  std::string jit = env("MOEGEMV_DISABLE_JIT");
  options.disable_jit = !jit.empty() && jit != "0";
  options.tune = env("MOEGEMV_TUNE");
  std::string level = env("MOEGEMV_LOG_LEVEL");
  if (!level.empty()) options.log_level = level;
  return options;
}

const Options& Options::global() {
  static const Options options = from_env();
  return options;
}

}  // namespace moegemv
