// Synthetic layers and inputs: determinism, realistic scale ranges, valid ids and weights.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <set>

#include "nvfp4/format.hpp"
#include "nvfp4/synthetic.hpp"

using namespace moegemv::nvfp4;

namespace {

struct ScaleStats {
  int min_byte = 0xFF, max_byte = 0, subnormal = 0, nan = 0, zero = 0;
  std::size_t n = 0;
};

// Over the real (unpadded) scales of `matrices` swizzled [rows, kblocks] matrices.
void add_scales(ScaleStats& s, const std::vector<uint8_t>& sf, int matrices, int rows,
                int kblocks) {
  for (int m = 0; m < matrices; ++m)
    for (int r = 0; r < rows; ++r)
      for (int kb = 0; kb < kblocks; ++kb) {
        const int b = sf[swizzle_offset(m, r, kb, rows, kblocks)];
        s.min_byte = std::min(s.min_byte, b);
        s.max_byte = std::max(s.max_byte, b);
        s.subnormal += (b > 0 && b < 0x08);
        s.nan += (b & 0x7F) == 0x7F;
        s.zero += b == 0;
        ++s.n;
      }
}

ScaleStats layer_scale_stats(const SyntheticLayer& layer) {
  const ModelShape& sh = layer.shape;
  ScaleStats s;
  add_scales(s, layer.routed.w1_sf, sh.E, 2 * sh.I, sh.H / 16);
  add_scales(s, layer.routed.w2_sf, sh.E, sh.H, sh.I / 16);
  add_scales(s, layer.shared.ssh, 1, 2 * sh.SI, sh.H / 16);
  add_scales(s, layer.shared.ssd, 1, sh.H, sh.SI / 16);
  return s;
}

void check_globals(const SyntheticLayer& layer) {
  std::vector<float> globals = layer.routed.alpha;
  globals.insert(globals.end(), layer.routed.alpha2.begin(), layer.routed.alpha2.end());
  globals.push_back(layer.shared.gssh);
  globals.push_back(layer.shared.gssd);
  for (float g : globals) {
    CHECK(g >= 0.99e-3f);
    CHECK(g <= 1.01e-1f);
  }
}

}  // namespace

TEST_CASE("make_layer: ModelOpt-quantized, realistic scales, deterministic",
          "[reference][synthetic]") {
  const ModelShape shape{256, 128, 192, 4, 8};
  const SyntheticLayer a = make_layer(shape, 3);
  CHECK(a.routed == make_layer(shape, 3).routed);
  CHECK(a.shared == make_layer(shape, 3).shared);
  CHECK_FALSE(a.routed == make_layer(shape, 4).routed);
  check_globals(a);
  const ScaleStats s = layer_scale_stats(a);
  INFO("min " << s.min_byte << " max " << s.max_byte << " subnormal " << s.subnormal << "/" << s.n);
  CHECK(s.nan == 0);
  CHECK(s.zero == 0);
  CHECK(s.max_byte == 0x7E);  // every tensor's amax block scales to 448
  CHECK(s.subnormal > 0);     // and some blocks are tiny
  CHECK(static_cast<std::size_t>(s.subnormal) < s.n / 10);
}

TEST_CASE("make_layer_fast: valid layouts, deterministic, fast", "[reference][synthetic]") {
  const ModelShape shape{192, 128, 80, 4, 4};  // padded w2_sf rows, ssh rows and ssd k-blocks
  const SyntheticLayer a = make_layer_fast(shape, 77);
  CHECK(a.routed == make_layer_fast(shape, 77).routed);
  CHECK(a.shared == make_layer_fast(shape, 77).shared);
  CHECK_FALSE(a.routed == make_layer_fast(shape, 78).routed);
  validate(a.routed);
  validate(a.shared);
  check_globals(a);
  const ScaleStats s = layer_scale_stats(a);
  CHECK(s.nan == 0);
  CHECK(s.zero == 0);
  CHECK(s.subnormal > 0);
  CHECK(s.max_byte == 0x7E);
  // Padding is zero: the unpadded scale count equals the nonzero bytes.
  std::size_t nonzero = 0;
  for (const auto* v : {&a.routed.w1_sf, &a.routed.w2_sf, &a.shared.ssh, &a.shared.ssd})
    nonzero += std::count_if(v->begin(), v->end(), [](uint8_t b) { return b != 0; });
  CHECK(nonzero == s.n);

  // ~100 MB; a rough guard against an accidentally serial or per-byte-slow generator.
  const auto start = std::chrono::steady_clock::now();
  const SyntheticLayer big = make_layer_fast({2048, 1024, 1024, 8, 16}, 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(seconds << " s for " << big.routed.w1.size() + big.routed.w2.size() << " bytes");
  CHECK(seconds < 5.0);
}

TEST_CASE("make_inputs: distinct ids, softmax weights, nonzero x", "[reference][synthetic]") {
  const ModelShape shape{256, 128, 0, 8, 32};
  const SyntheticInputs in = make_inputs(shape, 16, 5);
  REQUIRE(in.x.size() == 16u * 256);
  CHECK(std::none_of(in.x.begin(), in.x.end(), [](uint16_t b) { return (b & 0x7FFF) == 0; }));
  for (int t = 0; t < 16; ++t) {
    std::set<int> experts;
    double sum = 0;
    for (int j = 0; j < 8; ++j) {
      const int e = in.ids[t * 8 + j];
      CHECK((e >= 0 && e < 32));
      experts.insert(e);
      CHECK(in.tw[t * 8 + j] > 0.0f);
      sum += in.tw[t * 8 + j];
    }
    CHECK(experts.size() == 8);
    CHECK(sum == Approx(1.0).epsilon(1e-5));
  }
  const SyntheticInputs repeated = make_inputs(shape, 16, 5, {0.0, true});
  CHECK(std::set<int>(repeated.ids.begin(), repeated.ids.end()).size() <= 9);
  const SyntheticInputs skipped = make_inputs(shape, 16, 5, {1.0, false});
  CHECK(std::all_of(skipped.ids.begin(), skipped.ids.end(), [](int e) { return e == -1; }));
  const SyntheticInputs some = make_inputs(shape, 16, 5, {0.25, false});
  const auto n_skipped = std::count(some.ids.begin(), some.ids.end(), -1);
  CHECK((n_skipped > 8 && n_skipped < 64));
}
