#include "jit/nvrtc_api.hpp"

#include <cuda.h>

#include <string>
#include <vector>

#include "jit/dynlib.hpp"
#include "jit/log.hpp"
#include "moegemv/options.hpp"

#ifndef MOEGEMV_NVRTC_DIR
#define MOEGEMV_NVRTC_DIR "/usr/local/cuda/lib64"
#endif

namespace moegemv::jit {

namespace {

struct Loaded {
  NvrtcApi api;
  bool ok = false;
  std::string why;  // what was tried, when !ok
};

std::vector<std::string> candidates(const Options& options) {
  if (!options.nvrtc_library.empty()) return {options.nvrtc_library};
  const std::string soname = "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000);
  return {soname, std::string(MOEGEMV_NVRTC_DIR) + "/" + soname};
}

// Resolves every entry point from `lib`; the name of the first missing one, or "".
std::string resolve(void* lib, NvrtcApi& api) {
  Symbols sym(lib);
  sym.bind(api.Version, "nvrtcVersion");
  sym.bind(api.GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  sym.bind(api.GetSupportedArchs, "nvrtcGetSupportedArchs");
  sym.bind(api.CreateProgram, "nvrtcCreateProgram");
  sym.bind(api.DestroyProgram, "nvrtcDestroyProgram");
  sym.bind(api.CompileProgram, "nvrtcCompileProgram");
  sym.bind(api.GetProgramLogSize, "nvrtcGetProgramLogSize");
  sym.bind(api.GetProgramLog, "nvrtcGetProgramLog");
  sym.bind(api.GetCUBINSize, "nvrtcGetCUBINSize");
  sym.bind(api.GetCUBIN, "nvrtcGetCUBIN");
  sym.bind(api.GetErrorString, "nvrtcGetErrorString");
  return sym.missing();
}

// Each candidate in turn: one that loads but lacks an entry point or fails nvrtcVersion is closed
// and the next one tried.
Loaded load(const Options& options) {
  Loaded out;
  std::string tried;
  for (const std::string& name : candidates(options)) {
    void* lib = open_first({name}, tried);
    if (lib == nullptr) continue;
    const std::string missing = resolve(lib, out.api);
    if (missing.empty() && out.api.Version(&out.api.major, &out.api.minor) == NVRTC_SUCCESS) {
      out.api.path = name;
      out.ok = true;
      // Kept open for the life of the process: programs may be alive in other threads' stacks.
      logger()->debug("moegemv: NVRTC {}.{} loaded from {}", out.api.major, out.api.minor, name);
      return out;
    }
    tried += (tried.empty() ? "" : "; ") + name + ": " +
             (missing.empty() ? "nvrtcVersion failed" : "lacks " + missing);
    dlclose(lib);
    out.api = NvrtcApi{};
  }
  out.why = tried;
  return out;
}

}  // namespace

const NvrtcApi* nvrtc_api_or_null(std::string* why) {
  static const Loaded loaded = load(Options::global());
  if (!loaded.ok && why != nullptr) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace moegemv::jit
