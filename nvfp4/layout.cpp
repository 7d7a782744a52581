#include "nvfp4/layout.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <string>

#include "moegemv/errors.hpp"
#include "nvfp4/checks.hpp"

namespace moegemv::nvfp4 {

using detail::check_multiple;
using detail::check_size;

namespace {

constexpr int kAtomRows = 128;   // rows per swizzle tile
constexpr int kAtomCols = 4;     // k-blocks per swizzle tile (one u32 per row)
constexpr int kTileBytes = 512;  // 128 x 4

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

}  // namespace

std::size_t swizzled_size(int rows, int kblocks) {
  return round_up(rows, kAtomRows) * round_up(kblocks, kAtomCols);
}

std::size_t swizzle_offset(int expert, int row, int kblock, int rows, int kblocks) {
  const std::size_t k_tiles = round_up(kblocks, kAtomCols) / kAtomCols;
  const std::size_t m = row, kb = kblock;
  return expert * swizzled_size(rows, kblocks) + (m / 128) * k_tiles * kTileBytes +
         (kb / 4) * kTileBytes + (m % 32) * 16 + ((m % 128) / 32) * 4 + kb % 4;
}

std::vector<uint8_t> swizzle_scales(std::span<const uint8_t> linear, int rows, int kblocks) {
  check_size(linear.size(), static_cast<std::size_t>(rows) * kblocks, "linear");
  std::vector<uint8_t> out(swizzled_size(rows, kblocks), 0);
  for (int r = 0; r < rows; ++r)
    for (int kb = 0; kb < kblocks; ++kb)
      out[swizzle_offset(0, r, kb, rows, kblocks)] =
          linear[static_cast<std::size_t>(r) * kblocks + kb];
  return out;
}

std::vector<uint8_t> unswizzle_scales(std::span<const uint8_t> swizzled, int rows, int kblocks) {
  check_size(swizzled.size(), swizzled_size(rows, kblocks), "swizzled");
  std::vector<uint8_t> out(static_cast<std::size_t>(rows) * kblocks);
  for (int r = 0; r < rows; ++r)
    for (int kb = 0; kb < kblocks; ++kb)
      out[static_cast<std::size_t>(r) * kblocks + kb] =
          swizzled[swizzle_offset(0, r, kb, rows, kblocks)];
  return out;
}

RoutedLayout to_routed_layout(std::span<const ExpertWeights> experts) {
  if (experts.empty()) throw ArgumentError("experts", "at least one expert", "0");
  const int I = experts[0].gate.rows, H = experts[0].gate.cols;
  check_multiple(I, kW1InterleaveRows, "experts[0].gate.rows",
                 "I; w1 interleaves [up; gate] in 64-row groups");
  check_multiple(H, 64, "experts[0].gate.cols", "H");
  RoutedLayout out;
  out.E = static_cast<int>(experts.size());
  out.H = H;
  out.I = I;
  const std::size_t w1_expert = std::size_t{2} * I * H / 2, w2_expert = std::size_t{1} * H * I / 2;
  out.w1.resize(out.E * w1_expert);
  out.w1_sf.assign(out.E * out.w1_sf_expert_bytes(), 0);
  out.w2.resize(out.E * w2_expert);
  out.w2_sf.assign(out.E * out.w2_sf_expert_bytes(), 0);
  out.alpha.resize(out.E);
  out.alpha2.resize(out.E);
  const int h_blocks = H / 16, i_blocks = I / 16;
  for (int e = 0; e < out.E; ++e) {
    const ExpertWeights& x = experts[e];
    const std::string name = fmt::format("experts[{}]", e);
    check_matrix(x.gate, name + ".gate", I, H);
    check_matrix(x.up, name + ".up", I, H);
    check_matrix(x.down, name + ".down", H, I);
    if (std::bit_cast<uint32_t>(x.gate.weight_scale_2) !=
        std::bit_cast<uint32_t>(x.up.weight_scale_2))
      throw ArgumentError(
          name + ".up.weight_scale_2",
          fmt::format("{} (= gate's; one alpha serves gate and up)", x.gate.weight_scale_2),
          fmt::format("{}", x.up.weight_scale_2));
    for (int p = 0; p < 2 * I; ++p) {
      bool gate;
      const int i = w1_logical_row(p, gate);
      const QuantizedMatrix& src = gate ? x.gate : x.up;
      std::memcpy(&out.w1[e * w1_expert + std::size_t{1} * p * (H / 2)],
                  &src.weight[std::size_t{1} * i * (H / 2)], H / 2);
      for (int kb = 0; kb < h_blocks; ++kb)
        out.w1_sf[swizzle_offset(e, p, kb, 2 * I, h_blocks)] =
            src.scale[std::size_t{1} * i * h_blocks + kb];
    }
    std::memcpy(&out.w2[e * w2_expert], x.down.weight.data(), w2_expert);
    for (int n = 0; n < H; ++n)
      for (int kb = 0; kb < i_blocks; ++kb)
        out.w2_sf[swizzle_offset(e, n, kb, H, i_blocks)] =
            x.down.scale[std::size_t{1} * n * i_blocks + kb];
    out.alpha[e] = x.gate.weight_scale_2;
    out.alpha2[e] = x.down.weight_scale_2;
  }
  return out;
}

std::vector<ExpertWeights> from_routed_layout(const RoutedLayout& routed) {
  validate(routed);
  const int E = routed.E, H = routed.H, I = routed.I;
  const int h_blocks = H / 16, i_blocks = I / 16;
  const std::size_t w1_expert = std::size_t{2} * I * H / 2, w2_expert = std::size_t{1} * H * I / 2;
  std::vector<ExpertWeights> experts(E);
  for (int e = 0; e < E; ++e) {
    ExpertWeights& x = experts[e];
    for (QuantizedMatrix* m : {&x.gate, &x.up}) {
      m->rows = I;
      m->cols = H;
      m->weight.resize(std::size_t{1} * I * H / 2);
      m->scale.resize(std::size_t{1} * I * h_blocks);
      m->weight_scale_2 = routed.alpha[e];
    }
    for (int p = 0; p < 2 * I; ++p) {
      bool gate;
      const int i = w1_logical_row(p, gate);
      QuantizedMatrix& dst = gate ? x.gate : x.up;
      std::memcpy(&dst.weight[std::size_t{1} * i * (H / 2)],
                  &routed.w1[e * w1_expert + std::size_t{1} * p * (H / 2)], H / 2);
      for (int kb = 0; kb < h_blocks; ++kb)
        dst.scale[std::size_t{1} * i * h_blocks + kb] =
            routed.w1_sf[swizzle_offset(e, p, kb, 2 * I, h_blocks)];
    }
    x.down.rows = H;
    x.down.cols = I;
    x.down.weight.assign(routed.w2.begin() + e * w2_expert,
                         routed.w2.begin() + (e + 1) * w2_expert);
    x.down.scale.resize(std::size_t{1} * H * i_blocks);
    for (int n = 0; n < H; ++n)
      for (int kb = 0; kb < i_blocks; ++kb)
        x.down.scale[std::size_t{1} * n * i_blocks + kb] =
            routed.w2_sf[swizzle_offset(e, n, kb, H, i_blocks)];
    x.down.weight_scale_2 = routed.alpha2[e];
  }
  return experts;
}

void validate(const RoutedLayout& routed) {
  check_multiple(routed.E, 1, "routed.E", "number of experts");
  check_multiple(routed.I, kW1InterleaveRows, "routed.I",
                 "w1 interleaves [up; gate] in 64-row groups");
  check_multiple(routed.H, 64, "routed.H", "hidden size");
  const std::size_t E = routed.E, H = routed.H, I = routed.I;
  check_size(routed.w1.size(), E * 2 * I * H / 2, "routed.w1");
  check_size(routed.w1_sf.size(), E * routed.w1_sf_expert_bytes(), "routed.w1_sf");
  check_size(routed.alpha.size(), E, "routed.alpha");
  check_size(routed.w2.size(), E * H * I / 2, "routed.w2");
  check_size(routed.w2_sf.size(), E * routed.w2_sf_expert_bytes(), "routed.w2_sf");
  check_size(routed.alpha2.size(), E, "routed.alpha2");
}

}  // namespace moegemv::nvfp4
