// The CPU control for the fp8 idea (tools/harness/control_x_e4m3.cpp): what "two e4m3 terms per
// 16-element block" keeps and drops.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "nvfp4/format.hpp"
#include "tools/harness/check.hpp"

using moegemv::nvfp4::bf16_bits_to_float;
using moegemv::nvfp4::float_to_bf16_bits;

TEST_CASE("two e4m3 terms per block keep x within 2^10 of the block's largest, drop the rest",
          "[reference]") {
  std::vector<std::uint16_t> x(32, 0);
  // Block 0: values within a factor 2^10 of each other, 8 significant bits each: kept exactly.
  const float kept[] = {1.0f, -1.9921875f, 0.0078125f * 1.9921875f, 3.0f, -0.5f};
  for (int i = 0; i < 5; ++i) x[i] = float_to_bf16_bits(kept[i]);
  // Block 1: an outlier of 2^12 beside 1 + 2^-7 (8 significant bits): the small one, 2^12 below
  // the block's largest, keeps only its top bits (block scale 2^-4: 1 + 2^-7 becomes 2^-4 + 2^-11,
  // whose 2^-11 is under e4m3's smallest step, 2^-9).
  x[16] = float_to_bf16_bits(4096.0f);
  x[17] = float_to_bf16_bits(1.0078125f);
  const auto y = moegemv::harness::as_two_e4m3_terms(x, 32);
  for (int i = 0; i < 16; ++i) CHECK(y[i] == x[i]);
  CHECK(y[16] == x[16]);
  CHECK(bf16_bits_to_float(y[17]) == 1.0f);
  for (int i = 18; i < 32; ++i) CHECK(y[i] == x[i]);  // zeros stay zeros
}
