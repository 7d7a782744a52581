// OPT-IN (MOEGEMV_GU_SAFTER 1, `gu_safter=1`; session 20): its check holds, but gate_up is 0-5%
// slower on H100s (session 21) and 1.6-8.3% on an H200 (session 22), so it is not a default.
// gate_up's routed tiles with each block scale applied to fp32 sums of unscaled
// products, as the streaming down's dc_safter=1 does (slot_after.cuh, whose header says why B
// columns can keep the k-blocks apart). This file: what both routed tiles share, and the 16-row
// tile (tile.cuh's TileDot: mma rows g and g + 8 are feature g's up and gate rows, 128-element
// steps; at M = 1 for the shapes without the split tile, split_after.cuh has the split one).
//
// The 16-row tile: B column n < 4 holds x at lane t = n's k only, columns 4..7 are 0; B's lane
// (g, t) supplies column g, so it reads x iff g < 4 and t == g, and the warp's zero slice
// otherwise (its group offset, chosen once). So D[r][n] (n < 4) is lane (r % 8, n)'s sum over its
// own k-block of row r. C's lane (g, t) holds columns 2t, 2t + 1 of rows g and g + 8: for t < 2
// the up and gate sums of lanes L = 2t and L + 1 (for t >= 2 zeros, never read). Lane L's words
// 0, 1 are block 2L of the step, words 2, 3 block 2L + 1: the blocks 4t .. 4t + 3 are one scale
// u32 per row (q = e0 / 64 + (t & 1); bytes 0, 2 for words 0, 1, bytes 1, 3 for words 2, 3).
// Feature g's sums: lanes (g, 0) + (g, 1) (a shuffle, xor 1).
//
// Units as dc_safter's: raw e2m1 * 2^-132 times x * 2^kSafterActShift, sums x 2^kSafterSumShift
// into the partials' units (2^-kDecodeShift); |x| < 2^64. The mma on bf16 subnormals (the raw
// weights) and the rounding (SPEC 8): as dc_safter's (slot_after.cuh).
#pragma once

#include "slot_after.cuh"
#include "tile.cuh"

namespace moegemv {

struct StepAfter {
  ptx::U32x4 lo, hi;        // 32 elements of the lane's two rows (mma rows g and g + 8)
  unsigned int s_lo, s_hi;  // their scale u32s: blocks 4 (t & 1) .. + 3 from the step's (half's) first
};

// StepPtrs with the lane's scale u32 in place of its u16 (the same steps and advances); load's
// kW / kS: a row set kW weight bytes and kS scale bytes further (immediate offsets).
struct StepPtrsAfter : StepPtrs {
  __device__ __forceinline__ StepPtrsAfter(const TileRows& r, unsigned e0, unsigned t) : StepPtrs(r, e0, t) {
    const unsigned s = (e0 / 64 + (t & 1)) * 512;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  template <int kW = 0, int kS = 0>
  __device__ __forceinline__ void load(int step, unsigned long long pol, StepAfter& out) const {
    out.lo = ptx::ld_stream_v4(w_lo + kW + 64 * step, pol);
    out.hi = ptx::ld_stream_v4(w_hi + kW + 64 * step, pol);
    out.s_lo = ptx::ld_nc_u32(s_lo + kS + 1024 * step);
    out.s_hi = ptx::ld_nc_u32(s_hi + kS + 1024 * step);
  }
};

// A lane's sums of its up and gate rows' blocks of lanes L, L + 1 (fp32, scaled; units 2^(kSafterActShift - 132)).
struct AfterSums {
  float up, gate;
};

// One pair of words (pair 0: words 0, 1, the lanes' first block; pair 1: words 2, 3) of one step
// against its B groups x0, x1: a fresh D, then each useful value times its block's scale.
__device__ __forceinline__ void after_pair(const StepAfter& st, int pair, const ptx::U32x4& x0,
                                           const ptx::U32x4& x1, AfterSums& acc) {
  const unsigned int lo[4] = {st.lo.x, st.lo.y, st.lo.z, st.lo.w};
  const unsigned int hi[4] = {st.hi.x, st.hi.y, st.hi.z, st.hi.w};
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  safter_word(d, lo[2 * pair], hi[2 * pair], x0);
  safter_word(d, lo[2 * pair + 1], hi[2 * pair + 1], x1);
  // The pair's scale bytes (0, 2, then 1, 3) of each row as f16x2, converted where used so that
  // no more than one pair's are live.
  const unsigned int bytes = pair == 0 ? 0x0020u : 0x0031u;
  const unsigned int up = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(ptx::prmt(st.s_lo, 0u, bytes)));
  const unsigned int gate = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(ptx::prmt(st.s_hi, 0u, bytes)));
  acc.up = ptx::fma_rn(d[0], ptx::f16_lo_to_f32(up), acc.up);        // lane L
  acc.up = ptx::fma_rn(d[1], ptx::f16_hi_to_f32(up), acc.up);        // lane L + 1
  acc.gate = ptx::fma_rn(d[2], ptx::f16_lo_to_f32(gate), acc.gate);  // lane L
  acc.gate = ptx::fma_rn(d[3], ptx::f16_hi_to_f32(gate), acc.gate);  // lane L + 1
}

// The 16-row tile's first B group of lane (g, t) for a warp slice from element `first`: x's iff
// g < 4 and t == g, else the zero row's (`zeros` groups after x).
__device__ __forceinline__ BIndex tile_after_b(int g, int t, int first, int zeros) {
  return static_cast<BIndex>((g < 4 && t == g ? 0 : zeros) + first / 8 + 4 * t);
}

// The 16-row tile over [first, last) (whole 128-element steps), kPipe steps in flight.
template <int kPipe>
struct TileDotAfter {
  StepAfter ring[kPipe];
  unsigned e0, t;
  int n;  // 128-element steps

  __device__ __forceinline__ void start(const TileRows& rows, int first, int last, int lane_t,
                                        unsigned long long pol) {
    e0 = static_cast<unsigned>(first);
    t = static_cast<unsigned>(lane_t);
    n = (last - first) / 128;
    const StepPtrsAfter p(rows, e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < n) p.load(i, pol, ring[i]);
  }

  // b: the staged x; bg: this lane's first B group (x's or the zero row's; + 16 per step).
  __device__ __forceinline__ static void compute(const StepAfter& st, const ptx::U32x4* b, BIndex bg,
                                                 AfterSums& acc) {
#pragma unroll
    for (int pair = 0; pair < 2; ++pair)
      after_pair(st, pair, b[bg + static_cast<BIndex>(2 * pair)], b[bg + static_cast<BIndex>(2 * pair + 1)], acc);
  }

  __device__ __forceinline__ void finish(const TileRows& rows, unsigned long long pol,
                                         const ptx::U32x4* b, BIndex bg, AfterSums& acc) {
    StepPtrsAfter p(rows, e0, t);
    ring_walk<kPipe>(
        n, [&](int i, int) { compute(ring[i], b, bg + 16 * i, acc); },
        [&](int i, int) { p.load(i + kPipe, pol, ring[i]); },
        [&] {
          p.advance(kPipe);
          bg += 16 * kPipe;
        });
  }
};

// Feature g's sums (lanes (g, 0) and (g, 1) added) in the c[0] (up) and c[2] (gate) of lane
// (g, 0), in the partials' units, for store_partials (the routed epilogue reads column 0 only).
__device__ __forceinline__ void tile_after_sums(const AfterSums& acc, float (&c)[4]) {
  const float up = ptx::add_rn(acc.up, __shfl_xor_sync(0xFFFFFFFFu, acc.up, 1));
  const float gate = ptx::add_rn(acc.gate, __shfl_xor_sync(0xFFFFFFFFu, acc.gate, 1));
  c[0] = ptx::mul_rn(up, safter_partial_unit());
  c[2] = ptx::mul_rn(gate, safter_partial_unit());
}

}  // namespace moegemv
