#include "nvfp4/format.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace moegemv::nvfp4 {

namespace {

// Midpoints between consecutive e2m1 magnitudes; midpoint j separates codes j and j+1.
constexpr float kE2m1Midpoint[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};

}  // namespace

float e4m3_to_float(uint8_t byte) {
  const bool negative = byte & 0x80;
  const int exponent = (byte >> 3) & 0xF;
  const int mantissa = byte & 0x7;
  float magnitude;
  if (exponent == 0xF && mantissa == 0x7) {
    magnitude = std::numeric_limits<float>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);  // subnormal: m * 2^-6 / 8
  } else {
    magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 7 - 3);
  }
  return negative ? -magnitude : magnitude;
}

uint8_t float_to_e4m3(float v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0x00;
  if (std::isnan(v)) return sign | kE4m3NanByte;
  const float a = std::fabs(v);
  if (a >= kE4m3Max) return sign | kE4m3MaxByte;
  int frexp_exp;
  std::frexp(a, &frexp_exp);
  int exponent = frexp_exp - 1;  // a in [2^exponent, 2^(exponent+1))
  // Scaling by a power of two is exact and rint() rounds to nearest even (default FE_TONEAREST),
  // so this is one correctly rounded conversion.
  if (a == 0.0f || exponent < -6) {
    // Subnormal quantum 2^-9; q == 8 is 2^-6, whose encoding (exponent 1, mantissa 0) is 0x08.
    return sign | static_cast<uint8_t>(std::rint(std::ldexp(a, 9)));
  }
  int q = static_cast<int>(std::rint(std::ldexp(a, 3 - exponent)));  // in [8, 16]
  if (q == 16) {
    q = 8;
    ++exponent;
  }
  const int byte = ((exponent + 7) << 3) | (q - 8);
  return sign | static_cast<uint8_t>(byte > kE4m3MaxByte ? kE4m3MaxByte : byte);
}

uint8_t float_to_e2m1(float v) {
  if (std::isnan(v)) return 0x7;
  const uint8_t sign = v < 0.0f ? 0x8 : 0x0;
  const float a = std::fabs(v);
  uint8_t code = 0;
  while (code < 7 && a > kE2m1Midpoint[code]) ++code;
  // At an exact midpoint the loop stopped at the lower code; take the upper one if it is even.
  if (code < 7 && a == kE2m1Midpoint[code] && (code & 1)) ++code;
  return sign | code;
}

uint16_t float_to_bf16_bits(float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  if (std::isnan(v)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  // Adding 0x7FFF plus the kept LSB rounds to nearest even; a carry into the exponent is the
  // correct result, including rounding up to Inf.
  const uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

float bf16_bits_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

}  // namespace moegemv::nvfp4
