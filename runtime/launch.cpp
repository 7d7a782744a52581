#include "runtime/launch.hpp"

#include <string>

#include "moegemv/errors.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"

namespace moegemv::driver {

namespace {
// After a failed launch only (no cost on the normal path): a stream of another context than the
// current one, where the kernel was loaded, fails with an invalid-handle or invalid-context
// error that does not say which argument is wrong; this one does.
void explain_stream(CUstream stream, CUresult result) {
  CUcontext owner = nullptr;
  if (stream == nullptr || api().cuStreamGetCtx(stream, &owner) != CUDA_SUCCESS) return;
  if (owner != nullptr && owner != current_context()) {
    throw ArgumentError("stream",
                        "a stream of the calling thread's current CUDA context (where the kernel "
                        "is loaded)",
                        "a stream of another context (the launch failed with " +
                            error_name(result) +
                            "); make the stream's context current, e.g. cudaSetDevice");
  }
}
}  // namespace

void launch(CUfunction f, const LaunchConfig& config, CUstream stream, void* param_struct) {
  if (param_struct == nullptr) {
    throw ArgumentError("param_struct", "a pointer to the kernel's parameter struct", "nullptr");
  }
  if (config.cluster < 1 || config.cluster > 8 || config.grid[0] % config.cluster != 0) {
    throw ArgumentError("config.cluster", "1..8 CTAs dividing grid[0] (" +
                                              std::to_string(config.grid[0]) + ")",
                        std::to_string(config.cluster));
  }
  // Lives in this frame, never static: concurrent launches must not share attribute storage.
  CUlaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (config.pdl) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (config.cluster > 1) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[count].value.clusterDim.x = config.cluster;
    attributes[count].value.clusterDim.y = 1;
    attributes[count++].value.clusterDim.z = 1;
  }

  CUlaunchConfig launch_config = {};
  launch_config.gridDimX = config.grid[0];
  launch_config.gridDimY = config.grid[1];
  launch_config.gridDimZ = config.grid[2];
  launch_config.blockDimX = config.block[0];
  launch_config.blockDimY = config.block[1];
  launch_config.blockDimZ = config.block[2];
  launch_config.sharedMemBytes = config.smem_bytes;
  launch_config.hStream = stream;
  launch_config.attrs = attributes;
  launch_config.numAttrs = count;

  void* params[] = {param_struct};
  const CUresult result = api().cuLaunchKernelEx(&launch_config, f, params, nullptr);
  if (result != CUDA_SUCCESS) [[unlikely]]
    explain_stream(stream, result);
  check(result, "cuLaunchKernelEx at launch.cpp");
}

bool stream_is_capturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  const CUresult result = api().cuStreamIsCapturing(stream, &status);
  // Asked about the legacy NULL stream while a blocking stream captures: work enqueued there
  // would join (and break) that capture, so for our purposes it is capturing.
  if (result == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT) return true;
  MOEGEMV_CU(result);
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace moegemv::driver
