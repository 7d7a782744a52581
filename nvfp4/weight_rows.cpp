#include "nvfp4/weight_rows.hpp"

#include "nvfp4/format.hpp"

namespace moegemv::nvfp4 {

void decode_row(const uint8_t* weight, const uint8_t* swizzled_scales, int rows, int cols, int row,
                std::span<float> out) {
  const int kblocks = cols / kBlockSize;
  const uint8_t* bytes = weight + static_cast<std::size_t>(row) * (cols / 2);
  for (int kb = 0; kb < kblocks; ++kb) {
    const float scale = e4m3_to_float(swizzled_scales[swizzle_offset(0, row, kb, rows, kblocks)]);
    for (int j = 0; j < kBlockSize / 2; ++j) {
      const uint8_t byte = bytes[kb * (kBlockSize / 2) + j];
      out[kb * kBlockSize + 2 * j] = e2m1_to_float(byte & 0xF) * scale;
      out[kb * kBlockSize + 2 * j + 1] = e2m1_to_float(byte >> 4) * scale;
    }
  }
}

void decode_w1_row(const RoutedLayout& routed, int e, bool gate, int i, std::span<float> out) {
  const int rows = 2 * routed.I, cols = routed.H;
  decode_row(routed.w1.data() + static_cast<std::size_t>(e) * rows * (cols / 2),
             routed.w1_sf.data() + e * routed.w1_sf_expert_bytes(), rows, cols,
             w1_physical_row(gate, i), out);
}

void decode_w2_row(const RoutedLayout& routed, int e, int n, std::span<float> out) {
  const int rows = routed.H, cols = routed.I;
  decode_row(routed.w2.data() + static_cast<std::size_t>(e) * rows * (cols / 2),
             routed.w2_sf.data() + e * routed.w2_sf_expert_bytes(), rows, cols, n, out);
}

void decode_wsh_row(const SharedLayout& shared, bool gate, int i, std::span<float> out) {
  decode_row(shared.wsh.data(), shared.ssh.data(), 2 * shared.SI, shared.H,
             gate ? i : shared.SI + i, out);
}

void decode_wsd_row(const SharedLayout& shared, int n, std::span<float> out) {
  decode_row(shared.wsd.data(), shared.ssd.data(), shared.H, shared.SI, n, out);
}

}  // namespace moegemv::nvfp4
