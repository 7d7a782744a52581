// gate_up as a persistent walk (config ring = 2): the classic kernel's 4-warp CTAs and register
// ring (tile.cuh), but each CTA walks a contiguous range of tiles and its warps' loads run ahead
// across tile boundaries, so the ring never drains; x is staged once per token, not per tile.
//
// Why: the one-CTA-per-tile kernel pays, per 57 KB tile, an ids -> address -> first-data latency
// with nothing in flight, and restages all of x (14 KB at H = 7168); profiled at 51% issue and
// 56% DRAM, and neither deeper rings (v4a) nor wider loads (split rows) moved its time.
//
// Units, token-major (params.h gate_up_walk_units): per token its shared-expert tiles, then its K
// pairs' routed tiles; all one mma column. Every warp takes the same K range of every unit, so the
// sums are the classic kernel's, bit for bit. At M > 1 the shared weights are read once per token
// (the classic kernel reads them once per 8 tokens).
#pragma once

#include "gate_up.cuh"
#include "stream.cuh"

namespace moegemv {

struct WalkUnit {
  TileRows rows;
  int tok;
  int out;      // act / sact element of feature 0
  int e;        // routed expert id; 0 for shared tiles
  bool shared;
};

// Unit u's expert id (0 for a shared tile). Loaded a unit ahead of its use by both cursors, so
// the ids -> address latency is paid once per CTA, not per tile.
template <int I, int SI, int K>
__device__ __forceinline__ int walk_id(const GateUpParams& p, int u) {
  constexpr int kPerTok = gate_up_walk_units_per_token(K, I, SI);
  constexpr int kShared = SI / kTileFeatures;
  const int r = u % kPerTok;
  return r < kShared ? 0 : p.ids[(u / kPerTok) * K + (r - kShared) / (I / kTileFeatures)];
}

// Unit u (expert id e from walk_id): rows for lane row g (up row: mma row g, gate row: g + 8)
// and where its outputs go.
template <int H, int I, int SI, int K>
__device__ __forceinline__ WalkUnit walk_unit(const GateUpParams& p, int u, int g, int e) {
  constexpr int kPerTok = gate_up_walk_units_per_token(K, I, SI);
  constexpr int kShared = SI / kTileFeatures;
  constexpr int kKt = ceil_div(H / 16, 4);
  WalkUnit x;
  x.tok = u / kPerTok;
  const int r = u % kPerTok;
  x.shared = r < kShared;
  x.e = e;
  if (x.shared) {
    const int i = r * kTileFeatures + g;
    x.rows = TileRows{p.wsh + static_cast<long long>(SI + i) * (H / 2), p.wsh + static_cast<long long>(i) * (H / 2),
                      p.ssh + nvfp4::swizzle_row_offset(SI + i, kKt), p.ssh + nvfp4::swizzle_row_offset(i, kKt)};
    x.out = x.tok * SI + r * kTileFeatures;
    return x;
  }
  const int pair = x.tok * K + (r - kShared) / (I / kTileFeatures);
  const int tile = (r - kShared) % (I / kTileFeatures);
  // A skipped pair still streams (expert 0's rows) so every warp's ring advances the same way.
  const int we = e >= 0 && e < p.e ? e : 0;
  x.rows = routed_rows<H>(p.w1 + static_cast<long long>(we) * (2 * I) * (H / 2),
                          p.w1_sf + static_cast<long long>(we) * (2 * I / 128) * kKt * 512,
                          tile * kTileFeatures + g);
  x.out = pair * I + tile * kTileFeatures;
  return x;
}

// Threads 0..7: unit x's 8 outputs from the warps' partial sums; alpha: the routed expert's
// global scale (loaded when x became current).
template <int SI, int W>
__device__ __forceinline__ void walk_finish(const GateUpParams& p, const WalkUnit& x, float alpha,
                                            const float* part) {
  const int f = threadIdx.x;
  if (x.shared) {
    p.sact[static_cast<long long>(x.out) + f] =
        silu_mul_exact(sum_partials(part, W, f, 0), sum_partials(part, W, f + 8, 0), *p.gssh);
  } else if (x.e < 0 || x.e >= p.e) {
    // Skipped pair (id < 0): zeros; an id >= E is a caller bug: NaN so it cannot pass unnoticed.
    p.act[static_cast<long long>(x.out) + f] = x.e < 0 ? 0 : 0x7FC0;
  } else {
    p.act[static_cast<long long>(x.out) + f] =
        silu_mul_approx(sum_partials(part, W, f, 0), sum_partials(part, W, f + 8, 0), alpha);
  }
}

// Threads 0..7 load the global scale of x's expert (1 for shared tiles and skipped pairs).
__device__ __forceinline__ float walk_alpha(const GateUpParams& p, const WalkUnit& x) {
  return threadIdx.x < kTileFeatures && !x.shared && x.e >= 0 && x.e < p.e ? p.alpha[x.e] : 1.0f;
}

// The load cursor: the next step to fetch, walking the warp's K range of unit after unit; the
// next unit's expert id is loaded a unit ahead.
template <int H, int I, int SI, int K>
struct WalkLoads {
  StepPtrs ptrs;
  int unit, step, end, first, t, e_next;

  __device__ __forceinline__ WalkLoads(const GateUpParams& p, int begin, int end_, int first_, int g, int t_)
      : ptrs(walk_unit<H, I, SI, K>(p, begin, g, walk_id<I, SI, K>(p, begin)).rows, first_, t_),
        unit(begin), step(0), end(end_), first(first_), t(t_),
        e_next(begin + 1 < end_ ? walk_id<I, SI, K>(p, begin + 1) : 0) {}

  __device__ __forceinline__ void next(const GateUpParams& p, int n, int g, unsigned long long pol,
                                       Step<SmemB>& out) {
    if (unit >= end) return;
    ptrs.load(step, pol, out);
    if (++step == n) {
      step = 0;
      if (++unit < end) {
        ptrs = StepPtrs(walk_unit<H, I, SI, K>(p, unit, g, e_next).rows, first, t);
        e_next = unit + 1 < end ? walk_id<I, SI, K>(p, unit + 1) : 0;
      }
    }
  }
};

template <int H, int I, int SI, int K, int W, int PIPE, bool DIRECT, bool L2, int RING, bool SPLIT>
__device__ __forceinline__ void gate_up_walk(const GateUpParams& p) {
  static_assert(RING == 2 && !DIRECT && !SPLIT && H % 128 == 0, "walk: x staged, whole 128-element steps");
  extern __shared__ __align__(16) unsigned char smem[];
  ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(smem);
  float* parts = reinterpret_cast<float*>(smem + H * 2);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const unsigned long long pol = ptx::evict_first_policy();

  int begin, end;
  cta_units(gate_up_walk_units(p.m, K, I, SI), begin, end);
  int first, last;
  warp_range(H, warp, W, first, last);
  const int n = (last - first) / 128;  // steps per unit for this warp

  ptx::griddep_wait();  // ids and x come from earlier kernels
  ptx::griddep_launch_dependents();
  WalkLoads<H, I, SI, K> loads(p, begin, end, first, g, t);
  Step<SmemB> ring[PIPE];
#pragma unroll
  for (int i = 0; i < PIPE; ++i) loads.next(p, n, g, pol, ring[i]);

  WalkUnit cur = walk_unit<H, I, SI, K>(p, begin, g, walk_id<I, SI, K>(p, begin));
  float alpha = walk_alpha(p, cur);
  int e_next = begin + 1 < end ? walk_id<I, SI, K>(p, begin + 1) : 0;
  stage_permuted(p.x + static_cast<long long>(cur.tok) * H, H, xs);
  __syncthreads();
  const SmemB b{xs};
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  int unit = begin, step = 0, buf = 0;
  const unsigned g_first = static_cast<unsigned>(first) / 8 + 4 * static_cast<unsigned>(t);
  const int total = (end - begin) * n;
  for (int j = 0; j < total; j += PIPE) {
#pragma unroll
    for (int i = 0; i < PIPE; ++i) {
      if (j + i >= total) break;
      compute_step(ring[i], g_first + 16 * step, b, c);
      loads.next(p, n, g, pol, ring[i]);  // the step PIPE ahead, maybe of a later unit
      if (++step < n) continue;
      // Unit done: the warps' partials meet; threads 0..7 finish it while the rest go on.
      float* part = parts + buf * (W * kTileRows * kMaxCols);
      store_partials(part, warp, g, t, c);
      __syncthreads();
      if (threadIdx.x < kTileFeatures) walk_finish<SI, W>(p, cur, alpha, part);
      c[0] = c[1] = c[2] = c[3] = 0.f;
      step = 0;
      buf ^= 1;
      if (++unit < end) {
        const WalkUnit next = walk_unit<H, I, SI, K>(p, unit, g, e_next);
        e_next = unit + 1 < end ? walk_id<I, SI, K>(p, unit + 1) : 0;
        if (next.tok != cur.tok) {  // a new token's x (everyone is past the old one's last read)
          __syncthreads();
          stage_permuted(p.x + static_cast<long long>(next.tok) * H, H, xs);
          __syncthreads();
        }
        cur = next;
        alpha = walk_alpha(p, cur);
      }
    }
  }
}

}  // namespace moegemv
