// down_combine as a persistent streaming kernel (config stream = 1; SPEC section 5, same numerics
// as down_combine.cuh). One CTA per SM walks a contiguous range of units (token, 8 output rows),
// token-major, so act is staged once per token. A unit has K + 1 segments (the routed experts in
// ascending j, then the shared expert); segment j's 8 rows are one run, one bulk copy into ring j
// (D slots), whose steps CH consumer warps split (warp w: segment w / CH). In a slot, mma rows g
// and g + 8 are the two K halves of output row g (B columns 0 and 1 are the matching halves of
// act), so a unit is 8 rows and the H/8 units per token spread evenly over the SMs.
//
// The producer reads ids and streams weights before griddepcontrol.wait (SPEC 5: weights never
// depend on gate_up; ids and tw were written before gate_up started); consumers fetch their first
// units' block scales (ScaleFeed, MOEGEMV_DC_SAHEAD units ahead) and then wait before staging act.
// A combiner warp (the last) finishes each unit from the consumers' partial sums, handed over
// through a 2-slot mbarrier ring, so the consumers never wait for each other.
#pragma once

#include "down_cluster_act.cuh"
#include "down_produce.cuh"
#include "slot_after.cuh"

namespace moegemv {

// Per-token state in shared memory: router weight, alpha2, id, and 0 skip / 1 valid / 2 bad per j.
struct DownToken {
  float* tw;
  float* alpha2;
  int* state;
  int* ids;
};

// The token's act and sact rows into shared memory (gate_up's output: after the PDL wait).
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void stage_down_act(const DownParams& p, int tok, ptx::U32x4* bs) {
  constexpr int kThreads = DownStream<H, I, SI, K, CH, D>::kWarps * 32;
  // act rows tok*K .. tok*K + K - 1 are contiguous, then sact[tok].
  stage_groups_by(threadIdx.x, kThreads, (K * I + SI) / 8,
                  [&](int gi) {
                    return gi < K * I / 8 ? p.act + static_cast<long long>(tok) * K * I + 8 * gi
                                          : p.sact + static_cast<long long>(tok) * SI + 8 * (gi - K * I / 8);
                  },
                  bs);
}

// MOEGEMV_DC_WSTAGE: segment s's consumer warps stage only its act row (the only one they read)
// and the combiner the routing info (it alone reads it), so a token change needs no barrier across
// the CTA: 1 where the down has one warp per segment (default there), 2 also where it has several
// (they stage the row together between two barriers of their own, ids kSegmentBar0 + s; default
// there since session 9, v27).
constexpr unsigned int kSegmentBar0 = 2;
static_assert(kSegmentBar0 + kDownWarpStageMaxSegments <= 16, "bar.sync ids are 0..15");
template <int CH, int kSegs>
__device__ __forceinline__ constexpr bool down_warp_stage() {
  return MOEGEMV_DC_WSTAGE == 1 ? CH == 1 : MOEGEMV_DC_WSTAGE == 2 && kSegs <= kDownWarpStageMaxSegments;
}

// Threads [0, threads) of segment seg's warps stage its act row (or sact) for token tok
// (MOEGEMV_DC_SAFTER: x 2^kSafterActShift, slot_after.cuh). C > 1 (dc_cluster, M = 1): the row
// shared over the cluster, completing on this CTA's barrier `bar` (down_cluster_act.cuh; kStage
// false: diagnostic knock 512, no bytes).
template <int I, int SI, int K, int C = 1, bool kStage = true>
__device__ __forceinline__ void stage_down_act_row(const DownParams& p, int tok, int seg, int tid,
                                                   int threads, ptx::U32x4* bs, int len,
                                                   unsigned int bar = 0) {
  const unsigned short* row = seg < K ? p.act + (static_cast<long long>(tok) * K + seg) * I
                                      : p.sact + static_cast<long long>(tok) * SI;
  auto src = [&](int gi) { return row + 8 * gi; };
  ptx::U32x4* dst = bs + seg * (I / 8);
  if constexpr (MOEGEMV_DC_SAFTER != 0)
    stage_row_over<C, kStage>(tid, threads, len, src, dst, bar, SafterScaleAct{});
  else
    stage_row_over<C, kStage>(tid, threads, len, src, dst, bar, KeepGroup{});
}

// The token's routing (ids, tw: written before gate_up started, SPEC 5) and alpha2 (a weight),
// by threads j < K (j: threadIdx.x, or the combiner's lane).
template <int K>
__device__ __forceinline__ void stage_down_info(const DownParams& p, int tok, const DownToken& info,
                                                int j = threadIdx.x) {
  if (j < K) {
    const int e = p.ids[tok * K + j];
    info.state[j] = e < 0 ? 0 : e < p.e ? 1 : 2;
    info.alpha2[j] = e >= 0 && e < p.e ? p.alpha2[e] : 0.0f;
    info.tw[j] = p.tw[tok * K + j];
    info.ids[j] = e;
  }
}

// SPEC 5's combine of output row r from the warps' partial sums part[warp][8].
template <int SI, int K, int CH>
__device__ __forceinline__ unsigned short down_stream_combine(const float* part, const DownToken& info,
                                                              int r, float gssd) {
  auto segment = [&](int s) {
    float sum = 0.0f;
    for (int ch = 0; ch < CH; ++ch) sum = ptx::add_rn(sum, part[(s * CH + ch) * 8 + r]);
    return ptx::mul_rn(sum, nvfp4::kAccUnscale);
  };
  float acc = 0.0f;
  bool bad = false;
  for (int j = 0; j < K; ++j) {
    bad |= info.state[j] == 2;
    if (info.state[j] != 1) continue;
    const float y = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(segment(j), info.alpha2[j])));
    acc = ptx::fma_rn(y, info.tw[j], acc);
  }
  float ys = 0.0f;
  if (SI > 0) ys = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(segment(K), gssd)));
  const unsigned short o = ptx::f32_to_bf16(ptx::add_rn(ptx::bf16_to_f32(ptx::f32_to_bf16(acc)), ys));
  return bad ? 0x7FC0 : o;
}

// Named barrier 1 (0 is __syncthreads): consumers and combiner around a token's staging.
constexpr unsigned int kTokenBar = 1;

// The two partial-sum buffers between the consumers and the combiner, as a ring of 2 slots with
// mbarriers placed after the weight slots' (stream_barrier_bytes leaves room): full(b), one
// arrival per consumer warp; empty(b), the combiner's. No consumer waits for another.
struct PartialBars {
  unsigned int base;
  __device__ __forceinline__ unsigned int full(int b) const { return base + 8 * b; }
  __device__ __forceinline__ unsigned int empty(int b) const { return base + 16 + 8 * b; }
  __device__ __forceinline__ void init(int consumer_warps) const {  // one thread, before bars.init
    for (int b = 0; b < 2; ++b) {
      ptx::mbar_init(full(b), consumer_warps);
      ptx::mbar_init(empty(b), 1);
    }
  }
};

// Combiner warp: SPEC 5's combine of each unit from the consumers' partial sums, off the
// consumers' path (they go on to the next unit as soon as their sums are written).
template <int H, int I, int SI, int K, int CH, int D>
__device__ __forceinline__ void down_combine_units(const DownParams& p, const float* parts,
                                                   const DownToken& info, const PartialBars& pb,
                                                   int begin, int end) {
  using S = DownStream<H, I, SI, K, CH, D>;
  constexpr int W = S::kWarps;
  constexpr unsigned int kAll = (W + 1) * 32;
  const int lane = threadIdx.x % 32;
  constexpr bool kWarpStage = down_warp_stage<CH, S::kSegs>();
  float gssd = 0.0f;
  // Weights and routing need no wait (SPEC 5): with kWarpStage the first token's info too.
  if ((MOEGEMV_DC_EARLY || kWarpStage) && SI > 0) gssd = *p.gssd;
  if (kWarpStage && begin < end) stage_down_info<K>(p, begin / S::kTiles, info, lane);
  ptx::griddep_wait();
  if (!MOEGEMV_DC_EARLY && !kWarpStage && SI > 0) gssd = *p.gssd;
  int tok = kWarpStage && begin < end ? begin / S::kTiles : -1;
  if (kWarpStage) __syncwarp();
  timeline::WaitSum<11> sums_wait(lane == 0);  // (diagnostic)
  for (int u = begin; u < end; ++u) {
    if (u / S::kTiles != tok) {  // a new token: its info staged here, or by the consumers
      tok = u / S::kTiles;       // between these two barriers (with act)
      if constexpr (kWarpStage) {
        stage_down_info<K>(p, tok, info, lane);
        __syncwarp();
      } else {
        ptx::named_barrier(kTokenBar, kAll);
        ptx::named_barrier(kTokenBar, kAll);
      }
    }
    const RingPos<2> pos(u - begin);
    sums_wait.enter();
    ptx::mbar_wait(pb.full(pos.slot), pos.parity);
    sums_wait.leave();
    const float* part = parts + pos.slot * (W * 8);
    unsigned short o = 0;
    if (lane < 8) o = down_stream_combine<SI, K, CH>(part, info, lane, gssd);
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(pb.empty(pos.slot));
    if (lane < 8) p.out[static_cast<long long>(tok) * H + (u % S::kTiles) * 8 + lane] = o;
    if (u == begin) timeline::mark<7>(lane == 0);
  }
}

// C > 1: the module's M = 1 kernel with dc_cluster=C (down_cluster_act.cuh), launched only at
// M = 1 in clusters of C CTAs.
template <int H, int I, int SI, int K, int CH, int D, int C = 1>
__device__ __forceinline__ void down_stream(const DownParams& p) {
  using S = DownStream<H, I, SI, K, CH, D>;
  static_assert(down_stream_fits(I, SI, K, CH), "I, SI multiples of 256, K <= 32, a step per warp");
  constexpr int W = S::kWarps;
  extern __shared__ __align__(16) unsigned char smem[];
  const Barriers bars{ptx::shared_addr(smem), S::kSegs * D};
  constexpr int kActBars = C > 1 ? S::kSegs : 0;  // ClusterActBars
  unsigned char* slot_mem = smem + down_stream_barrier_bytes(S::kSegs * D, kActBars);
  ptx::U32x4* bs = reinterpret_cast<ptx::U32x4*>(slot_mem + S::kSegs * D * S::kSlotBytes);
  float* parts = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(bs) + (K * I + SI) * 2);
  float* tok_mem = parts + 2 * W * 8;
  const DownToken info{tok_mem, tok_mem + K, reinterpret_cast<int*>(tok_mem + 2 * K),
                       reinterpret_cast<int*>(tok_mem + 3 * K)};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  // ScaleFeed's scratch (none where the scales are held in registers: down_stream_scales_held).
  constexpr bool kHeld = down_stream_scales_held(I, SI, CH, MOEGEMV_DC_SAHEAD);
  unsigned int* scale_words = kHeld ? nullptr
                                    : reinterpret_cast<unsigned int*>(tok_mem) + down_stream_token_bytes(K) / 4 +
                                          warp * scale_feed_buffers(MOEGEMV_DC_SAHEAD) * S::kMax * 32;
  // Lane g's output row of the unit's 8: rows g/2 (g even, run 0..3) and 4 + g/2 (g odd, run
  // 4..7), so a quarter-warp reads one row of each run (stream.cuh, kRunPad; down_run_offset).
  const int row = (g & 1) * 4 + g / 2;

  int begin, end;
  cta_units(down_stream_units(p.m, H), begin, end);
  static_assert(8 * 2 * S::kSegs * D + 32 + 8 * kActBars <=
                    down_stream_barrier_bytes(S::kSegs * D, kActBars),
                "room for PartialBars (and ClusterActBars) after the slots' barriers");
  const PartialBars pb{ptx::shared_addr(smem) + 8 * 2 * S::kSegs * D};
  const ClusterActBars act_bars{pb.base + 32};
  if (threadIdx.x == 0) {
    pb.init(W);
    if (C > 1) act_bars.init(S::kSegs);
    bars.init(CH);  // and the fence that makes every barrier's init visible to the cluster
  }
  // The scale-after form's zero row, after every warp's scale scratch (down_stream_smem_bytes).
  ptx::U32x4* safter_zeros = reinterpret_cast<ptx::U32x4*>(
      reinterpret_cast<unsigned char*>(tok_mem) + down_stream_token_bytes(K) +
      down_stream_scale_scratch_bytes(I, SI, K, CH, MOEGEMV_DC_SAHEAD));
  if (MOEGEMV_DC_SAFTER != 0) {
    for (int i = threadIdx.x; i < down_safter_zero_bytes(I, SI, CH) / 16; i += blockDim.x)
      safter_zeros[i] = ptx::U32x4{0u, 0u, 0u, 0u};
  }
  __syncthreads();
  if constexpr (C > 1) cluster::sync();  // every peer's act barriers initialized (before the wait)
  if (warp == W) {
    const unsigned int slots = ptx::shared_addr(slot_mem);
    if (MOEGEMV_DC_LANES) down_produce_lanes<H, I, SI, K, CH, D>(p, bars, slots, begin, end);
    else down_produce<H, I, SI, K, CH, D>(p, bars, slots, begin, end);
    return;
  }
  if (warp == W + 1) {
    down_combine_units<H, I, SI, K, CH, D>(p, parts, info, pb, begin, end);
    return;
  }
  constexpr unsigned int kAll = (W + 1) * 32;  // consumers and combiner

  const int seg = warp / CH, len = seg < K ? I : SI;
  int first, n;
  split_steps(down_stream_half_steps(len), warp % CH, CH, first, n);
  // Where every warp has the same number of steps (one K length, an even split), it is a
  // compile-time constant: the step loop unrolls whole and the scales stay in registers.
  constexpr int kSteps = down_stream_held_steps(I, SI, CH);
  constexpr bool kAfter = MOEGEMV_DC_SAFTER != 0;  // the scale-after form (slot_after.cuh)
  auto usable = [&](int e) { return seg == K || (e >= 0 && e < p.e); };
  // The lane's scale rows of unit u (row g of the unit's 8, both K halves) go MOEGEMV_DC_SAHEAD
  // units ahead of their use; ids before the PDL wait are fine (written before gate_up started).
  // The fetch walks units in order, so its token and tile advance by counting, not dividing.
  ScaleFeed<MOEGEMV_DC_SAHEAD, S::kMax, kAfter> feed{scale_words};
  int e_fetch = 0, tok_fetch = begin / S::kTiles, tile_fetch = begin % S::kTiles;
  bool fetch_ok = false;
  const unsigned char* sf_fetch = nullptr;  // the segment's scales for tok_fetch's expert
  int kt_fetch = 0;
  auto fetch_expert = [&]() {
    e_fetch = seg < K ? p.ids[tok_fetch * K + seg] : 0;
    fetch_ok = usable(e_fetch);
    const unsigned char* w;
    down_segment<H, I, SI, K, CH, D>(p, seg, e_fetch, w, sf_fetch, kt_fetch);
  };
  if (begin < end) fetch_expert();
  auto fetch_scales = [&](int v) {  // unit begin + v, v = 0, 1, 2, ... in order
    const bool in = begin + v < end;
    if (in && v > 0 && tile_fetch == 0) fetch_expert();
    // (MOEGEMV_KNOCK & 128, diagnostic: every unit reads tile 0's scales, which stay cached.)
    const int scale_row = ((MOEGEMV_KNOCK & 128) ? 0 : tile_fetch * 8) + row;
    const unsigned char* lo = in ? sf_fetch + nvfp4::swizzle_row_offset(scale_row, kt_fetch) : nullptr;
    feed.fetch(v, lo, lo + (len / 128) * 512, in && fetch_ok, first, n, lane);
    if (++tile_fetch == S::kTiles) tile_fetch = 0, ++tok_fetch;
  };
  int e_ahead[MOEGEMV_DC_SAHEAD];  // the experts of units v .. v + MOEGEMV_DC_SAHEAD - 1
#pragma unroll
  for (int v = 0; v < MOEGEMV_DC_SAHEAD; ++v) fetch_scales(v), e_ahead[v] = e_fetch;

  // MOEGEMV_DC_EARLY: the first token's routing info before the wait, off the path after it.
  constexpr bool kWarpStage = down_warp_stage<CH, S::kSegs>();
  static_assert(!kAfter || (kHeld && kWarpStage), "dc_safter: held scales, per-warp act staging");
  static_assert(C == 1 || kWarpStage, "dc_cluster: per-warp act staging");
  const int early_tok = MOEGEMV_DC_EARLY && !kWarpStage && begin < end ? begin / S::kTiles : -1;
  if (early_tok >= 0) stage_down_info<K>(p, early_tok, info);
  ptx::griddep_wait();  // act and sact are gate_up's output
  if (MOEGEMV_DC_LAUNCH == 0) ptx::griddep_launch_dependents();
  // This warp's B groups: its segment's act row and the K half of its mma column (split-K). The
  // scale-after form: column g < 4 is the lo half at lane t == g's k only, g >= 4 the hi half at
  // t == g - 4's; every other lane reads the zero row (slot_after.cuh).
  const ptx::U32x4* b = !kAfter       ? bs + seg * (I / 8) + (g == 1 ? len / 16 : 0)
                        : t == g % 4 ? bs + seg * (I / 8) + (g >= 4 ? len / 16 : 0) + 16 * first
                                     : safter_zeros;  // the scale-after form's: at step first
  // The lane's rows in any slot of its ring: run g & 1, row g / 2 of it.
  const unsigned char* lane_slot = slot_mem + (g & 1) * down_run_offset(len) + (g / 2) * (len / 2);
  int tok = begin / S::kTiles - 1, tile = begin % S::kTiles;  // counted: a new token at tile 0
  timeline::WaitSum<8> full_wait(threadIdx.x == 0);       // (diagnostic)
  timeline::WaitSum<10> combiner_wait(threadIdx.x == 0);  // (diagnostic)
  for (int u = begin; u < end; ++u) {
    const int v = u - begin;
    const bool valid = usable(e_ahead[0]);
    if constexpr (!kHeld) feed.ready(valid, n, lane);
    const HeldScales<S::kMax> held = feed.held();  // unit v's (kHeld), before the next fetch
    fetch_scales(v + MOEGEMV_DC_SAHEAD);
#pragma unroll
    for (int k = 0; k + 1 < MOEGEMV_DC_SAHEAD; ++k) e_ahead[k] = e_ahead[k + 1];
    e_ahead[MOEGEMV_DC_SAHEAD - 1] = e_fetch;
    if (u == begin || tile == 0) {
      ++tok;
      constexpr bool kStage = !(MOEGEMV_KNOCK & 512);  // (512: diagnostic, kernel_config.h)
      if constexpr (C > 1) {  // M = 1: the row shared over the cluster, once
        stage_down_act_row<I, SI, K, C, kStage>(p, 0, seg, (warp % CH) * 32 + lane, CH * 32, bs,
                                                 len, act_bars.bar(seg));  // token 0
      } else if constexpr (kWarpStage && CH == 1) {
        if constexpr (kStage) stage_down_act_row<I, SI, K>(p, tok, seg, lane, 32, bs, len);
        __syncwarp();
      } else if constexpr (kWarpStage) {
        const unsigned int bar = kSegmentBar0 + seg, threads = CH * 32;
        ptx::named_barrier(bar, threads);  // the segment's warps are done with the last row
        if constexpr (kStage)
          stage_down_act_row<I, SI, K>(p, tok, seg, (warp % CH) * 32 + lane, threads, bs, len);
        ptx::named_barrier(bar, threads);
      } else {
        ptx::named_barrier(kTokenBar, kAll);  // nobody reads the previous token's act, info any more
        stage_down_act<H, I, SI, K, CH, D>(p, tok, bs);
        if (!MOEGEMV_DC_EARLY || tok != early_tok) stage_down_info<K>(p, tok, info);
        ptx::named_barrier(kTokenBar, kAll);
      }
      if (MOEGEMV_DC_LAUNCH == 1 && u == begin) ptx::griddep_launch_dependents();
      if (u == begin) timeline::mark<2>();
    }
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    full_wait.enter();
    const int index = wait_filled<D>(bars, seg, v);
    full_wait.leave();
    if (u == begin) timeline::mark<3>();
    float share = 0.0f;  // the scale-after form's (units of 2^(kSafterActShift - 132))
    if (valid && !(MOEGEMV_KNOCK & 64)) {  // (64: diagnostic, kernel_config.h)
      const unsigned char* lo = lane_slot + index * S::kSlotBytes;
      if constexpr (kAfter) share = slot_dot_after<kSteps>(lo, lo + len / 4, held, b, first, t);
      else if constexpr (kHeld) slot_dot<CH == 1, kSteps>(lo, lo + len / 4, held, b, first, n, t, c);
      else slot_dot<CH == 1, kSteps>(lo, lo + len / 4, feed.view(v, lane), b, first, n, t, c);
    }
    const float sum = kAfter ? safter_row_sum(share) : ptx::add_rn(c[0], c[3]);  // D[g][0] + D[g+8][1]
    if (u == begin) timeline::mark<5>();
    release(bars, index);
    const RingPos<2> pos(v);
    combiner_wait.enter();
    ptx::mbar_wait(pb.empty(pos.slot), pos.parity ^ 1);  // the combiner has read its last unit
    combiner_wait.leave();
    float* part = parts + pos.slot * (W * 8);
    if (t == 0) part[warp * 8 + row] = sum;
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(pb.full(pos.slot));
    if (u == begin) timeline::mark<4>();
    if (u + 1 == end) timeline::mark<6>();
    if (++tile == S::kTiles) tile = 0;
  }
  if (MOEGEMV_DC_LAUNCH == 2) ptx::griddep_launch_dependents();
}

}  // namespace moegemv
