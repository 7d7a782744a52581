#pragma once
// All MOEGEMV_* environment variables, read once into one struct.
#include <string>
#include <vector>

#include "moegemv/export.h"

namespace moegemv {

struct MOEGEMV_API Options {
  /// MOEGEMV_CACHE_DIR, else $XDG_CACHE_HOME/moegemv, else $HOME/.cache/moegemv, else
  /// /tmp/moegemv-cache-<euid> (cache_dir_private: used only if this user owns it and nobody
  /// else can write to it, since anyone can create a path in /tmp first).
  std::string cache_dir;
  bool cache_dir_private = false;
  std::vector<std::string> bundles;  ///< MOEGEMV_BUNDLE, ':'-separated
  bool disable_jit = false;  ///< MOEGEMV_DISABLE_JIT: 1|true|yes|on (0|false|no|off|empty: off)
  /// MOEGEMV_LOG_LEVEL: trace|debug|info|warn|error|critical|off (any case; "warning", "err" too).
  std::string log_level = "warn";
  /// MOEGEMV_TUNE: kernel-config override for experiments, e.g. "gu_warps=8,dc_direct=1"
  /// (keys gu_/dc_ + warps|pipe|direct|minb). Part of the generated source, so of the cache key.
  std::string tune;
  /// MOEGEMV_NVRTC_LIBRARY: the libnvrtc to open (a path, or a name for the loader's search);
  /// empty: libnvrtc.so.<major> from the search path, then from the build's toolkit. Opened at
  /// the first kernel lookup; without it, kernels come from bundles only.
  std::string nvrtc_library;

  /// Reads the environment now (tests use this to build variants). A value it cannot read
  /// (MOEGEMV_DISABLE_JIT, MOEGEMV_LOG_LEVEL) is an ArgumentError naming the variable.
  static Options from_env();
  /// The process-wide options, read from the environment on first use.
  static const Options& global();
};

}  // namespace moegemv
