// Routed gate_up tiles with each weight row split across two mma rows (config split = 1 for
// gate_up): a warp load covers 4 rows x 128 contiguous bytes instead of tile.cuh's 8 rows x 64.
//
// Why: the benchmark's pattern diagnostic (docs/PERF.md, session 2) streams 16 rows read as 64
// bytes per row per warp load at only 3.4-3.8 TB/s, as 128 bytes per row at 4.35-4.5 TB/s.
//
// A 256-element step of physical row j is two 128-element halves. Lane (g, t) of set s reads
// half g & 1 of the up row (mma row g) and of the gate row (mma row g + 8) of feature
// 4s + g / 2, 16 bytes at byte 64 (g & 1) + 16t, exactly as tile.cuh reads one 128-element step
// (same k permutation, scales, compute). The halves meet on different B columns: lane g supplies
// column g with x of half g & 1, so D[2j][0] is row j's first half and D[2j + 1][1] its second;
// the other six columns are never read. Two sets (features 0..3 and 4..7) keep the tile at 8
// features and share every B read. Needs H % 256 == 0 (the generator falls back otherwise).
#pragma once

#include "params.h"
#include "tile.cuh"

namespace moegemv {

template <int kPipe, int kTiles = 1>
struct SplitDot {
  Step<SmemB> ring[kPipe][2];
  unsigned e0, t;
  int n;  // 256-element steps per tile

  // rows[s]: set s's rows of this lane (feature 4s + g/2) in the first tile. Weights only: may run
  // before the B operand (x) is staged. With kTiles = 2, n >= kPipe (the generator checks).
  __device__ __forceinline__ void start(const TileRows (&rows)[2], int first, int last, int g,
                                        int lane_t, unsigned long long pol) {
    e0 = static_cast<unsigned>(first + 128 * (g & 1));
    t = static_cast<unsigned>(lane_t);
    n = (last - first) / 256;
    const StepPtrs p0(rows[0], e0, t), p1(rows[1], e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i) {
      if (i < n) {  // kTiles = 2: n >= kPipe
        p0.load(2 * i, pol, ring[i][0]);
        p1.load(2 * i, pol, ring[i][1]);
      }
    }
  }

  // Both sets of one step: B groups read once, two independent mma chains.
  __device__ __forceinline__ static void compute(const Step<SmemB> (&st)[2], BIndex g0,
                                                 const SmemB& b, float (&c0)[4], float (&c1)[4]) {
    unsigned int sc[2][4];  // per set: lo k-block 2t, lo 2t+1, hi 2t, hi 2t+1
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      nvfp4::scale_pair_bf16x2(st[s].s_lo, sc[s][0], sc[s][1]);
      nvfp4::scale_pair_bf16x2(st[s].s_hi, sc[s][2], sc[s][3]);
    }
    const unsigned int lo0[4] = {st[0].lo.x, st[0].lo.y, st[0].lo.z, st[0].lo.w};
    const unsigned int hi0[4] = {st[0].hi.x, st[0].hi.y, st[0].hi.z, st[0].hi.w};
    const unsigned int lo1[4] = {st[1].lo.x, st[1].lo.y, st[1].lo.z, st[1].lo.w};
    const unsigned int hi1[4] = {st[1].hi.x, st[1].hi.y, st[1].hi.z, st[1].hi.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const ptx::U32x4 x = b.group(SmemB::Cache{}, g0, w);
      word_mmas_x(c0, lo0[w], hi0[w], sc[0][w / 2], sc[0][2 + w / 2], x);
      word_mmas_x(c1, lo1[w], hi1[w], sc[1][w / 2], sc[1][2 + w / 2], x);
    }
  }

  // kTiles = 2: the tiles' 2n steps run as one stream through the ring. The second tile's rows
  // are tile_bytes further and its scales tile_sf_bytes (rows + 8: 128 bytes, as the tiles start
  // 16-feature aligned; MOEGEMV_GU_SPAIR, rows + 4: 64, in the same 32-row group); its loads
  // start while the first tile's last steps compute, and at its first step done(c0, c1) takes the
  // first tile's sums and the sums start again. x restarts at element 0.
  template <class Done>
  __device__ __forceinline__ void finish(const TileRows (&rows)[2], unsigned long long pol,
                                         const SmemB& b, float (&c0)[4], float (&c1)[4],
                                         long long tile_bytes, int tile_sf_bytes, Done done) {
    StepPtrs p0(rows[0], e0, t), p1(rows[1], e0, t);
    BIndex g0 = static_cast<BIndex>(e0 / 8 + 4 * t);
    const int steps = kTiles * n;
    auto load = [&](int i, int j) {  // ring slot i <- step j (relative to the pointers: i + kPipe)
      if (kTiles > 1 && j == n) {
        p0.shift(tile_bytes - 128LL * n, tile_sf_bytes - 2048 * n);
        p1.shift(tile_bytes - 128LL * n, tile_sf_bytes - 2048 * n);
      }
      p0.load(2 * (i + kPipe), pol, ring[i][0]);
      p1.load(2 * (i + kPipe), pol, ring[i][1]);
    };
    auto step = [&](int i, int j) {  // ring slot i holds step j
      if (kTiles > 1 && j == n) {
        done(c0, c1);
#pragma unroll
        for (int k = 0; k < 4; ++k) c0[k] = 0.f, c1[k] = 0.f;
        g0 -= 32 * n;
      }
      compute(ring[i], g0 + 32 * i, b, c0, c1);
    };
    int s = 0;
    for (; s + kPipe <= steps; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        step(i, s + i);
        if (s + i + kPipe < steps) load(i, s + i + kPipe);
      }
      p0.advance(2 * kPipe);
      p1.advance(2 * kPipe);
      g0 += 32 * kPipe;
    }
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < steps) step(i, s + i);
  }
  // One tile (kTiles = 1).
  __device__ __forceinline__ void finish(const TileRows (&rows)[2], unsigned long long pol,
                                         const SmemB& b, float (&c0)[4], float (&c1)[4]) {
    StepPtrs p0(rows[0], e0, t), p1(rows[1], e0, t);
    BIndex g0 = static_cast<BIndex>(e0 / 8 + 4 * t);
    int s = 0;
    for (; s + kPipe <= n; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        compute(ring[i], g0 + 32 * i, b, c0, c1);
        if (s + i + kPipe < n) {
          p0.load(2 * (i + kPipe), pol, ring[i][0]);
          p1.load(2 * (i + kPipe), pol, ring[i][1]);
        }
      }
      p0.advance(2 * kPipe);
      p1.advance(2 * kPipe);
      g0 += 32 * kPipe;
    }
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < n) compute(ring[i], g0 + 32 * i, b, c0, c1);
  }
};

// The warp's sums of one set: feature 4s + j's up (row j) and gate (row j + 8) from lanes
// (2j, 0) and (2j + 1, 0), first half + second half. All lanes shuffle; lanes (2j, 0) store, in
// column col of the partials (the CTA's tile col).
__device__ __forceinline__ void store_split_partials(float* part, int warp, int set, int g, int t,
                                                     const float (&c)[4], int col = 0) {
  const bool second = (g & 1) != 0;
  const float up = second ? c[1] : c[0];
  const float gate = second ? c[3] : c[2];
  const float up_other = __shfl_xor_sync(0xFFFFFFFFu, up, 4);
  const float gate_other = __shfl_xor_sync(0xFFFFFFFFu, gate, 4);
  if (!second && t == 0) {
    float* p = part + warp * kTileRows * kMaxCols;
    const int f = 4 * set + g / 2;
    p[f * kMaxCols + col] = ptx::add_rn(up, up_other);
    p[(f + 8) * kMaxCols + col] = ptx::add_rn(gate, gate_other);
  }
}

}  // namespace moegemv
