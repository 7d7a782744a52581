#include "runtime/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>

#include "jit/codegen.hpp"
#include "jit/log.hpp"
#include "jit/nvrtc.hpp"
#include "jit/templates.hpp"
#include "moegemv/errors.hpp"
#include "moegemv/options.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "templates/down_group_params.h"

namespace moegemv::detail {

namespace {

using KernelPtr = std::shared_ptr<const LoadedKernel>;

struct Registry {
  std::mutex mutex;
  std::map<std::pair<Key, CUcontext>, std::shared_future<KernelPtr>> entries;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The grouped down of a streaming down module: one CTA per SM (at most one per 8-row tile), its
// y table sized for that count; left unused where its shared memory does not fit.
void load_group(LoadedKernel& kernel, const Key& key, const KernelConfig& config, int sms) {
  const int rings = jit::group_rings(key, config);
  const int ctas = std::min(sms, key.h / 8);
  const int smem = down_group_smem_bytes(key.h, key.i, key.si, key.k, rings, ctas);
  if (rings == 0 || smem > kMaxSmemBytes) {
    logger()->debug("moegemv: {}: grouped down unused ({} bytes of shared memory at {} CTAs)",
                    key.str(), smem, ctas);
    return;
  }
  kernel.group = kernel.module.function(jit::group_kernel_name(key).c_str());
  driver::set_max_dynamic_smem(kernel.group, smem);
  if (config.carve) driver::set_preferred_carveout(kernel.group, config.carve - 1);
  kernel.group_min_m = config.group;
  kernel.group_warps = rings * down_group_chunks(key.i, key.k) + 1;
  kernel.group_smem_bytes = smem;
  kernel.group_ctas = ctas;
}

// dc_cluster=C: the streaming down's M = 1 kernel (jit/codegen_cluster.cpp) on as many CTAs as
// units or as fit at once, which must be a multiple of C (each cluster's CTAs all get units).
void load_cluster(LoadedKernel& kernel, const Key& key, const KernelConfig& config, int sms,
                  CUfunction f) {
  const int fit = sms * driver::max_active_ctas_per_sm(f, 32 * kernel.warps, kernel.smem_bytes);
  const int ctas = std::min(down_ctas(1, key.h, kernel.tile_rows), fit);
  if (ctas % config.cluster != 0)
    throw ArgumentError("MOEGEMV_TUNE",
                        fmt::format("dc_cluster dividing the M = 1 grid of {} ({} CTAs here)",
                                    key.str(), ctas),
                        fmt::format("dc_cluster={}", config.cluster));
  kernel.single_token = f;
  kernel.single_token_cluster = config.cluster;
  kernel.single_token_ctas = ctas;
}

// Errors by which the driver rejects a cubin itself (damaged, or built for another GPU or
// toolkit): only these make a stored copy worth discarding. Out of memory, a capture in
// progress or a lost context say nothing about the file.
bool rejects_image(const CudaError& e) {
  switch (e.code) {
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_NOT_FOUND:  // a kernel the key needs is missing from the module
      return true;
    default:
      return false;
  }
}

// A kernel not yet loaded in this process, wanted while `stream` is being captured: loading a
// module is not allowed then (and compiling would stall the capture), so the caller hears at
// once what to do before capturing; no driver call, no cache entry touched.
JitDisabledError not_loaded_during_capture(const Key& key, const std::string& arch) {
  const std::string k = key.str();
  return JitDisabledError(
      k, arch,
      "the stream is being captured into a CUDA graph and this kernel is not loaded in this "
      "process yet (a module cannot be loaded during capture)",
      fmt::format(
          "before capturing, call moegemv::prepare for {} (C: moegemv_prepare(\"{}\")) or "
          "run the op once; `moegemv prewarm --key {} --arch {}` makes that load a cache hit",
          k, k, k, arch));
}

constexpr int kMaxDiscards = 8;

KernelPtr load(const Key& key, const std::string& arch) {
  const cache::EntrySpec spec = make_spec(key, arch);
  for (int attempt = 0;; ++attempt) {
    cache::Cubin cubin = store().get(spec, [&] { return compile_spec(spec); });
    try {
      auto kernel = std::make_shared<LoadedKernel>(
          LoadedKernel{driver::Module(cubin.bytes), nullptr, nullptr, jit::block_warps(key),
                       jit::smem_bytes(key), arch, cubin.origin});
      const KernelConfig config = jit::kernel_config(key);
      // A kernel of the module with the key's shared memory (the limit raised past 48 KB) and
      // the carveout asked for (gu_|dc_carve).
      auto function = [&](const std::string& name) {
        const CUfunction f = kernel->module.function(name.c_str());
        if (kernel->smem_bytes > 48 * 1024) driver::set_max_dynamic_smem(f, kernel->smem_bytes);
        if (config.carve) driver::set_preferred_carveout(f, config.carve - 1);
        return f;
      };
      kernel->function = function(jit::kernel_name(key));
      if (jit::has_single_token_kernel(config)) {
        kernel->single_token = function(jit::single_token_kernel_name(key));
        kernel->single_token_warps = jit::single_token_warps(config);
      }
      kernel->tile_rows = config.stream ? 8 : down_tile_rows(key.i, key.si, config.split != 0);
      if (jit::has_many_token_kernel(config)) {
        kernel->many_token = function(jit::many_token_kernel_name(key));
        kernel->many_token_min_m = jit::many_token_min_m(config);
      }
      if (config.stream && key.kind == Kind::kGateUp) kernel->x_slots = config.slots;
      if (config.ring == 2 || config.stream) {
        CUdevice device = 0;
        driver::check(driver::api().cuCtxGetDevice(&device), "cuCtxGetDevice");
        const int sms = driver::device_info(device).sm_count;
        kernel->persistent_ctas =
            sms * driver::max_active_ctas_per_sm(kernel->function, 32 * kernel->warps, kernel->smem_bytes);
        if (key.kind == Kind::kDownCombine && config.group > 0) load_group(*kernel, key, config, sms);
        if (jit::has_cluster_kernel(config))
          load_cluster(*kernel, key, config, sms, function(jit::single_token_kernel_name(key)));
      }
      return kernel;
    } catch (const CudaError& e) {
      // A stored cubin the driver rejects is a miss: drop it and look further (another bundle
      // entry of the same source, the disk, a compile). Each discard removes a candidate; the
      // bound only stops a cache that cannot forget a bad entry (an unwritable disk).
      if (attempt >= kMaxDiscards || cubin.origin == cache::Origin::kCompiled || !rejects_image(e))
        throw;
      store().discard(spec, cubin, e.what());
    }
  }
}

}  // namespace

cache::CubinStore& store() {
  static cache::CubinStore instance(Options::global());  // the logger reads its level itself
  return instance;
}

cache::EntrySpec make_spec(const Key& key, const std::string& arch) {
  cache::EntrySpec spec;
  spec.key = key;
  spec.arch = arch;
  spec.source = jit::generate_source(key, arch);
  spec.options = jit::compile_options(arch);
  spec.nvrtc_version = jit::nvrtc_version();
  spec.template_hash = jit::templates_hash();
  return spec;
}

std::vector<std::uint8_t> compile_spec(const cache::EntrySpec& spec) {
  jit::check_arch_supported(spec.arch);  // a clear error before NVRTC's own
  auto out = jit::compile(spec.source, spec.key.str(), spec.arch, spec.options);
  logger()->debug("moegemv: ptxas report for {} ({}):\n{}", spec.key.str(), spec.arch, out.log);
  return std::move(out.cubin);
}

std::string current_arch() {
  CUcontext context = driver::current_context();
  if (context == nullptr)  // a CudaError, so that C callers get MOEGEMV_ERROR_CUDA
    throw CudaError("cuCtxGetCurrent", CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
                    "no current CUDA context on this thread (make the device's context current, "
                    "e.g. by any CUDA runtime call, before calling moegemv)");
  CUdevice device = 0;
  MOEGEMV_CU(driver::api().cuCtxGetDevice(&device));
  return driver::device_info(static_cast<int>(device)).arch();
}

KernelPtr kernel_for(const Key& key, bool capturing) {
  CUcontext context = driver::current_context();
  if (context == nullptr) current_arch();  // throws the "no current context" error
  Registry& r = registry();
  std::shared_future<KernelPtr> future;
  std::optional<std::promise<KernelPtr>> owner;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.entries.find({key, context});
    if (it != r.entries.end()) {
      future = it->second;
    } else if (!capturing) {  // a capturing caller never starts a load ...
      owner.emplace();
      future = owner->get_future().share();
      r.entries.emplace(std::pair{key, context}, future);
    }
  }
  // ... nor waits for another thread's (SPEC 7: an error, never a stall).
  if (capturing &&
      (!future.valid() || future.wait_for(std::chrono::seconds(0)) != std::future_status::ready))
    throw not_loaded_during_capture(key, current_arch());
  if (owner) {
    try {
      owner->set_value(load(key, current_arch()));
    } catch (...) {
      // Failures are not remembered: a later call may succeed (a cache fixed, memory freed).
      {
        std::lock_guard<std::mutex> lock(r.mutex);
        r.entries.erase({key, context});
      }
      owner->set_exception(std::current_exception());
    }
  }
  return future.get();
}

}  // namespace moegemv::detail
