#include "jit/nvrtc.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>

#include "jit/log.hpp"
#include "jit/templates.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::jit {

namespace {

class Program {
 public:
  Program(const std::string& source, const std::string& name) {
    std::vector<const char*> headers, names;
    for (const auto& file : embedded_templates()) {
      headers.push_back(file.content);
      names.push_back(file.name);
    }
    check(nvrtcCreateProgram(&prog_, source.c_str(), (name + ".cu").c_str(),
                             static_cast<int>(headers.size()), headers.data(), names.data()),
          "nvrtcCreateProgram");
  }
  ~Program() {
    if (prog_ && nvrtcDestroyProgram(&prog_) != NVRTC_SUCCESS)
      logger()->warn("moegemv: nvrtcDestroyProgram failed");
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(prog_, &size) != NVRTC_SUCCESS || size <= 1) return {};
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog_, log.data());
    log.resize(size - 1);
    return log;
  }

  static void check(nvrtcResult result, const char* call) {
    if (result != NVRTC_SUCCESS)
      throw CudaError(call, static_cast<int>(result), nvrtcGetErrorString(result),
                      "NVRTC API call failed");
  }

 private:
  nvrtcProgram prog_ = nullptr;
};

}  // namespace

CompileOutput compile(const std::string& source, const std::string& what, const std::string& arch,
                      const std::vector<std::string>& options) {
  const auto t0 = std::chrono::steady_clock::now();
  Program program(source, what);
  std::vector<const char*> argv;
  for (const auto& option : options) argv.push_back(option.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  CompileOutput out;
  out.log = program.log();
  if (result != NVRTC_SUCCESS) throw CompileError(what, arch, options, out.log);
  std::size_t size = 0;
  Program::check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  Program::check(nvrtcGetCUBIN(program.get(), reinterpret_cast<char*>(out.cubin.data())),
                 "nvrtcGetCUBIN");
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> supported_archs() {
  int n = 0;
  nvrtcGetNumSupportedArchs(&n);
  std::vector<int> archs(n);
  nvrtcGetSupportedArchs(archs.data());
  std::vector<std::string> out;
  for (int a : archs) out.push_back(fmt::format("sm_{}", a));
  return out;
}

void check_arch_supported(const std::string& arch) {
  std::string base = arch;
  if (!base.empty() && base.back() == 'a') base.pop_back();
  auto archs = supported_archs();
  if (std::find(archs.begin(), archs.end(), base) == archs.end())
    throw ArgumentError("arch", fmt::format("an arch this NVRTC ({}) supports: {}", nvrtc_version(),
                                            fmt::join(archs, ", ")),
                        arch);
}

}  // namespace moegemv::jit
