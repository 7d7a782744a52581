// Exact NVFP4 dequantization on sm_90, which has no e2m1 conversion instruction.
//
// A weight w = e2m1(code) * e4m3(scale) has at most 6 significant bits (3 from e2m1, 4 from
// e4m3, and their product's leading bits overlap), so it is exact in bf16. We build it in two
// exact steps and keep the result in the normal bf16 range:
//   1. raw = bits(sign << 15 | v) with v = 2 * |e2m1(code)| in {0, 1, 2, 3, 4, 6, 8, 12}: a bf16
//      subnormal (exponent field 0), whose value is v * 2^-133 = e2m1(code) * 2^-132.
//   2. mul.rn.bf16x2(raw, S) with S = scale * 2^119 (exact: 4 significant bits, < 2^128) gives
//      w * 2^-13 >= 2^-23: a normal bf16, and exact because v * scale has <= 6 significant bits.
// The fp32 accumulator of x . (w * 2^-13) is multiplied back by 2^13 (exact) before the global
// scale; so the products the tensor cores see are exactly x * w * 2^-13 (kDecodeShift).
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv::nvfp4 {

constexpr unsigned int kF32TwoPow119 = 0x7B000000u;  // 2^119 as fp32 bits
constexpr float kAccUnscale = static_cast<float>(1u << kDecodeShift);  // undoes the 2^-13 in S * raw

// The 8 nibbles of a little-endian u32 as 4 raw bf16x2: pair p holds elements
// decode_pair_element(p, 0) (low half) and decode_pair_element(p, 1) (high half), i.e. {0, 2},
// {1, 3}, {4, 6}, {5, 7}; the x operand is permuted to match (tile.cuh, permute_group).
//
// Two byte lookups (PRMT with the sign-cleared nibbles as selectors, on a table of the 8 values
// of v) give the low byte of every element; the high bytes are the sign bits at bit 7 of a byte:
// the odd nibbles' already are (q & 0x80808080), the even nibbles' after a shift by 4. One PRMT
// per pair then picks its two low bytes and two sign bytes: 11 integer ops per 8 weights (SASS:
// 10 on the integer ALU, the shift by 4 an IMAD on the FMA pipe; MOEGEMV_DECODE bit 1: 9 and 2).
constexpr unsigned int kValuesLo = 0x03020100u;  // v of magnitude codes 0..3
constexpr unsigned int kValuesHi = 0x0C080604u;  // v of magnitude codes 4..7

__device__ __forceinline__ void e2m1_word_raw(unsigned int q, unsigned int (&raw)[4]) {
  // DIAGNOSTIC (MOEGEMV_KNOCK & 16, wrong values): the three masks become integer multiplies, one
  // each (FMA pipe, chained through registers so ptxas cannot fold them): the same instruction
  // count with three integer-ALU ops per word fewer, to see whether that pipe bounds the decode.
  constexpr bool kKnockMasks = (MOEGEMV_KNOCK & 16) != 0;
  const unsigned int mag = kKnockMasks ? q * 5u : ptx::and_bits<0x77777777u>(q);
  const unsigned int v03 = ptx::prmt(kValuesLo, kValuesHi, mag);        // bytes: v0 v1 v2 v3
  // The high half's selectors (PRMT reads bits 0..15). MOEGEMV_DECODE bit 1 moves them on the FMA
  // pipe (the decode's other ops are integer ALU): as an f16 that half has bits 15 and 11 clear,
  // so it is finite and the multiply by 1 keeps its bits.
  const unsigned int sel47 = (MOEGEMV_DECODE & 1) ? ptx::high_half_fma<false>(mag) : mag >> 16;
  const unsigned int v47 = ptx::prmt(kValuesLo, kValuesHi, sel47);     // bytes: v4 v5 v6 v7
  // bytes: s1 s3 s5 s7, and s0 s2 s4 s6
  const unsigned int odd = kKnockMasks ? q * mag : ptx::and_bits<0x80808080u>(q);
  const unsigned int even = kKnockMasks ? (q << 4) * odd : ptx::and_bits<0x80808080u>(q << 4);
  raw[0] = ptx::prmt(v03, even, 0x5240u);  // {v0 s0, v2 s2}
  raw[1] = ptx::prmt(v03, odd, 0x5341u);   // {v1 s1, v3 s3}
  raw[2] = ptx::prmt(v47, even, 0x7260u);  // {v4 s4, v6 s6}
  raw[3] = ptx::prmt(v47, odd, 0x7361u);   // {v5 s5, v7 s7}
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
  if constexpr (MOEGEMV_DECODE & 2) {
    // S has 4 significant bits, so f's low 16 bits are 0 and its high half is S in bf16: broadcast
    // on the FMA pipe (S is finite and normal: 2^110 <= |S| < 2^128).
    s0 = ptx::high_half_fma<true>(__float_as_uint(f0));
    s1 = ptx::high_half_fma<true>(__float_as_uint(f1));
  } else {
    s0 = ptx::f32x2_to_bf16x2(f0, f0);
    s1 = ptx::f32x2_to_bf16x2(f1, f1);
  }
}

// Exact w * 2^-13 of the 8 weights of word q, given the broadcast scale {S, S}: pair p holds
// elements decode_pair_element(p, 0) and (p, 1).
__device__ __forceinline__ void dequant_word(unsigned int q, unsigned int s, unsigned int (&w)[4]) {
  unsigned int raw[4];
#if MOEGEMV_KNOCK & 1
  raw[0] = q << 6, raw[1] = q << 2, raw[2] = q >> 2, raw[3] = q >> 6;  // diagnostic: wrong values
#else
  e2m1_word_raw(q, raw);
#endif
#pragma unroll
  for (int p = 0; p < 4; ++p)
    w[p] = (MOEGEMV_KNOCK & 2) ? (p == 0 ? raw[p] ^ s : raw[p]) : ptx::mul_bf16x2(raw[p], s);
}

// Offset of the 128x4-swizzled scale u32 holding k-blocks 4q..4q+3 of row m, minus q * 512
// (SPEC section 2). kt = roundup(K / 16, 4) / 4.
__device__ __forceinline__ int swizzle_row_offset(int m, int kt) {
  return (m >> 7) * kt * 512 + (m & 31) * 16 + ((m & 127) >> 5) * 4;
}

}  // namespace moegemv::nvfp4
