// gate_up as a persistent streaming kernel (config stream = 1; SPEC section 4, same numerics as
// gate_up.cuh). One CTA per SM walks a contiguous range of units:
//   shared units first (window of up to T tokens as mma columns, 8 features), then routed units
//   (one pair, 8 features), pair-major, so a CTA's x changes rarely.
// A unit's 16 mma rows are the 8 features' up rows (0..7) and gate rows (8..15); its K is cut
// into NKC pieces, piece j consumed by warp group j (W / NKC warps splitting its steps), each group
// with its own ring of D slots. After every unit the W warps meet once (named barrier), and
// warp 0/1 finish it (sum of the warps' partials, SiLU, store) from double-buffered partials.
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

// mma row r's physical weight row: routed FlashInfer [up; gate] 64-row interleave, shared
// ModelOpt [gate; up].
template <int I, int SI>
__device__ __forceinline__ int gu_row(const GuUnit& x, int r) {
  const int i = x.tile * kTileFeatures + r % 8;
  if (x.shared) return r < 8 ? SI + i : i;
  return 128 * (i / 64) + i % 64 + (r < 8 ? 0 : 64);
}

template <int H, int I, int SI, int K, int W, int D, int NKC, int T>
__device__ __forceinline__ void gate_up_produce(const GateUpParams& p, const Barriers& bars,
                                                unsigned int slots, int begin, int end) {
  constexpr int KC = gate_up_stream_kc(H, NKC);
  constexpr int kKt = ceil_div(H / 16, 4);
  const int lane = threadIdx.x % 32;
  const unsigned long long pol = ptx::evict_first_policy();
  bool waited = false;
  int pair = -1, e = 0;  // the expert id is loaded once per pair (I / 8 consecutive units)
  for (int u = begin; u < end; ++u) {
    const GuUnit x = gu_unit<I, SI, K, T>(u, p.m);
    const unsigned char* w = p.wsh;
    const unsigned char* sf = p.ssh;
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
      const long long ev = valid ? e : 0;
      w = p.w1 + ev * (2 * I) * (H / 2);
      sf = p.w1_sf + ev * (2 * I / 128) * kKt * 512;
    }
    const int row = gu_row<I, SI>(x, lane % 16);
    w += static_cast<long long>(row) * (H / 2);
    sf += nvfp4::swizzle_row_offset(row, kKt);
    const int v = u - begin;
#pragma unroll 1
    for (int j = 0; j < NKC; ++j) {
      wait_free<D>(bars, j, v);
      const int index = j * D + RingPos<D>(v).slot;
      fill_slot<KC>(slots + index * Slot<KC>::kBytes, bars.full(index), lane, valid, w + j * KC,
                    sf + (j * KC / 32) * 512, pol);
    }
  }
}

// Stages tokens [tok0, tok0 + n) of x into the window (SmemB permutation), consumer threads only.
template <int H, int W>
__device__ __forceinline__ void stage_window(const GateUpParams& p, int tok0, int n, ptx::U32x4* xs) {
  stage_groups_by(threadIdx.x, W * 32, n * (H / 8),
                  [&](int gi) { return p.x + static_cast<long long>(tok0) * H + 8 * gi; }, xs);
}

template <int H, int I, int SI, int K, int W, int D, int NKC, int T>
__device__ __forceinline__ void gate_up_stream(const GateUpParams& p) {
  static_assert(gate_up_stream_fits(H, W, NKC), "H % (128 * chunks) == 0, warps % chunks == 0");
  constexpr int KC = gate_up_stream_kc(H, NKC);
  constexpr int WG = W / NKC;
  extern __shared__ __align__(16) unsigned char smem[];
  const Barriers bars{ptx::shared_addr(smem), NKC * D};
  unsigned char* slot_mem = smem + stream_barrier_bytes(2 * NKC * D);
  ptx::U32x4* xs = reinterpret_cast<ptx::U32x4*>(slot_mem + NKC * D * Slot<KC>::kBytes);
  float* parts = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(xs) + T * H * 2);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;

  int begin, end;
  cta_units(gate_up_stream_units(p.m, K, I, SI, T), begin, end);
  if (threadIdx.x == 0) bars.init(WG);
  __syncthreads();
  ptx::griddep_launch_dependents();  // down_combine may start its prologue once we all run
  if (warp == W) {
    gate_up_produce<H, I, SI, K, W, D, NKC, T>(p, bars, ptx::shared_addr(slot_mem), begin, end);
    return;
  }

  ptx::griddep_wait();  // x and ids come from earlier kernels
  const int group = warp / WG;
  int first, last;
  split_steps(Slot<KC>::kSteps, warp % WG, WG, first, last);
  int win0 = -1, win_n = 0, buf = 0;
  int pair = -1, e = 0;
  float alpha = 0.0f;  // the pair's expert and global scale, loaded once per pair
  for (int u = begin; u < end; ++u) {
    const GuUnit x = gu_unit<I, SI, K, T>(u, p.m);
    if (x.tok0 < win0 || x.tok0 + x.ntok > win0 + win_n) {
      win0 = x.tok0;
      win_n = p.m - win0 < T ? p.m - win0 : T;
      ptx::named_barrier(1, W * 32);  // nobody reads the old window any more
      stage_window<H, W>(p, win0, win_n, xs);
      ptx::named_barrier(1, W * 32);
    }
    if (!x.shared && x.pair != pair) {
      pair = x.pair;
      e = p.ids[pair];
      alpha = e >= 0 && e < p.e ? p.alpha[e] : 0.0f;
    }
    const bool valid = x.shared || (e >= 0 && e < p.e);

    float c[4] = {0.f, 0.f, 0.f, 0.f};
    const int index = wait_filled<D>(bars, group, u - begin);
    if (valid) {
      const int col = x.shared ? (g < x.ntok ? g : 0) : 0;  // lane g supplies mma column g
      const ptx::U32x4* b = xs + (x.tok0 - win0 + col) * (H / 8) + group * (2 * KC / 8);
      slot_dot<KC>(slot_mem + index * Slot<KC>::kBytes, b, first, last, g, t, c);
    }
    release(bars, index);
    if (!valid) {
      // Skipped pair (id < 0): zeros; an id >= E is a caller bug: NaN so it cannot pass unnoticed.
      if (warp == 0 && lane < kTileFeatures)
        p.act[static_cast<long long>(x.pair) * I + x.tile * kTileFeatures + lane] = e < 0 ? 0 : 0x7FC0;
      continue;
    }
    float* part = parts + buf * (W * kTileRows * kMaxCols);
    store_partials(part, warp, g, t, c);
    ptx::named_barrier(1, W * 32);
    if (!x.shared) {
      if (warp == 0 && lane < kTileFeatures)
        p.act[static_cast<long long>(x.pair) * I + x.tile * kTileFeatures + lane] =
            silu_mul_approx(sum_partials(part, W, lane, 0), sum_partials(part, W, lane + 8, 0), alpha);
    } else if (threadIdx.x < kTileFeatures * kMaxCols) {
      const int f = threadIdx.x / kMaxCols, n = threadIdx.x % kMaxCols;
      if (n < x.ntok)
        p.sact[static_cast<long long>(x.tok0 + n) * SI + x.tile * kTileFeatures + f] =
            silu_mul_exact(sum_partials(part, W, f, n), sum_partials(part, W, f + 8, n), *p.gssh);
    }
    buf ^= 1;
  }
}

}  // namespace moegemv
