#pragma once
// libnvrtc, opened at run time like libcuda and never linked: a process whose kernels all come
// from a bundle needs no NVRTC installed. Where it is installed it is opened at the first kernel
// lookup, not the first compile: its version is part of every cache entry's identity.
#include <nvrtc.h>

#include <string>

namespace moegemv::jit {

/// The NVRTC entry points moegemv calls, resolved from one opened library.
struct NvrtcApi {
  decltype(&::nvrtcVersion) Version = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) GetNumSupportedArchs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) GetSupportedArchs = nullptr;
  decltype(&::nvrtcCreateProgram) CreateProgram = nullptr;
  decltype(&::nvrtcDestroyProgram) DestroyProgram = nullptr;
  decltype(&::nvrtcCompileProgram) CompileProgram = nullptr;
  decltype(&::nvrtcGetProgramLogSize) GetProgramLogSize = nullptr;
  decltype(&::nvrtcGetProgramLog) GetProgramLog = nullptr;
  decltype(&::nvrtcGetCUBINSize) GetCUBINSize = nullptr;
  decltype(&::nvrtcGetCUBIN) GetCUBIN = nullptr;
  decltype(&::nvrtcGetErrorString) GetErrorString = nullptr;
  std::string path;  ///< the name or file that was opened
  int major = 0, minor = 0;
};

/// Opens NVRTC on the first call, once per process: Options::nvrtc_library when set (and then
/// only that), else libnvrtc.so.<major of the toolkit built against> from the loader's search
/// path, else the same file in the build's toolkit folder. nullptr when none opens; `why` (if
/// given) then says what was tried and how each failed.
const NvrtcApi* nvrtc_api_or_null(std::string* why = nullptr);

}  // namespace moegemv::jit
