#pragma once
/// moegemv: decode-time NVFP4 Mixture-of-Experts GEMVs, JIT-compiled per shape.
///
/// Two operations per decode step (SPEC.md sections 4-5): gate_up and down_combine. Tensors are
/// passed as typed views of device memory; every argument is validated before anything launches.
/// Launches allocate nothing, never synchronize and are legal inside CUDA-graph capture once the
/// kernel is loaded in the process (prepare() loads it ahead of time). During capture, a kernel
/// not yet loaded is a JitDisabledError at once, even if a cache or bundle holds it.
#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>

#include "moegemv/errors.hpp"
#include "moegemv/export.h"
#include "moegemv/key.hpp"

namespace moegemv {

enum class DType { kBF16, kF32, kI32, kU8, kE4M3 };
MOEGEMV_API const char* dtype_name(DType dtype);

/// A view of device memory: pointer, element type and a row-major shape (rank 0..4). Only the
/// storage is read, so a permuted view of a contiguous buffer is passed by its storage.
struct MOEGEMV_API Tensor {
  CUdeviceptr ptr = 0;
  DType dtype = DType::kU8;
  int rank = 0;
  std::array<std::int64_t, 4> shape{};

  Tensor() = default;
  Tensor(CUdeviceptr p, DType t, std::initializer_list<std::int64_t> dims);
  std::int64_t numel() const;
  std::int64_t dim(int d) const { return shape[d]; }
  std::string describe() const;  ///< "bf16[4, 7168] @0x7f..."
};

/// gate_up (SPEC section 4). With SI == 0 the shared tensors are empty views (ptr may be 0).
struct GateUpArgs {
  Tensor x;      ///< bf16 [M, H]
  Tensor ids;    ///< i32 [M, K]; -1 = skip the pair (expert-parallel); >= E is a caller error
  Tensor w1;     ///< u8 [E, 2I, H/2], FlashInfer [up; gate] 64-row interleave
  Tensor
      w1_sf;  ///< u8/e4m3 storage of E * roundup(2I,128) * roundup(H/16,4) bytes, passed as a
              ///< flat or rank <= 4 view of that storage (a 6-D view, e.g. FlashInfer's, flattened)
  Tensor alpha;  ///< f32 [E]
  Tensor act;    ///< bf16 [M*K, I] (output)
  Tensor wsh;    ///< u8 [2SI, H/2], rows [gate; up]
  Tensor ssh;    ///< u8/e4m3 storage of roundup(2SI,128) * roundup(H/16,4) bytes
  Tensor gssh;   ///< f32 [1] (device memory)
  Tensor sact;   ///< bf16 [M, SI] (output)
  /// Optional, a hint (empty views: none): the same layer's down weights, as DownCombineArgs'
  /// w2, w2_sf, wsd, ssd, validated as those. Where one token's down weights are at most 8 MiB
  /// and M = 1 (v62; MOEGEMV_TUNE gu_dpre elsewhere), gate_up's CTAs ask L2 for them so that the
  /// down_combine after it reads them from there; its results never depend on them.
  Tensor down_w2, down_w2_sf, down_wsd, down_ssd;
};

/// down_combine (SPEC section 5).
struct DownCombineArgs {
  Tensor act;     ///< bf16 [M*K, I]
  Tensor ids;     ///< i32 [M, K]
  Tensor tw;      ///< f32 [M, K] router weights
  Tensor w2;      ///< u8 [E, H, I/2]
  Tensor w2_sf;   ///< u8/e4m3 storage of E * roundup(H,128) * roundup(I/16,4) bytes
  Tensor alpha2;  ///< f32 [E]
  Tensor sact;    ///< bf16 [M, SI]
  Tensor wsd;     ///< u8 [H, SI/2]
  Tensor ssd;     ///< u8/e4m3 storage of roundup(H,128) * roundup(SI/16,4) bytes
  Tensor gssd;    ///< f32 [1]
  Tensor out;     ///< bf16 [M, H] (output)
};

struct LaunchOptions {
  /// Programmatic dependent launch. gate_up reads the shared expert's weights, and down_combine
  /// reads ids, tw and all its weights, before waiting on the previous kernel: with pdl, ids/tw
  /// must have been written before the previous kernel in the stream started (true when
  /// down_combine follows gate_up, which waits on the router).
  bool pdl = true;
};

/// out-of-range ids (>= E) cannot be reported by an asynchronous launch: the affected act rows and
/// out rows are written as NaN so that they cannot pass unnoticed.
MOEGEMV_API void gate_up(const GateUpArgs& args, CUstream stream,
                         const LaunchOptions& options = {});
MOEGEMV_API void down_combine(const DownCombineArgs& args, CUstream stream,
                              const LaunchOptions& options = {});

/// The key a call would use (validates the arguments; launches nothing).
MOEGEMV_API Key gate_up_key(const GateUpArgs& args);
MOEGEMV_API Key down_combine_key(const DownCombineArgs& args);

/// Compiles (or fetches from bundle/cache) and loads the kernel for `key` in the calling thread's
/// current CUDA context, outside the decode loop. Thread-safe; concurrent first calls compile once.
MOEGEMV_API void prepare(const Key& key);

/// Adds a precompiled bundle to the lookup (after MOEGEMV_BUNDLE's).
MOEGEMV_API void add_bundle(const std::string& path);

/// "0.1.0"
MOEGEMV_API const char* version();

}  // namespace moegemv
