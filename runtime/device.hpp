#pragma once
// Devices and their primary contexts.
#include <cuda.h>

#include <cstddef>
#include <string>

namespace moegemv::driver {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::size_t l2_bytes = 0, total_mem = 0;

  /// The exact target NVRTC compiles for: "sm_90" on 9.0 (H100/H200: no sm_90a features used),
  /// the arch-specific "sm_100a", "sm_103a", "sm_120a", ... from 10.0 on (the native cvt path
  /// needs the 'a' target), plain "sm_XY" below 9.0.
  std::string arch() const;
};

/// Number of visible devices. Throws CudaError when the driver cannot be loaded.
int device_count();

/// Name, compute capability, SM count, L2 and memory size of a device. Needs no context.
DeviceInfo device_info(int ordinal);

/// Owns one reference to a device's primary context (the one the CUDA runtime, and so PyTorch,
/// uses): retained on construction, released in the destructor. Move-only.
class PrimaryContext {
 public:
  explicit PrimaryContext(int ordinal);
  ~PrimaryContext();
  PrimaryContext(PrimaryContext&& other) noexcept;
  PrimaryContext& operator=(PrimaryContext&& other) noexcept;
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;

  CUcontext get() const { return context_; }
  CUdevice device() const { return device_; }
  int ordinal() const { return ordinal_; }

  /// Makes this context current on the calling thread (cuCtxSetCurrent).
  void make_current() const;

 private:
  void release() noexcept;

  int ordinal_ = -1;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

/// Makes a context current for a scope and restores the previously current one (possibly none)
/// on exit, so that a caller's context (e.g. PyTorch's) is left as it was.
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

/// The context current on the calling thread, or nullptr.
CUcontext current_context();

}  // namespace moegemv::driver
