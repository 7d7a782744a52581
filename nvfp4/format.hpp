#pragma once
// Scalar NVFP4 number formats (SPEC.md section 1): e2m1 weights, e4m3fn block scales, bf16.
#include <cstdint>

namespace moegemv::nvfp4 {

inline constexpr int kBlockSize = 16;                ///< K-elements per e4m3 block scale
inline constexpr float kE2m1Max = 6.0f;              ///< largest e2m1 magnitude
inline constexpr float kE4m3Max = 448.0f;            ///< largest finite e4m3fn value
inline constexpr float kE4m3MinSubnormal = 0x1p-9f;  ///< e4m3fn byte 0x01
inline constexpr uint8_t kE4m3MaxByte = 0x7E;        ///< +448
inline constexpr uint8_t kE4m3NanByte = 0x7F;        ///< e4m3fn has NaN (0x7F/0xFF), no Inf

/// e2m1 code -> value; bit 3 is the sign, so code 8 is -0.
inline constexpr float kE2m1Values[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                          -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

/// Value of an e2m1 nibble (only the low 4 bits of `code` are read). Code 8 is -0.
inline float e2m1_to_float(uint8_t code) { return kE2m1Values[code & 0xF]; }

/// Value of an e4m3fn byte: bias 7, subnormals (0x01 = 2^-9), 0x7E = 448, 0x7F/0xFF = NaN.
float e4m3_to_float(uint8_t byte);

/// fp32 -> e4m3fn, round to nearest, ties to even, SATFINITE: every |v| beyond 448 (Inf
/// included) becomes +-448 (0x7E/0xFE), like PTX `cvt.rn.satfinite.e4m3x2.f32`. torch's
/// `.to(float8_e4m3fn)` yields NaN there instead; ModelOpt never feeds it such values because
/// its scales are bounded by construction. NaN -> 0x7F (0xFF if the sign bit is set).
uint8_t float_to_e4m3(float v);

/// fp32 -> e2m1 code, round to the nearest of 0, .5, 1, 1.5, 2, 3, 4, 6; a tie goes to the
/// EVEN code (values: 0.25->0, 0.75->1, 1.25->1, 1.75->2, 2.5->2, 3.5->4, 5->4), which is what
/// ModelOpt's `_cast_fp4` (searchsorted plus odd-bound round-up) and IEEE RNE both give.
/// |v| > 6 saturates to 6. The sign is taken as `v < 0` (ModelOpt), so -0.1 -> 8 (-0) and
/// -0.0 -> 0. NaN -> 7 (+6, the PTX satfinite convention).
uint8_t float_to_e2m1(float v);

/// fp32 -> bf16 bits, round to nearest even; a NaN stays NaN and becomes quiet.
uint16_t float_to_bf16_bits(float v);

/// bf16 bits -> fp32 (exact).
float bf16_bits_to_float(uint16_t bits);

/// bf16(v) as an fp32 value.
inline float round_bf16(float v) { return bf16_bits_to_float(float_to_bf16_bits(v)); }

}  // namespace moegemv::nvfp4
