#include "nvfp4/quantize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "moegemv/errors.hpp"
#include "nvfp4/format.hpp"

namespace moegemv::nvfp4 {

float abs_max(std::span<const float> w) {
  float amax = 0.0f;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  return amax;
}

float global_scale_from_amax(float amax) { return amax == 0.0f ? 1.0f : amax / (6.0f * 448.0f); }

QuantizedMatrix quantize(std::span<const float> w, int rows, int cols) {
  return quantize(w, rows, cols, global_scale_from_amax(abs_max(w)));
}

QuantizedMatrix quantize(std::span<const float> w, int rows, int cols, float weight_scale_2) {
  if (rows < 0) throw ArgumentError("rows", ">= 0", std::to_string(rows));
  if (cols < 0 || cols % kBlockSize != 0)
    throw ArgumentError("cols", "a non-negative multiple of 16 (the NVFP4 block size)",
                        std::to_string(cols));
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  if (w.size() != n)
    throw ArgumentError("w", fmt::format("{} values (rows {} x cols {})", n, rows, cols),
                        fmt::format("{} values", w.size()));
  if (!(weight_scale_2 > 0.0f) || !std::isfinite(weight_scale_2))
    throw ArgumentError("weight_scale_2", "a positive finite value",
                        fmt::format("{}", weight_scale_2));

  QuantizedMatrix q;
  q.rows = rows;
  q.cols = cols;
  q.weight_scale_2 = weight_scale_2;
  q.weight.assign(n / 2, 0);
  q.scale.assign(n / kBlockSize, 0);
  const float block_divisor = 6.0f * weight_scale_2;
  for (std::size_t block = 0; block < n / kBlockSize; ++block) {
    const float* v = w.data() + block * kBlockSize;
    const float block_amax = abs_max({v, static_cast<std::size_t>(kBlockSize)});
    uint8_t scale = float_to_e4m3(block_amax / block_divisor);
    if (scale == 0) scale = 0x01;
    q.scale[block] = scale;
    const float step = e4m3_to_float(scale) * weight_scale_2;
    uint8_t* out = q.weight.data() + block * (kBlockSize / 2);
    for (int j = 0; j < kBlockSize; j += 2) {
      const uint8_t lo = float_to_e2m1(v[j] / step);
      const uint8_t hi = float_to_e2m1(v[j + 1] / step);
      out[j / 2] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
  return q;
}

void check_matrix(const QuantizedMatrix& m, std::string_view name, int rows, int cols) {
  const std::string base(name);
  if (m.rows != rows)
    throw ArgumentError(base + ".rows", std::to_string(rows), std::to_string(m.rows));
  if (m.cols != cols)
    throw ArgumentError(base + ".cols", std::to_string(cols), std::to_string(m.cols));
  if (cols % kBlockSize != 0)
    throw ArgumentError(base + ".cols", "a multiple of 16", std::to_string(cols));
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  if (m.weight.size() != n / 2)
    throw ArgumentError(base + ".weight", fmt::format("{} bytes ([{}, {}])", n / 2, rows, cols / 2),
                        fmt::format("{} bytes", m.weight.size()));
  if (m.scale.size() != n / kBlockSize)
    throw ArgumentError(base + ".scale",
                        fmt::format("{} bytes ([{}, {}])", n / kBlockSize, rows, cols / kBlockSize),
                        fmt::format("{} bytes", m.scale.size()));
}

float dequant_bf16_noglobal(const QuantizedMatrix& m, int r, int c) {
  return e2m1_to_float(code_at(m, r, c)) * e4m3_to_float(scale_at(m, r, c));
}

float dequant(const QuantizedMatrix& m, int r, int c) {
  return dequant_bf16_noglobal(m, r, c) * m.weight_scale_2;
}

}  // namespace moegemv::nvfp4
