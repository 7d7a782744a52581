// Exact NVFP4 dequantization on sm_90, which has no e2m1 conversion instruction.
//
// A weight w = e2m1(code) * e4m3(scale) has at most 6 significant bits (3 from e2m1, 4 from
// e4m3, and their product's leading bits overlap), so it is exact in bf16. We build it in two
// exact steps and keep the result in the normal bf16 range:
//   1. raw = bits(sign << 15 | e1 e0 m << 6) is the bf16 whose value is e2m1(code) * 2^-126: the
//      exponent field is e1 e0, the top mantissa bit is m; code 1 (0.5) lands on the bf16
//      subnormal 2^-127, which is again exactly 0.5 * 2^-126.
//   2. mul.rn.bf16x2(raw, S) with S = scale * 2^119 (exact: 4 significant bits, < 2^128) gives
//      w * 2^-7 >= 2^-17: a normal bf16, and exact because w has <= 6 significant bits.
// The fp32 accumulator of x . (w * 2^-7) is multiplied back by 2^7 (exact) before the global
// scale; so the products the tensor cores see are exactly x * w * 2^-7.
#pragma once

#include "ptx.cuh"

namespace moegemv::nvfp4 {

constexpr unsigned int kF32TwoPow119 = 0x7B000000u;  // 2^119 as fp32 bits
constexpr float kAccUnscale = 128.0f;                // undoes the 2^-7 folded into S

// Pair P (0..3) of the 8 nibbles of a little-endian u32: elements P (low half) and P + 4 (high
// half), as raw bf16x2 (value * 2^-126). Pairing nibbles 16 bits apart lets one shift align both
// halves; the x operand is permuted to match (stage_permuted).
template <int P>
__device__ __forceinline__ unsigned int e2m1_pair_raw(unsigned int q) {
  // Move nibbles P and P+4 to the top of each 16-bit half: the sign is then already at bit 15/31
  // and e1 e0 m at bits 12..14 need a shift right by 6 into bf16 bits 6..8.
  const unsigned int r = q << (12 - 4 * P);
  return (r & 0x80008000u) | ((r >> 6) & 0x01C001C0u);
}

// Two e4m3 scale bytes (low byte first) -> {S0, S0} and {S1, S1}, S = scale * 2^119, as bf16x2.
// cvt.e4m3x2 -> f16x2 is exact (all e4m3 values, subnormals included, are normal f16), the
// fp32 multiply by a power of two is exact, and S has 4 significant bits, so bf16 holds it.
__device__ __forceinline__ void scale_pair_bf16x2(unsigned short two, unsigned int& s0,
                                                  unsigned int& s1) {
  const unsigned int h2 = ptx::e4m3x2_to_f16x2(two);
  const float k = __uint_as_float(kF32TwoPow119);
  const float f0 = ptx::mul_rn(ptx::f16_lo_to_f32(h2), k);
  const float f1 = ptx::mul_rn(ptx::f16_hi_to_f32(h2), k);
  s0 = ptx::f32x2_to_bf16x2(f0, f0);
  s1 = ptx::f32x2_to_bf16x2(f1, f1);
}

// Exact w * 2^-7 for elements P and P+4 of word q, given the broadcast scale {S, S}.
template <int P>
__device__ __forceinline__ unsigned int dequant_pair(unsigned int q, unsigned int s) {
  return ptx::mul_bf16x2(e2m1_pair_raw<P>(q), s);
}

// Offset of the 128x4-swizzled scale u32 holding k-blocks 4q..4q+3 of row m, minus q * 512
// (SPEC section 2). kt = roundup(K / 16, 4) / 4.
__device__ __forceinline__ int swizzle_row_offset(int m, int kt) {
  return (m >> 7) * kt * 512 + (m & 31) * 16 + ((m & 127) >> 5) * 4;
}

}  // namespace moegemv::nvfp4
