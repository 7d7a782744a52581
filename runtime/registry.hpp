#pragma once
// In-memory level of the kernel lookup: (key, context) -> loaded kernel. Concurrent first calls
// for one entry wait on a single shared future, so each kernel is compiled and loaded once per
// context. Below it: bundles -> disk cache -> NVRTC (cache::CubinStore).
#include <cuda.h>

#include <memory>
#include <string>

#include "cache/store.hpp"
#include "moegemv/key.hpp"
#include "runtime/module.hpp"

namespace moegemv::detail {

struct LoadedKernel {
  driver::Module module;
  CUfunction function = nullptr;
  /// The module's kernel for M = 1, where the config has one (classic gate_up; dc_cluster below).
  CUfunction single_token = nullptr;
  int warps = 0;
  int smem_bytes = 0;
  std::string arch;
  cache::Origin origin = cache::Origin::kCompiled;
  int persistent_ctas = 0;  ///< > 0: a persistent kernel; launch min(work units, this) CTAs
  int tile_rows = 0;        ///< down_combine: output rows per work unit (8 or 16)
  CUfunction many_token = nullptr;  ///< gate_up: two tiles per routed CTA, for M >= many_token_min_m
  int many_token_min_m = 0;
  int x_slots = 0;          ///< streaming gate_up: tokens per shared-expert unit (0: not streaming)
  /// Streaming down: the grouped kernel (down_group.cuh) for group_min_m <= M <= kDownGroupMaxM,
  /// where the config has one and its shared memory fits this device's CTA count.
  CUfunction group = nullptr;
  int group_min_m = 0;
  int group_warps = 0;
  int group_smem_bytes = 0;
  int group_ctas = 0;
  int single_token_warps = 0;  ///< the M = 1 kernel's warps per CTA (gu_m1warps; v60)
  /// Streaming down with dc_cluster=C: single_token is the M = 1 kernel sharing act over clusters
  /// of C CTAs (templates/down_cluster_act.cuh), launched on single_token_ctas CTAs.
  int single_token_cluster = 0;
  int single_token_ctas = 0;
};

/// The process-wide cubin store (created from Options::global() on first use).
cache::CubinStore& store();

/// The entry spec (generated source, options, versions) of key for arch.
cache::EntrySpec make_spec(const Key& key, const std::string& arch);

/// Compiles the spec with NVRTC, logging the ptxas report at debug level.
std::vector<std::uint8_t> compile_spec(const cache::EntrySpec& spec);

/// The kernel for key in the calling thread's current context. When `capturing` is true and the
/// kernel is not already loaded in this process (or another thread is still loading it), a
/// JitDisabledError at once: no module load, no compile, no wait, no cache entry touched.
std::shared_ptr<const LoadedKernel> kernel_for(const Key& key, bool capturing);

/// The arch of the current context's device ("sm_90"); throws if no context is current.
std::string current_arch();

}  // namespace moegemv::detail
