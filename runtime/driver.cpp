#include "runtime/driver.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <exception>
#include <memory>
#include <type_traits>

#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::driver {
namespace {

// cuEventElapsedTime_v2 (12.8) kept the v1 signature; we take v2 where the driver has it.
static_assert(std::is_same_v<PFN_cuEventElapsedTime_v2000, PFN_cuEventElapsedTime_v12080>);
constexpr int kEventElapsedTimeV2 = 12080;
// cuGetProcAddress_v2 (with the symbolStatus out-parameter) is the entry point of CUDA 12.0.
constexpr const char* kGetProcAddress = "cuGetProcAddress_v2";
constexpr int kNotACuResult = -1;

struct Loaded {
  Api api;
  std::exception_ptr error;  // set when loading failed; rethrown by every api() call
  int device_count = 0;
};

struct DlCloser {
  void operator()(void* handle) const noexcept { dlclose(handle); }
};
using DlHandle = std::unique_ptr<void, DlCloser>;

class Resolver {
 public:
  explicit Resolver(PFN_cuGetProcAddress_v12000 get_proc) : get_proc_(get_proc) {}

  // `version` must be the NNNN of the PFN_<name>_vNNNN type of `out`: cuGetProcAddress returns
  // the newest ABI of `name` introduced at or before `version`, i.e. exactly that typedef's.
  template <typename Fn>
  void operator()(const char* name, int version, Fn& out) const {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    // Legacy default-stream semantics for stream 0: we never build per-thread-default-stream.
    const CUresult result =
        get_proc_(name, &fn, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
    if (result != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || fn == nullptr) {
      throw CudaError(fmt::format("cuGetProcAddress({}, {})", name, version),
                      result != CUDA_SUCCESS ? static_cast<int>(result) : kNotACuResult,
                      "CUDA_DRIVER_ENTRY_POINT_MISSING",
                      fmt::format("libcuda.so.1 has no ABI-{} version of {} (query status {}); "
                                  "the NVIDIA driver is too old for moegemv",
                                  version, name, static_cast<int>(status)));
    }
    out = reinterpret_cast<Fn>(fn);
  }

 private:
  PFN_cuGetProcAddress_v12000 get_proc_;
};

// `#name` is the unexpanded base name the driver knows; `api.name` may be renamed by a cuda.h
// macro (cuMemAlloc -> cuMemAlloc_v2), consistently with the member declaration.
#define MOEGEMV_RESOLVE(name, version) resolve(#name, version, api.name)

void resolve_all(const Resolver& resolve, Api& api) {
  MOEGEMV_RESOLVE(cuInit, 2000);
  MOEGEMV_RESOLVE(cuGetErrorName, 6000);
  MOEGEMV_RESOLVE(cuGetErrorString, 6000);
  MOEGEMV_RESOLVE(cuDeviceGet, 2000);
  MOEGEMV_RESOLVE(cuDeviceGetCount, 2000);
  MOEGEMV_RESOLVE(cuDeviceGetName, 2000);
  MOEGEMV_RESOLVE(cuDeviceGetAttribute, 2000);
  MOEGEMV_RESOLVE(cuDeviceTotalMem, 3020);
  MOEGEMV_RESOLVE(cuDevicePrimaryCtxRetain, 7000);
  MOEGEMV_RESOLVE(cuDevicePrimaryCtxRelease, 11000);
  MOEGEMV_RESOLVE(cuCtxSetCurrent, 4000);
  MOEGEMV_RESOLVE(cuCtxGetCurrent, 4000);
  MOEGEMV_RESOLVE(cuCtxGetDevice, 2000);
  MOEGEMV_RESOLVE(cuCtxSynchronize, 2000);
  MOEGEMV_RESOLVE(cuModuleLoadData, 2000);
  MOEGEMV_RESOLVE(cuModuleUnload, 2000);
  MOEGEMV_RESOLVE(cuModuleGetFunction, 2000);
  MOEGEMV_RESOLVE(cuModuleGetGlobal, 3020);
  MOEGEMV_RESOLVE(cuFuncSetAttribute, 9000);
  MOEGEMV_RESOLVE(cuFuncGetAttribute, 2020);
  MOEGEMV_RESOLVE(cuLaunchKernelEx, 11060);
  MOEGEMV_RESOLVE(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050);
  MOEGEMV_RESOLVE(cuMemAlloc, 3020);
  MOEGEMV_RESOLVE(cuMemFree, 3020);
  MOEGEMV_RESOLVE(cuMemGetInfo, 3020);
  MOEGEMV_RESOLVE(cuMemcpyHtoD, 3020);
  MOEGEMV_RESOLVE(cuMemcpyDtoH, 3020);
  MOEGEMV_RESOLVE(cuMemcpyHtoDAsync, 3020);
  MOEGEMV_RESOLVE(cuMemcpyDtoHAsync, 3020);
  MOEGEMV_RESOLVE(cuMemcpyDtoDAsync, 3020);
  MOEGEMV_RESOLVE(cuMemsetD8Async, 3020);
  MOEGEMV_RESOLVE(cuMemsetD16Async, 3020);
  MOEGEMV_RESOLVE(cuPointerGetAttribute, 4000);
  MOEGEMV_RESOLVE(cuStreamCreate, 2000);
  MOEGEMV_RESOLVE(cuStreamDestroy, 4000);
  MOEGEMV_RESOLVE(cuStreamSynchronize, 2000);
  MOEGEMV_RESOLVE(cuStreamIsCapturing, 10000);
  MOEGEMV_RESOLVE(cuStreamGetCtx, 9020);
  MOEGEMV_RESOLVE(cuStreamBeginCapture, 10010);
  MOEGEMV_RESOLVE(cuStreamEndCapture, 10000);
  MOEGEMV_RESOLVE(cuGraphInstantiateWithFlags, 11040);
  MOEGEMV_RESOLVE(cuGraphLaunch, 10000);
  MOEGEMV_RESOLVE(cuGraphExecDestroy, 10000);
  MOEGEMV_RESOLVE(cuGraphDestroy, 10000);
  MOEGEMV_RESOLVE(cuEventCreate, 2000);
  MOEGEMV_RESOLVE(cuEventRecord, 2000);
  MOEGEMV_RESOLVE(cuEventSynchronize, 2000);
  MOEGEMV_RESOLVE(cuEventDestroy, 4000);
  // Asking for a version newer than the driver is CUDA_ERROR_INVALID_VALUE, hence the min.
  MOEGEMV_RESOLVE(cuEventElapsedTime,
                  api.driver_version >= kEventElapsedTimeV2 ? kEventElapsedTimeV2 : 2000);
}

#undef MOEGEMV_RESOLVE

Loaded load_driver() {
  Loaded loaded;
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's undefined references.
  DlHandle handle(dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL));
  if (!handle) {
    const char* why = dlerror();
    throw CudaError("dlopen(libcuda.so.1)", kNotACuResult, "CUDA_DRIVER_NOT_LOADED",
                    fmt::format("libcuda could not be loaded ({}): running kernels needs an NVIDIA "
                                "driver and GPU; codegen, compile, cache and bundle work without",
                                why != nullptr ? why : "unknown dlopen error"));
  }
  auto get_proc =
      reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(handle.get(), kGetProcAddress));
  if (get_proc == nullptr) {
    throw CudaError(fmt::format("dlsym({})", kGetProcAddress), kNotACuResult, "CUDA_DRIVER_TOO_OLD",
                    "libcuda.so.1 predates CUDA 12.0 (no cuGetProcAddress_v2); moegemv needs a "
                    "CUDA 12.0 or newer NVIDIA driver");
  }
  const Resolver resolve(get_proc);
  Api& api = loaded.api;
  resolve("cuDriverGetVersion", 2020, api.cuDriverGetVersion);
  const CUresult version = api.cuDriverGetVersion(&api.driver_version);
  if (version != CUDA_SUCCESS) {
    throw CudaError("cuDriverGetVersion", version,
                    fmt::format("CUresult {}", static_cast<int>(version)), "?");
  }
  resolve_all(resolve, api);
  // No check() in here: it would re-enter loaded() while its static is being initialized.
  const CUresult init = api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* message = nullptr;
    api.cuGetErrorName(init, &name);
    api.cuGetErrorString(init, &message);
    throw CudaError("cuInit(0)", init, name != nullptr ? name : "?",
                    message != nullptr ? message : "?");
  }
  // A failed count leaves 0: available() then reports no device; api() itself stays usable.
  if (api.cuDeviceGetCount(&loaded.device_count) != CUDA_SUCCESS) loaded.device_count = 0;
  // The library stays mapped for the life of the process: static destructors (modules, buffers
  // held by singletons) still call into it during exit, so it is never dlclose'd.
  static_cast<void>(handle.release());
  logger()->debug("CUDA driver {}.{} loaded: {} device(s)", api.driver_version / 1000,
                  api.driver_version % 1000 / 10, loaded.device_count);
  return loaded;
}

const Loaded& loaded() noexcept {
  static const Loaded instance = []() noexcept {
    try {
      return load_driver();
    } catch (...) {
      Loaded failed;  // a fresh, empty table: never a half-resolved one
      failed.error = std::current_exception();
      return failed;
    }
  }();
  return instance;
}

}  // namespace

const Api& api() {
  const Loaded& state = loaded();
  if (state.error) std::rethrow_exception(state.error);
  return state.api;
}

bool available() noexcept {
  const Loaded& state = loaded();
  return !state.error && state.device_count > 0;
}

std::string unavailable_reason() noexcept {
  try {
    const Loaded& state = loaded();
    if (state.error) {
      try {
        std::rethrow_exception(state.error);
      } catch (const std::exception& e) {
        return e.what();
      }
    }
    return state.device_count > 0 ? "" : "no CUDA device visible (cuDeviceGetCount returned 0)";
  } catch (...) {
    return "unknown error loading the CUDA driver";
  }
}

std::string error_name(CUresult result) noexcept {
  try {
    const Loaded& state = loaded();
    const char* name = nullptr;
    if (!state.error && state.api.cuGetErrorName(result, &name) == CUDA_SUCCESS && name) {
      return name;
    }
    return fmt::format("CUresult {}", static_cast<int>(result));
  } catch (...) {
    return "CUresult ?";
  }
}

namespace detail {

void throw_cuda_error(CUresult result, const char* call) {
  const Loaded& state = loaded();
  const char* message = nullptr;
  if (!state.error) state.api.cuGetErrorString(result, &message);
  throw CudaError(call, static_cast<int>(result), error_name(result),
                  message != nullptr ? message : "no description (CUDA driver not loaded)");
}

}  // namespace detail

void log_failure(CUresult result, const char* call) noexcept {
  if (result == CUDA_SUCCESS) return;
  try {
    // At process exit the driver may be torn down, or a module's context already destroyed (its
    // modules went with it): nothing leaked, so not worth a warning.
    const bool gone = result == CUDA_ERROR_DEINITIALIZED ||
                      result == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
                      (result == CUDA_ERROR_INVALID_HANDLE &&
                       std::string_view(call).find("cuModuleUnload") != std::string_view::npos);
    const auto level = gone ? spdlog::level::debug : spdlog::level::warn;
    logger()->log(level, "{} failed: {} ({})", call, error_name(result), static_cast<int>(result));
  } catch (...) {
    // Logging must never turn a destructor into std::terminate.
  }
}

}  // namespace moegemv::driver
