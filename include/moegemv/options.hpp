#pragma once
// All MOEGEMV_* environment variables, read once into one struct.
#include <string>
#include <vector>

namespace moegemv {

struct Options {
  std::string cache_dir;             ///< MOEGEMV_CACHE_DIR, else $XDG_CACHE_HOME/moegemv, else ~/.cache/moegemv
  std::vector<std::string> bundles;  ///< MOEGEMV_BUNDLE, ':'-separated
  bool disable_jit = false;          ///< MOEGEMV_DISABLE_JIT=1: a miss is an error
  std::string log_level = "warn";    ///< MOEGEMV_LOG_LEVEL: trace|debug|info|warn|error|off
  /// MOEGEMV_TUNE: kernel-config override for experiments, e.g. "gu_warps=8,dc_direct=1"
  /// (keys gu_/dc_ + warps|pipe|direct|minb). Part of the generated source, so of the cache key.
  std::string tune;

  /// Reads the environment now (tests use this to build variants).
  static Options from_env();
  /// The process-wide options, read from the environment on first use.
  static const Options& global();
};

}  // namespace moegemv
