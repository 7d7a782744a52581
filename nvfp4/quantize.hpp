#pragma once
// The ModelOpt NVFP4 weight quantizer (NVFP4QTensor) and the per-element decode of its output.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace moegemv::nvfp4 {

/// One NVFP4 weight matrix as a ModelOpt checkpoint stores it.
struct QuantizedMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> weight;  ///< [rows, cols/2]; byte j holds elements 2j (low), 2j+1 (high)
  std::vector<uint8_t> scale;   ///< [rows, cols/16] e4m3fn, linear (not swizzled)
  float weight_scale_2 = 1.0f;  ///< global scale, applied to the fp32 accumulator

  friend bool operator==(const QuantizedMatrix&, const QuantizedMatrix&) = default;
};

/// max |w| over the span (0 for an empty span).
float abs_max(std::span<const float> w);

/// ModelOpt's `weight_scale_2 = amax / (6 * 448)` in fp32; 1 when amax == 0.
float global_scale_from_amax(float amax);

/// Quantizes fp32 `w` [rows, cols] row-major with weight_scale_2 from its own amax.
/// Throws ArgumentError unless cols % 16 == 0 and w.size() == rows * cols.
QuantizedMatrix quantize(std::span<const float> w, int rows, int cols);

/// Same with a given global scale (ModelOpt's fused w13: gate and up share one
/// weight_scale_2, the amax over both). Per 16-element block:
///   scale = e4m3(block_amax / (6 * weight_scale_2)), raised to 2^-9 (byte 0x01) if it would be 0,
///   code  = e2m1(v / (e4m3_to_float(scale) * weight_scale_2)).
/// ModelOpt writes 1.0 for an all-zero block and 0 for a block that underflows; the 2^-9 floor
/// encodes the same zeros and never yields a zero scale (which would make v / 0 = Inf codes).
QuantizedMatrix quantize(std::span<const float> w, int rows, int cols, float weight_scale_2);

/// Throws ArgumentError naming `name` (e.g. "experts[3].down") unless `m` is rows x cols with
/// cols % 16 == 0 and buffers of the matching sizes.
void check_matrix(const QuantizedMatrix& m, std::string_view name, int rows, int cols);

/// The e2m1 code of element (r, c).
inline uint8_t code_at(const QuantizedMatrix& m, int r, int c) {
  const uint8_t byte = m.weight[static_cast<std::size_t>(r) * (m.cols / 2) + c / 2];
  return (c & 1) ? byte >> 4 : byte & 0xF;
}

/// The e4m3 block-scale byte of element (r, c).
inline uint8_t scale_at(const QuantizedMatrix& m, int r, int c) {
  return m.scale[static_cast<std::size_t>(r) * (m.cols / 16) + c / 16];
}

/// e2m1 * e4m3 (exact, representable in bf16: SPEC.md section 1), without the global scale.
float dequant_bf16_noglobal(const QuantizedMatrix& m, int r, int c);

/// The fp32 value ModelOpt dequantizes to: e2m1 * e4m3 * weight_scale_2 (one rounding).
float dequant(const QuantizedMatrix& m, int r, int c);

}  // namespace moegemv::nvfp4
