#pragma once
// The one launch path of every moegemv kernel. Allocates nothing and never synchronizes, so it is
// legal inside CUDA-graph stream capture.
#include <cuda.h>

namespace moegemv::driver {

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned smem_bytes = 0;  ///< dynamic shared memory; > 48 KiB needs set_max_dynamic_smem first
  bool pdl = false;         ///< programmatic dependent launch (sm_90+): overlap with the previous
                            ///< kernel's tail; the kernel must griddepcontrol.wait before reading
                            ///< that kernel's output
  unsigned cluster = 1;     ///< CTAs per thread-block cluster along x (sm_90+, 1..8, dividing
                            ///< grid[0]); 1: no cluster
};

/// Launches `f` with cuLaunchKernelEx. `param_struct` points to the kernel's only parameter, one
/// struct passed by value (`__grid_constant__`); the driver copies it before returning. Throws
/// CudaError on a launch error, ArgumentError if `param_struct` is null.
void launch(CUfunction f, const LaunchConfig& config, CUstream stream, void* param_struct);

/// True while `stream` is being captured into a CUDA graph (also when the capture has been
/// invalidated but not yet ended, or when the NULL stream would join another stream's capture).
bool stream_is_capturing(CUstream stream);

}  // namespace moegemv::driver
