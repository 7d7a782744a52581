// down_combine with repeated experts grouped (session 12; the launcher runs it from M = MOEGEMV
// config `group` on, at most kDownGroupMaxM tokens). SPEC section 5's numerics, as down_stream.cuh.
//
// The token-major streaming down reads a routed expert once per (token, expert) pair, so at M = 16
// DeepSeek-V3's down reads 1.2x its unique bytes and decodes every pair's weights (session 11, run
// 7). Here a CTA owns a contiguous range of 8-row tiles for all tokens and walks *items*: an
// expert with up to kDownGroupMembers of its pairs (the shared expert: up to that many tokens).
// An item's weight rows are read and decoded once; member n is mma columns 2n, 2n + 1 (its act
// row's two K halves, as column 0 and 1 are in down_stream.cuh), so lane (g, t) ends with member
// t's row sum in D[g][2t] + D[g+8][2t+1].
//
// Items go round-robin to R rings of kDownGroupSlots slots, CH consumer warps each; a ring's
// warps stage their item's member act rows together (named barrier 2 + ring); per unit the
// second warp hands its partial sums to the first through a double buffer (the same barrier),
// which forms SPEC 5's y (the token-major combiner's (0 + a) + b, then alpha2 or the shared
// expert's global scale, rounded to bf16) into the CTA's table y[slot][row] (slot: the pair, or
// M*K + token for the shared expert). After every item, the CTA combines each token's rows.
// (Run 4: the first form, fp32 adds into shared memory, was a CAS loop on sm_90 and its fp32 table
// left DeepSeek-V3 7 rings; the bf16 table fits 8.)
// The producer warp's lane 0 issues every copy in ring order, or (kLanes) lane s fills ring s on
// its own (run 4, Nsight Compute: in ring order, a ring staging its next item holds up the others'
// refills; Qwen3-Next's consumers spent 53% of their stall samples waiting for slots; runs 5-6:
// lanes -15% on GLM-4.5's down at M=16, none on DeepSeek-V3's; down_group_lanes_default). Weights
// and the item table come from ids and weights only, so they start before griddepcontrol.wait
// (SPEC 5).
#pragma once

#include "down_group_params.h"
#include "down_stream.cuh"

namespace moegemv {

// The CTA's item table in shared memory: items[i] = {first member slot, second member slot or -1}.
struct DownGroupIndex {
  int* ids;       // [M*K] ids
  int* second;    // [M*K] a head's second member (-1 none), -2: not a head
  int2* items;
  int* count;     // [0]: items
  float* tw;      // [M*K] router weights (written before gate_up started, SPEC 5)
  float* alpha2;  // [M*K] the pair's expert's alpha2 (0 where skipped or bad)

  // All threads (three barriers): heads are the pairs whose rank among their expert's pairs is a
  // multiple of kDownGroupMembers, in ascending pair order; then the shared expert's tokens,
  // kDownGroupMembers per item (run 6: first instead, DeepSeek-V3's down gained nothing).
  template <int K, int SI>
  __device__ __forceinline__ void build(const DownParams& p) const {
    const int pairs = p.m * K;
    for (int q = threadIdx.x; q < pairs; q += blockDim.x) ids[q] = p.ids[q], tw[q] = p.tw[q];
    __syncthreads();
    for (int q = threadIdx.x; q < pairs; q += blockDim.x) {
      const int e = ids[q];
      int next = -2;
      alpha2[q] = e >= 0 && e < p.e ? p.alpha2[e] : 0.0f;
      if (e >= 0 && e < p.e) {
        int rank = 0;
        for (int x = 0; x < q; ++x) rank += ids[x] == e;
        if (rank % kDownGroupMembers == 0) {
          next = -1;
          for (int x = q + 1; x < pairs && kDownGroupMembers > 1; ++x)
            if (ids[x] == e) {
              next = x;
              break;
            }
        }
      }
      second[q] = next;
    }
    __syncthreads();
    for (int q = threadIdx.x; q < pairs; q += blockDim.x) {
      if (second[q] == -2) continue;
      int index = 0;
      for (int x = 0; x < q; ++x) index += second[x] != -2;
      items[index] = make_int2(q, second[q]);
    }
    if (threadIdx.x == 0) {
      int n = 0;
      for (int x = 0; x < pairs; ++x) n += second[x] != -2;
      for (int t = 0; SI > 0 && t < p.m; t += kDownGroupMembers, ++n)
        items[n] = make_int2(pairs + t, t + 1 < p.m ? pairs + t + 1 : -1);
      *count = n;
    }
    __syncthreads();
  }
};

template <int H, int I, int SI, int K>
struct DownGroupItem {
  static constexpr int kKt = ceil_div(I / 16, 4);
  static constexpr int kKts = ceil_div(SI / 16, 4);
  int2 members;
  bool shared;
  int len;
  const unsigned char* w;
  const unsigned char* sf;
  int kt;

  __device__ __forceinline__ DownGroupItem(const DownParams& p, const DownGroupIndex& index, int item) {
    const int pairs = p.m * K;
    members = index.items[item];
    shared = members.x >= pairs;
    len = shared ? SI : I;
    if (shared) {
      w = p.wsd, sf = p.ssd, kt = kKts;
    } else {
      const long long e = index.ids[members.x];
      w = p.w2 + e * H * (I / 2);
      sf = p.w2_sf + e * ceil_div(H, 128) * kKt * 512;
      kt = kKt;
    }
  }
  __device__ __forceinline__ int count() const { return members.y >= 0 ? 2 : 1; }
  __device__ __forceinline__ int member(int n) const { return n == 0 ? members.x : members.y; }
  // A member's B row: act of its pair, or sact of its token.
  __device__ __forceinline__ const unsigned short* row(const DownParams& p, int slot) const {
    const int pairs = p.m * K;
    return slot < pairs ? p.act + static_cast<long long>(slot) * I
                        : p.sact + static_cast<long long>(slot - pairs) * SI;
  }
};

// A ring's units v = 0, 1, 2, ... in order: item round v / nt and tile v % nt, counted (next()
// after each unit) where MOEGEMV_DC_GCOUNT, so no warp divides by the CTA's tile count per unit;
// else divided where used, as before.
struct GroupUnitWalk {
  static constexpr bool kCount = MOEGEMV_DC_GCOUNT != 0;
  int nt, r, t;
  __device__ __forceinline__ explicit GroupUnitWalk(int tiles) : nt(tiles), r(0), t(0) {}
  __device__ __forceinline__ int round(int v) const { return kCount ? r : v / nt; }
  __device__ __forceinline__ int tile(int v) const { return kCount ? t : v % nt; }
  __device__ __forceinline__ void next() {
    if (kCount && ++t == nt) t = 0, ++r;
  }
};

template <int H, int I, int SI, int K, int R, int CH, bool kLanes>
__device__ __forceinline__ void down_group(const DownParams& p) {
  using S = DownStream<H, I, SI, K, CH, kDownGroupSlots>;
  using Item = DownGroupItem<H, I, SI, K>;
  constexpr int D = kDownGroupSlots, G = kDownGroupMembers, L = down_group_len(I, SI), W = R * CH;
  constexpr int PM = down_group_max_pairs(K);
  static_assert(CH <= 2 && R <= kDownGroupMaxRings && G == 2, "see down_group_params.h");
  static_assert(down_stream_fits(I, SI, K, CH), "I, SI multiples of 256, a step per warp");
  extern __shared__ __align__(16) unsigned char smem[];
  const Barriers bars{ptx::shared_addr(smem), R * D};
  unsigned char* slot_mem = smem + stream_barrier_bytes(2 * R * D);
  ptx::U32x4* act_mem = reinterpret_cast<ptx::U32x4*>(slot_mem + R * D * S::kSlotBytes);
  unsigned int* scratch = reinterpret_cast<unsigned int*>(act_mem + R * G * L / 8);
  int* index_mem = reinterpret_cast<int*>(scratch + W * 32 * S::kMax);
  int* count = index_mem + 2 * PM + 2 * (PM + kDownGroupMaxM);
  const DownGroupIndex index{index_mem, index_mem + PM, reinterpret_cast<int2*>(index_mem + 2 * PM), count,
                             reinterpret_cast<float*>(count + 4), reinterpret_cast<float*>(count + 4) + PM};
  float* handover = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(index_mem) +
                                             down_group_index_bytes(K));  // [R][2][G][8]
  unsigned short* ytab = reinterpret_cast<unsigned short*>(handover + R * 2 * G * 8);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int row = (g & 1) * 4 + g / 2;  // the lane's row of a unit's 8 (down_stream.cuh)

  int tb, te;
  cta_units(S::kTiles, tb, te);
  const int nt = te - tb, rows = down_group_cta_rows(H, gridDim.x), pairs = p.m * K;
  const float gssd = SI > 0 ? *p.gssd : 0.0f;  // a weight: before the PDL wait (SPEC 5)
  if (threadIdx.x == 0) bars.init(CH);
  index.build<K, SI>(p);  // its barriers publish the barriers' init too
  const int items = nt > 0 ? *index.count : 0;
  // Ring s takes items s, s + R, ...; its unit v is item s + R * (v / nt), tile tb + v % nt.
  auto ring_units = [&](int s) { return items > s ? (items - s + R - 1) / R * nt : 0; };

  if (warp == W && !kLanes) {  // producer: lane 0 issues every copy, ring by ring per unit
    const unsigned long long pol = ptx::evict_first_policy();
    const unsigned int slots = ptx::shared_addr(slot_mem);
    GroupUnitWalk walk(nt);
    for (int v = 0; lane == 0 && v < ring_units(0); ++v) {
      for (int s = 0; s < R && v < ring_units(s); ++s) {
        const Item it(p, index, s + R * walk.round(v));
        down_fill_rows<S::kSlotBytes>(bars, slots, true, it.w, (tb + walk.tile(v)) * 8, it.len,
                                      [&] { return wait_free<D>(bars, s, v); }, pol);
      }
      walk.next();
    }
  } else if (warp == W) {  // producer (kLanes): lane s fills ring s on its own
    const unsigned long long pol = ptx::evict_first_policy();
    const unsigned int slots = ptx::shared_addr(slot_mem);
    const int units = lane < R ? ring_units(lane) : 0;
    GroupUnitWalk walk(nt);
    for (int v = 0; __any_sync(0xffffffffu, v < units);) {
      if (v < units) {
        const RingPos<D> pos(v);
        const int slot = lane * D + pos.slot;
        if (ptx::mbar_try_wait_for(bars.empty(slot), pos.parity ^ 1, kProducerPollNs)) {
          const Item it(p, index, lane + R * walk.round(v));
          down_issue<S::kSlotBytes>(bars, slots, slot,
                                    down_copy(it.w, (tb + walk.tile(v)) * 8, it.len, true), pol);
          ++v;
          walk.next();
        }
      }
    }
  } else {  // consumers of ring s
    const int s = warp / CH, units = ring_units(s);
    ptx::U32x4* act = act_mem + s * G * (L / 8);
    ScaleFeed<1, S::kMax> feed{scratch + warp * 32 * S::kMax};
    auto steps = [&](const Item& it, int& first, int& n) {
      split_steps(down_stream_half_steps(it.len), warp % CH, CH, first, n);
    };
    GroupUnitWalk fetch_walk(nt), walk(nt);
    auto fetch_scales = [&](int v) {  // v = 0, 1, 2, ... in order
      if (v >= units) return feed.fetch(v, nullptr, nullptr, false, 0, 0, lane);
      const Item it(p, index, s + R * fetch_walk.round(v));
      int first, n;
      steps(it, first, n);
      const unsigned char* lo =
          it.sf + nvfp4::swizzle_row_offset((tb + fetch_walk.tile(v)) * 8 + row, it.kt);
      feed.fetch(v, lo, lo + (it.len / 128) * 512, true, first, n, lane);
      fetch_walk.next();
    };
    fetch_scales(0);
    ptx::griddep_wait();  // act and sact are gate_up's output
    if (MOEGEMV_DC_LAUNCH != 2) ptx::griddep_launch_dependents();  // SPEC 7: as early as allowed
    for (int v = 0; v < units; ++v) {
      const Item it(p, index, s + R * walk.round(v));
      int first, n;
      steps(it, first, n);
      feed.ready(true, n, lane);
      fetch_scales(v + 1);
      if (walk.tile(v) == 0) {  // a new item: its members' act rows, by the ring's warps
        const int tid = (warp % CH) * 32 + lane, threads = CH * 32, groups = it.len / 8;
        if (CH > 1) ptx::named_barrier(kSegmentBar0 + s, threads);  // the last item's rows are read
        else __syncwarp();
        stage_groups_by(tid, threads, it.count() * groups,
                        [&](int gi) { return it.row(p, it.member(gi / groups)) + 8 * (gi % groups); }, act);
        if (CH > 1) ptx::named_barrier(kSegmentBar0 + s, threads);
        else __syncwarp();
      }
      // Lane column g: member g / 2's act row, K half g % 2 (columns of absent members: member 0).
      const int m = (g >> 1) < it.count() ? g >> 1 : 0;
      const ptx::U32x4* b = act + m * (it.len / 8) + (g & 1) * (it.len / 16);
      float c[4] = {0.f, 0.f, 0.f, 0.f};
      const int slot = wait_filled<D>(bars, s, v);
      const unsigned char* lo = slot_mem + slot * S::kSlotBytes + (g & 1) * down_run_offset(it.len) +
                                (g / 2) * (it.len / 2);
      slot_dot<CH == 1>(lo, lo + it.len / 4, feed.view(v, lane), b, first, n, t, c);
      release(bars, slot);
      // Lane (g, t < members): member t's partial sum of the unit's row `row`.
      const float part = ptx::add_rn(c[0], c[3]);
      float* hand = handover + (s * 2 + (v & 1)) * (G * 8);
      if (CH > 1) {
        if (warp % CH == 1 && t < it.count()) hand[t * 8 + row] = part;
        ptx::named_barrier(kSegmentBar0 + s, CH * 32);
      }
      if (warp % CH == 0 && t < it.count()) {
        float sum = ptx::add_rn(0.0f, part);
        if (CH > 1) sum = ptx::add_rn(sum, hand[t * 8 + row]);
        const int slot_y = it.member(t);
        const float scale = slot_y < pairs ? index.alpha2[slot_y] : gssd;
        ytab[slot_y * rows + walk.tile(v) * 8 + row] =
            ptx::f32_to_bf16(ptx::mul_rn(ptx::mul_rn(sum, nvfp4::kAccUnscale), scale));
      }
      walk.next();
    }
  }
  __syncthreads();

  // SPEC 5's combine of every (token, row) of the CTA from the y table.
  for (int x = threadIdx.x; x < p.m * nt * 8; x += blockDim.x) {
    const int tok = x / (nt * 8), r = x % (nt * 8);
    float acc = 0.0f;
    bool bad = false;
    for (int j = 0; j < K; ++j) {
      const int e = index.ids[tok * K + j];
      bad |= e >= p.e;
      if (e < 0 || e >= p.e) continue;
      acc = ptx::fma_rn(ptx::bf16_to_f32(ytab[(tok * K + j) * rows + r]), index.tw[tok * K + j], acc);
    }
    const float ys = SI > 0 ? ptx::bf16_to_f32(ytab[(pairs + tok) * rows + r]) : 0.0f;
    const unsigned short o = ptx::f32_to_bf16(ptx::add_rn(ptx::bf16_to_f32(ptx::f32_to_bf16(acc)), ys));
    p.out[static_cast<long long>(tok) * H + tb * 8 + r] = bad ? 0x7FC0 : o;
  }
  // MOEGEMV_DC_LAUNCH 2 (dc_launch=2): the next kernel only now. Run 8: the pair with PDL at M = 16
  // 5-6% faster so (DeepSeek-V3 946.6 -> 901.6 us, GLM-4.5 496 -> 465.4), where with the default
  // it is 2-3% slower than without PDL. Not the default: SPEC 7 asks for launch_dependents as
  // early as the kernel allows (a question for the SPEC's owner, docs/NOTES_session12.md).
  if (MOEGEMV_DC_LAUNCH == 2) ptx::griddep_launch_dependents();
}

}  // namespace moegemv
