#include "jit/nvrtc_api.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <string>
#include <vector>

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
  std::string missing;
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  sym(api.Version, "nvrtcVersion");
  sym(api.GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  sym(api.GetSupportedArchs, "nvrtcGetSupportedArchs");
  sym(api.CreateProgram, "nvrtcCreateProgram");
  sym(api.DestroyProgram, "nvrtcDestroyProgram");
  sym(api.CompileProgram, "nvrtcCompileProgram");
  sym(api.GetProgramLogSize, "nvrtcGetProgramLogSize");
  sym(api.GetProgramLog, "nvrtcGetProgramLog");
  sym(api.GetCUBINSize, "nvrtcGetCUBINSize");
  sym(api.GetCUBIN, "nvrtcGetCUBIN");
  sym(api.GetErrorString, "nvrtcGetErrorString");
  return missing;
}

Loaded load(const Options& options) {
  Loaded out;
  std::string tried;
  for (const std::string& name : candidates(options)) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* error = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(error != nullptr ? error : name);
      continue;
    }
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
