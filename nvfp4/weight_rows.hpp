#pragma once
// Decoded rows of the laid-out weights: e2m1 * e4m3 per element (exact in bf16, SPEC.md
// section 1), global scale NOT applied. The references read weights only through these, so
// every reference check also checks the layouts (interleave, swizzle, nibble order).
#include <span>

#include "nvfp4/layout.hpp"

namespace moegemv::nvfp4 {

/// Row `row` of a [rows, cols] NVFP4 matrix: packed bytes at `weight` (row-major), scales
/// swizzled at `swizzled_scales` (one matrix). `out` has cols elements.
void decode_row(const uint8_t* weight, const uint8_t* swizzled_scales, int rows, int cols, int row,
                std::span<float> out);

/// Row i of expert e's up (gate == false) or gate projection, read from w1/w1_sf. out: H.
void decode_w1_row(const RoutedLayout& routed, int e, bool gate, int i, std::span<float> out);

/// Row n of expert e's down projection, read from w2/w2_sf. out: I.
void decode_w2_row(const RoutedLayout& routed, int e, int n, std::span<float> out);

/// Row i of the shared gate (gate == true) or up projection, read from wsh/ssh. out: H.
void decode_wsh_row(const SharedLayout& shared, bool gate, int i, std::span<float> out);

/// Row n of the shared down projection, read from wsd/ssd. out: SI.
void decode_wsd_row(const SharedLayout& shared, int n, std::span<float> out);

}  // namespace moegemv::nvfp4
