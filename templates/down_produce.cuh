// The streaming down_combine's shape constants, its segments' weights, and its producer warp
// (down_stream.cuh): per unit (token, 8 output rows) and segment (routed expert j, then the shared
// expert) one slot of its segment's ring, filled by bulk copies. In order from lane 0 (the default
// where copies are large), or one lane per segment (MOEGEMV_DC_LANES 1, where they are small; 2
// and 3 are variants of it that measured no better).
#pragma once

#include "down_combine.cuh"
#include "stream.cuh"

namespace moegemv {

template <int H, int I, int SI, int K, int CH, int D>
struct DownStream {
  static constexpr int kSegs = down_stream_segments(SI, K);
  static constexpr int kWarps = down_stream_warps(SI, K, CH);
  static constexpr int kSlotBytes = down_stream_slot_bytes(I, SI);
  static constexpr int kMax = down_stream_max_steps(I, SI, CH);
  static constexpr int kTiles = H / 8;
  static constexpr int kKt = ceil_div(I / 16, 4);
  static constexpr int kKts = ceil_div(SI / 16, 4);
};

// Segment seg's weights and scales (routed expert e, or the shared expert).
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_segment(const DownParams& p, int seg, int e, const unsigned char*& w,
                                             const unsigned char*& sf, int& kt) {
  using S = DownStream<H, I, SI, K, CH, D>;
  if (seg < K) {
    const long long ev = e >= 0 && e < p.e ? e : 0;
    w = p.w2 + ev * H * (I / 2);
    sf = p.w2_sf + ev * ceil_div(H, 128) * S::kKt * 512;
    kt = S::kKt;
  } else {
    w = p.wsd;
    sf = p.ssd;
    kt = S::kKts;
  }
}

// The byte offset of a slot's second run of 4 rows past its first run's start (len: the K length):
// kRunPad past its end with two copies per slot (MOEGEMV_DC_RUNS 2), adjacent with one.
__device__ __forceinline__ constexpr int down_run_offset(int len) {
  return 2 * len + (MOEGEMV_DC_RUNS == 2 ? kRunPad : 0);
}

// One slot's copy, prepared: rows n0..n0+7 of a segment's weights `w` (K length len) as two runs
// of 4 rows placed kRunPad apart (bank-conflict-free reads), or (MOEGEMV_DC_RUNS 1) as one run.
struct DownCopy {
  static constexpr int kRuns = MOEGEMV_DC_RUNS == 2 ? 2 : 1;
  const unsigned char* src[kRuns];
  unsigned int dst[kRuns];
  unsigned int bytes;  // per run
  bool valid;          // false: a skipped expert (the slot's phase completes with no bytes)
};

__device__ __forceinline__ DownCopy down_copy(const unsigned char* w, int n0, int len, bool valid) {
#if MOEGEMV_DC_RUNS == 2
  return {{w + static_cast<long long>(n0) * (len / 2), w + static_cast<long long>(n0 + 4) * (len / 2)},
          {0, static_cast<unsigned int>(2 * len + kRunPad)},
          static_cast<unsigned int>(2 * len),
          valid};
#else
  return {{w + static_cast<long long>(n0) * (len / 2)}, {0}, static_cast<unsigned int>(4 * len), valid};
#endif
}

template <int kSlotBytes>
__device__ __forceinline__ void down_issue(const Barriers& bars, unsigned int slots, int index,
                                           const DownCopy& c, unsigned long long pol) {
  // (MOEGEMV_KNOCK & 32: no bytes; & 256: no bytes, the runs prefetched into L2 instead;
  // diagnostic, kernel_config.h.)
  fill_slot<DownCopy::kRuns>(slots + index * kSlotBytes, bars.full(index),
                             c.valid && !(MOEGEMV_KNOCK & (32 | 256)), c.src, c.dst, c.bytes, pol);
  if ((MOEGEMV_KNOCK & 256) && c.valid) {
#pragma unroll
    for (int i = 0; i < DownCopy::kRuns; ++i) ptx::prefetch_l2(c.src[i], c.bytes);
  }
}

// Segment seg's block scales for expert e and their k-atoms (MOEGEMV_DC_SPRE); false for a skipped
// expert, which has none.
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ bool down_segment_scales(const DownParams& p, int seg, int e,
                                                    const unsigned char*& sf, int& kt) {
  if (!(seg == K || (e >= 0 && e < p.e))) return false;
  const unsigned char* w;
  down_segment<H, I, SI, K, CH, D>(p, seg, e, w, sf, kt);
  return true;
}

// MOEGEMV_DC_SPRE 1, 2: segment seg's block scales for the units u .. of token u / kTiles that
// this CTA walks (up to `end`), prefetched into L2: the whole 128-row blocks they touch, one range
// of kt * 512 bytes per block (a unit's scales are one 128-byte line per 512-byte atom, and 4
// units share it, so a CTA that walks 4 or more units of a block needs all of it anyway). Nothing
// for a skipped expert.
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_prefetch_scales(const DownParams& p, int u, int end, int seg,
                                                     int e) {
  using S = DownStream<H, I, SI, K, CH, D>;
  const unsigned char* sf;
  int kt;
  if (seg >= S::kSegs || !down_segment_scales<H, I, SI, K, CH, D>(p, seg, e, sf, kt)) return;
  const int tok = u / S::kTiles, last = min(end, (tok + 1) * S::kTiles) - 1;
  const int b0 = (u % S::kTiles) / 16, b1 = (last % S::kTiles) / 16;  // 16 units of 8 rows: 128
  ptx::prefetch_l2(sf + static_cast<long long>(b0) * kt * 512,
                   static_cast<unsigned int>((b1 - b0 + 1) * kt * 512));
}

// MOEGEMV_DC_SPRE 3: unit u's block-scale lines of segment seg into L2, one per 512-byte atom
// (rows n0..n0+7 of their 128-row block: the 128 bytes at (n0 % 32) * 16), atoms lane, lane +
// `lanes`, ...: a warp's 32 lanes take a segment of up to 32 atoms in one instruction.
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_prefetch_unit_scales(const DownParams& p, int u, int seg,
                                                          int e, int lane, int lanes) {
  using S = DownStream<H, I, SI, K, CH, D>;
  const unsigned char* sf;
  int kt;
  if (!down_segment_scales<H, I, SI, K, CH, D>(p, seg, e, sf, kt)) return;
  const int n0 = (u % S::kTiles) * 8;
  const unsigned char* line = sf + static_cast<long long>(n0 / 128) * kt * 512 + (n0 % 32) * 16;
  for (int a = lane; a < kt; a += lanes) ptx::prefetch_line_l2(line + a * 512);
}

// Producer lane: the copy of rows n0.. of `w` into the slot `claim()` returns. kMayDecline:
// claim() returns -1 for "not now", and then nothing is copied (false).
template <int kSlotBytes, bool kMayDecline = false, class Claim>
__device__ __forceinline__ bool down_fill_rows(const Barriers& bars, unsigned int slots, bool valid,
                                               const unsigned char* w, int n0, int len, Claim claim,
                                               unsigned long long pol) {
  const DownCopy c = down_copy(w, n0, len, valid);
  const int index = claim();
  if (kMayDecline && index < 0) return false;
  down_issue<kSlotBytes>(bars, slots, index, c, pol);
  return true;
}

// Lane seg's weights for unit u when one lane produces each segment (MOEGEMV_DC_LANES): its expert
// id reloaded (into tok, e) when u starts a new token, and its scales prefetched there
// (MOEGEMV_DC_SPRE 1) or marked due after the token's first copy (2).
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ const unsigned char* down_lane_weights(const DownParams& p, int u,
                                                                  int end, int seg, int& tok,
                                                                  int& e, bool& due) {
  using S = DownStream<H, I, SI, K, CH, D>;
  if (u / S::kTiles != tok) {
    tok = u / S::kTiles, e = seg < K ? p.ids[tok * K + seg] : -1;
    if (MOEGEMV_DC_SPRE == 1) down_prefetch_scales<H, I, SI, K, CH, D>(p, u, end, seg, e);
    due = MOEGEMV_DC_SPRE == 2;
  }
  const unsigned char* w;
  const unsigned char* sf;
  int kt;
  down_segment<H, I, SI, K, CH, D>(p, seg, e, w, sf, kt);
  return w;
}

// Producer warp: per unit and segment one slot. Lane j < K holds the token's ids[tok, j] (one load
// latency per token); lane 0 issues every copy, in order.
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_produce(const DownParams& p, const Barriers& bars,
                                             unsigned int slots, int begin, int end) {
  using S = DownStream<H, I, SI, K, CH, D>;
  const int lane = threadIdx.x % 32;
  const unsigned long long pol = ptx::evict_first_policy();
  int tok = -1, lane_id = -1;
  bool due = false;  // MOEGEMV_DC_SPRE 2: the token's scales to prefetch after this unit's copies
  timeline::WaitSum<9> free_wait(lane == 0);  // (diagnostic)
  for (int u = begin; u < end; ++u) {
    if (u / S::kTiles != tok) {
      tok = u / S::kTiles;
      lane_id = lane < K ? p.ids[tok * K + lane] : -1;
      if (MOEGEMV_DC_SPRE == 1) down_prefetch_scales<H, I, SI, K, CH, D>(p, u, end, lane, lane_id);
      due = MOEGEMV_DC_SPRE == 2;
    }
    const int n0 = (u % S::kTiles) * 8;
#pragma unroll 1
    for (int seg = 0; seg < S::kSegs; ++seg) {
      const int e = __shfl_sync(0xffffffffu, lane_id, seg < K ? seg : 0);
      if (lane == 0) {
        const bool valid = seg == K || (e >= 0 && e < p.e);
        const unsigned char* w;
        const unsigned char* sf;
        int kt;
        down_segment<H, I, SI, K, CH, D>(p, seg, e, w, sf, kt);
        const int len = seg < K ? I : SI;
        down_fill_rows<S::kSlotBytes>(bars, slots, valid, w, n0, len,
                                      [&] {
                                        free_wait.enter();
                                        const int index = wait_free<D>(bars, seg, u - begin);
                                        free_wait.leave();
                                        return index;
                                      },
                                      pol);
      }
      __syncwarp();
    }
    if (due) down_prefetch_scales<H, I, SI, K, CH, D>(p, u, end, lane, lane_id), due = false;
    if (MOEGEMV_DC_SPRE == 3 && u + 1 < end && (u + 1) / S::kTiles == tok) {
#pragma unroll 1
      for (int seg = 0; seg < S::kSegs; ++seg) {
        const int e = __shfl_sync(0xffffffffu, lane_id, seg < K ? seg : 0);
        down_prefetch_unit_scales<H, I, SI, K, CH, D>(p, u + 1, seg, e, lane, 32);
      }
    }
  }
}

// MOEGEMV_DC_LANES: lane s < kSegs produces segment s's ring on its own, so copies of different
// segments are issued side by side and no segment waits for another's slot (session 7: the
// in-order producer's ~100 cycles per copy bound Qwen3-Next's down, 44 copies per CTA). The lanes
// wait on their own empty barriers for at most kProducerPollNs at a time (ptxas: TRYWAIT, then
// NANOSLEEP.SYNCS). On DeepSeek-V3 and GLM-4.5 this producer is 5% and 14% slower than the
// in-order one, the same with a non-blocking test and a 64 ns nap (runs 5, 6): only where I <= 512.
constexpr unsigned int kProducerPollNs = 100;

// (MOEGEMV_DC_LANES 1 prepares each copy once its slot is claimed.)
// MOEGEMV_DC_LANES 2 / 3 (session 7; session 8 run 1: within 2% of mode 1 everywhere, so not the
// cause): each lane prepares its next copy (ids at a token change,
// addresses) right after issuing the last one, so a slot that frees is refilled with nothing but
// the arrival and the copies after the wait; run 6's SASS of mode 1 had the address math behind the
// wait, the suspected reason it lost 5-14% on DeepSeek-V3 and GLM-4.5. 2 waits as mode 1 (bounded
// try_wait), 3 polls without suspending (mbarrier.test_wait), in case the converged wait holds
// lanes whose slot is free.
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_produce_lanes(const DownParams& p, const Barriers& bars,
                                                   unsigned int slots, int begin, int end) {
  using S = DownStream<H, I, SI, K, CH, D>;
  static_assert(S::kSegs <= 32, "one producer lane per segment");
  const int lane = threadIdx.x % 32, seg = lane;
  const unsigned long long pol = ptx::evict_first_policy();
  int u = seg < S::kSegs ? begin : end, tok = -1, e = -1;
  bool due = false;  // MOEGEMV_DC_SPRE 2: the token's scales to prefetch after this copy
  // After unit u's copy: the scale prefetch of MOEGEMV_DC_SPRE 2 (the token's, once) or 3 (unit
  // u + 1's lines, within the token).
  auto after_copy = [&] {
    if (due) down_prefetch_scales<H, I, SI, K, CH, D>(p, u, end, seg, e), due = false;
    if (MOEGEMV_DC_SPRE == 3 && u + 1 < end && (u + 1) / S::kTiles == tok)
      down_prefetch_unit_scales<H, I, SI, K, CH, D>(p, u + 1, seg, e, 0, 1);
  };
  if constexpr (MOEGEMV_DC_LANES == 1) {
    while (__any_sync(0xffffffffu, u < end)) {
      if (u < end) {
        const unsigned char* w = down_lane_weights<H, I, SI, K, CH, D>(p, u, end, seg, tok, e, due);
        const RingPos<D> pos(u - begin);
        const int index = seg * D + pos.slot;
        auto claim = [&] {
          const bool free = ptx::mbar_try_wait_for(bars.empty(index), pos.parity ^ 1, kProducerPollNs);
          return free ? index : -1;
        };
        if (down_fill_rows<S::kSlotBytes, true>(bars, slots, seg == K || (e >= 0 && e < p.e), w,
                                                (u % S::kTiles) * 8, seg < K ? I : SI, claim, pol)) {
          after_copy();
          ++u;
        }
      }
    }
  } else {
    DownCopy next{};
    auto prepare = [&] {  // unit u's copy
      if (u >= end) return;
      const unsigned char* w = down_lane_weights<H, I, SI, K, CH, D>(p, u, end, seg, tok, e, due);
      next = down_copy(w, (u % S::kTiles) * 8, seg < K ? I : SI, seg == K || (e >= 0 && e < p.e));
    };
    prepare();
    while (__any_sync(0xffffffffu, u < end)) {
      if (u < end) {
        const RingPos<D> pos(u - begin);
        const int index = seg * D + pos.slot;
        const unsigned int bar = bars.empty(index), parity = pos.parity ^ 1;
        const bool free = MOEGEMV_DC_LANES == 3 ? ptx::mbar_test_wait(bar, parity)
                                                : ptx::mbar_try_wait_for(bar, parity, kProducerPollNs);
        if (free) {
          down_issue<S::kSlotBytes>(bars, slots, index, next, pol);
          after_copy();
          ++u;
          prepare();
        }
      }
    }
  }
}

}  // namespace moegemv
