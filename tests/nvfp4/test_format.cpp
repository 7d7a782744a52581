// Scalar formats: hand-computed decode vectors, rounding rules, and the exactness of
// e2m1 * e4m3 in bf16 that the kernels' decode relies on (SPEC.md section 1).
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nvfp4/format.hpp"
#include "templates/params.h"

using namespace moegemv::nvfp4;

namespace {
bool is_finite_e4m3(int byte) { return (byte & 0x7F) != 0x7F; }
}  // namespace

TEST_CASE("e2m1 decodes all 16 codes", "[reference][format]") {
  const float expected[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                              -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
  for (int c = 0; c < 16; ++c) {
    CAPTURE(c);
    CHECK(e2m1_to_float(static_cast<uint8_t>(c)) == expected[c]);
    CHECK(std::signbit(e2m1_to_float(static_cast<uint8_t>(c))) == (c >= 8));
  }
}

TEST_CASE("e4m3fn decode vectors", "[reference][format]") {
  CHECK(e4m3_to_float(0x00) == 0.0f);
  CHECK(e4m3_to_float(0x01) == 0x1p-9f);  // smallest subnormal
  CHECK(e4m3_to_float(0x07) == 7 * 0x1p-9f);
  CHECK(e4m3_to_float(0x08) == 0x1p-6f);  // smallest normal
  CHECK(e4m3_to_float(0x38) == 1.0f);
  CHECK(e4m3_to_float(0x3F) == 1.875f);
  CHECK(e4m3_to_float(0x40) == 2.0f);
  CHECK(e4m3_to_float(0x7E) == 448.0f);
  CHECK(std::isnan(e4m3_to_float(0x7F)));
  CHECK(std::isnan(e4m3_to_float(0xFF)));
  CHECK(e4m3_to_float(0x80) == 0.0f);
  CHECK(std::signbit(e4m3_to_float(0x80)));
  CHECK(e4m3_to_float(0x81) == -0x1p-9f);
  CHECK(e4m3_to_float(0xB8) == -1.0f);
  CHECK(e4m3_to_float(0xFE) == -448.0f);
}

TEST_CASE("float_to_e4m3 round-trips, rounds to nearest even, saturates", "[reference][format]") {
  for (int b = 0; b < 256; ++b) {
    if (!is_finite_e4m3(b)) continue;
    CAPTURE(b);
    CHECK(float_to_e4m3(e4m3_to_float(static_cast<uint8_t>(b))) == b);
  }
  // Every midpoint between neighbours goes to the even byte (the mantissa LSB is the byte LSB).
  for (int b = 0; b < 0x7E; ++b) {
    const float lo = e4m3_to_float(static_cast<uint8_t>(b));
    const float hi = e4m3_to_float(static_cast<uint8_t>(b + 1));
    const float mid = (lo + hi) / 2;  // exact in fp32
    CAPTURE(b, mid);
    CHECK(float_to_e4m3(mid) == ((b % 2 == 0) ? b : b + 1));
    CHECK(float_to_e4m3(std::nextafter(mid, 0.0f)) == b);
    CHECK(float_to_e4m3(std::nextafter(mid, 1000.0f)) == b + 1);
    CHECK(float_to_e4m3(-mid) == (0x80 | ((b % 2 == 0) ? b : b + 1)));
  }
  CHECK(float_to_e4m3(0x1p-10f) == 0x00);  // tie between 0 and 2^-9: even
  CHECK(float_to_e4m3(0.75f * 0x1p-9f) == 0x01);
  CHECK(float_to_e4m3(464.0f) == 0x7E);  // satfinite, not NaN
  CHECK(float_to_e4m3(1e6f) == 0x7E);
  CHECK(float_to_e4m3(std::numeric_limits<float>::infinity()) == 0x7E);
  CHECK(float_to_e4m3(-std::numeric_limits<float>::infinity()) == 0xFE);
  CHECK(float_to_e4m3(std::numeric_limits<float>::quiet_NaN()) == 0x7F);
  CHECK(float_to_e4m3(0x1p-140f) == 0x00);  // fp32 subnormal input
}

TEST_CASE("float_to_e2m1 rounds to nearest, ties to the even code", "[reference][format]") {
  for (int c = 0; c < 16; ++c) {
    if (c == 8) continue;  // -0 encodes as +0 (sign is v < 0, like ModelOpt)
    CHECK(float_to_e2m1(e2m1_to_float(static_cast<uint8_t>(c))) == c);
  }
  CHECK(float_to_e2m1(-0.0f) == 0);
  CHECK(float_to_e2m1(-0.1f) == 8);
  // Midpoints: 0.25->0, 0.75->1 (code 2), 1.25->1 (code 2), 1.75->2 (code 4), 2.5->2, 3.5->4,
  // 5->4 (code 6).
  const float ties[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const int codes[7] = {0, 2, 2, 4, 4, 6, 6};
  for (int j = 0; j < 7; ++j) {
    CAPTURE(ties[j]);
    CHECK(float_to_e2m1(ties[j]) == codes[j]);
    CHECK(float_to_e2m1(-ties[j]) == (8 | codes[j]));
    CHECK(float_to_e2m1(std::nextafter(ties[j], 0.0f)) == j);
    CHECK(float_to_e2m1(std::nextafter(ties[j], 10.0f)) == j + 1);
  }
  CHECK(float_to_e2m1(7.0f) == 7);
  CHECK(float_to_e2m1(-1e9f) == 15);
}

TEST_CASE("bf16 rounding: ties to even, NaN stays quiet NaN", "[reference][format]") {
  auto bits = [](uint32_t u) { return float_to_bf16_bits(std::bit_cast<float>(u)); };
  CHECK(bits(0x3F800000u) == 0x3F80);
  CHECK(bits(0x3F808000u) == 0x3F80);  // 1 + 2^-8: tie, keep even
  CHECK(bits(0x3F818000u) == 0x3F82);  // tie, odd LSB rounds up
  CHECK(bits(0x3F808001u) == 0x3F81);  // just above the tie
  CHECK(bits(0x3F807FFFu) == 0x3F80);
  CHECK(bits(0xBF818000u) == 0xBF82);
  CHECK(bits(0x7F7FFFFFu) == 0x7F80);  // rounds up to Inf
  CHECK(bits(0x7F800000u) == 0x7F80);
  CHECK(bits(0x7F800001u) == 0x7FC0);  // signalling NaN with a low payload: quiet, still NaN
  CHECK(bits(0xFFC00000u) == 0xFFC0);
  CHECK(bits(0x00000001u) == 0x0000);  // fp32 subnormals round like any value
  CHECK(bf16_bits_to_float(0x3F80) == 1.0f);
  CHECK(bf16_bits_to_float(0xC040) == -3.0f);
  CHECK(round_bf16(1.00390625f) == 1.0f);
}

TEST_CASE("e2m1 x e4m3 is exact in bf16 for all 16 x 254 finite pairs", "[reference][format]") {
  int pairs = 0;
  for (int c = 0; c < 16; ++c) {
    for (int b = 0; b < 256; ++b) {
      if (!is_finite_e4m3(b)) continue;
      const float w =
          e2m1_to_float(static_cast<uint8_t>(c)) * e4m3_to_float(static_cast<uint8_t>(b));
      CAPTURE(c, b, w);
      CHECK(round_bf16(w) == w);
      const float a = std::fabs(w);
      CHECK((a == 0.0f || (a >= 0x1p-10f && a <= 2688.0f)));
      ++pairs;
    }
  }
  CHECK(pairs == 16 * 254);
}

TEST_CASE("SPEC software e2m1 decode: nibble bits at bf16 bits 15 and 8..6, times 2^126",
          "[reference][format]") {
  for (int c = 0; c < 16; ++c) {
    const auto raw = static_cast<uint16_t>(((c & 0x8) << 12) | ((c & 0x7) << 6));
    const float decoded = bf16_bits_to_float(raw) * bf16_bits_to_float(0x7E80);
    CAPTURE(c);
    CHECK(bf16_bits_to_float(0x7E80) == 0x1p126f);
    CHECK(decoded == e2m1_to_float(static_cast<uint8_t>(c)));
  }
}

// The decode's FMA-pipe moves (MOEGEMV_DECODE, templates/nvfp4.cuh) multiply a half-word by 1,
// which keeps its bits only where it is a finite number of the format: pinned here for every
// value they can see.
TEST_CASE("the decode's half-word moves see only finite f16 and bf16 values", "[reference][format]") {
  // Bit 1: the high half of a word with its nibbles' sign bits cleared, as an f16.
  for (std::uint32_t h = 0; h < 65536; ++h) {
    if (h & 0x8888u) continue;
    CAPTURE(h);
    CHECK(((h >> 10) & 0x1F) != 0x1F);
  }
  // Bit 2: S = scale * 2^(132 - kDecodeShift) as fp32, whose high half is then S's bf16: its low
  // half must be 0 and the bf16 finite, for every finite e4m3 scale.
  for (int b = 0; b < 256; ++b) {
    if (!is_finite_e4m3(b)) continue;
    const float s = std::ldexp(e4m3_to_float(static_cast<uint8_t>(b)), 132 - moegemv::kDecodeShift);
    const auto f = std::bit_cast<std::uint32_t>(s);
    CAPTURE(b, s);
    CHECK((f & 0xFFFFu) == 0);
    CHECK(((f >> 23) & 0xFF) != 0xFF);
  }
}

