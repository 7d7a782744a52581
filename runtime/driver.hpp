#pragma once
// The CUDA driver, opened at run time. libcuda is never linked: every CPU-only part of moegemv
// (codegen, NVRTC, cache, bundles, CLI prewarm) must work on a machine without a GPU or driver.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

namespace moegemv::driver {

/// Driver entry points, each resolved with cuGetProcAddress at the exact ABI version of its
/// PFN_*_vNNNN typedef (so the call signature always matches the symbol we were handed).
/// Members carry the cuda.h names; cuda.h's `#define cuMemAlloc cuMemAlloc_v2` style macros
/// rename them identically in every translation unit, which is harmless.
struct Api {
  int driver_version = 0;  ///< from cuDriverGetVersion, e.g. 12080

  PFN_cuInit_v2000 cuInit = nullptr;
  PFN_cuDriverGetVersion_v2020 cuDriverGetVersion = nullptr;
  PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
  PFN_cuGetErrorString_v6000 cuGetErrorString = nullptr;

  PFN_cuDeviceGet_v2000 cuDeviceGet = nullptr;
  PFN_cuDeviceGetCount_v2000 cuDeviceGetCount = nullptr;
  PFN_cuDeviceGetName_v2000 cuDeviceGetName = nullptr;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute = nullptr;
  PFN_cuDeviceTotalMem_v3020 cuDeviceTotalMem = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 cuDevicePrimaryCtxRelease = nullptr;

  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent = nullptr;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
  PFN_cuCtxGetDevice_v2000 cuCtxGetDevice = nullptr;      // (CUdevice*): current context
  PFN_cuCtxSynchronize_v2000 cuCtxSynchronize = nullptr;  // (void): current context

  PFN_cuModuleLoadData_v2000 cuModuleLoadData = nullptr;
  PFN_cuModuleUnload_v2000 cuModuleUnload = nullptr;
  PFN_cuModuleGetFunction_v2000 cuModuleGetFunction = nullptr;
  PFN_cuModuleGetGlobal_v3020 cuModuleGetGlobal = nullptr;
  PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute = nullptr;
  PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute = nullptr;
  PFN_cuLaunchKernelEx_v11060 cuLaunchKernelEx = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;

  PFN_cuMemAlloc_v3020 cuMemAlloc = nullptr;
  PFN_cuMemFree_v3020 cuMemFree = nullptr;
  PFN_cuMemGetInfo_v3020 cuMemGetInfo = nullptr;
  PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD = nullptr;
  PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH = nullptr;
  PFN_cuMemcpyHtoDAsync_v3020 cuMemcpyHtoDAsync = nullptr;
  PFN_cuMemcpyDtoHAsync_v3020 cuMemcpyDtoHAsync = nullptr;
  PFN_cuMemcpyDtoDAsync_v3020 cuMemcpyDtoDAsync = nullptr;
  PFN_cuMemsetD8Async_v3020 cuMemsetD8Async = nullptr;
  PFN_cuMemsetD16Async_v3020 cuMemsetD16Async = nullptr;
  PFN_cuPointerGetAttribute_v4000 cuPointerGetAttribute = nullptr;

  PFN_cuStreamCreate_v2000 cuStreamCreate = nullptr;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy = nullptr;
  PFN_cuStreamSynchronize_v2000 cuStreamSynchronize = nullptr;
  PFN_cuStreamIsCapturing_v10000 cuStreamIsCapturing = nullptr;
  PFN_cuStreamGetCtx_v9020 cuStreamGetCtx = nullptr;  // (stream, CUcontext*): no green ctx
  PFN_cuStreamBeginCapture_v10010 cuStreamBeginCapture = nullptr;  // takes a capture mode
  PFN_cuStreamEndCapture_v10000 cuStreamEndCapture = nullptr;

  PFN_cuGraphInstantiateWithFlags_v11040 cuGraphInstantiateWithFlags = nullptr;
  PFN_cuGraphLaunch_v10000 cuGraphLaunch = nullptr;
  PFN_cuGraphExecDestroy_v10000 cuGraphExecDestroy = nullptr;
  PFN_cuGraphDestroy_v10000 cuGraphDestroy = nullptr;

  PFN_cuEventCreate_v2000 cuEventCreate = nullptr;
  PFN_cuEventRecord_v2000 cuEventRecord = nullptr;
  PFN_cuEventSynchronize_v2000 cuEventSynchronize = nullptr;
  PFN_cuEventElapsedTime_v2000 cuEventElapsedTime = nullptr;
  PFN_cuEventDestroy_v4000 cuEventDestroy = nullptr;
};

/// The driver table, loaded and cuInit(0)-ed once per process (thread-safe). Throws CudaError
/// when libcuda.so.1 cannot be opened, is older than CUDA 12.0, lacks a needed entry point, or
/// cuInit fails; the same error is rethrown on every later call.
const Api& api();

/// True when the driver loads, cuInit succeeds and at least one device is visible. Never throws.
bool available() noexcept;

/// Why available() is false (the load error, or "no CUDA device"); empty when it is true.
std::string unavailable_reason() noexcept;

namespace detail {
[[noreturn]] void throw_cuda_error(CUresult result, const char* call);
}  // namespace detail

/// Throws CudaError{call, result, name, message} unless result is CUDA_SUCCESS.
inline void check(CUresult result, const char* call) {
  if (result != CUDA_SUCCESS) [[unlikely]] {
    detail::throw_cuda_error(result, call);
  }
}

/// "CUDA_ERROR_OUT_OF_MEMORY"; "CUresult <n>" when the driver cannot name it. Never throws.
std::string error_name(CUresult result) noexcept;

/// For destructors: logs a failed call (at debug level for CUDA_ERROR_DEINITIALIZED, which is
/// the normal state of the driver during process exit) and never throws.
void log_failure(CUresult result, const char* call) noexcept;

}  // namespace moegemv::driver

#define MOEGEMV_CU_STR2(x) #x
#define MOEGEMV_CU_STR(x) MOEGEMV_CU_STR2(x)
#ifdef __FILE_NAME__
#define MOEGEMV_CU_FILE __FILE_NAME__
#else
#define MOEGEMV_CU_FILE __FILE__
#endif
/// Checks a driver call; the error names the call text and file:line (built at compile time).
#define MOEGEMV_CU(call) \
  ::moegemv::driver::check((call), #call " at " MOEGEMV_CU_FILE ":" MOEGEMV_CU_STR(__LINE__))
