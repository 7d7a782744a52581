// gate_up as a persistent streaming kernel (config stream = 1; SPEC section 4, same numerics as
// gate_up.cuh). One CTA per SM walks a contiguous range of units:
//   shared units first (window of up to T tokens as mma columns, 8 features), then routed units
//   (one pair, 8 features), pair-major, so a CTA's x changes rarely.
// A unit's 16 mma rows are the 8 features' up rows (0..7) and gate rows (8..15); it
// is one slot (two bulk copies), D slots deep; the W consumer warps split its 128-element steps.
// After every unit the W warps meet once (named barrier), and warps 0/1 finish it (sum of the
// warps' partials, SiLU, store) from double-buffered partials.
//
// Why: the one-CTA-per-tile kernel staged all of x per CTA, re-filled its pipeline per CTA and
// read 64 bytes per row per warp step; here x is staged once per token window, the copy engine
// streams whole row pieces, and up to D units are in flight per SM.
#pragma once

#include "gate_up.cuh"
#include "stream.cuh"

namespace moegemv {

struct GuUnit {
  bool shared;
  int tile;   // 8-feature tile
  int tok0;   // first token (the pair's token when routed)
  int ntok;   // tokens (mma columns); 1 when routed
  int pair;   // routed only
};

template <int I, int SI, int K, int T>
__device__ __forceinline__ GuUnit gu_unit(int u, int m) {
  constexpr int kSharedTiles = SI / kTileFeatures;
  const int shared_units = gate_up_stream_shared_units(m, SI, T);
  GuUnit x;
  x.shared = u < shared_units;
  if (x.shared) {
    x.tile = u % kSharedTiles;
    x.tok0 = (u / kSharedTiles) * T;
    x.ntok = m - x.tok0 < T ? m - x.tok0 : T;
    x.pair = -1;
  } else {
    const int r = u - shared_units;
    x.pair = r / (I / kTileFeatures);
    x.tile = r % (I / kTileFeatures);
    x.tok0 = x.pair / K;
    x.ntok = 1;
  }
  return x;
}

// The unit's two runs (8 consecutive weight rows each): A = the 8 features' up rows (mma rows 0..7),
// B = their gate rows (mma rows 8..15); routed FlashInfer [up; gate] 64-row interleave, shared
// ModelOpt [gate; up].
template <int I, int SI>
__device__ __forceinline__ int gu_run_row(const GuUnit& x, bool gate) {
  const int i = x.tile * kTileFeatures;
  if (x.shared) return gate ? i : SI + i;
  return 128 * (i / 64) + i % 64 + (gate ? 64 : 0);
}

// Lane (g, t)'s mma rows g and g + 8 are features g/2 and 4 + g/2, their up row (g even, run A)
// or gate row (g odd, run B): a quarter-warp reads one row of each run (stream.cuh, kRunPad), and
// feature f's up and gate sums are mma rows 2f and 2f + 1.
// What a consumer lane needs of a unit before its slot is filled: validity, the routed expert's
// global scale and the lane's two scale rows.
struct GuLaneUnit {
  GuUnit x;
  int e;
  bool valid;
  float alpha;
  const unsigned char* sf_lo;
  const unsigned char* sf_hi;
};

template <int H, int I, int SI, int K, int T>
__device__ __forceinline__ GuLaneUnit gu_lane_unit(const GateUpParams& p, int u, int g, int& pair, int& e) {
  constexpr int kKt = ceil_div(H / 16, 4);
  GuLaneUnit l;
  l.x = gu_unit<I, SI, K, T>(u, p.m);
  const unsigned char* sf = p.ssh;
  if (!l.x.shared) {
    if (l.x.pair != pair) {  // the expert id is loaded once per pair (I / 8 consecutive units)
      pair = l.x.pair;
      e = p.ids[pair];
    }
    sf = p.w1_sf + static_cast<long long>(e >= 0 && e < p.e ? e : 0) * (2 * I / 128) * kKt * 512;
  }
  l.e = l.x.shared ? 0 : e;
  l.valid = l.x.shared || (e >= 0 && e < p.e);
  l.alpha = l.valid && !l.x.shared ? p.alpha[e] : 0.0f;
  const int row = gu_run_row<I, SI>(l.x, g & 1) + g / 2;
  l.sf_lo = sf + nvfp4::swizzle_row_offset(row, kKt);
  l.sf_hi = sf + nvfp4::swizzle_row_offset(row + 4, kKt);
  return l;
}

// Producer warp (lane 0 issues): one slot per unit, two bulk copies (the up and the gate run).
template <int H, int I, int SI, int K, int D, int T>
__device__ __forceinline__ void gate_up_produce(const GateUpParams& p, const Barriers& bars,
                                                unsigned int slots, int begin, int end) {
  if (threadIdx.x % 32 != 0) return;
  constexpr unsigned int kRun = 8 * (H / 2);
  const unsigned long long pol = ptx::evict_first_policy();
  bool waited = false;
  int pair = -1, e = 0;
  for (int u = begin; u < end; ++u) {
    const GuUnit x = gu_unit<I, SI, K, T>(u, p.m);
    const unsigned char* w = p.wsh;
    bool valid = true;
    if (!x.shared) {
      if (!waited) {
        ptx::griddep_wait();  // ids come from earlier kernels; shared weights did not need them
        waited = true;
      }
      if (x.pair != pair) {
        pair = x.pair;
        e = p.ids[pair];
      }
      valid = e >= 0 && e < p.e;
      w = p.w1 + static_cast<long long>(valid ? e : 0) * (2 * I) * (H / 2);
    }
    const unsigned char* const src[2] = {w + static_cast<long long>(gu_run_row<I, SI>(x, false)) * (H / 2),
                                         w + static_cast<long long>(gu_run_row<I, SI>(x, true)) * (H / 2)};
    const unsigned int dst[2] = {0, kRun + kRunPad};
    const int index = wait_free<D>(bars, 0, u - begin);
    fill_slot<2>(slots + index * gate_up_stream_slot_bytes(H), bars.full(index), valid, src, dst, kRun, pol);
  }
}

// Stages tokens [tok0, tok0 + n) of x into the window (SmemB permutation), consumer threads only.
template <int H, int W>
__device__ __forceinline__ void stage_window(const GateUpParams& p, int tok0, int n, ptx::U32x4* xs) {
  stage_groups_by(threadIdx.x, W * 32, n * (H / 8),
                  [&](int gi) { return p.x + static_cast<long long>(tok0) * H + 8 * gi; }, xs);
}

template <int H, int I, int SI, int K, int W, int D, int T>
__device__ __forceinline__ void gate_up_stream(const GateUpParams& p) {
  static_assert(gate_up_stream_fits(H, W), "H % 128 == 0 and at least one step per warp");
  constexpr int kMax = gate_up_stream_max_steps(H, W);
  constexpr int kSlot = gate_up_stream_slot_bytes(H);
  extern __shared__ __align__(16) unsigned char smem[];
  const Barriers bars{ptx::shared_addr(smem), D};
  unsigned char* slot_mem = smem + stream_barrier_bytes(2 * D);
  ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(slot_mem + D * kSlot);
  float* parts = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(xs) + T * H * 2);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  unsigned int* scratch = reinterpret_cast<unsigned int*>(parts + 2 * W * kTileRows * kMaxCols) +
                          warp * 32 * kMax + lane;

  int begin, end;
  cta_units(gate_up_stream_units(p.m, K, I, SI, T), begin, end);
  if (threadIdx.x == 0) bars.init(W);
  __syncthreads();
  ptx::griddep_launch_dependents();  // down_combine may start its prologue once we all run
  if (warp == W) {
    gate_up_produce<H, I, SI, K, D, T>(p, bars, ptx::shared_addr(slot_mem), begin, end);
    return;
  }

  ptx::griddep_wait();  // x and ids come from earlier kernels
  int first, n;
  split_steps(H / 128, warp, W, first, n);
  int win0 = -1, win_n = 0, buf = 0, pair = -1, e = 0;
  GuLaneUnit cur = gu_lane_unit<H, I, SI, K, T>(p, begin, g, pair, e), next = cur;
  ScaleRegs<kMax> sc;  // in flight: the scales of the unit after the one being computed
  if (cur.valid) sc.load(cur.sf_lo, cur.sf_hi, first, n, t);
  for (int u = begin; u < end; ++u) {
    if (cur.valid) sc.park(scratch, n);
    if (u + 1 < end) {  // the next unit's scales load while this one computes
      next = gu_lane_unit<H, I, SI, K, T>(p, u + 1, g, pair, e);
      if (next.valid) sc.load(next.sf_lo, next.sf_hi, first, n, t);
    }
    const GuUnit& x = cur.x;
    if (x.tok0 < win0 || x.tok0 + x.ntok > win0 + win_n) {
      win0 = x.tok0;
      win_n = p.m - win0 < T ? p.m - win0 : T;
      ptx::named_barrier(1, W * 32);  // nobody reads the old window any more
      stage_window<H, W>(p, win0, win_n, xs);
      ptx::named_barrier(1, W * 32);
    }
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    const int index = wait_filled<D>(bars, 0, u - begin);
    if (cur.valid) {
      const int col = x.shared ? (g < x.ntok ? g : 0) : 0;  // lane g supplies mma column g
      const unsigned char* lo = slot_mem + index * kSlot + (g & 1) * (8 * (H / 2) + kRunPad) + (g / 2) * (H / 2);
      slot_dot(lo, lo + 4 * (H / 2), ParkedScales{scratch}, xs + (x.tok0 - win0 + col) * (H / 8), first, n, t, c);
    }
    release(bars, index);
    if (!cur.valid) {
      // Skipped pair (id < 0): zeros; an id >= E is a caller bug: NaN so it cannot pass unnoticed.
      if (warp == 0 && lane < kTileFeatures)
        p.act[static_cast<long long>(x.pair) * I + x.tile * kTileFeatures + lane] = cur.e < 0 ? 0 : 0x7FC0;
    } else {
      float* part = parts + buf * (W * kTileRows * kMaxCols);
      store_partials(part, warp, g, t, c);
      ptx::named_barrier(1, W * 32);
      if (!x.shared) {
        if (warp == 0 && lane < kTileFeatures)
          p.act[static_cast<long long>(x.pair) * I + x.tile * kTileFeatures + lane] = silu_mul_approx(
              sum_partials(part, W, 2 * lane, 0), sum_partials(part, W, 2 * lane + 1, 0), cur.alpha);
      } else if (threadIdx.x < kTileFeatures * kMaxCols) {
        const int f = threadIdx.x / kMaxCols, col = threadIdx.x % kMaxCols;
        if (col < x.ntok)
          p.sact[static_cast<long long>(x.tok0 + col) * SI + x.tile * kTileFeatures + f] =
              silu_mul_exact(sum_partials(part, W, 2 * f, col), sum_partials(part, W, 2 * f + 1, col), *p.gssh);
      }
      buf ^= 1;
    }
    cur = next;
  }
}

}  // namespace moegemv
