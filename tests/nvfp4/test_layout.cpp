// Layouts: the swizzle formula against FlashInfer's 6-D view, padding, the w1 interleave, and
// bit-identical round trips of every converter.
#include <array>
#include <catch2/catch.hpp>
#include <vector>

#include "argument_of.hpp"
#include "moegemv/errors.hpp"
#include "nvfp4/layout.hpp"
#include "nvfp4/random.hpp"
#include "nvfp4/synthetic.hpp"

using namespace moegemv::nvfp4;

namespace {


QuantizedMatrix zeros(int rows, int cols) {
  return quantize(std::vector<float>(static_cast<std::size_t>(rows) * cols, 0.0f), rows, cols);
}

}  // namespace

TEST_CASE("swizzled_size pads rows to 128 and k-blocks to 4", "[layout]") {
  CHECK(swizzled_size(1, 1) == 512);
  CHECK(swizzled_size(128, 4) == 512);
  CHECK(swizzled_size(129, 5) == 256 * 8);
  CHECK(swizzled_size(4096, 448) == 4096 * 448);
  CHECK(swizzled_size(0, 4) == 0);
  CHECK(swizzled_size(128, 0) == 0);
}

// FlashInfer's convert_sf_to_mma_layout views the storage, contiguous as (E, Mt, Kt, 32, 4, 4),
// through permute(3, 4, 1, 5, 2, 0): a view of shape (32, 4, Mt, 4, Kt, E) whose element
// (m%32, (m%128)/32, m/128, kb%4, kb/4, b) is scale (b, m, kb). Walk that view with its own
// strides and demand the same byte offsets as the closed formula, each storage byte once.
TEST_CASE("swizzle_offset matches the 6-D (32,4,Mt,4,Kt,E) view", "[layout]") {
  struct Case {
    int rows, kblocks, experts;
  };
  for (const Case c :
       {Case{128, 4, 1}, Case{256, 8, 3}, Case{200, 5, 2}, Case{64, 3, 2}, Case{384, 12, 2}}) {
    CAPTURE(c.rows, c.kblocks, c.experts);
    const int mt = (c.rows + 127) / 128, kt = (c.kblocks + 3) / 4;
    const std::array<std::size_t, 6> storage_shape = {
        std::size_t(c.experts), std::size_t(mt), std::size_t(kt), 32, 4, 4};
    std::array<std::size_t, 6> storage_stride{};
    std::size_t total = 1;
    for (int d = 5; d >= 0; --d) {
      storage_stride[d] = total;
      total *= storage_shape[d];
    }
    const std::array<int, 6> perm = {3, 4, 1, 5, 2, 0};
    std::array<std::size_t, 6> shape{}, stride{};
    for (int d = 0; d < 6; ++d) {
      shape[d] = storage_shape[perm[d]];
      stride[d] = storage_stride[perm[d]];
    }
    REQUIRE(total == c.experts * swizzled_size(c.rows, c.kblocks));
    std::vector<int> hits(total, 0);
    std::array<std::size_t, 6> idx{};
    for (std::size_t flat = 0; flat < total; ++flat) {
      std::size_t rest = flat, off = 0;
      for (int d = 0; d < 6; ++d) {  // first view dimension varies fastest
        idx[d] = rest % shape[d];
        rest /= shape[d];
        off += idx[d] * stride[d];
      }
      ++hits[off];
      const int m = static_cast<int>(idx[2] * 128 + idx[1] * 32 + idx[0]);
      const int kb = static_cast<int>(idx[4] * 4 + idx[3]);
      const int b = static_cast<int>(idx[5]);
      if (m < c.rows && kb < c.kblocks) REQUIRE(swizzle_offset(b, m, kb, c.rows, c.kblocks) == off);
    }
    for (std::size_t o = 0; o < total; ++o) REQUIRE(hits[o] == 1);
  }
}

TEST_CASE("swizzle_scales round-trips and zero-pads", "[layout]") {
  const int rows = 200, kblocks = 5;
  Rng rng(7);
  std::vector<uint8_t> linear(rows * kblocks);
  for (auto& b : linear) b = static_cast<uint8_t>(1 + rng.below(0x7E));
  const std::vector<uint8_t> sw = swizzle_scales(linear, rows, kblocks);
  REQUIRE(sw.size() == swizzled_size(rows, kblocks));
  std::vector<bool> used(sw.size(), false);
  for (int r = 0; r < rows; ++r)
    for (int kb = 0; kb < kblocks; ++kb) used[swizzle_offset(0, r, kb, rows, kblocks)] = true;
  std::size_t padding = 0;
  for (std::size_t o = 0; o < sw.size(); ++o) {
    if (used[o]) continue;
    ++padding;
    REQUIRE(sw[o] == 0);
  }
  CHECK(padding == sw.size() - linear.size());
  CHECK(unswizzle_scales(sw, rows, kblocks) == linear);
  CHECK(argument_of([&] { swizzle_scales(linear, rows, 4); }) == "linear");
}

TEST_CASE("w1 rows: [up; gate] interleaved in 64-row groups", "[layout]") {
  CHECK(w1_physical_row(false, 0) == 0);
  CHECK(w1_physical_row(true, 0) == 64);
  CHECK(w1_physical_row(false, 64) == 128);
  CHECK(w1_physical_row(true, 127) == 255);
  for (int p = 0; p < 512; ++p) {
    bool gate;
    const int i = w1_logical_row(p, gate);
    REQUIRE(w1_physical_row(gate, i) == p);
  }
}

// gate_up's scale-after split tile (templates/split_after.cuh, gu_safter=1) reads its second row
// set (features i + 4 of a tile's i = 8t .. 8t + 3) at fixed offsets from the first: 4 rows further
// in w1 and 64 bytes further in the swizzled scales, for every k-block.
TEST_CASE("w1: features i + 4 of an 8-feature tile are 4 rows and 64 scale bytes on", "[layout]") {
  constexpr int kI = 512, kBlocks = 16;
  for (bool gate : {false, true}) {
    for (int i = 0; i < kI; ++i) {
      if (i % 8 >= 4) continue;
      const int p = w1_physical_row(gate, i), q = w1_physical_row(gate, i + 4);
      INFO("gate " << gate << " feature " << i);
      REQUIRE(q == p + 4);
      for (int kb = 0; kb < kBlocks; ++kb)
        REQUIRE(swizzle_offset(0, q, kb, 2 * kI, kBlocks) == swizzle_offset(0, p, kb, 2 * kI, kBlocks) + 64);
    }
  }
}

TEST_CASE("routed layout: contents and bit-identical round trips", "[layout]") {
  const ModelShape shape{192, 128, 0, 0, 3};  // H = 192: w2_sf rows padded to 256
  const std::vector<ExpertWeights> experts = make_experts(shape, 42);
  const RoutedLayout routed = to_routed_layout(experts);
  REQUIRE(routed.w1.size() == 3u * 256 * 96);
  REQUIRE(routed.w2_sf.size() == 3u * 256 * 8);
  // Physical row 64 of expert 1 is gate row 0; row 128 is up row 64.
  for (int j = 0; j < 96; ++j) {
    CHECK(routed.w1[(1 * 256 + 64) * 96 + j] == experts[1].gate.weight[j]);
    CHECK(routed.w1[(1 * 256 + 128) * 96 + j] == experts[1].up.weight[64 * 96 + j]);
  }
  for (int kb = 0; kb < 12; ++kb)
    CHECK(routed.w1_sf[swizzle_offset(1, 64, kb, 256, 12)] == experts[1].gate.scale[kb]);
  for (int e = 0; e < 3; ++e) {
    CHECK(routed.alpha[e] == experts[e].gate.weight_scale_2);
    CHECK(routed.alpha2[e] == experts[e].down.weight_scale_2);
    for (int r = 192; r < 256; ++r)
      for (int kb = 0; kb < 8; ++kb) REQUIRE(routed.w2_sf[swizzle_offset(e, r, kb, 192, 8)] == 0);
  }
  CHECK(from_routed_layout(routed) == experts);
  CHECK(to_routed_layout(from_routed_layout(routed)) == routed);

  const SyntheticLayer fast = make_layer_fast({192, 128, 80, 0, 3}, 9);
  CHECK(to_routed_layout(from_routed_layout(fast.routed)) == fast.routed);
  CHECK(to_shared_layout(from_shared_layout(fast.shared)) == fast.shared);
}

TEST_CASE("shared layout: [gate; up], padding, SI == 0, round trips", "[layout]") {
  // SI = 80: 2SI = 160 rows pad to 256, SI/16 = 5 k-blocks pad to 8.
  const SharedWeights shared = make_shared_weights({64, 64, 80, 0, 1}, 5);
  const SharedLayout layout = to_shared_layout(shared);
  CHECK(layout.wsh.size() == 160u * 32);
  CHECK(layout.ssh.size() == 256u * 4);
  CHECK(layout.ssd.size() == 128u * 8);
  CHECK(std::equal(shared.up.weight.begin(), shared.up.weight.end(), layout.wsh.begin() + 80 * 32));
  CHECK(layout.ssh[swizzle_offset(0, 80, 2, 160, 4)] == shared.up.scale[2]);
  for (int n = 0; n < 64; ++n)
    for (int kb = 5; kb < 8; ++kb) REQUIRE(layout.ssd[swizzle_offset(0, n, kb, 64, 5)] == 0);
  CHECK(layout.gssh == shared.gate.weight_scale_2);
  CHECK(layout.gssd == shared.down.weight_scale_2);
  CHECK(from_shared_layout(layout) == shared);
  CHECK(to_shared_layout(from_shared_layout(layout)) == layout);

  const SharedWeights none = make_shared_weights({64, 64, 0, 0, 1}, 5);
  const SharedLayout empty = to_shared_layout(none);
  CHECK(empty.SI == 0);
  CHECK(empty.H == 64);
  CHECK((empty.wsh.empty() && empty.ssh.empty() && empty.wsd.empty() && empty.ssd.empty()));
  CHECK(from_shared_layout(empty) == none);
}

TEST_CASE("layout converters reject bad shapes, naming the argument", "[layout]") {
  // I = 96 is not a multiple of the 64-row interleave.
  std::vector<ExpertWeights> bad_i(1, ExpertWeights{zeros(96, 64), zeros(96, 64), zeros(64, 96)});
  CHECK(argument_of([&] { to_routed_layout(bad_i); }) == "experts[0].gate.rows");
  std::vector<ExpertWeights> bad_h(1, ExpertWeights{zeros(64, 48), zeros(64, 48), zeros(48, 64)});
  CHECK(argument_of([&] { to_routed_layout(bad_h); }) == "experts[0].gate.cols");
  std::vector<ExpertWeights> two(2, ExpertWeights{zeros(64, 64), zeros(64, 64), zeros(64, 64)});
  two[1].down = zeros(128, 64);
  CHECK(argument_of([&] { to_routed_layout(two); }) == "experts[1].down.rows");
  two[1].down = zeros(64, 64);
  two[0].up.weight_scale_2 = 0.5f;
  CHECK(argument_of([&] { to_routed_layout(two); }) == "experts[0].up.weight_scale_2");
  CHECK(argument_of([&] { to_routed_layout({}); }) == "experts");

  RoutedLayout routed = to_routed_layout(
      std::vector<ExpertWeights>(1, ExpertWeights{zeros(64, 64), zeros(64, 64), zeros(64, 64)}));
  routed.w2_sf.pop_back();
  CHECK(argument_of([&] { from_routed_layout(routed); }) == "routed.w2_sf");
  routed.I = 96;
  CHECK(argument_of([&] { validate(routed); }) == "routed.I");

  SharedWeights shared{zeros(32, 64), zeros(32, 64), zeros(64, 32)};
  shared.up.weight_scale_2 = 2.0f;
  CHECK(argument_of([&] { to_shared_layout(shared); }) == "shared.up.weight_scale_2");
  shared.up = zeros(32, 128);
  CHECK(argument_of([&] { to_shared_layout(shared); }) == "shared.up.cols");
  CHECK(argument_of([&] { make_experts({64, 96, 0, 0, 1}, 1); }) == "shape.I");
  CHECK(argument_of([&] { make_layer_fast({64, 96, 0, 0, 1}, 1); }) == "shape.I");
}
