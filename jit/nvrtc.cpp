#include "jit/nvrtc.hpp"

#include <cuda.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "jit/log.hpp"
#include "jit/nvrtc_api.hpp"
#include "jit/templates.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

namespace {

// NVRTC itself, or the error that says why it cannot be had and what to do, naming the kernel.
const NvrtcApi& api_for(const std::string& what, const std::string& arch) {
  std::string why;
  if (const NvrtcApi* api = nvrtc_api_or_null(&why)) return *api;
  throw JitDisabledError(
      what, arch, fmt::format("compiling needs NVRTC, which could not be loaded ({})", why),
      fmt::format("install the CUDA toolkit's NVRTC (libnvrtc.so.{}) or point "
                  "MOEGEMV_NVRTC_LIBRARY at it, or serve this kernel from a bundle built where "
                  "NVRTC is (`moegemv bundle create`, MOEGEMV_BUNDLE=FILE)",
                  CUDA_VERSION / 1000));
}

class Program {
 public:
  Program(const NvrtcApi& api, const std::string& source, const std::string& name) : api_(api) {
    std::vector<const char*> headers, names;
    for (const auto& file : embedded_templates()) {
      headers.push_back(file.content);
      names.push_back(file.name);
    }
    check(api_.CreateProgram(&prog_, source.c_str(), (name + ".cu").c_str(),
                             static_cast<int>(headers.size()), headers.data(), names.data()),
          "nvrtcCreateProgram");
  }
  ~Program() {
    if (prog_ && api_.DestroyProgram(&prog_) != NVRTC_SUCCESS)
      logger()->warn("moegemv: nvrtcDestroyProgram failed");
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    std::size_t size = 0;
    if (api_.GetProgramLogSize(prog_, &size) != NVRTC_SUCCESS || size <= 1) return {};
    std::string log(size, '\0');
    api_.GetProgramLog(prog_, log.data());
    log.resize(size - 1);
    return log;
  }

  void check(nvrtcResult result, const char* call) const {
    if (result != NVRTC_SUCCESS)
      throw CudaError(call, static_cast<int>(result), api_.GetErrorString(result),
                      "NVRTC API call failed");
  }

 private:
  const NvrtcApi& api_;
  nvrtcProgram prog_ = nullptr;
};

}  // namespace

CompileOutput compile(const std::string& source, const std::string& what, const std::string& arch,
                      const std::vector<std::string>& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const NvrtcApi& api = api_for(what, arch);
  Program program(api, source, what);
  std::vector<const char*> argv;
  for (const auto& option : options) argv.push_back(option.c_str());
  const nvrtcResult result =
      api.CompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  CompileOutput out;
  out.log = program.log();
  if (result != NVRTC_SUCCESS) throw CompileError(what, arch, options, out.log);
  std::size_t size = 0;
  program.check(api.GetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  program.check(api.GetCUBIN(program.get(), reinterpret_cast<char*>(out.cubin.data())),
                 "nvrtcGetCUBIN");
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string nvrtc_version() {
  const NvrtcApi* api = nvrtc_api_or_null();
  return api != nullptr ? fmt::format("{}.{}", api->major, api->minor) : kNoNvrtc;
}

std::vector<std::string> supported_archs() {
  const NvrtcApi* api = nvrtc_api_or_null();
  if (api == nullptr) return {};
  int n = 0;
  api->GetNumSupportedArchs(&n);
  std::vector<int> archs(n);
  api->GetSupportedArchs(archs.data());
  std::vector<std::string> out;
  for (int a : archs) out.push_back(fmt::format("sm_{}", a));
  return out;
}

void check_arch_supported(const std::string& arch) {
  if (nvrtc_api_or_null() == nullptr) return;  // compiling reports that; a bundle needs no NVRTC
  std::string base = arch;
  if (!base.empty() && base.back() == 'a') base.pop_back();
  auto archs = supported_archs();
  if (std::find(archs.begin(), archs.end(), base) == archs.end())
    throw ArgumentError("arch", fmt::format("an arch this NVRTC ({}) supports: {}", nvrtc_version(),
                                            fmt::join(archs, ", ")),
                        arch);
}

}  // namespace moegemv::jit
