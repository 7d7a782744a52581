// CANDIDATE (MOEGEMV_GU_SAFTER 1, `gu_safter=1`; session 20, built and compiled here, NOT yet run
// on a GPU): the routed gate_up split tile (tile_split.cuh) with each block scale applied to fp32
// sums of unscaled products, as the streaming down's dc_safter=1 does (slot_after.cuh, whose header
// says why the B columns keep the k-blocks apart). Per step and set, 8 FFMA and two scale u32
// (4 cvt + 8 conversions to fp32) replace 32 HMUL2 and two scale u16s' 14 ops.
//
// The split tile's mma row g is half g & 1 of the up row of feature 4s + g / 2 (row g + 8: of its
// gate row). Here B column n < 4 holds half 0's x at lane t = n's k only and n >= 4 half 1's x at
// lane t = n - 4's k; B's lane (g, t) supplies column g, so it reads x (half g >> 2) iff
// t == g % 4 and the warp's zero slice otherwise (the base pointer, chosen once). So D[g][n] is
// lane (g, n % 4)'s sum over its own k-block (the columns of the other half are never read).
// C's lane (g, t) holds columns 2t, 2t + 1 of rows g and g + 8: useful iff (t < 2) == (g even),
// and then they are the up and gate sums of lanes L = 2 (t & 1) and L + 1 of its row half. Lane
// L's words 0, 1 are block 2L of the half, words 2, 3 block 2L + 1: the four blocks 4 (t & 1) ..
// + 3 are one scale u32 per row (bytes 0, 2 for words 0, 1; bytes 1, 3 for words 2, 3). The
// other lanes' sums are never read. At the end, feature j's four useful lanes (g, t) = (2j, 0),
// (2j, 1), (2j + 1, 2), (2j + 1, 3) are lanes 8j, 8j + 1, 8j + 6, 8j + 7: two shuffles (xor 1,
// xor 6) add them.
//
// Units as dc_safter's: raw e2m1 * 2^-132 times x * 2^kSafterActShift, sums x 2^kSafterSumShift
// into the partials' units (2^-kDecodeShift); |x| < 2^28. Open, for the GPU: mma on bf16
// subnormals (the raw weights), and the rounding (SPEC 8), exactly as dc_safter.
#pragma once

#include "slot_after.cuh"
#include "tile_split.cuh"

namespace moegemv {

struct StepAfter {
  ptx::U32x4 lo, hi;           // 32 elements of the up row half (mma row g) and the gate row half
  unsigned int s_lo, s_hi;     // their scale u32s: blocks 4 (t & 1) .. + 3 of the half
};

// StepPtrs with the lane's scale u32 in place of its u16 (the same steps and advances). The
// second set's rows are the first's + kSetW bytes (scales + kSetS): one set of pointers, the second
// set's loads at immediate offsets.
template <int kSetW, int kSetS>
struct StepPtrsAfter : StepPtrs {
  __device__ __forceinline__ StepPtrsAfter(const TileRows& r, unsigned e0, unsigned t) : StepPtrs(r, e0, t) {
    const unsigned s = (e0 / 64 + (t & 1)) * 512;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  __device__ __forceinline__ void load(int step, unsigned long long pol, StepAfter (&out)[2]) const {
#pragma unroll
    for (int set = 0; set < 2; ++set) {
      out[set].lo = ptx::ld_stream_v4(w_lo + set * kSetW + 64 * step, pol);
      out[set].hi = ptx::ld_stream_v4(w_hi + set * kSetW + 64 * step, pol);
      out[set].s_lo = ptx::ld_nc_u32(s_lo + set * kSetS + 1024 * step);
      out[set].s_hi = ptx::ld_nc_u32(s_hi + set * kSetS + 1024 * step);
    }
  }
};

// One set's sums of the up and gate rows' blocks of lanes L, L + 1 (fp32, scaled; units 2^-32).
struct AfterSums {
  float up, gate;
};

// rows: set 0's rows of this lane (set 1's: + kSetW / kSetS, StepPtrsAfter).
template <int kPipe, int kSetW, int kSetS>
struct SplitDotAfter {
  StepAfter ring[kPipe][2];
  unsigned e0, t;
  int n;  // 256-element steps

  __device__ __forceinline__ void start(const TileRows& rows, int first, int last, int g, int lane_t,
                                        unsigned long long pol) {
    e0 = static_cast<unsigned>(first + 128 * (g & 1));
    t = static_cast<unsigned>(lane_t);
    n = (last - first) / 256;
    const StepPtrsAfter<kSetW, kSetS> p(rows, e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < n) p.load(2 * i, pol, ring[i]);
  }

  // Both sets of one step; b: the staged x, bg: this lane's first B group of the step (in x's
  // half g >> 2 or in the zero row after it; + 32 per step).
  __device__ __forceinline__ static void compute(const StepAfter (&st)[2], const ptx::U32x4* b, BIndex bg,
                                                 AfterSums (&acc)[2]) {
#pragma unroll
    for (int pair = 0; pair < 2; ++pair) {  // words 0, 1 (the lanes' first block), then 2, 3
      const ptx::U32x4 x0 = b[bg + static_cast<BIndex>(2 * pair)];
      const ptx::U32x4 x1 = b[bg + static_cast<BIndex>(2 * pair + 1)];
      // The pair's scale bytes (0, 2, then 1, 3) of each row as f16x2: converted where used, so
      // that no more than one pair's are live.
      const unsigned int kBytes = pair == 0 ? 0x0020u : 0x0031u;
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const unsigned int lo[4] = {st[s].lo.x, st[s].lo.y, st[s].lo.z, st[s].lo.w};
        const unsigned int hi[4] = {st[s].hi.x, st[s].hi.y, st[s].hi.z, st[s].hi.w};
        float d[4] = {0.f, 0.f, 0.f, 0.f};
        safter_word(d, lo[2 * pair], hi[2 * pair], x0);
        safter_word(d, lo[2 * pair + 1], hi[2 * pair + 1], x1);
        const unsigned int up = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(ptx::prmt(st[s].s_lo, 0u, kBytes)));
        const unsigned int gate = ptx::e4m3x2_to_f16x2(static_cast<unsigned short>(ptx::prmt(st[s].s_hi, 0u, kBytes)));
        acc[s].up = ptx::fma_rn(d[0], ptx::f16_lo_to_f32(up), acc[s].up);        // lane L
        acc[s].up = ptx::fma_rn(d[1], ptx::f16_hi_to_f32(up), acc[s].up);        // lane L + 1
        acc[s].gate = ptx::fma_rn(d[2], ptx::f16_lo_to_f32(gate), acc[s].gate);  // lane L
        acc[s].gate = ptx::fma_rn(d[3], ptx::f16_hi_to_f32(gate), acc[s].gate);  // lane L + 1
      }
    }
  }

  __device__ __forceinline__ void finish(const TileRows& rows, unsigned long long pol,
                                         const ptx::U32x4* b, BIndex bg, AfterSums (&acc)[2]) {
    StepPtrsAfter<kSetW, kSetS> p(rows, e0, t);
    int s = 0;
    for (; s + kPipe <= n; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        compute(ring[i], b, bg + 32 * i, acc);
        if (s + i + kPipe < n) p.load(2 * (i + kPipe), pol, ring[i]);
      }
      p.advance(2 * kPipe);
      bg += 32 * kPipe;
    }
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < n) compute(ring[i], b, bg + 32 * i, acc);
  }
};

// Set s's sums of feature 4s + j: lanes 8j, 8j + 1, 8j + 6, 8j + 7 added (all lanes shuffle),
// lane 8j stores them in the partials' units.
__device__ __forceinline__ void store_split_after_partials(float* part, int warp, int set, int g,
                                                           const AfterSums& a) {
  float up = a.up, gate = a.gate;
  up = ptx::add_rn(up, __shfl_xor_sync(0xFFFFFFFFu, up, 1));
  gate = ptx::add_rn(gate, __shfl_xor_sync(0xFFFFFFFFu, gate, 1));
  up = ptx::add_rn(up, __shfl_xor_sync(0xFFFFFFFFu, up, 6));
  gate = ptx::add_rn(gate, __shfl_xor_sync(0xFFFFFFFFu, gate, 6));
  if (threadIdx.x % 8 == 0) {  // lane 8j: (g, t) = (2j, 0), read here, not kept through the loop
    const float unit = __uint_as_float(static_cast<unsigned int>(127 + kSafterSumShift) << 23);
    float* p = part + warp * kTileRows * kMaxCols;
    const int f = 4 * set + g / 2;
    p[f * kMaxCols] = ptx::mul_rn(up, unit);
    p[(f + 8) * kMaxCols] = ptx::mul_rn(gate, unit);
  }
}

// x group v times 2^kSafterActShift (XSlice::store's post step).
struct SafterScaleAct {
  __device__ __forceinline__ ptx::U32x4 operator()(ptx::U32x4 v) const { return safter_scale_act(v); }
};

}  // namespace moegemv
