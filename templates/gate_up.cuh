// gate_up (SPEC section 4): per (token, expert) pair, act = silu(g) * u on fp32 gate/up with
// FlashInfer's approximate sigmoid; per token, the shared expert's exact vLLM silu_and_mul.
// One launch: CTAs [0, M*K*I/8) are routed tiles (one pair, 8 features; with MOEGEMV_GU_GROUP a
// repeated expert's first pair's CTA does all its pairs and the others leave), the rest shared
// tiles (8 features, up to 8 tokens as mma columns). The warps of a CTA split H.
#pragma once

#include "gate_up_dpre.cuh"
#include "gate_up_group.cuh"
#include "gate_up_sums.cuh"
#include "params.h"
#include "ptx.cuh"
#include "ring.cuh"
#include "tile.cuh"
#include "split_after.cuh"
#include "tile_after.cuh"
#include "tile_split.cuh"

namespace moegemv {

// x into shared memory (SmemB permutation) for a routed tile: STAGED, the warp's own slice from
// xs_slice's registers (MOEGEMV_GU_STAGE, no CTA barrier); else all of x by the whole CTA.
template <int H, bool STAGED, class XS>
__device__ __forceinline__ void stage_routed_x(const unsigned short* x, int lane, const XS& xs_slice,
                                               ptx::U32x4* xs) {
  if constexpr (STAGED) {
    xs_slice.store(x, lane, xs);
  } else {
    if constexpr (!(MOEGEMV_KNOCK & 4)) stage_permuted(x, H, xs);
    __syncthreads();
  }
}

// Groups of x a lane loads into registers for its warp's slice (XSlice): the slice's groups per
// lane, at most 8 (the rest are staged synchronously).
template <int H, int W>
__device__ __forceinline__ constexpr int x_slice_groups() {
  return ceil_div(H / 8, 32 * W) < 8 ? ceil_div(H / 8, 32 * W) : 8;
}

// gu_safter (tile_after.cuh): the warp's slice of the zero row that B's unused lanes read, after
// the partial sums; returns its offset from x in groups. Each warp writes and reads only its own
// slice [first, last).
template <int H, int W>
__device__ __forceinline__ int safter_zero_slice(ptx::U32x4* xs, int first, int last, int lane) {
  constexpr int kZeros = (H * 2 + gate_up_partials_bytes(W)) / 16;
  for (int i = first / 8 + lane; i < last / 8; i += 32) xs[kZeros + i] = ptx::U32x4{0u, 0u, 0u, 0u};
  return kZeros;
}

// The routed dot product with the register ring (tile.cuh), x staged in smem or read directly.
// MOEGEMV_GU_SAFTER: the scale-after form (tile_after.cuh), c[0] / c[2] of lanes t == 0 only.
template <int H, int W, int PIPE, bool DIRECT, bool STAGED, class XS>
__device__ __forceinline__ void gate_up_routed_registers(const TileRows& rows, int first, int last,
                                                         int t, int lane, unsigned long long pol,
                                                         const unsigned short* x, const XS& xs_slice,
                                                         unsigned char* smem, float (&c)[4]) {
  if constexpr (MOEGEMV_GU_SAFTER != 0) {
    static_assert(STAGED && !DIRECT, "gu_safter: each warp stages (and scales) its own slice of x");
    TileDotAfter<PIPE> dot;
    dot.start(rows, first, last, t, pol);
    ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
    const int zeros = safter_zero_slice<H, W>(xs, first, last, lane);
    xs_slice.store(x, lane, xs, SafterScaleAct{});  // (syncs the warp)
    AfterSums acc{0.f, 0.f};
    dot.finish(rows, pol, xs, tile_after_b(lane / 4, t, first, zeros), acc);
    tile_after_sums(acc, c);
    return;
  }
  TileDot<PIPE, BSource<DIRECT>> dot;
  dot.start(rows, first, last, t, pol);
  if constexpr (DIRECT) {
    dot.finish(rows, t, pol, GlobalB{x}, c);
  } else {
    ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
    stage_routed_x<H, STAGED>(x, lane, xs_slice, xs);
    dot.finish(rows, t, pol, SmemB{xs}, c);
  }
}

// The routed feature a CTA computes as its logical feature l (tile * 8 + f): l itself, or with
// MOEGEMV_GU_SPAIR the sector-paired one (params.h gate_up_spair_feature). The split tile's set s
// and the 16-row tile's lanes g = 4s + j alike (the grouped tiles of gate_up_group.cuh keep l).
__device__ __forceinline__ constexpr int routed_feature(int l) {
  return MOEGEMV_GU_SPAIR ? gate_up_spair_feature(l) : l;
}
static_assert(!(MOEGEMV_GU_SPAIR && MOEGEMV_GU_SAFTER), "gu_safter's sets are 4 rows apart (codegen refuses both)");

// Routed feature i's up and gate rows (FlashInfer [up; gate] 64-row interleave) of expert
// weights w / scales sf.
template <int H>
__device__ __forceinline__ TileRows routed_rows(const unsigned char* w, const unsigned char* sf, int i) {
  constexpr int kKt = ceil_div(H / 16, 4);  // swizzle atoms along K
  const int up_row = 128 * (i / 64) + i % 64;
  const int gate_row = up_row + 64;
  return TileRows{w + static_cast<long long>(up_row) * (H / 2), w + static_cast<long long>(gate_row) * (H / 2),
                  sf + nvfp4::swizzle_row_offset(up_row, kKt), sf + nvfp4::swizzle_row_offset(gate_row, kKt)};
}

// The routed dot product with rows split over two mma rows (tile_split.cuh), x staged in smem;
// writes the warp's partial sums, tile tt's in column tt (T tiles from feature i0 on, one stream).
// MOEGEMV_GU_SAFTER: the scale-after form (split_after.cuh).
template <int H, int W, int PIPE, bool STAGED, int T, class XS>
__device__ __forceinline__ void gate_up_routed_split(const unsigned char* w, const unsigned char* sf,
                                                     int i0, int first, int last, int warp, int g,
                                                     int t, int lane, unsigned long long pol,
                                                     const unsigned short* x, const XS& xs_slice,
                                                     unsigned char* smem) {
  const TileRows rows[2] = {routed_rows<H>(w, sf, routed_feature(i0 + g / 2)),
                            routed_rows<H>(w, sf, routed_feature(i0 + 4 + g / 2))};
  if constexpr (MOEGEMV_GU_SAFTER != 0) {
    static_assert(STAGED, "gu_safter: each warp stages (and scales) its own slice of x");
    // Set 1's rows (features + 4) are set 0's + 4 rows in the same 64-row block of the [up; gate]
    // interleave and the same 32-row group of the scale swizzle (i0 % 8 == 0, g / 2 < 4): + 4 *
    // (H / 2) weight bytes, + 4 * 16 scale bytes.
    SplitDotAfter<PIPE, 2 * H, 64, T> dot;
    dot.start(rows[0], first, last, g, t, pol);
    ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
    const int zeros = safter_zero_slice<H, W>(xs, first, last, lane);
    xs_slice.store(x, lane, xs, SafterScaleAct{});  // (syncs the warp)
    AfterSums acc[2] = {{0.f, 0.f}, {0.f, 0.f}};
    float* part = gate_up_partials<false>(smem, H);
    const BIndex b = split_after_b(g, t, first, zeros);
    if constexpr (T == 1) {
      dot.finish(rows[0], pol, xs, b, acc);
    } else {
      auto first_tile = [&](AfterSums (&a)[2]) {
        store_split_after_partials(part, warp, 0, g, a[0], 0);
        store_split_after_partials(part, warp, 1, g, a[1], 0);
      };
      dot.finish(rows[0], pol, xs, b, acc, 8LL * (H / 2), first_tile);
    }
    store_split_after_partials(part, warp, 0, g, acc[0], T - 1);
    store_split_after_partials(part, warp, 1, g, acc[1], T - 1);
    return;
  }
  SplitDot<PIPE, T> dot;
  dot.start(rows, first, last, g, t, pol);
  ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
  stage_routed_x<H, STAGED>(x, lane, xs_slice, xs);
  float c0[4] = {0.f, 0.f, 0.f, 0.f}, c1[4] = {0.f, 0.f, 0.f, 0.f};
  float* part = gate_up_partials<false>(smem, H);
  if constexpr (T == 1) {
    dot.finish(rows, pol, SmemB{xs}, c0, c1);
  } else {
    auto first_tile = [&](float (&d0)[4], float (&d1)[4]) {
      store_split_partials(part, warp, 0, g, t, d0, 0);
      store_split_partials(part, warp, 1, g, t, d1, 0);
    };
    // The second tile's rows past the first's (8, or 4 with MOEGEMV_GU_SPAIR), from the map itself.
    constexpr int kNextRows = routed_feature(kTileFeatures) - routed_feature(0);
    dot.finish(rows, pol, SmemB{xs}, c0, c1, kNextRows * (H / 2LL), kNextRows * 16, first_tile);
  }
  store_split_partials(part, warp, 0, g, t, c0, T - 1);
  store_split_partials(part, warp, 1, g, t, c1, T - 1);
}

template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, int RING, bool SPLIT, int T,
          int DPRE>
__device__ __forceinline__ void gate_up_routed(const GateUpParams& p, int cta,
                                               unsigned char* smem) {
  static_assert(!(RING && DIRECT), "the ring reads x from shared memory");
  static_assert(!SPLIT || (!RING && !DIRECT && H % 256 == 0), "split: x staged, no ring, H % 256 == 0");
  constexpr int kTiles = I / kTileFeatures;
  constexpr int kKt = ceil_div(H / 16, 4);  // swizzle atoms along K
  // T (split tile only): the CTA's tiles tile .. tile + T - 1, one stream of steps.
  static_assert(T == 1 || (T == 2 && SPLIT), "one tile per routed CTA, or two with the split tile");
  const int pair = cta / (kTiles / T), tile = (cta % (kTiles / T)) * T;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;

  ptx::griddep_wait();  // ids and x come from earlier kernels
  ptx::griddep_launch_dependents();
  // MOEGEMV_GU_STAGE: the warp's slice of x is loaded first, so that its latency overlaps the
  // ids load and the first weights' instead of following them.
  constexpr bool kStaged = MOEGEMV_GU_STAGE != 0 && !DIRECT && !RING && !(MOEGEMV_KNOCK & 4);
  constexpr int kSliceGroups = kStaged ? x_slice_groups<H, W>() : 1;
  int first, last;
  warp_range(H, warp, W, first, last);
  const unsigned short* x = p.x + static_cast<long long>(pair / K) * H;
  XSlice<kSliceGroups> xs_slice;
  if constexpr (kStaged) xs_slice.load(x, first, last, lane);
  const int e = (MOEGEMV_KNOCK & 8) ? (pair * 37 + 11) % p.e : p.ids[pair];
  if (e < 0 || e >= p.e) {
    // Skipped pair (expert-parallel rank marks non-local experts -1): zeros. An id >= E is a
    // caller bug the launch cannot report synchronously: write NaN so it cannot pass unnoticed.
    if (threadIdx.x < T * kTileFeatures)
      p.act[static_cast<long long>(pair) * I + routed_feature(tile * kTileFeatures + threadIdx.x)] =
          e < 0 ? 0 : 0x7FC0;
    return;
  }
  dpre_routed<DPRE, 1, H, I>(p, e, cta % (kTiles / T), kTiles / T);
  const unsigned char* w = p.w1 + static_cast<long long>(e) * (2 * I) * (H / 2);
  const unsigned char* sf = p.w1_sf + static_cast<long long>(e) * (2 * I / 128) * kKt * 512;
  const unsigned long long pol = ptx::evict_first_policy();
  float* part = gate_up_partials<DIRECT>(smem, H);
  // MOEGEMV_GU_GROUP: from M = MOEGEMV_GU_GROUP on, a pair whose expert is routed to other pairs
  // too is computed by the group's first pair's CTA (gate_up_group.cuh).
  if constexpr (MOEGEMV_GU_GROUP != 0) {
    if (p.m >= MOEGEMV_GU_GROUP && p.m * K <= kGroupMaxPairs) {
      __shared__ unsigned int group_words[kGroupMaxPairs / 32];
      ExpertGroup group;
      group.find(p.ids, p.m * K, e, group_words);
      if (group.first != pair) return;  // another CTA writes this pair's act
      if (group.count > 1) {
        auto one_tile = [&](int tl) {
          const TileRows rows = routed_rows<H>(w, sf, tl * kTileFeatures + g);
          if constexpr (SPLIT) gate_up_group<H, I, K, W, RING ? 2 : PIPE>(p, group, e, tl, rows, part);
          else gate_up_group_call<H, I, K, W, RING ? 2 : PIPE>(p, group, e, tl, rows, part);
        };
        if constexpr (T == 1) {
          one_tile(tile);
        } else {
#pragma unroll 1
          for (int tt = 0; tt < T; ++tt) {
            if (tt > 0) __syncthreads();  // the last tile's partial sums are read
            one_tile(tile + tt);
          }
        }
        return;
      }
    }
  }
  if constexpr (SPLIT) {
    gate_up_routed_split<H, W, PIPE, kStaged, T>(w, sf, tile * kTileFeatures, first, last, warp, g, t, lane,
                                              pol, x, xs_slice, smem);
  } else {
    const TileRows rows = routed_rows<H>(w, sf, routed_feature(tile * kTileFeatures + g));
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    if constexpr (RING) {
      unsigned char* ring = smem + H * 2 + gate_up_partials_bytes(W) + warp * RingDot<PIPE>::kWarpBytes;
      RingDot<PIPE> dot;
      dot.start(rows, first, last, t, pol, ring);
      ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
      stage_routed_x<H, false>(x, lane, xs_slice, xs);
      dot.finish(rows, pol, SmemB{xs}, c, ring);
    } else {
      gate_up_routed_registers<H, W, PIPE, DIRECT, kStaged>(rows, first, last, t, lane, pol, x, xs_slice, smem, c);
    }
    store_partials(part, warp, g, t, c);
  }
  __syncthreads();
  if constexpr (T == 1) {
    if (threadIdx.x < kTileFeatures) {
      const int f = threadIdx.x;
      p.act[static_cast<long long>(pair) * I + routed_feature(tile * kTileFeatures + f)] =
          silu_mul_approx(sum_partials(part, W, f, 0), sum_partials(part, W, f + 8, 0), p.alpha[e]);
    }
  } else if (threadIdx.x < T * kTileFeatures) {
    const int f = threadIdx.x % kTileFeatures, tt = threadIdx.x / kTileFeatures;  // tile tt's feature f
    p.act[static_cast<long long>(pair) * I + routed_feature((tile + tt) * kTileFeatures + f)] =
        silu_mul_approx(sum_partials(part, W, f, tt), sum_partials(part, W, f + 8, tt), p.alpha[e]);
  }
  dpre_routed<DPRE, 2, H, I>(p, e, cta % (kTiles / T), kTiles / T);
}

// SHX (kernel_config.h shx): at M = 1, 1 = x staged in shared memory, 2 = and the tile split.
template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, bool SPLIT, int SHX, int DPRE>
__device__ __forceinline__ void gate_up_shared(const GateUpParams& p, int sidx,
                                               unsigned char* smem) {
  constexpr int kTiles = SI / kTileFeatures;
  constexpr int kKt = ceil_div(H / 16, 4);
  const int chunks = ceil_div(p.m, kMaxCols);
  const int tile = sidx / chunks, chunk = sidx % chunks;  // tile-major: chunks share weights in L2
  dpre_shared<DPRE, 1, H, SI>(p, tile, chunk);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int i = tile * kTileFeatures + g;
  const int up_row = SI + i, gate_row = i;  // ModelOpt [gate; up]
  const TileRows rows{p.wsh + static_cast<long long>(up_row) * (H / 2),
                      p.wsh + static_cast<long long>(gate_row) * (H / 2),
                      p.ssh + nvfp4::swizzle_row_offset(up_row, kKt),
                      p.ssh + nvfp4::swizzle_row_offset(gate_row, kKt)};
  const unsigned long long pol = ptx::evict_first_policy();
  int first, last;
  warp_range(H, warp, W, first, last);
  float* part = gate_up_partials<DIRECT>(smem, H);
  auto emit = [&] {  // the warps' partial sums (stored) -> sact of the chunk's tokens
    __syncthreads();
    if (threadIdx.x < kTileFeatures * kMaxCols) {
      const int f = threadIdx.x / kMaxCols, n = threadIdx.x % kMaxCols;
      const int tok = chunk * kMaxCols + n;
      if (tok < p.m) {
        p.sact[static_cast<long long>(tok) * SI + tile * kTileFeatures + f] = silu_mul_exact(
            sum_partials(part, W, f, n), sum_partials(part, W, f + 8, n), *p.gssh);
      }
    }
    dpre_shared<DPRE, 2, H, SI>(p, tile, chunk);
  };
  auto finish_tile = [&](const float (&c)[4]) {
    store_partials(part, warp, g, t, c);
    emit();
  };
  // SHX: at M = 1 the warp stages its slice of x in shared memory (the routed tiles' way)
  // instead of reading and permuting x per step; the columns then all carry token 0, of which
  // only column 0 is stored. 2, where the routed tiles are split (tile_split.cuh): the shared
  // tile split the same way too (128-byte row pieces per warp load).
  if constexpr (SHX != 0 && !DIRECT) {
    if (p.m == 1) {
      ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
      constexpr bool kAfter = MOEGEMV_GU_SAFTER != 0;  // the scale-after tiles, as the routed ones
      int zeros = 0;
      auto stage_x = [&] {  // after the weights' first loads: x is the previous kernel's output
        ptx::griddep_wait();
        ptx::griddep_launch_dependents();
        XSlice<x_slice_groups<H, W>()> slice;
        slice.load(p.x, first, last, lane);
        if constexpr (kAfter) {
          zeros = safter_zero_slice<H, W>(xs, first, last, lane);
          slice.store(p.x, lane, xs, SafterScaleAct{});
        } else {
          slice.store(p.x, lane, xs);
        }
      };
      if constexpr (SHX == 2 && SPLIT) {
        auto feature_rows = [&](int f) {  // the shared expert's [gate; up] rows of feature f
          return TileRows{p.wsh + static_cast<long long>(SI + f) * (H / 2),
                          p.wsh + static_cast<long long>(f) * (H / 2),
                          p.ssh + nvfp4::swizzle_row_offset(SI + f, kKt),
                          p.ssh + nvfp4::swizzle_row_offset(f, kKt)};
        };
        const int f0 = tile * kTileFeatures;
        const TileRows split_rows[2] = {feature_rows(f0 + g / 2), feature_rows(f0 + 4 + g / 2)};
        if constexpr (kAfter) {
          // Set 1: + 4 rows and + 64 scale bytes, as in the routed split tile (SI % 64 == 0).
          SplitDotAfter<PIPE, 2 * H, 64> dot;
          dot.start(split_rows[0], first, last, g, t, pol);
          stage_x();
          AfterSums acc[2] = {{0.f, 0.f}, {0.f, 0.f}};
          dot.finish(split_rows[0], pol, xs, split_after_b(g, t, first, zeros), acc);
          store_split_after_partials(part, warp, 0, g, acc[0]);
          store_split_after_partials(part, warp, 1, g, acc[1]);
          emit();
          return;
        }
        SplitDot<PIPE> dot;
        dot.start(split_rows, first, last, g, t, pol);  // shared weights: before the wait
        stage_x();
        float c0[4] = {0.f, 0.f, 0.f, 0.f}, c1[4] = {0.f, 0.f, 0.f, 0.f};
        dot.finish(split_rows, pol, SmemB{xs}, c0, c1);
        store_split_partials(part, warp, 0, g, t, c0);
        store_split_partials(part, warp, 1, g, t, c1);
        emit();
      } else if constexpr (kAfter) {
        TileDotAfter<PIPE> dot;
        dot.start(rows, first, last, t, pol);
        stage_x();
        AfterSums acc{0.f, 0.f};
        dot.finish(rows, pol, xs, tile_after_b(g, t, first, zeros), acc);
        float c[4] = {0.f, 0.f, 0.f, 0.f};
        tile_after_sums(acc, c);
        finish_tile(c);
      } else {
        TileDot<PIPE, SmemB> dot;
        dot.start(rows, first, last, t, pol);  // shared weights do not depend on earlier kernels
        stage_x();
        float c[4] = {0.f, 0.f, 0.f, 0.f};
        dot.finish(rows, t, pol, SmemB{xs}, c);
        finish_tile(c);
      }
      return;
    }
  }
  TileDot<PIPE, GlobalB> dot;
  dot.start(rows, first, last, t, pol);  // shared weights do not depend on earlier kernels

  ptx::griddep_wait();
  ptx::griddep_launch_dependents();
  const int token = chunk * kMaxCols + g;  // this lane supplies mma column g
  const GlobalB b{token < p.m ? p.x + static_cast<long long>(token) * H : nullptr};
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  dot.finish(rows, t, pol, b, c);
  finish_tile(c);
  (void)kTiles;
}

// SPLIT: routed tiles read each row as two halves on adjacent mma rows (tile_split.cuh).
// SHX: the shared expert's tiles at M = 1 (gate_up_shared), chosen per kernel by the generator.
// TILES: 8-feature tiles per routed CTA (2: with SPLIT only; the module's second kernel for M >=
// MOEGEMV_GU_GROUP, whose grouped CTAs then scan ids and leave half as often: session 13).
// DPRE: the down-weight prefetch's form (gate_up_dpre.cuh; the kernel run at M = 1 only).
template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, bool L2, int RING, bool SPLIT,
          int SHX, int TILES = 1, int DPRE = 0>
__device__ __forceinline__ void gate_up(const GateUpParams& p) {
  static_assert(H % 64 == 0 && I % 64 == 0 && SI % 64 == 0, "SPEC: multiples of 64");
  extern __shared__ __align__(16) unsigned char smem[];
  const int routed = gate_up_routed_ctas(p.m, K, I, TILES);
  int b = static_cast<int>(blockIdx.x);
  // MOEGEMV_GU_ORDER: the shared tiles first (their weights load before griddepcontrol.wait, and
  // the grid's tail is then routed tiles).
  if constexpr (MOEGEMV_GU_ORDER != 0 && SI > 0) {
    const int shared = gate_up_shared_ctas(p.m, SI);
    b = b < shared ? routed + b : b - shared;
  }
  if (b < routed) {
    gate_up_routed<H, I, SI, K, W, PIPE, DIRECT, RING, SPLIT, TILES, DPRE>(p, b, smem);
  } else if constexpr (SI > 0) {
    // Shared tiles keep the register ring (B differs per lane: up to 8 tokens); with RING the
    // routed PIPE is a shared-memory depth, too deep for registers, so they use 2 steps.
    gate_up_shared<H, I, SI, K, W, RING ? 2 : PIPE, DIRECT, SPLIT, SHX, DPRE>(p, b - routed, smem);
  }
}

}  // namespace moegemv
