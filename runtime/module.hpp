#pragma once
// A loaded cubin and the kernels in it.
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <span>

namespace moegemv::driver {

namespace detail {
struct ModuleUnloader {
  void operator()(CUmodule module) const noexcept;  ///< logs a failed cuModuleUnload
};
}  // namespace detail

/// A module loaded into the context current at construction (modules are per context: keep one
/// per context). Unloaded in the destructor. Move-only.
class Module {
 public:
  /// cuModuleLoadData of a cubin image; the driver copies it, `image` need not outlive this.
  /// Throws ArgumentError unless `image` is a whole 64-bit ELF, CudaError if the driver rejects it.
  explicit Module(std::span<const std::uint8_t> image);

  CUmodule get() const { return module_.get(); }
  CUcontext context() const { return context_; }  ///< the context it was loaded into

  /// The kernel `name` (an extern "C" or mangled name). Throws CudaError naming the kernel when
  /// the module has none of that name.
  CUfunction function(const char* name) const;

 private:
  std::unique_ptr<CUmod_st, detail::ModuleUnloader> module_;
  CUcontext context_ = nullptr;
};

/// Opts `f` in to `smem_bytes` of dynamic shared memory; a no-op at or below the 48 KiB every
/// kernel gets without opting in. Call once after loading, not per launch.
void set_max_dynamic_smem(CUfunction f, unsigned smem_bytes);

/// Asks the driver for an L1/shared split of `percent` (0..100) shared memory when f runs (a hint:
/// the driver takes what f needs). The `carve` tuning knob's diagnostic; not set by default.
void set_preferred_carveout(CUfunction f, int percent);

/// CTAs of f that fit on one SM at once with this block size and dynamic shared memory.
int max_active_ctas_per_sm(CUfunction f, int threads, int smem_bytes);

}  // namespace moegemv::driver
