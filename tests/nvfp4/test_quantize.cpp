// The ModelOpt quantizer: hand-checked blocks, packing order, error bound, argument errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "moegemv/errors.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/quantize.hpp"
#include "nvfp4/synthetic.hpp"

using namespace moegemv::nvfp4;

TEST_CASE("quantize: exactly representable blocks come back exactly", "[reference][quantize]") {
  // Block 0 holds every e2m1 magnitude with amax 6: weight_scale_2 = 6 / 2688, block scale 448.
  // Block 1 is block 0 / 64: scale 7 (e4m3 0x4E = 1.75 * 4). Block 2 is all zero.
  const float base[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.5f, -1, -1.5f, -2, -3, -4, -6, 6};
  std::vector<float> w(48, 0.0f);
  for (int j = 0; j < 16; ++j) {
    w[j] = base[j];
    w[16 + j] = base[j] / 64;
  }
  const QuantizedMatrix q = quantize(w, 1, 48);
  REQUIRE(q.weight.size() == 24);
  REQUIRE(q.scale.size() == 3);
  CHECK(q.weight_scale_2 == 6.0f / 2688.0f);
  CHECK(q.scale[0] == 0x7E);
  CHECK(q.scale[1] == 0x4E);
  CHECK(q.scale[2] == 0x01);  // all-zero block: floored at 2^-9, never 0
  for (int c = 0; c < 32; ++c) {
    CAPTURE(c);
    CHECK(code_at(q, 0, c) == float_to_e2m1(base[c % 16]));
    const float scale = c < 16 ? 448.0f : 7.0f;
    CHECK(dequant_bf16_noglobal(q, 0, c) == base[c % 16] * scale);
    CHECK(dequant(q, 0, c) == Approx(w[c]).epsilon(1e-6).margin(1e-12));
  }
  for (int c = 32; c < 48; ++c) CHECK(code_at(q, 0, c) == 0);
  // Packing: byte j = element 2j in the low nibble, 2j+1 in the high nibble.
  CHECK(q.weight[0] == (float_to_e2m1(base[0]) | (float_to_e2m1(base[1]) << 4)));
  CHECK(q.weight[7] == (float_to_e2m1(base[14]) | (float_to_e2m1(base[15]) << 4)));
}

TEST_CASE("quantize: error within half an e2m1 gap of each block", "[reference][quantize]") {
  const int rows = 64, cols = 256;
  const std::vector<float> w = make_weights(rows, cols, 3.0f, 1234);
  const QuantizedMatrix q = quantize(w, rows, cols);
  CHECK(q.weight_scale_2 == Approx(3.0f / 2688.0f).epsilon(1e-6));
  double err2 = 0, ref2 = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const float v = w[static_cast<std::size_t>(r) * cols + c];
      const float step = e4m3_to_float(scale_at(q, r, c)) * q.weight_scale_2;
      const float dq = dequant(q, r, c);
      CAPTURE(r, c, v, dq, step);
      // Inside [-6, 6] steps the gap is at most 2 steps; beyond, the code saturates. Coarse
      // subnormal scales (2^-9 granularity) do round a block's scale down enough to saturate.
      const float saturation = std::max(0.0f, std::fabs(v) - 6.0f * step);
      REQUIRE(std::fabs(v - dq) <= 1.0001f * step + saturation);
      err2 += (v - dq) * static_cast<double>(v - dq);
      ref2 += v * static_cast<double>(v);
    }
  }
  CHECK(std::sqrt(err2 / ref2) < 0.15);
}

TEST_CASE("quantize: shared global scale and argument errors", "[reference][quantize]") {
  std::vector<float> w(32, 1.0f);
  const QuantizedMatrix q = quantize(w, 2, 16, 0.5f);
  CHECK(q.weight_scale_2 == 0.5f);
  // Block scale e4m3(1 / (6 * 0.5)) = 0.34375 (11 * 2^-5); 1 / (0.34375 * 0.5) = 5.8 -> code 6.
  CHECK(q.scale[1] == float_to_e4m3(0.34375f));
  CHECK(code_at(q, 1, 15) == 7);
  CHECK(dequant(q, 1, 15) == 1.03125f);
  const QuantizedMatrix zero = quantize(std::vector<float>(16, 0.0f), 1, 16);
  CHECK(zero.weight_scale_2 == 1.0f);

  try {
    quantize(std::vector<float>(24, 1.0f), 1, 24);
    FAIL("expected ArgumentError");
  } catch (const moegemv::ArgumentError& e) {
    CHECK(e.argument == "cols");
  }
  try {
    quantize(std::vector<float>(31, 1.0f), 2, 16);
    FAIL("expected ArgumentError");
  } catch (const moegemv::ArgumentError& e) {
    CHECK(e.argument == "w");
  }
  try {
    check_matrix(q, "m", 2, 32);
    FAIL("expected ArgumentError");
  } catch (const moegemv::ArgumentError& e) {
    CHECK(e.argument == "m.cols");
  }
}
