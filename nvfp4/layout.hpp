#pragma once
// Device layouts of the NVFP4 weights (SPEC.md sections 2-3) and the converters from and to the
// ModelOpt checkpoint form. Every converter has an inverse; round trips are bit-identical.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "nvfp4/quantize.hpp"

namespace moegemv::nvfp4 {

// ---- 128x4 block-scale swizzle (section 2) ----

/// Bytes of one swizzled matrix: roundup(rows, 128) * roundup(kblocks, 4).
std::size_t swizzled_size(int rows, int kblocks);

/// Byte offset of scale (row, kblock) of matrix `expert` in a buffer of equally shaped swizzled
/// matrices ([rows, kblocks] each), i.e. off(b, m, kb) of SPEC.md section 2.
std::size_t swizzle_offset(int expert, int row, int kblock, int rows, int kblocks);

/// Linear [rows, kblocks] scales -> one swizzled matrix, padding bytes zero.
std::vector<uint8_t> swizzle_scales(std::span<const uint8_t> linear, int rows, int kblocks);

/// Inverse of swizzle_scales (padding is dropped).
std::vector<uint8_t> unswizzle_scales(std::span<const uint8_t> swizzled, int rows, int kblocks);

// ---- w1 row interleave: [up; gate] in 64-row groups (section 3) ----

inline constexpr int kW1InterleaveRows = 64;

/// Physical w1 row of logical row `i` of up (gate == false) or gate (gate == true).
inline int w1_physical_row(bool gate, int i) {
  return (i / kW1InterleaveRows) * 2 * kW1InterleaveRows + (gate ? kW1InterleaveRows : 0) +
         i % kW1InterleaveRows;
}

/// Logical row of physical w1 row `p`: sets `gate` and returns i.
inline int w1_logical_row(int p, bool& gate) {
  gate = (p % (2 * kW1InterleaveRows)) >= kW1InterleaveRows;
  return (p / (2 * kW1InterleaveRows)) * kW1InterleaveRows + p % kW1InterleaveRows;
}

// ---- routed experts ----

/// One routed expert in ModelOpt form. gate and up must share weight_scale_2 (fused w13).
struct ExpertWeights {
  QuantizedMatrix gate;  ///< [I, H]
  QuantizedMatrix up;    ///< [I, H]
  QuantizedMatrix down;  ///< [H, I]

  friend bool operator==(const ExpertWeights&, const ExpertWeights&) = default;
};

/// The routed-expert tensors the kernels read (SPEC.md section 3).
struct RoutedLayout {
  int E = 0, H = 0, I = 0;
  std::vector<uint8_t> w1;     ///< [E, 2I, H/2], rows [up; gate] interleaved in 64-row groups
  std::vector<uint8_t> w1_sf;  ///< E x swizzled [2I, H/16], rows in w1's physical order
  std::vector<float> alpha;    ///< [E] gate/up global scale
  std::vector<uint8_t> w2;     ///< [E, H, I/2]
  std::vector<uint8_t> w2_sf;  ///< E x swizzled [H, I/16]
  std::vector<float> alpha2;   ///< [E] down global scale

  std::size_t w1_sf_expert_bytes() const { return swizzled_size(2 * I, H / 16); }
  std::size_t w2_sf_expert_bytes() const { return swizzled_size(H, I / 16); }
  friend bool operator==(const RoutedLayout&, const RoutedLayout&) = default;
};

/// ModelOpt experts -> routed layout. Throws ArgumentError (naming e.g. "experts[2].up.rows")
/// when E == 0, I % 64 != 0, H % 64 != 0, any shape differs from experts[0]'s, or an expert's
/// gate and up weight_scale_2 differ (one alpha serves both).
RoutedLayout to_routed_layout(std::span<const ExpertWeights> experts);

/// Inverse of to_routed_layout.
std::vector<ExpertWeights> from_routed_layout(const RoutedLayout& routed);

/// Throws ArgumentError naming the field ("routed.I", "routed.w2_sf", ...) unless the shapes
/// are legal and every buffer has its exact size.
void validate(const RoutedLayout& routed);

// ---- shared expert ----

/// The shared expert in ModelOpt form; SI == gate.rows == 0 means no shared expert (then
/// gate/up are [0, H] and down is [H, 0]).
struct SharedWeights {
  QuantizedMatrix gate;  ///< [SI, H]
  QuantizedMatrix up;    ///< [SI, H]
  QuantizedMatrix down;  ///< [H, SI]

  friend bool operator==(const SharedWeights&, const SharedWeights&) = default;
};

/// The shared-expert tensors the kernels read (SPEC.md section 3). SI == 0: all buffers empty.
struct SharedLayout {
  int H = 0, SI = 0;
  std::vector<uint8_t> wsh;  ///< [2SI, H/2], rows [gate; up] (not interleaved)
  std::vector<uint8_t> ssh;  ///< swizzled [2SI, H/16]
  float gssh = 1.0f;         ///< gate/up global scale
  std::vector<uint8_t> wsd;  ///< [H, SI/2]
  std::vector<uint8_t> ssd;  ///< swizzled [H, SI/16]
  float gssd = 1.0f;         ///< down global scale

  friend bool operator==(const SharedLayout&, const SharedLayout&) = default;
};

/// ModelOpt shared expert -> layout. Throws ArgumentError ("shared.up.cols", ...) on shape
/// mismatch or when gate and up weight_scale_2 differ.
SharedLayout to_shared_layout(const SharedWeights& shared);

/// Inverse of to_shared_layout.
SharedWeights from_shared_layout(const SharedLayout& shared);

/// Throws ArgumentError naming the field unless shapes are legal and buffer sizes exact.
void validate(const SharedLayout& shared);

}  // namespace moegemv::nvfp4
