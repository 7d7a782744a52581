// OPT-IN (MOEGEMV_GU_SAFTER 1, `gu_safter=1`; session 20; slower on both cards, tile_after.cuh): the routed
// gate_up split tile (tile_split.cuh) with each block scale applied to fp32 sums of unscaled
// products (tile_after.cuh has the parts both routed tiles share, the units and what is open).
// Per step and set, 8 FFMA and two scale u32 (2 PRMT, 2 cvt, 4 conversions to fp32 per pair)
// replace 32 HMUL2 and two scale u16s' 14 ops.
//
// The split tile's mma row g is half g & 1 of the up row of feature 4s + g / 2 (row g + 8: of its
// gate row). Here B column n < 4 holds half 0's x at lane t = n's k only and n >= 4 half 1's x at
// lane t = n - 4's k; B's lane (g, t) supplies column g, so it reads x (half g >> 2) iff
// t == g % 4 and the warp's zero slice otherwise (its group offset, chosen once). So D[g][n] is
// lane (g, n % 4)'s sum over its own k-block (the columns of the other half are never read).
// C's lane (g, t) holds columns 2t, 2t + 1 of rows g and g + 8: useful iff (t < 2) == (g even),
// and then they are the up and gate sums of lanes L = 2 (t & 1) and L + 1 of its row half. Lane
// L's words 0, 1 are block 2L of the half, words 2, 3 block 2L + 1: the four blocks 4 (t & 1) ..
// + 3 are one scale u32 per row (bytes 0, 2 for words 0, 1; bytes 1, 3 for words 2, 3). The
// other lanes' sums are never read. At the end, feature j's four useful lanes (g, t) = (2j, 0),
// (2j, 1), (2j + 1, 2), (2j + 1, 3) are lanes 8j, 8j + 1, 8j + 6, 8j + 7: two shuffles (xor 1,
// xor 6) add them.
#pragma once

#include "tile_after.cuh"
#include "tile_split.cuh"

namespace moegemv {

// The split tile's first B group of lane (g, t) for a warp slice from element `first`: x's half
// g >> 2 iff t == g % 4, else the zero row's (`zeros` groups after x).
__device__ __forceinline__ BIndex split_after_b(int g, int t, int first, int zeros) {
  return static_cast<BIndex>((t == (g & 3) ? 0 : zeros) + 16 * (g >> 2) + first / 8 + 4 * t);
}

// rows: set 0's rows of this lane; set 1's are kSetW weight bytes and kSetS scale bytes further
// (one set of pointers; set 1's loads at immediate offsets). kTiles = 2: two tiles as one stream
// of steps, as tile_split.cuh's SplitDot (n >= kPipe; the generator checks).
template <int kPipe, int kSetW, int kSetS, int kTiles = 1>
struct SplitDotAfter {
  StepAfter ring[kPipe][2];
  unsigned e0, t;
  int n;  // 256-element steps

  __device__ __forceinline__ void load(const StepPtrsAfter& p, int step, unsigned long long pol,
                                       StepAfter (&out)[2]) const {
    p.load(step, pol, out[0]);
    p.template load<kSetW, kSetS>(step, pol, out[1]);
  }

  __device__ __forceinline__ void start(const TileRows& rows, int first, int last, int g, int lane_t,
                                        unsigned long long pol) {
    e0 = static_cast<unsigned>(first + 128 * (g & 1));
    t = static_cast<unsigned>(lane_t);
    n = (last - first) / 256;
    const StepPtrsAfter p(rows, e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < n) load(p, 2 * i, pol, ring[i]);
  }

  // Both sets of one step (B groups read once); b: the staged x, bg: this lane's first B group of
  // the step (in x's half g >> 2 or in the zero row after it; + 32 per step).
  __device__ __forceinline__ static void compute(const StepAfter (&st)[2], const ptx::U32x4* b, BIndex bg,
                                                 AfterSums (&acc)[2]) {
#pragma unroll
    for (int pair = 0; pair < 2; ++pair) {
      const ptx::U32x4 x0 = b[bg + static_cast<BIndex>(2 * pair)];
      const ptx::U32x4 x1 = b[bg + static_cast<BIndex>(2 * pair + 1)];
      after_pair(st[0], pair, x0, x1, acc[0]);
      after_pair(st[1], pair, x0, x1, acc[1]);
    }
  }

  // kTiles = 2: the second tile's rows are the first's + tile_bytes (scales + 128 bytes); at its
  // first step done(acc) takes the first tile's sums, the sums start again and x restarts.
  template <class Done>
  __device__ __forceinline__ void finish(const TileRows& rows, unsigned long long pol,
                                         const ptx::U32x4* b, BIndex bg, AfterSums (&acc)[2],
                                         long long tile_bytes, Done done) {
    StepPtrsAfter p(rows, e0, t);
    const int steps = kTiles * n;
    auto refill = [&](int i, int j) {  // ring slot i <- step j (relative to p: i + kPipe)
      if (kTiles > 1 && j == n) p.shift(tile_bytes - 128LL * n, 128 - 2048 * n);
      load(p, 2 * (i + kPipe), pol, ring[i]);
    };
    auto step = [&](int i, int j) {  // ring slot i holds step j
      if (kTiles > 1 && j == n) {
        done(acc);
        acc[0] = acc[1] = AfterSums{0.f, 0.f};
        bg -= 32 * n;
      }
      compute(ring[i], b, bg + 32 * i, acc);
    };
    ring_walk<kPipe>(steps, step, refill, [&] {
      p.advance(2 * kPipe);
      bg += 32 * kPipe;
    });
  }
  // One tile (kTiles = 1).
  __device__ __forceinline__ void finish(const TileRows& rows, unsigned long long pol,
                                         const ptx::U32x4* b, BIndex bg, AfterSums (&acc)[2]) {
    static_assert(kTiles == 1, "two tiles: the finish that takes their offset and done()");
    finish(rows, pol, b, bg, acc, 0, [](AfterSums (&)[2]) {});
  }
};

// Set s's sums of feature 4s + j: lanes 8j, 8j + 1, 8j + 6, 8j + 7 added (all lanes shuffle),
// lane 8j stores them in the partials' units, in column col (the CTA's tile).
__device__ __forceinline__ void store_split_after_partials(float* part, int warp, int set, int g,
                                                           const AfterSums& a, int col = 0) {
  float up = a.up, gate = a.gate;
  up = ptx::add_rn(up, __shfl_xor_sync(0xFFFFFFFFu, up, 1));
  gate = ptx::add_rn(gate, __shfl_xor_sync(0xFFFFFFFFu, gate, 1));
  up = ptx::add_rn(up, __shfl_xor_sync(0xFFFFFFFFu, up, 6));
  gate = ptx::add_rn(gate, __shfl_xor_sync(0xFFFFFFFFu, gate, 6));
  if (threadIdx.x % 8 == 0) {  // lane 8j: (g, t) = (2j, 0), read here, not kept through the loop
    float* p = part + warp * kTileRows * kMaxCols;
    const int f = 4 * set + g / 2;
    p[f * kMaxCols + col] = ptx::mul_rn(up, safter_partial_unit());
    p[(f + 8) * kMaxCols + col] = ptx::mul_rn(gate, safter_partial_unit());
  }
}

}  // namespace moegemv
