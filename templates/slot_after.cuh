// The default streaming down where defaults.h down_safter_default holds (v48, session 22;
// MOEGEMV_DC_SAFTER 1, `dc_safter=1`; off on DeepSeek-V3's shape, where the pair with PDL lost,
// docs/PERF.md): the streaming down's slot dot product with each block scale applied to fp32 sums of
// unscaled products instead of to the weights, so a word's 8 weights cost the decode (11 ops) and
// one HMMA, and no scale multiply (4 HMUL2 today). Per step and lane 8 FSEL/FFMA and one scale
// u32 (6 ops to fp32) replace 32 HMUL2 and two u16 loads with 14 ops of conversion.
//
// The mma's 8 B columns keep the k-blocks apart. A lane's word is one k-block of its row, and an
// mma row's 16 k come from the 4 lanes of a quad (t = 0..3), one block each. Column n < 4 holds
// the act of lane t = n's k only (the lo K half), column n >= 4 that of lane t = n - 4 (the hi
// half); every other B value is 0. So D[g][n] (n < 4) is lane (g, n)'s lo-word sum and D[g+8][n]
// (n >= 4) lane (g, n - 4)'s hi-word sum. B's lane (g, t) supplies column g at its own k, so it
// reads the act row iff t == g % 4 and the CTA's zero row otherwise (down_stream.cuh picks the
// base): no instruction per step. C's lane (g, t) holds D[g][2t, 2t+1] and D[g+8][2t, 2t+1]: the
// lo sums of lanes 2t, 2t+1 (t < 2) or the hi sums of lanes 2t-4, 2t-3 (t >= 2). A step's words
// 0, 1 share the lane's k-block, words 2, 3 the next: the 4 mmas of each pair go to a fresh D,
// then each useful D value times its block's scale into the lane's two fp32 sums. The quad's
// sums are added at the end of the unit (shuffles).
//
// Ranges: the raw weight is e2m1 * 2^-132 (nvfp4.cuh), act is staged x 2^kSafterActShift, so a
// product is e2m1 * act * 2^-68: act must stay below 2^64 in magnitude (bf16 x 2^64 < 2^128),
// and products of |act| < 2^-58 fall below fp32's normal range (params.h). The raw weights reach
// the tensor core as bf16 SUBNORMALS (the default form's HMUL2 by the scale makes them normal
// first; the PTX ISA does not say what mma does with them): `moegemv check`'s probe found them
// exact on sm_90 (session 21 at the x 2^100 staging, session 22 at
// x 2^64 with x at both ends of the window). The rounding differs from the default's (an
// fp32 product per block sum): SPEC 8 applies, and the check held.
#pragma once

#include "nvfp4.cuh"
#include "stream.cuh"

namespace moegemv {

// kSafterActShift, kSafterSumShift: params.h (the CPU emulation in tests/jit uses them too).
constexpr unsigned int kBf16x2ActScale = 0x5F805F80u;  // {2^64, 2^64} as bf16x2
static_assert(((kBf16x2ActScale & 0x7FFFu) >> 7) - 127 == kSafterActShift, "2^kSafterActShift");
static_assert(kSafterSumShift > 0 && kSafterSumShift < 64, "a power of two an fp32 holds");

// The staged act group x 2^kSafterActShift (exact for |act| < 2^64).
__device__ __forceinline__ ptx::U32x4 safter_scale_act(ptx::U32x4 v) {
  v.x = ptx::mul_bf16x2(v.x, kBf16x2ActScale);
  v.y = ptx::mul_bf16x2(v.y, kBf16x2ActScale);
  v.z = ptx::mul_bf16x2(v.z, kBf16x2ActScale);
  v.w = ptx::mul_bf16x2(v.w, kBf16x2ActScale);
  return v;
}

// The 2 mmas of one lo word and one hi word (unscaled) against B group x, into d.
__device__ __forceinline__ void safter_word(float (&d)[4], unsigned int lo, unsigned int hi,
                                            const ptx::U32x4& x) {
  unsigned int a[4], h[4];
  nvfp4::e2m1_word_raw(lo, a);
  nvfp4::e2m1_word_raw(hi, h);
  word_pair_mmas(d, a, h, x);
}

// kN steps [first, first + kN) of a filled slot (lo / hi: the lane's rows at element 0, as
// slot_dot), scales: ScaleRegs<kMax, true>'s words (HeldScales::lo_row), b: this lane's B groups
// of step first (act, or the zero row: 256 bytes a step, kN steps). Returns the lane's share of the unit's row sum, in units of
// 2^(kSafterActShift - 132).
template <int kN, int kMax>
__device__ __forceinline__ float slot_dot_after(const unsigned char* lo, const unsigned char* hi,
                                                const HeldScales<kMax>& scales,
                                                const ptx::U32x4* b, int first, int t) {
  const bool upper = t >= 2;  // this lane's useful D values: rows g + 8 (c2, c3), else g (c0, c1)
  float sum0 = 0.0f, sum1 = 0.0f;
#pragma unroll
  for (int i = 0; i < kN; ++i) {
    const int s = first + i;
    const ptx::U32x4 wl = *reinterpret_cast<const ptx::U32x4*>(lo + 64 * s + 16 * t);
    const ptx::U32x4 wh = *reinterpret_cast<const ptx::U32x4*>(hi + 64 * s + 16 * t);
    const ptx::U32x4* x = b + 16 * i + 4 * t;
    const unsigned int word = scales.lo_row[i];  // bytes: blocks 0, 1, 2, 3 of the atom
    const unsigned int h01 = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(word & 0xFFFFu));
    const unsigned int h23 = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(word >> 16));
    // Words 0, 1: lane 2t's block is byte 0, lane 2t + 1's byte 2; words 2, 3: bytes 1 and 3.
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    safter_word(d, wl.x, wh.x, x[0]);
    safter_word(d, wl.y, wh.y, x[1]);
    sum0 = ptx::fma_rn(upper ? d[2] : d[0], ptx::f16_lo_to_f32(h01), sum0);
    sum1 = ptx::fma_rn(upper ? d[3] : d[1], ptx::f16_lo_to_f32(h23), sum1);
    float e[4] = {0.f, 0.f, 0.f, 0.f};
    safter_word(e, wl.z, wh.z, x[2]);
    safter_word(e, wl.w, wh.w, x[3]);
    sum0 = ptx::fma_rn(upper ? e[2] : e[0], ptx::f16_hi_to_f32(h01), sum0);
    sum1 = ptx::fma_rn(upper ? e[3] : e[1], ptx::f16_hi_to_f32(h23), sum1);
  }
  return ptx::add_rn(sum0, sum1);
}

// 2^kSafterSumShift: a scale-after sum (units 2^(kSafterActShift - 132)) times it is in the units
// of the default forms' sums (2^-kDecodeShift), the combiner's and gate_up's partial sums'.
__device__ __forceinline__ float safter_partial_unit() {
  return __uint_as_float(static_cast<unsigned int>(127 + kSafterSumShift) << 23);
}

// x or act group v times 2^kSafterActShift, as the staging's post step (stage_groups_by,
// XSlice::store).
struct SafterScaleAct {
  __device__ __forceinline__ ptx::U32x4 operator()(ptx::U32x4 v) const { return safter_scale_act(v); }
};

// The quad's four shares added (lanes t = 0..3 of row g), scaled to the combiner's units: the
// value lane t == 0 hands over.
__device__ __forceinline__ float safter_row_sum(float share) {
  share = ptx::add_rn(share, __shfl_xor_sync(0xffffffffu, share, 1));
  share = ptx::add_rn(share, __shfl_xor_sync(0xffffffffu, share, 2));
  return ptx::mul_rn(share, safter_partial_unit());
}

}  // namespace moegemv
