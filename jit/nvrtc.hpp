#pragma once
// NVRTC: generated source -> cubin. The program handle is owned by an RAII type; the log is
// always captured; a failure throws CompileError carrying key, arch, options and log, and a
// compile without a loadable NVRTC throws JitDisabledError saying what was tried.
#include <cstdint>
#include <string>
#include <vector>

namespace moegemv::jit {

struct CompileOutput {
  std::vector<std::uint8_t> cubin;
  std::string log;  ///< NVRTC + ptxas log (registers, spills) even on success
  double ms = 0;
};

/// Compiles `source` (which includes the embedded templates by name) for `arch`. `what` names
/// the kernel in errors (the key string).
CompileOutput compile(const std::string& source, const std::string& what, const std::string& arch,
                      const std::vector<std::string>& options);

/// What nvrtc_version() says when NVRTC cannot be loaded: no cache entry or bundle entry is
/// built by it, so every lookup by this process's exact identity misses (bundles then serve by
/// source, see cache::serves).
inline constexpr const char* kNoNvrtc = "none";

/// "13.0", or kNoNvrtc.
std::string nvrtc_version();

/// The real archs NVRTC can target, e.g. {"sm_75", ..., "sm_90", "sm_100", ...}; empty without
/// NVRTC.
std::vector<std::string> supported_archs();

/// Throws ArgumentError unless NVRTC supports arch (an "a" suffix is checked on its base).
/// Without NVRTC there is nothing to check against: a compile then says NVRTC is missing.
void check_arch_supported(const std::string& arch);

}  // namespace moegemv::jit
